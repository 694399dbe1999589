"""The code each GPU is analysed from: without ``--arch``, a ``.cu`` file is built for each GPU's
own target (:func:`pipeperf.ptx.compile.target_for`: its compute capability where nvcc builds
for it, else the nearest target nvcc has), once per distinct target; ``--arch`` or a ``.ptx``
file is one build for every GPU.

A build's PTX is emulated and its ``ptxas -v`` registers set the occupancy, so a V100 is analysed
from sm_75 code (no ``cp.async``) and an A100 from sm_80 code. Builds whose PTX differs only in its
``.target`` line share one emulation (:attr:`Build.code_key`): most kernels compile to the same
instructions for every target, and then the per-GPU builds cost only their (cached) compiles.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Module

_HEADER_RE = re.compile(r"^\s*(?:\.target\s.*|//.*)$", re.M)


@dataclass
class Build:
    """One compile of the launch's file: its ``target`` ('' for a ``.ptx`` file, which keeps its
    own), the parsed module, ptxas' resources per kernel and what the report says of it."""

    target: str
    module: Module
    resources: dict[str, dict[str, int]]
    code_key: str           # hash of the PTX without its .target line and comments
    note: str = ""          # e.g. "from a build for sm_75 (nvcc's nearest target to cc 7.0)"
    ptx: str = ""           # the PTX text (what ptxas compiles to SASS)
    ptxas_flags: tuple[str, ...] = ()   # ptxas options of the nvcc flags (compile.ptxas_options)

    def sass_view(self, func):
        """The SASS of kernel ``func`` for this build's target against its PTX
        (:class:`~pipeperf.analyze.sass_trace.SassView`); a PipeperfError says why there is none."""
        from pipeperf.analyze.sass_trace import build_view
        from pipeperf.sass.disassemble import sass_listing
        from pipeperf.sass.listing import parse_listing

        target = self.target or _target_of_text(self.ptx)
        funcs = parse_listing(sass_listing(self.ptx, target, options=self.ptxas_flags))
        if func.name not in funcs:
            raise PipeperfError(f"SASS timing: nvdisasm listed no function '{func.name}'")
        return build_view(funcs[func.name], func, self.module.files)

    def capped_resources(self, name: str, max_registers: int) -> dict[str, int]:
        """ptxas' resources of kernel ``name`` built with ``--maxrregcount=N`` on top of this build's
        options (the PTX is the same: nvcc's -maxrregcount only reaches ptxas), for advice that
        recommends the cap; {} where ptxas reports none."""
        target = self.target or _target_of_text(self.ptx)
        flags = [f for f in self.ptxas_flags if not f.startswith("--maxrregcount")]
        return ptx_resources(self.ptx, target, options=(*flags, f"--maxrregcount={max_registers}")).get(name, {})

    def kernel_resources(self, name: str, path: Path) -> dict[str, int]:
        if name not in self.resources:
            raise PipeperfError(f"ptxas reported no resources for kernel '{name}'", file=str(path))
        return self.resources[name]


class Builds:
    """The launch file's builds, made on demand and at most once per target."""

    def __init__(self, path: Path, arch: str | None, nvcc_flags: list[str],
                 compiled: Mapping[str, tuple[str, dict[str, dict[str, int]]]] | None = None):
        """``compiled``: target -> (PTX text, ptxas' resources) already made (by ``pipeperf tune``'s
        compile task, once for all the variants and GPUs that share them); other targets compile here."""
        from pipeperf.ptx.compile import DEFAULT_ARCH, ptxas_options

        self.path, self.arch, self.flags = path, arch, list(nvcc_flags)
        self.ptxas_flags = tuple(ptxas_options(self.flags))
        self.per_gpu = path.suffix == ".cu" and arch is None
        self._by_target: dict[str, Build] = {}
        self._compiled = dict(compiled or {})
        if path.suffix == ".cu" and not path.is_file():
            raise PipeperfError(f"no such file: {path}")
        self.default = self._build(arch or DEFAULT_ARCH) if path.suffix == ".cu" else self._ptx_file()

    def for_gpu(self, spec) -> Build:
        """The build ``spec`` is analysed from, its note saying which target and why."""
        from pipeperf.ptx.compile import target_for

        if not self.per_gpu:
            return self.default
        cc = str(getattr(spec, "compute_capability", "") or "")
        if not cc:
            b = self.default
            return _noted(b, f"from a build for {b.target} (no compute capability: the default target)")
        target = target_for(cc)
        b = self._build(target)
        own = f"sm_{cc.replace('.', '')}"
        why = "its own target" if target == own else f"nvcc builds no {own}: the nearest target it has"
        return _noted(b, f"from a build for {target} ({why})")

    def _build(self, target: str) -> Build:
        from pipeperf.ptx.load import compile_module, compiled_label
        from pipeperf.ptx.parser import parse_ptx

        if target not in self._by_target:
            if target in self._compiled:
                text, res = self._compiled[target]
                module = parse_ptx(text, compiled_label(self.path, target))
                module.file = str(self.path)
            else:
                module, text = compile_module(self.path, target, self.flags)
                res = ptx_resources(text, target, self.path.stem, self.ptxas_flags)
            self._by_target[target] = Build(target, module, res, _code_key(text), ptx=text,
                                            ptxas_flags=self.ptxas_flags)
        return self._by_target[target]

    def _ptx_file(self) -> Build:
        from pipeperf.ptx.compile import ptxas_resources
        from pipeperf.ptx.load import load_module

        module = load_module(self.path, self.arch)
        res = ptxas_resources(self.path, self.arch, options=self.ptxas_flags)
        text = self.path.read_text(errors="replace")
        return Build(self.arch or "", module, res, _code_key(text), ptx=text, ptxas_flags=self.ptxas_flags)


def ptx_resources(text: str, target: str, stem: str = "kernel",
                  options: tuple[str, ...] = ()) -> dict[str, dict[str, int]]:
    """ptxas' resources per kernel of PTX ``text`` built for ``target`` with ptxas ``options``
    (:func:`~pipeperf.ptx.compile.ptxas_options` of the nvcc flags; ptxas reads a file)."""
    from pipeperf.ptx.compile import ptxas_resources

    with tempfile.TemporaryDirectory() as d:
        ptx = Path(d) / (stem + ".ptx")
        ptx.write_text(text)
        return ptxas_resources(ptx, target, options=options)


def _noted(b: Build, note: str) -> Build:
    from dataclasses import replace

    return replace(b, note=note)


def _target_of_text(ptx: str) -> str:
    m = re.search(r"^\s*\.target\s+(sm_\d+[a-z]?)", ptx, re.M)
    if not m:
        raise PipeperfError("SASS timing: the PTX names no .target")
    return m.group(1)


def _code_key(ptx: str) -> str:
    return hashlib.sha256(_HEADER_RE.sub("", ptx).encode()).hexdigest()
