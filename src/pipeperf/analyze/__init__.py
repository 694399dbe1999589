"""``pipeperf analyze``: from CUDA source (or PTX) to a predicted run time on any GPU, without a GPU.

Pipeline: compile (.cu -> PTX, nvcc) and parse; emulate the launch with per-warp traces of a sample
of warps (:mod:`pipeperf.emulate`); build one IDG per warp class from the traces
(:mod:`pipeperf.idg.build`, classes by the mapper :mod:`pipeperf.hardware.mapper`); occupancy from
``ptxas -v`` resources and the block size; the Pipeline model's simulator with M = resident blocks
per SM, group size = warps per block and total groups = grid size. Memory instructions get
their lambda/Lambda from mapper g (:mod:`pipeperf.hardware.memory`: coalescing, L2 hits, bank
conflicts of the traced addresses); every analytical model of :mod:`pipeperf.models` is evaluated
on the same IDGs at the launch's occupancy (and, with ``sweep``, at every occupancy).
"""

from __future__ import annotations

import functools
import gc
import logging
import math
import time

import numpy as np
from dataclasses import replace as dc_replace, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pipeperf.analyze.predict import Bound
from pipeperf.util.progress import progress
from pipeperf.errors import PipeperfError
from pipeperf.ptx.source_map import SourceMap


@dataclass
class GPUPrediction:
    """One kernel on one GPU: occupancy, every model's predicted time, what bounds it."""

    gpu: str
    kernel: str
    cycles: float                # the Pipeline simulation
    seconds: float
    blocks_per_sm: int           # M simulated: the occupancy limit, or fewer when the grid is small
    block_limit: int             # resident blocks per SM the occupancy rules allow
    warps_per_block: int
    occupancy: float
    limited_by: str
    occupancy_source: str
    bound: Bound
    predictions: dict[str, dict[str, float | None]]
    profile: dict[str, Any]
    warp_classes: list[dict]
    memory: list[dict]
    notes: list[str] = field(default_factory=list)
    sweep: dict[str, Any] | None = None
    what_if: dict[str, dict[str, Any]] = field(default_factory=dict)   # fixed access pattern -> pipeline
    launch_overhead_seconds: float = 0.0   # the launch's fixed cost (the GPU's launch.overhead_us), not in `seconds`
    quantitative: dict[str, Any] | None = None   # the quantitative roofline's KernelMetrics and prediction
    source_lines: list = field(default_factory=list)      # stalls.LineTime per source line, largest first
    time_not_on_lines: list[dict] = field(default_factory=list)   # idle slot time (stalls.line_times)
    advice: list = field(default_factory=list)            # advice.Advice, largest gain first
    sim: Any = field(default=None, repr=False)            # advice.SimContext: what re-simulations need

    @property
    def bound_by(self) -> str:
        return self.bound.by

    @property
    def subsystem_busy(self) -> dict[str, float]:
        return self.bound.subsystem_busy

    def to_dict(self) -> dict:
        d = {"name": self.kernel, "gpu": self.gpu,
             "occupancy": {"warps_per_sm": self.blocks_per_sm * self.warps_per_block,
                           "groups_per_sm": self.blocks_per_sm, "limited_by": self.limited_by,
                           "block_limit": self.block_limit, "fraction": round(self.occupancy, 4),
                           "source": self.occupancy_source},
             "predictions": self.predictions, "launch_overhead_seconds": self.launch_overhead_seconds,
             "bound": self.bound.to_dict(), "profile": self.profile,
             "warp_classes": self.warp_classes, "memory": self.memory, "notes": self.notes}
        if self.sweep is not None:
            d["sweep"] = self.sweep
        if self.what_if:
            d["what_if"] = self.what_if
        if self.quantitative:
            d["quantitative_roofline"] = {k: v.to_dict() for k, v in self.quantitative.items()}
        if self.source_lines:
            d["source_lines"] = [t.to_dict() for t in self.source_lines]
            d["time_not_on_lines"] = self.time_not_on_lines
        d["advice"] = [a.to_dict() for a in self.advice]
        return d


