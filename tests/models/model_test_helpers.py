"""Shared builders for the analytical-model tests: tiny GPUs and random IDGs."""

from __future__ import annotations

import math

import numpy as np

from hypothesis import strategies as st

from pipeperf.hardware.spec import GPUSpec, InstrClass, load_gpu
from pipeperf.idg import IDG, KernelGraph, bundled_kernel
from pipeperf.models.params import kernel_params


def example():
    """The example kernel of Fig. 1 with Table 2's parameters."""
    return kernel_params(bundled_kernel("example"), load_gpu("example_table2"))


def two_class_gpu(lam_c: float, Lam_c: float, lam_m: float, Lam_m: float, il: float = math.inf) -> GPUSpec:
    return GPUSpec("toy", 1, 1.0, il, {"comp": InstrClass("comp", "alu", lam_c, Lam_c),
                                         "mem": InstrClass("mem", "mem", lam_m, Lam_m)},
                   max_warps_per_core=256, max_groups_per_core=256)


def chain_kernel(classes: list[str], name: str = "chain") -> KernelGraph:
    """Every instruction depends on the previous one (no ILP)."""
    ids = [f"i{k}" for k in range(len(classes))]
    deps = [[]] + [[ids[k - 1]] for k in range(1, len(classes))]
    return KernelGraph.single(IDG.from_nodes(name, ids, classes, deps))


@st.composite
def random_kernel(draw, classes=("comp", "sfu", "mem"), max_nodes: int = 12, barriers: bool = False):
    """A random IDG: each node depends on a random subset of the few nodes before it."""
    n = draw(st.integers(2, max_nodes))
    pool = list(classes) + (["bar"] if barriers else [])
    cls = [draw(st.sampled_from(pool)) for _ in range(n)]
    ids = [f"n{k}" for k in range(n)]
    deps = []
    for k in range(n):
        window = list(range(max(0, k - 4), k))
        chosen = [j for j in window if draw(st.booleans())]
        deps.append([ids[j] for j in chosen])
    return KernelGraph.single(IDG.from_nodes("random", ids, cls, deps, [c == "bar" for c in cls]))


@st.composite
def random_gpu(draw, integer: bool = True):
    """A GPU with ALU, SFU, memory (and barrier) classes; latencies >= CPIs."""
    if integer:
        lam = lambda: draw(st.integers(1, 4))
        Lam = lambda lo: draw(st.integers(max(1, int(lo)), 24))
    else:
        lam = lambda: draw(st.sampled_from([0.25, 0.5, 0.75, 1.0, 1.75, 2.0, 3.0]))
        Lam = lambda lo: draw(st.sampled_from([x for x in (1.0, 4.0, 6.5, 12.0, 28.5) if x >= lo]))
    out = {}
    for name, sub in (("comp", "alu"), ("sfu", "sfu"), ("mem", "mem"), ("bar", "barrier")):
        cpi = lam()
        out[name] = InstrClass(name, sub, float(cpi), float(Lam(cpi)))
    il = draw(st.sampled_from([1.0, 2.0, 4.0, math.inf]))
    return GPUSpec("random", 1, 1.0, il, out, max_warps_per_core=256, max_groups_per_core=256)


def random_timed_idgs(seed: int, count: int, max_nodes: int, mem_share: float, bar_share: float = 0.0):
    """``count`` random (IDG, NodeTiming) pairs for comparing an implementation with its plain
    reference: DAGs whose nodes depend on 0-3 earlier ones, a ``mem_share`` of memory nodes and a
    ``bar_share`` of barriers, issue costs 0.5-8 and latencies 1-500 cycles, one class."""
    from pipeperf.models.params import NodeTiming

    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(0, max_nodes))
        deps = [sorted(set(rng.integers(0, i, int(rng.integers(0, 4))).tolist())) if i else [] for i in range(n)]
        ptr = np.r_[0, np.cumsum([len(d) for d in deps])].astype(np.int64)
        idx = np.array([d for ds in deps for d in ds], np.int64)
        r = rng.random(n)
        mem, bar = r < mem_share, (r >= mem_share) & (r < mem_share + bar_share)
        idg = IDG.from_arrays("g", ("c",), np.zeros(n, np.int64), ptr, idx, barrier=bar)
        yield idg, NodeTiming(rng.uniform(0.5, 8, n), rng.uniform(1, 500, n), np.zeros(n, np.int64), mem, bar,
                              ("alu",))
