"""Instruction Dependence Graphs: the data structure, file I/O and the paper's kernels."""

from pipeperf.idg.graph import IDG
from pipeperf.idg.io import load_kernel
from pipeperf.idg.kernel_graph import KernelGraph, WarpClass
from pipeperf.idg.paper_kernels import BUNDLED, bundled_kernel

__all__ = ["IDG", "KernelGraph", "WarpClass", "load_kernel", "bundled_kernel", "BUNDLED"]