@dataclass
class Analysis:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    resources: dict[str, int]
    warps_traced: int
    warps_total: int
    truncated_warps: int
    predictions: list[GPUPrediction] = field(default_factory=list)
    seconds_analysis: float = 0.0
    ctas_emulated: int = 0
    ctas_total: int = 0
    sampling: str = ""              # why only a CTA sample was (or could not be) emulated

    def to_dict(self) -> dict:
        """The documented JSON: ``{"kernels": [...one entry per GPU...], "launch": {...}}``."""
        return {"kernels": [p.to_dict() for p in self.predictions],
                "launch": {"kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
                           "resources": self.resources, "warps_traced": self.warps_traced,
                           "warps_total": self.warps_total, "truncated_warps": self.truncated_warps,
                           "ctas_emulated": self.ctas_emulated, "ctas_total": self.ctas_total,
                           "sampling": self.sampling,
                           "analysis_seconds": round(self.seconds_analysis, 3)}}


def resident_blocks(gpu, warps_per_block: int, threads: int, resources: dict[str, int],
                    dynamic_shared: int = 0) -> tuple[int, float, str, str]:
    """(blocks per SM, occupancy, limiter, source): the CUDA rules when the GPU's compute capability
    has them (2.0-9.0), else the spec's max resident warps and groups (registers, shared memory ignored).

    ptxas counts registers for the PTX's target (sm_75 or newer with nvcc 13); an older GPU whose
    per-thread limit is lower (63 on cc 2.0/3.0) is given that limit, as its own build would spill."""
    from pipeperf.hardware.occupancy import LIMITS, occupancy

    cc = str(getattr(gpu, "compute_capability", "") or "")
    if cc in LIMITS:
        regs = resources.get("registers", 0)
        cap = LIMITS[cc].max_regs_per_thread
        o = occupancy(cc, threads, min(regs, cap), resources.get("shared_bytes", 0), dynamic_shared)
        source = f"CUDA occupancy rules cc {cc}"
        if regs > cap:
            source += f"; ptxas' {regs} registers/thread counted as the cc's limit of {cap} (a build for it spills)"
        return o.blocks_per_sm, o.occupancy, o.limited_by, source
    by_warps = gpu.max_warps_per_core // warps_per_block
    by_groups = gpu.max_groups_per_core
    blocks = min(by_warps, by_groups)
    if blocks < 1:
        raise PipeperfError(f"a block of {warps_per_block} warps exceeds the {gpu.max_warps_per_core} "
                            f"resident warps of GPU '{gpu.name}'")
    limiter = "warps" if by_warps <= by_groups else "blocks"
    why = f"cc {cc} has no register/shared-memory rules here" if cc else \
        "no compute capability: registers and shared memory not checked"
    return blocks, blocks * warps_per_block / gpu.max_warps_per_core, limiter, f"spec max warps/groups ({why})"


