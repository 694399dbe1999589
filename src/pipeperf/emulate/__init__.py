"""SIMT emulator of PTX (full mode) and hybrid PTX analysis (HyPA, Sec. III).

Typical use::

    from pipeperf.emulate import run_kernel, profile
    prof = run_kernel("saxpy.ptx", grid=4, block=256, args=[n, a, x, y])  # x, y updated
    print(prof.to_dict()["branch_efficiency"])
    prof = profile("saxpy.cu", grid="4096", block="256",
                   args=["n=1048576", "a=2", "x=rand:f32:1048576", "y=zeros:f32:1048576"],
                   mode="hybrid")
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pipeperf.emulate.launch import Launch, bind_args, cuda_param_names, dim3
from pipeperf.emulate.profile import CSV_COLUMNS, Profile, csv_text
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function, Module


def load_module(path: str | Path | Module, arch: str | None = None) -> Module:
    """Parse a ``.ptx`` file, or compile a ``.cu`` file with nvcc first."""
    from pipeperf.ptx import parse_file, parse_ptx

    if isinstance(path, Module):
        return path
    p = Path(path)
    if not p.exists():
        raise PipeperfError(f"no such file: {p}")
    if p.suffix == ".cu":
        from pipeperf.ptx.compile import compile_cu

        text = compile_cu(p, arch=arch) if arch else compile_cu(p)
        m = parse_ptx(text)
        m.file = str(p)
        return m
    return parse_file(str(p))


def select_kernel(module: Module, name: str | None) -> Function:
    ks = module.kernels
    if not ks:
        raise PipeperfError("no .entry kernel in the module", file=module.file)
    if name is None:
        if len(ks) > 1:
            raise PipeperfError("several kernels (" + ", ".join(k.name for k in ks)
                                + "): choose one with --kernel", file=module.file)
        return ks[0]
    for k in ks:
        if k.name == name:
            return k
    raise PipeperfError(f"no kernel {name!r} (kernels: " + ", ".join(k.name for k in ks) + ")",
                        file=module.file)


def run_kernel(path: str | Path | Module, grid: Any, block: Any, args: Any,
               kernel: str | None = None, shared: int = 0, mode: str = "full",
               max_steps: int = 10_000_000, batch_threads: int = 1 << 18,
               trace_warps: int = 0, arch: str | None = None, memory: bool = True) -> Profile:
    """Emulate one launch. NumPy arrays in ``args`` are device buffers and receive the
    kernel's writes (in full mode); returns the :class:`Profile`. ``memory=False`` (hybrid
    only) skips address computation: fewer instructions, memory statistics ``None``."""
    from pipeperf.emulate.machine import Machine
    from pipeperf.emulate.profile import build_profile

    module = load_module(path, arch)
    func = select_kernel(module, kernel)
    aliases: list[str] = []
    if module.file and str(module.file).endswith(".cu"):
        aliases = cuda_param_names(Path(module.file).read_text(errors="replace"), func.name)
    values, names = bind_args(func, args, file=module.file, aliases=aliases)
    launch = Launch(dim3(grid, "grid"), dim3(block, "block"), values, names, int(shared))
    from pipeperf.emulate.machine import HybridFallback

    t0 = time.perf_counter()
    kw = dict(mode=mode, max_steps=max_steps, batch_threads=batch_threads,
              trace_warps=trace_warps, memory=memory)
    fallback = False
    try:
        m = Machine(module, func, launch, optimistic=True, **kw)
        m.run()
    except HybridFallback:
        fallback = True
        m = Machine(module, func, launch, optimistic=False, **kw)
        m.run()
    prof = build_profile(m, time.perf_counter() - t0)
    prof.counts["hybrid_fallback"] = fallback
    return prof


def profile(path: str | Path, grid: Any = None, block: Any = None, args: Any = (),
            kernel: str | None = None, mode: str = "full", shared: int = 0,
            **kw: Any) -> Profile:
    """The roofline CLI's entry point: counts of one launch of ``kernel`` in ``path``."""
    if grid is None or block is None:
        raise PipeperfError("profiling needs --grid and --block")
    return run_kernel(path, grid, block, list(args or []), kernel=kernel, shared=shared,
                      mode=mode, **kw)


__all__ = ["CSV_COLUMNS", "Launch", "Profile", "csv_text", "load_module", "profile",
           "run_kernel", "select_kernel"]
