"""Argument helpers shared by the CLI commands: kernel (IDG file or bundled) and GPU selection."""

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
                   help="GPU name (see 'pipeperf gpu list') or spec YAML; a bundled kernel has a default")


def resolve_kernel(args: argparse.Namespace) -> tuple[KernelGraph, GPUSpec]:
    kernel, default_gpu = load_kernel_arg(args.idg, args.param)
    return kernel, resolve_gpu(args.gpu, default_gpu)


def load_kernel_arg(text: str, params: list[str]) -> tuple[KernelGraph, str | None]:
    """A kernel from a file or a bundled name; also the bundled kernel's default GPU."""
    p = Path(text)
    if p.suffix.lower() in (".yaml", ".yml", ".json") or p.exists():
        if params:
            raise PipeperfError("--param applies to bundled kernels only", file=text)
        return load_kernel(p), None
    if text not in BUNDLED:
        raise PipeperfError(f"no such file, and not a bundled kernel ({', '.join(BUNDLED)})", file=text)
    parsed = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise PipeperfError(f"--param expects KEY=VALUE, got '{item}'")
        parsed[key.strip()] = value.strip()
    return bundled_kernel(text, parsed), BUNDLED[text][1]


def resolve_gpu(arg: str | None, default: str | None) -> GPUSpec:
    if arg:
        return load_gpu(arg)
    if default:
        return load_gpu(default)
    raise PipeperfError("--gpu NAME|FILE is required for an IDG file")


