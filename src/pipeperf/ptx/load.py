"""From a kernel file to a parsed :class:`~pipeperf.ptx.ir.Module`: the one place a ``.cu`` file
becomes PTX (nvcc, :func:`pipeperf.ptx.compile.compile_cu`, cached) and a ``.ptx`` file is read.

A compiled module's ``file`` is the ``.cu`` path (what :mod:`pipeperf.ptx.source_map` and the
messages name); parse errors in nvcc's output name the ``.cu`` and the target.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Sequence

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Module


def compiled_label(path: str | Path, arch: str) -> str:
    """How nvcc's PTX of ``path`` is named where the PTX, not the source, is meant."""
    return f"{path} (nvcc -arch={arch})"


def compile_module(path: str | Path, arch: str | None = None, nvcc_flags: Sequence[str] = ()) -> tuple[Module, str]:
    """Compile a ``.cu`` file to PTX for ``arch`` (default :data:`~pipeperf.ptx.compile.DEFAULT_ARCH`)
    with ``nvcc_flags`` and parse it: (the module, the PTX text)."""
    from pipeperf.ptx.compile import DEFAULT_ARCH, compile_cu
    from pipeperf.ptx.parser import parse_ptx

    arch = arch or DEFAULT_ARCH
    text = compile_cu(path, arch, extra_args=tuple(nvcc_flags))
    module = parse_ptx(text, compiled_label(path, arch))
    module.file = str(path)
    return module, text


def load_module(path: str | Path | Module, arch: str | None = None, nvcc_flags: Sequence[str] = ()) -> Module:
    """Parse a ``.ptx`` file, or compile a ``.cu`` file with nvcc first (:func:`compile_module`);
    a Module is returned as it is."""
    from pipeperf.ptx.parser import parse_file

    if isinstance(path, Module):
        return path
    p = Path(path)
    if not p.exists():
        raise PipeperfError(f"no such file: {p}")
    if p.suffix == ".cu":
        return compile_module(p, arch, nvcc_flags)[0]
    return parse_file(str(p))
