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
from typing import TYPE_CHECKING
from collections.abc import Mapping

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Module

if TYPE_CHECKING:
    from pipeperf.analysis.sass_trace import SassView
    from pipeperf.hardware.spec import GPUSpec
    from pipeperf.ptx.ir import Function

_HEADER_RE = re.compile(r"^\s*(?:\.target\s.*|//.*)$", re.M)
_LAUNCH_BOUNDS_LINE_RE = re.compile(r"^\s*\.(?:maxntid|minnctapersm)\s[^\n]*$", re.M)


#: target -> (PTX text, ptxas' resources per kernel) compiled already (``pipeperf tune``'s compile task)
CompiledPTX = Mapping[str, tuple[str, dict[str, dict[str, int]]]]


@dataclass(frozen=True)
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

    def sass_view(self, func: Function) -> SassView:
        """The SASS of kernel ``func`` for this build's target against its PTX
        (:class:`~pipeperf.analysis.sass_trace.SassView`); a PipeperfError says why there is none."""
        from pipeperf.analysis.sass_trace import build_view
        from pipeperf.sass.disassemble import sass_listing
        from pipeperf.sass.listing import parse_listing

        target = self.target or _target_of_text(self.ptx)
        key = (self.ptx, target, self.ptxas_flags, func.name, tuple(sorted(self.module.files.items())))
        hit = _VIEWS.get(key)
        if hit is not None:
            return hit
        funcs = parse_listing(sass_listing(self.ptx, target, options=self.ptxas_flags))
        if func.name not in funcs:
            raise PipeperfError(f"SASS timing: nvdisasm listed no function '{func.name}'")
        view = build_view(funcs[func.name], func, self.module.files)
        if len(_VIEWS) >= _PARSED_SIZE:
            _VIEWS.pop(next(iter(_VIEWS)))
        _VIEWS[key] = view
        return view

    def capped_resources(self, name: str, max_registers: int) -> dict[str, int]:
        """ptxas' resources of kernel ``name`` built with ``--maxrregcount=N`` on top of this build's
        options (the PTX is the same: nvcc's -maxrregcount only reaches ptxas), for advice that
        recommends the cap; {} where ptxas reports none. The PTX's ``.maxntid``/``.minnctapersm``
        (``__launch_bounds__``) are dropped: ptxas lets them override ``-maxrregcount``."""
        target = self.target or _target_of_text(self.ptx)
        flags = [f for f in self.ptxas_flags if not f.startswith("--maxrregcount")]
        ptx = _LAUNCH_BOUNDS_LINE_RE.sub("", self.ptx)
        return ptx_resources(ptx, target, options=(*flags, f"--maxrregcount={max_registers}")).get(name, {})

    def capped(self, name: str, max_registers: int) -> Build:
        """This build with ptxas capped at ``max_registers`` (its resources, its SASS), its PTX
        without the launch bounds that would override the cap."""
        from dataclasses import replace

        flags = (*(f for f in self.ptxas_flags if not f.startswith("--maxrregcount")), f"--maxrregcount={max_registers}")
        res = dict(self.resources, **{name: self.capped_resources(name, max_registers)})
        return replace(self, ptx=_LAUNCH_BOUNDS_LINE_RE.sub("", self.ptx), ptxas_flags=flags, resources=res,
                       note=self.note + f"; built with -maxrregcount={max_registers}")

    def kernel_resources(self, name: str, path: Path) -> dict[str, int]:
        if name not in self.resources:
            raise PipeperfError(f"ptxas reported no resources for kernel '{name}'", file=str(path))
        return self.resources[name]


#: modules parsed from PTX handed in (``compiled``), by (text, label, file): a tuning run's variants
#: that share a compile share its texts, and parsing and checking one costs ~30 ms per target
_PARSED: dict[tuple[str, str, str], Module] = {}
_PARSED_SIZE = 8
#: SASS views (:meth:`Build.sass_view`) by (PTX text, target, ptxas flags, kernel, files), as many as
#: ``_PARSED`` keeps: a view depends on those alone (PTX pcs and source lines, no object of one
#: analysis), and a tuning run's variants of one compile share it (the README's tune example built
#: 84 views, ~0.26 s each profiled, for 9 distinct ones)
_VIEWS: dict[tuple[object, ...], SassView] = {}


def _parsed(text: str, label: str, file: str) -> Module:
    """The module of ``text`` (parsed once while among the last few asked for). Shared between
    analyses: nothing downstream writes to a parsed module, its functions or instructions."""
    from pipeperf.ptx.parser import parse_ptx

    key = (text, label, file)
    hit = _PARSED.get(key)
    if hit is None:
        hit = parse_ptx(text, label)
        hit.file = file
        if len(_PARSED) >= _PARSED_SIZE:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = hit
    return hit


class Builds:
    """The launch file's builds, made on demand and at most once per target."""

    def __init__(self, path: Path, arch: str | None, nvcc_flags: list[str],
                 compiled: CompiledPTX | None = None):
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

    def for_gpu(self, spec: GPUSpec) -> Build:
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
        b = _noted(b, f"from a build for {target} ({why})")
        return _launch_bounds_for(b, cc, own) if target != own else b

    def _build(self, target: str) -> Build:
        from pipeperf.ptx.load import compile_module, compiled_label

        if target not in self._by_target:
            if target in self._compiled:
                text, res = self._compiled[target]
                module = _parsed(text, compiled_label(self.path, target), str(self.path))
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


_BOUNDS_RE = re.compile(r"\.entry\s+([\w$.]+)[^{]*?\.maxntid\s+(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*"
                        r"\.minnctapersm\s+(\d+)", re.S)


def _launch_bounds_for(b: Build, cc: str, own: str) -> Build:
    """``b`` (a build for a target other than the GPU's ``own``) with the registers a build for
    ``own`` would have where ptxas ignored a kernel's ``__launch_bounds__(threads, minBlocks)``
    for the build's target (Turing's SM holds 1024 threads, Volta's 2048): the build capped with
    ``-maxrregcount`` at the most registers that let ``minBlocks`` blocks fit on a cc ``cc`` SM,
    as ptxas does for its own target. Why: else a V100 (sm_70, which nvcc 13 no longer builds)
    is analysed with registers its real build would not have."""
    from pipeperf.hardware.occupancy import LIMITS, occupancy

    if cc not in LIMITS or not any(r.get("minnctapersm_ignored") for r in b.resources.values()):
        return b
    resources, notes = dict(b.resources), [b.note]
    for name, x, y, z, min_blocks in _BOUNDS_RE.findall(b.ptx):
        r = resources.get(name, {})
        if not r.get("minnctapersm_ignored"):
            continue
        threads, want = int(x) * int(y) * int(z), int(min_blocks)
        cap = next((c for c in range(int(r.get("registers", 0)), 15, -1)
                    if occupancy(cc, threads, c, int(r.get("shared_bytes", 0)), 0).blocks_per_sm >= want), None)
        if cap is None or cap >= int(r.get("registers", 0)):
            continue
        try:
            capped = b.capped_resources(name, cap)
        except PipeperfError:
            continue
        resources[name] = dict(capped, launch_bounds_cap=cap)
        notes.append(f"ptxas ignores {name}'s __launch_bounds__({threads}, {want}) for {b.target} (its SM "
                     f"holds fewer threads); a build for {own} honours it, so the registers are {b.target}'s "
                     f"built with -maxrregcount={cap}: {capped.get('registers', cap)} (approximates {own}'s ptxas)")
    from dataclasses import replace

    return replace(b, resources=resources, note="; ".join(notes))


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
