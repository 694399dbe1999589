"""Argument helpers shared by the CLI commands (kernel and GPU selection)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import GPUSpec, load_gpu
from pipeperf.idg import BUNDLED, KernelGraph, bundled_kernel, load_kernel


def add_kernel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("idg", metavar="IDG",
                   help=f"IDG file (YAML/JSON) or a bundled kernel: {', '.join(BUNDLED)}")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="parameter of a bundled kernel (e.g. beta=4, n=256)")
    p.add_argument("--gpu", metavar="NAME|FILE",
                   help="bundled GPU name (see 'pipeperf gpu list') or spec YAML; a bundled kernel has a default")


def resolve_kernel(args: argparse.Namespace) -> tuple[KernelGraph, GPUSpec]:
    params = {}
    for item in args.param:
        if "=" not in item:
            raise PipeperfError(f"bad --param '{item}': expected KEY=VALUE")
        k, v = item.split("=", 1)
        params[k.strip()] = v.strip()
    if args.idg in BUNDLED and not Path(args.idg).exists():
        kernel = bundled_kernel(args.idg, params)
        gpu_name = args.gpu or BUNDLED[args.idg][1]
    else:
        if params:
            raise PipeperfError("--param applies to bundled kernels only")
        kernel = load_kernel(args.idg)
        if not args.gpu:
            raise PipeperfError("--gpu is required for an IDG file")
        gpu_name = args.gpu
    return kernel, load_gpu(gpu_name)