def _without_cyclic_gc(fn):
    """Run ``fn`` with Python's cyclic garbage collector paused: the traces are a million small
    acyclic dicts, and the collector's repeated full scans of them cost ~12% of an analysis."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return wrapper


#: rounds of resident blocks simulated before extrapolating a long launch (None: exact)
FAST_FORWARD_ROUNDS = 4


log = logging.getLogger(__name__)


@_without_cyclic_gc
def analyze(path: str | Path, grid: Any, block: Any, args: Sequence[Any], gpus: Sequence[str],
            kernel: str | None = None, mode: str = "hybrid", trace_warps: int = 256,
            max_nodes: int | None = 200_000, shared: int = 0, arch: str | None = None,
            sweep: bool = False, scheduler: str = "rr", memory: bool = True,
            all_ctas: bool = False, fast_forward: int | None = FAST_FORWARD_ROUNDS,
            what_if: bool = True, max_blocks_per_sm: int | None = None,
            nvcc_flags: Sequence[str] = (), warm_l2: bool = False, exact: bool = False,
            skip_loops: bool = True, compiled: Any = None, models: bool = True) -> Analysis:
    """Predict the run time of one launch on each GPU of ``gpus``.

    ``trace_warps`` warps of the launch are traced (the sample the warp classes, their weights
    and mapper g's statistics come from); traces longer than ``max_nodes`` instructions are cut.
    ``memory=False`` skips mapper g (every memory instruction keeps its database class).
    ``fast_forward=R`` extrapolates long launches of identical blocks from R and 2R rounds of
    resident blocks (:meth:`PreparedKernel.run`); None simulates every block. ``what_if`` also
    simulates the launch with its bank conflicts removed and its global accesses coalesced,
    where it has any (mapper g's what-ifs), to say what fixing them would gain, and re-simulates
    the other changes :mod:`pipeperf.analyze.advice` weighs (block size, registers, tail, chains).
    ``max_blocks_per_sm`` caps the resident blocks below the occupancy rules' limit, as a
    program does with the shared-memory carve-out or a launch bound; ``nvcc_flags`` go to nvcc.
    ``warm_l2``: the launch follows one over the same buffers (back-to-back launches), so data
    that fits in L2 is there from the start; by default L2 starts cold.
    ``exact`` turns every shortcut off, slow as it may be: every loop iteration emulated and
    simulated (no periodic-loop skipping), whole traces (no cap, no ``max_nodes``), every block
    simulated (no ``fast_forward``); the reference the shortcuts are tested against.
    ``skip_loops=False`` turns only the periodic-loop skipping off. ``compiled``: target -> (PTX,
    ptxas' resources) made already (:class:`pipeperf.analyze.builds.Builds`; ``pipeperf tune``).
    ``models=False`` evaluates the Pipeline model only, not the analytical ones (a third of the
    time of a small launch; ``pipeperf tune`` ranks by the Pipeline time)."""
    from pipeperf.emulate import run_kernel, select_kernel
    from pipeperf.emulate.launch import dim3
    from pipeperf.hardware.spec import load_gpu

    t0 = time.perf_counter()
    specs = [load_gpu(name) for name in gpus]          # an unknown GPU fails before any work
    if not specs:
        raise PipeperfError("no GPU to analyze for: name at least one (--gpu NAME)")
    g3, b3 = dim3(grid, "grid"), dim3(block, "block")
    threads = math.prod(b3)
    wpb = -(-threads // 32)
    n_blocks = math.prod(g3)
    if max_blocks_per_sm is not None and max_blocks_per_sm < 1:
        raise PipeperfError(f"max blocks per SM must be >= 1, got {max_blocks_per_sm}")
    from pipeperf.analyze.builds import Builds

    builds = Builds(Path(path), arch, list(nvcc_flags), compiled)
    module = builds.default.module
    func = select_kernel(module, kernel)
    resources = builds.default.kernel_resources(func.name, Path(path))
    per_gpu = [builds.for_gpu(spec) for spec in specs]      # one compile per distinct target
    traced = min(max(1, int(trace_warps)), n_blocks * wpb)      # the warps a spread sample can trace
    cap = None if exact else max(1024, TRACE_ENTRIES // traced)
    if exact:
        max_nodes, fast_forward = None, None
    elif max_nodes is not None:
        max_nodes = min(int(max_nodes), cap)
    profs: dict[str, Any] = {}      # one emulation per distinct PTX, dropped after the last GPU using it
    out = None
    opts = _Options(str(path), max_nodes, sweep, scheduler, fast_forward, g3, models)
    for i, (spec, build) in enumerate(progress(list(zip(specs, per_gpu)), "analyze", "GPU")):
        func = select_kernel(build.module, func.name)
        if build.code_key not in profs:
            t0 = time.perf_counter()
            log.info("emulating %s (grid %s, block %s) for %s", func.name, g3, b3, spec.name)
            profs[build.code_key] = _emulate(run_kernel, build.module, func.name, g3, b3, args, mode,
                                             trace_warps, shared, all_ctas, cap,
                                             fast_loops=skip_loops and not exact)   # errors at their source line
            log.info("emulated in %.1f s", time.perf_counter() - t0)
        log.info("%s: memory model, simulation%s", spec.name, ", what-ifs and advice" if what_if else "")
        prof = profs[build.code_key]
        if all(b.code_key != build.code_key for b in per_gpu[i + 1:]):
            del profs[build.code_key]
        if out is None:
            out = Analysis(func.name, g3, b3, resources, len(prof.traces), n_blocks * wpb, 0,
                           ctas_emulated=int(prof.counts.get("ctas_emulated", n_blocks)),
                           ctas_total=int(prof.counts.get("ctas_total", n_blocks)),
                           sampling=str(prof.counts.get("sampling", "")))
        wpb_gpu = -(-threads // spec.warp_size)        # warps of this GPU's width per block
        own = build.kernel_resources(func.name, Path(path))
        limit, occ, limiter, source = resident_blocks(spec, wpb_gpu, threads, own, shared)
        if build.note:
            source += f"; PTX and {own.get('registers', 0)} registers/thread {build.note}"
        if max_blocks_per_sm is not None and max_blocks_per_sm < limit:
            limit, limiter = max_blocks_per_sm, "max blocks per SM (given)"
            occ = limit * wpb_gpu / spec.max_warps_per_core
            source += f"; capped at {limit} blocks per SM as the launch asks"
        blocks = max(1, min(limit, -(-n_blocks // spec.cores)))   # never more resident than exist
        gpu, overrides, mem_rows, notes, alternatives = spec, {}, [], [], {}
        if memory:
            from pipeperf.analyze.memory_trace import launch_memory

            gpu, overrides, mem_rows, notes, alternatives = launch_memory(prof, func, spec, wpb, blocks,
                                                                          n_blocks, g3, b3, warm_l2,
                                                                          SourceMap(build.module))
            if not what_if:
                alternatives = {}
        prof_gpu = prof
        if spec.warp_size != 32:
            from dataclasses import replace

            from pipeperf.analyze.wavefronts import wide_warp_traces

            prof_gpu = replace(prof, traces=wide_warp_traces(prof.traces, threads, spec.warp_size))
        if memory:
            notes = notes + _memory_coverage_note(prof.traces, cap)
        res = _Residency(blocks, limit, occ, limiter, source)
        pred, truncated = _predict_one(prof_gpu, func, gpu, spec, wpb_gpu, n_blocks, res, opts, overrides,
                                       mem_rows, notes, alternatives)
        _add_quantitative_roofline(pred, prof.counts, mem_rows if memory else None, str(path), spec.name)
        from pipeperf.analyze.advice import LaunchShape, explain

        explain(pred, func, SourceMap(build.module), LaunchShape(spec, b3, n_blocks, own, shared, max_blocks_per_sm),
                advise=what_if)
        out.predictions.append(pred)
        out.truncated_warps = truncated
    out.seconds_analysis = time.perf_counter() - t0
    return out


def _add_quantitative_roofline(pred: GPUPrediction, counts, memory_rows, path: str, gpu: str) -> None:
    """Konstantinidis' roofline of this launch on ``gpu`` as a model row, from the same counts and
    rates as ``pipeperf roofline KERNEL.cu`` (:mod:`pipeperf.analyze.roofline_counts`)."""
    from pipeperf.analyze.roofline_counts import NAME, quantitative_roofline

    try:
        metrics, q = quantitative_roofline(counts, memory_rows, pred.kernel, path, gpu)
    except PipeperfError as e:           # a GPU without Table 3 rates, or a kernel Table 2 refuses
        pred.predictions[NAME] = {"cycles": None, "seconds": None, "unsupported": e.message}
        return
    clock = float(pred.profile.get("clock_ghz") or 0.0)
    pred.predictions[NAME] = {"cycles": q.predicted_seconds * clock * 1e9 if clock else None,
                              "seconds": q.predicted_seconds}
    pred.quantitative = {"metrics": metrics, "prediction": q}
    if pred.sweep is not None:           # occupancy plays no part in it: a flat curve, as Eq. 1's
        pred.sweep["seconds"][NAME] = [q.predicted_seconds] * len(pred.sweep["warps_per_sm"])


@dataclass(frozen=True)
class _Residency:
    """Occupancy of one launch on one GPU: ``blocks`` resident per SM (never more than exist),
    the occupancy rules' limit, its fraction of the SM, what limits it, and which rules said so."""

    blocks: int
    limit: int
    occupancy: float
    limited_by: str
    source: str


@dataclass(frozen=True)
class _Options:
    path: str
    max_nodes: int | None
    sweep: bool
    scheduler: str
    fast_forward: int | None
    grid: tuple[int, int, int] = (1, 1, 1)
    models: bool = True              # evaluate the analytical models too


@dataclass(frozen=True)
class Shorter:
    """A shorter IDG set of the same traces, simulated: ``kind`` "cut" (each warp's trace cut at
    half the budget) or "periods" (half the recorded periods of each skipped loop left out)."""

    kind: str
    info: Any            # its BuildInfo
    cycles: float        # the Pipeline run's cycles on it
    models: dict[str, dict[str, list]] | None = None   # the analytical models on it
    busy: dict[str, float] | None = None               # busy cycles per subsystem of that run
    issued: float | None = None                        # warp instructions it issued on the core


def extrapolation_slopes(cycles: float, info, shorter: Sequence[Shorter], skipped: int,
                         short_cycles: Sequence[float] | None = None, sums: bool = False) -> float:
    """Cycles of the whole traces from ``cycles`` (the IDGs as kept: ``info``) and the shorter
    runs: T = T_A + a * (cut-away instructions) + b * (skipped-period instructions), ``a`` the
    slope between the IDGs cut at the budget and at half of it, ``b`` the slope between the IDGs
    with and without half of each skipped loop's recorded periods. Exact when what is missing
    repeats the schedule of what the runs differ by (each period, each cut-away stretch of a
    loop, costs what the simulated ones did). ``skipped``: instructions the emulator jumped over;
    the rest of the missing ones were cut away. ``short_cycles`` overrides the shorter runs'
    cycles (the analytical models' own). ``sums``: the quantity is a sum over instructions (a pipeline's busy
    time, issued instructions): a shorter run that is not cheaper adds nothing, rather than the
    proportional share a time gets."""
    n, n2 = info.instructions_full, info.instructions_kept
    missing = {"periods": skipped, "cut": n - n2 - skipped}
    if not any(s.kind == "periods" for s in shorter):
        missing = {"cut": n - n2}
    if not any(s.kind == "cut" for s in shorter):
        missing = {"periods": n - n2}
    out = cycles
    for i, s in enumerate(shorter):
        c1 = s.cycles if short_cycles is None else short_cycles[i]
        n1 = s.info.instructions_kept
        if c1 is None:
            return None
        if sums:
            slope = max(0.0, (cycles - c1) / (n2 - n1)) if n2 > n1 else 0.0
        else:
            slope = (cycles - c1) / (n2 - n1) if n2 > n1 and cycles > c1 else cycles / max(1, n2)
        out += slope * missing.get(s.kind, 0)
    return out


def extrapolate_cut(r, r_half, info, info_half, how: str | None = None):
    """The run of whole traces from runs of traces cut at ``max_nodes`` (``r``) and at half of it
    (``r_half``): cycles grow linearly in the instructions kept, at the slope between the two
    cuts, up to the whole traces' count (:func:`extrapolation_slopes` with one shorter run);
    (the extrapolated run, the report's note)."""
    cycles = extrapolation_slopes(r.cycles, info, [Shorter("cut", info_half, r_half.cycles)], 0)
    out, f = _scaled(r, cycles, info)
    return out, how or _cut_note(info, info_half, f)


def _cut_note(info, info_half, f: float) -> str:
    return (f"{info.truncated_warps} of {info.warps_traced} traced warps run past {info.max_nodes:,} "
            f"instructions ({info.instructions_full:,} traced instructions, {info.instructions_kept:,} in the "
            f"IDGs): the Pipeline time is extrapolated from simulations of the first {info_half.max_nodes:,} "
            f"and {info.max_nodes:,} instructions of each warp (x{f:.3g}; exact where the loop's schedule "
            "repeats), and so are the analytical models")


def _busy_cycles(r) -> dict[str, float]:
    return {s: share * r.cycles for s, share in r.subsystem_busy.items()}


def _shorter(kind: str, info, r) -> "Shorter":
    """A shorter IDG set's run, as the extrapolation reads it."""
    return Shorter(kind, info, r.cycles, busy=_busy_cycles(r), issued=r.instructions_on_core)


def _extend(r, info, shorter: Sequence["Shorter"], skipped: int, issue_limit: float):
    """The run of whole traces from the kept IDGs' run ``r`` and the shorter runs: the slopes
    (:func:`extrapolation_slopes`) floored by the busiest resource (:func:`resource_floor`);
    (the extrapolated run, its factor over ``r``)."""
    cycles = extrapolation_slopes(r.cycles, info, shorter, skipped)
    cycles, busy_full = resource_floor(r, cycles, info, shorter, skipped, issue_limit)
    return _scaled(r, cycles, info, busy_full)


def resource_floor(r, cycles: float, info, shorter: Sequence[Shorter], skipped: int,
                   issue_limit: float) -> tuple[float, dict[str, float]]:
    """The extrapolated ``cycles`` raised, where needed, to what the whole traces' busiest pipeline
    and issue slots need: each subsystem's busy time and the issued instructions are sums over
    instructions, so they extrapolate linearly and exactly (as the cycles do), and no schedule
    finishes before its busiest resource. This matters where the kept IDGs are dominated by
    something the skipped periods are not (a compute loop's kept part is load-heavy: dropping
    periods then barely shortens the run, and the cycles' slope alone under-counts them).
    Returns the cycles and each subsystem's extrapolated busy cycles."""
    busy_a = _busy_cycles(r)
    busy_full: dict[str, float] = {}
    for s, b in busy_a.items():
        short = [x.busy.get(s, 0.0) if x.busy is not None else None for x in shorter]
        v = extrapolation_slopes(b, info, shorter, skipped, short, sums=True) \
            if all(x is not None for x in short) else None
        busy_full[s] = b if v is None else v
    issued = None
    if all(x.issued is not None for x in shorter):
        issued = extrapolation_slopes(float(r.instructions_on_core), info, shorter, skipped,
                                      [float(x.issued) for x in shorter], sums=True)
    floor = max(busy_full.values(), default=0.0)
    if issued is not None and math.isfinite(issue_limit) and issue_limit > 0:
        floor = max(floor, issued / issue_limit)
    return max(cycles, floor), busy_full


def _scaled(r, cycles: float, info, busy: dict[str, float] | None = None):
    """``r`` with ``cycles``, its seconds, throughputs, instruction count and (given the whole
    traces' busy cycles) subsystem shares scaled to match."""
    scale = info.instructions_full / info.instructions_kept
    f = cycles / r.cycles
    shares = r.subsystem_busy if busy is None else {s: min(1.0, b / cycles) for s, b in busy.items()}
    out = dc_replace(r, cycles=cycles, seconds=r.seconds * f, warps_per_cycle=r.warps_per_cycle / f,
                     ipc=r.ipc * scale / f, instructions_on_core=int(round(r.instructions_on_core * scale)),
                     issue_cycles=r.issue_cycles * f, subsystem_busy=shares)
    return out, f


def _memory_coverage_note(log, cap: int | None) -> list[str]:
    """The note saying which prefix of the traced warps mapper g's statistics come from, when it
    is not all of them. Why stated: the prefix holds every first touch but not the reuse that
    comes later (a column read again hundreds of iterations on), so its L1/L2 hit rates can be
    far lower than the whole launch's (covariance at m=256: +39 % time against ``exact``)."""
    from pipeperf.emulate.loops import SYNTH_ADDRESSES

    covered, total = log.memory_coverage() if hasattr(log, "memory_coverage") else (0, 0)
    if not total or covered >= total:
        return []
    why = (f"the trace cap of {cap:,} instructions per warp" if cap is not None else "") + \
        (" or " if cap is not None and log.skips else "") + \
        (f"the {SYNTH_ADDRESSES:,} addresses synthesised for skipped loop iterations" if log.skips else "")
    return [f"mapper g's memory statistics come from the first {covered / total:.1%} of the traced warps' "
            f"executed instructions ({covered:,} of {total:,}; {why} ran out): accesses past that prefix are "
            "not analysed, so reuse at longer distances is missed and cache hit rates can be too low "
            "(check a smaller size against --exact)"]


def _skip_note(prof, info, shorter: Sequence[Shorter], skipped: int, f: float) -> str:
    """What the emulator's loop skipping and the IDG budget left out, and how the time covers it."""
    from pipeperf.emulate.loops import KNOWN_PERIODS, PERIODS

    log = prof.traces
    iters = sum(k.count * len(k.warps) for k in log.skips)
    n, n2 = info.instructions_full, info.instructions_kept
    runs = ["all the kept periods"] + [{"periods": "half of each loop's recorded periods left out",
                                        "cut": f"each warp cut at {s.info.max_nodes:,}"}[s.kind] for s in shorter]
    cut = (f"; {info.truncated_warps} warps' IDGs cut at {info.max_nodes:,} instructions, the rest extrapolated "
           "at the slope of their second half") if info.truncated_warps else ""
    return (f"periodic loops: the emulator jumped over {iters:,} iterations of the traced warps in "
            f"{len(log.skips):,} loop instance{'s' if len(log.skips) != 1 else ''} (each after {PERIODS} identical "
            f"iterations, {KNOWN_PERIODS} for a loop already skipped; counts added exactly; mapper g's memory statistics include the skipped periods' "
            f"accesses, synthesised from their address strides); {n:,} traced instructions, "
            f"{skipped:,} of them skipped, {n2:,} in the IDGs{cut}: the Pipeline time is extrapolated linearly "
            f"from simulations of the IDGs with {', with '.join(runs)} (x{f:.3g}; exact where every period costs "
            f"what the simulated ones did; never below the busiest pipeline's or the issue slots' time, "
            f"extrapolated the same way), and so are the analytical models")


#: IDG nodes over all warp classes: each class is cut to fit (water-filling) and the rest
#: extrapolated, so the IDG builder, the simulator and the analytical models stay bounded
IDG_NODES = 40_000


def _node_budget(log, func, max_nodes: int | None, total: int = 0) -> float | None:
    """The share of each warp's trace the IDGs keep so the distinct traces' nodes stay within
    ``total`` (IDG_NODES); None: all of it. A share, not a length: every warp is cut alike."""
    from pipeperf.emulate.tracelog import TraceLog

    total = total or IDG_NODES
    if not isinstance(log, TraceLog) or not len(log):
        return None
    lens: dict[bytes, int] = {}
    for w, (b, _) in log.pc_signature(func.name, max_nodes).items():
        if b not in lens:
            lens[b] = log.length(w)
    n = sum(min(x, max_nodes or x) for x in lens.values())
    return None if n <= total else total / n


def _predict_one(prof, func, gpu, spec, wpb: int, n_blocks: int, res: _Residency, opts: _Options,
                 overrides: dict[int, str], mem_rows: list[dict], notes: list[str],
                 alternatives: dict[str, Any]) -> tuple[GPUPrediction, int]:
    """Build the IDGs with ``gpu``'s classes (``spec`` plus mapper g's), simulate the launch and
    evaluate every model, and simulate it again on each what-if GPU of ``alternatives`` (the same
    IDGs: only the memory classes' lambda/Lambda differ): (the prediction, warps whose trace was cut)."""
    from pipeperf.analyze.predict import PIPELINE, analytical_predictions, bound_of, pipeline_runs, \
        warps_per_core
    from pipeperf.idg.build import kernel_graph_from_profile
    from pipeperf.simulate.simulator import PreparedKernel

    blocks, scheduler, fast_forward = res.blocks, opts.scheduler, opts.fast_forward
    from pipeperf.emulate.sampling import sample_weights

    blocks_traced = sorted({w // wpb for w in prof.traces})
    max_nodes = opts.max_nodes
    share = None if max_nodes is None else _node_budget(prof.traces, func, max_nodes)

    def build(cut: int | None, drop: bool = False, part: float | None = share):
        return kernel_graph_from_profile(prof, func, set(gpu.classes), gpu.name, cut, opts.path,
                                         class_overrides=overrides, warps_per_group=wpb,
                                         block_weights=sample_weights(blocks_traced, opts.grid), drop_periods=drop,
                                         fraction=part)

    kg, info = build(max_nodes)
    from pipeperf.analyze.stalls import name_producers

    prep = PreparedKernel(kg, gpu)
    name_producers(prep, func)
    r = pipeline_runs(prep, wpb, [blocks], n_blocks, scheduler, fast_forward, attribute=True)[0]
    log = prof.traces
    skipped = int(sum(k.count * int(k.period.sum()) for k in getattr(log, "skips", ())))
    shorter: list[Shorter] = []
    shorter_kg = []
    if info.instructions_full > info.instructions_kept:
        # shorter IDGs: without half of each skipped loop's recorded periods; cut at half the budget
        for kind in (("periods",) if skipped else ()) + (("cut",) if info.truncated_warps and max_nodes else ()):
            k2, i2 = build(max_nodes, True) if kind == "periods" else \
                build(max_nodes // 2, part=None) if share is None else build(max_nodes, part=share / 2)
            r2 = pipeline_runs(PreparedKernel(k2, gpu), wpb, [blocks], n_blocks, scheduler, fast_forward)[0]
            shorter.append(_shorter(kind, i2, r2))
            shorter_kg.append(k2)
        if shorter:
            r, f = _extend(r, info, shorter, skipped, gpu.issue_limit)
            if skipped:
                note = _skip_note(prof, info, shorter, skipped, f)
            else:
                note = _cut_note(info, shorter[0].info, f)
            notes = notes + [note]
    bound = bound_of(r, gpu.issue_limit)
    n_core = warps_per_core(n_blocks, wpb, gpu.cores)
    resident = blocks * wpb
    preds: dict[str, dict[str, Any]] = {PIPELINE: {"cycles": r.cycles, "seconds": r.seconds}}
    models = analytical_predictions(kg, gpu, [resident], n_core, r.clock_ghz) if opts.models else {}
    if shorter and models:                          # the models' times, extrapolated as the Pipeline's
        short = [analytical_predictions(k2, gpu, [resident], n_core, r.clock_ghz) for k2 in shorter_kg]
        for name, v in models.items():
            for k in ("cycles", "seconds"):
                b = v[k][0]
                if b is not None:
                    v[k] = [extrapolation_slopes(b, info, shorter, skipped, [x[name][k][0] for x in short])]
    for name, v in models.items():
        preds[name] = {"cycles": v["cycles"][0], "seconds": v["seconds"][0]}
        if "unsupported" in v:
            preds[name]["unsupported"] = v["unsupported"]
    profile = {"cycles": r.cycles, "warps_on_core": r.warps_on_core, "groups_on_core": r.groups_on_core,
               "instructions_on_core": r.instructions_on_core, "warps_per_cycle": r.warps_per_cycle,
               "ipc": r.ipc, "scheduler": r.scheduler, "issue_cycles": r.issue_cycles, "clock_ghz": r.clock_ghz,
               "fast_forward": r.fast_forward}
    sw = None
    if opts.sweep:
        groups = list(range(1, max(blocks, min(res.limit, -(-n_blocks // gpu.cores))) + 1))
        runs = pipeline_runs(prep, wpb, groups, n_blocks, scheduler, fast_forward)
        warps = [g * wpb for g in groups]
        curves = {PIPELINE: [x.seconds for x in runs]}
        if opts.models:
            for name, v in analytical_predictions(kg, gpu, warps, n_core, r.clock_ghz).items():
                curves[name] = v["seconds"]
        sw = {"groups_per_sm": groups, "warps_per_sm": warps, "seconds": curves}
    def resimulate(transform=None, on=None, group: int = wpb, resident: int = blocks, total: int = n_blocks):
        """The launch's run with the IDGs passed through ``transform`` (KernelGraph -> KernelGraph),
        on GPU ``on`` (a what-if's classes), at another block size / residency / grid, extrapolated
        from the same shorter IDGs as the launch, so it compares with the launch's time."""
        def run(k):
            k = transform(k) if transform else k
            return pipeline_runs(PreparedKernel(k, on or gpu), group, [resident], total, scheduler, fast_forward)[0]
        r1 = run(kg)
        if not shorter:
            return r1
        s2 = [_shorter(x.kind, x.info, run(k2)) for x, k2 in zip(shorter, shorter_kg)]
        return _extend(r1, info, s2, skipped, (on or gpu).issue_limit)[0]

    what = {}
    for name, alt in alternatives.items():
        a = resimulate(on=alt)
        what[name] = {"cycles": a.cycles, "seconds": a.seconds, "speedup": r.cycles / a.cycles if a.cycles else None}
    classes = [{"instructions": len(c.idg), "weight": c.weight} for c in kg.warp_classes]
    overhead = float(spec.launch.get("overhead_us", 0.0)) * 1e-6
    from pipeperf.analyze.advice import SimContext

    pred = GPUPrediction(spec.name, func.name, r.cycles, r.seconds, blocks, res.limit, wpb, res.occupancy,
                         res.limited_by, res.source, bound, preds, profile, classes, mem_rows, notes,
                         sw, what, overhead)
    pred.sim = SimContext(prep, r, wpb, n_blocks, bool(shorter), resimulate)
    return pred, info.truncated_warps


#: trace entries kept over all traced warps: each warp keeps TRACE_ENTRIES / traced warps and is
#: counted beyond, so memory stays bounded on long loops (256 warps x 31 250 entries, with their
#: lanes' addresses, is a few hundred MB); the IDGs are cut there too and extrapolated, and
#: mapper g's statistics come from the kept entries (the report says so)
TRACE_ENTRIES = 8_000_000


def _emulate(run_kernel, module, name: str, grid, block, args, mode: str, trace_warps: int,
             shared: int, all_ctas: bool, trace_cap: int | None = None, fast_loops: bool = True):
    """Trace whole CTAs spread over the grid (first, last, evenly between; ``trace_warps`` warps
    at most, one CTA at least) with lane addresses, and emulate only those CTAs unless
    ``all_ctas`` or their traces could depend on other CTAs' writes (``prof.counts['sampling']``)."""
    return run_kernel(module, grid, block, args, kernel=name, mode=mode, trace_warps=trace_warps,
                      trace_blocks="spread", ctas=None if all_ctas else "traced", shared=shared,
                      memory=True, trace_cap=trace_cap, fast_loops=fast_loops)




def _make_callable() -> None:
    """``pipeperf.analyze(...)`` is the notebook API (:func:`pipeperf.api.analyze`), yet
    ``pipeperf.analyze`` is this package too (importing a subpackage sets the parent's attribute
    to it), so the package itself is made callable."""
    import sys
    import types

    class _AnalyzePackage(types.ModuleType):
        def __call__(self, *args, **kwargs):
            from pipeperf.api import analyze as api_analyze

            return api_analyze(*args, **kwargs)

    sys.modules[__name__].__class__ = _AnalyzePackage


_make_callable()
