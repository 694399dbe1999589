"""The two tasks a worker runs, on plain picklable records: compile a source with one set of
flags for every target its GPUs need (:func:`compile_unit`), and analyse one launch on its GPUs
from that compile (:func:`analyze_job`).

Why two: the variants that differ only in their launch (block shape, grid, shared memory,
arguments) share one compile, and every GPU of a variant shares it too; on Dask the analysis
tasks depend on their compile task's result (a few tens of KB of PTX and ptxas' resources), so
each distinct compile runs once per tune, wherever its analyses run. Neither task raises for a
variant that cannot be built or launched: each returns the reason as data, so a tune lists every
variant, and an exception left for Dask means a bug (or a dead worker, which Dask re-runs).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.tune.sources import SourceBundle

#: statuses of an outcome: analysed, not compiled, not launchable, failed otherwise (a bug), and
#: (set by the space, never by a worker) excluded by a constraint
OK, COMPILE, LAUNCH, ERROR, EXCLUDED = "ok", "compile", "launch", "error", "excluded"


@dataclass(frozen=True)
class CompileUnit:
    """One source with one set of flags and template arguments, for ``targets``."""

    id: str
    source: SourceBundle | None        # None: a .ptx file, analysed as it is
    path: str                          # the user's file
    kernel: str | None
    template: tuple[str, ...]
    flags: tuple[str, ...]
    targets: tuple[str, ...]


@dataclass
class Compiled:
    """What :func:`compile_unit` made: target -> (PTX, ptxas' resources), or target -> error."""

    unit: str
    ok: dict[str, tuple[str, dict[str, dict[str, int]]]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass(frozen=True)
class Job:
    """One launch to analyse on ``gpus`` (those the cache lacks), from compile unit ``unit``."""

    id: str
    unit: CompileUnit
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    args: tuple[str, ...]
    gpus: tuple[str, ...]
    options: dict[str, Any]            # analyze() keywords: trace_warps, mode, ...


@dataclass
class Outcome:
    """One launch on one GPU: the prediction, or why there is none. Plain data (JSON), cached."""

    gpu: str
    status: str                        # OK, COMPILE, LAUNCH, ERROR (EXCLUDED by the space)
    reason: str = ""
    seconds: float | None = None       # the Pipeline model's kernel time
    cycles: float | None = None
    bound: str = ""                    # Bound.by: a subsystem, "issue limit" or "latency"
    bound_text: str = ""               # the headline's bound in words
    occupancy: float | None = None     # theoretical, fraction of the SM
    warps_per_sm: int | None = None    # resident in the simulation
    blocks_per_sm: int | None = None
    limited_by: str = ""
    registers: int | None = None
    static_shared: int | None = None
    gflops: float | None = None
    dram_gbs: float | None = None
    analysis_seconds: float = 0.0      # this GPU's share of the analysis' wall time
    phase_spread: float | None = None  # with phase_check: the time's spread at +-1 % DRAM/L2 bandwidth (lockstep)
    launch_overhead: float | None = None   # the GPU's fixed cost per launch, s (database launch.overhead_us), or None
    hypa: dict[str, float] | None = None   # HyPA's metrics of the launch (emulate.profile.hypa_metrics)
    dram_bytes: float | None = None    # DRAM read + write bytes (mapper g's cache model of this GPU)

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Outcome:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


def warm_up() -> int:
    """Import what the tasks need (run on every worker when a run starts, so that their first
    tasks do not pay for the imports and the start-up time says what starting cost); the pid."""
    import os

    import pipeperf.analysis
    import pipeperf.emulate
    import pipeperf.idg.build
    import pipeperf.report.headline
    import pipeperf.simulate.simulator  # noqa: F401

    return os.getpid()


def compile_unit(unit: CompileUnit) -> Compiled:
    """PTX and ptxas' resources for each target of ``unit`` (nvcc's own on-disk cache makes a
    repeated compile free); a target that fails keeps nvcc's message."""
    from pipeperf.analysis.builds import ptx_resources
    from pipeperf.ptx.compile import compile_cu, ptxas_options
    from pipeperf.tune.sources import materialize

    t0 = time.perf_counter()
    out = Compiled(unit.id)
    if unit.source is None:
        return out
    try:
        path = materialize(unit.source, unit.kernel, unit.template)
    except PipeperfError as e:
        out.errors = dict.fromkeys(unit.targets, e.message)
        return out
    for target in unit.targets:
        try:
            text = compile_cu(path, arch=target, extra_args=unit.flags)
            out.ok[target] = (text, ptx_resources(text, target, path.stem,
                                                         tuple(ptxas_options(unit.flags))))
        except PipeperfError as e:
            out.errors[target] = e.message
    out.seconds = time.perf_counter() - t0
    return out


def analyze_job(job: Job, compiled: Compiled) -> list[Outcome]:
    """Every GPU of ``job`` analysed together (one emulation per distinct PTX, as ``analyze``
    does); a GPU whose target did not compile, or whose occupancy rules refuse the block, gets
    its reason; should the joint analysis fail, each GPU is analysed alone so that the failure
    is charged to the GPU it belongs to."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.ptx.compile import DEFAULT_ARCH, target_for
    from pipeperf.tune.sources import materialize

    unit = job.unit
    out: dict[str, Outcome] = {}
    todo = []
    targets: dict[str, str] = {}
    path = Path(unit.path)
    if unit.source is not None:
        try:
            path = materialize(unit.source, unit.kernel, unit.template)
        except PipeperfError as e:
            return [Outcome(g, COMPILE, e.message) for g in job.gpus]
    for gpu in job.gpus:
        spec = load_gpu(gpu)
        cc = str(getattr(spec, "compute_capability", "") or "")
        target = targets[gpu] = target_for(cc) if cc else DEFAULT_ARCH
        failed = compiled.errors.get(DEFAULT_ARCH) or compiled.errors.get(target)
        if unit.source is not None and failed:
            out[gpu] = Outcome(gpu, COMPILE, failed)
            continue
        refused = _refused(spec, compiled.ok.get(target), unit.kernel, job)
        if refused:
            out[gpu] = Outcome(gpu, LAUNCH, refused)
            continue
        todo.append(gpu)
    if todo:
        try:
            out.update(_analyze(job, compiled, path, todo, targets))
        except PipeperfError:
            for gpu in todo:
                try:
                    out.update(_analyze(job, compiled, path, [gpu], targets))
                except PipeperfError as e:
                    out[gpu] = Outcome(gpu, LAUNCH, e.message)
    return [out[g] for g in job.gpus]


def _refused(spec, built: tuple[str, dict] | None, kernel: str | None, job: Job) -> str:
    """Why the occupancy rules refuse the block on ``spec`` (too many registers or too much
    shared memory for one block), before any emulation; '' when they do not or cannot say."""
    from pipeperf.hardware.occupancy import resident_blocks

    if built is None:
        return ""
    resources = built[1]
    if len(resources) != 1:
        return ""                    # several kernels: which one is the analysis' business
    own = next(iter(resources.values()))
    threads = job.block[0] * job.block[1] * job.block[2]
    try:
        resident_blocks(spec, -(-threads // spec.warp_size), threads, own, job.shared)
    except PipeperfError as e:
        return e.message
    return ""


def _overhead(gpu: str) -> float | None:
    """The database's launch overhead of ``gpu`` in seconds (None where it has none)."""
    from pipeperf.hardware.spec import load_gpu

    us = (getattr(load_gpu(gpu), "launch", None) or {}).get("overhead_us")
    return None if us is None else float(us) * 1e-6


def _analyze(job: Job, compiled: Compiled, path: Path, gpus: list[str],
             targets: dict[str, str]) -> dict[str, Outcome]:
    from pipeperf.analysis import analyze
    from pipeperf.report.headline import headline

    unit = job.unit
    t0 = time.perf_counter()
    a = analyze(path, job.grid, job.block, list(job.args), gpus, kernel=unit.kernel, shared=job.shared,
                nvcc_flags=list(unit.flags), compiled=compiled.ok or None, what_if=False, models=False,
                source_lines=False, trim_heap=False,
                **job.options)
    share = (time.perf_counter() - t0) / max(1, len(gpus))
    out = {}
    for gpu, p in zip(gpus, a.predictions):         # in the order asked (a spec may rename an alias)
        h = headline(p)
        res = a.resources
        built = compiled.ok.get(targets.get(gpu, ""))
        if built is not None and p.kernel in built[1]:
            res = built[1][p.kernel]                 # this GPU's build: its own registers
        out[gpu] = Outcome(gpu, OK, "", float(p.seconds), float(p.cycles), p.bound_by, h.bound_text,
                           float(p.occupancy), int(p.blocks_per_sm * p.warps_per_block), int(p.blocks_per_sm),
                           p.limited_by, int(res.get("registers", 0)), int(res.get("shared_bytes", 0)),
                           h.gflops, h.dram_gbs, share,
                           p.phase_sensitivity.spread if p.phase_sensitivity is not None else None,
                           _overhead(gpu), dict(a.hypa), h.dram_bytes)
    return out
