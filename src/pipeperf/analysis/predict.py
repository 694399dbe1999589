"""Every model's prediction of one launch on one GPU, and what bounds it.

The analytical models give warps per cycle per core (WPC) at an occupancy of omega resident
warps; a launch puts ``N`` warps on each core (ceil(blocks / cores) blocks of ``wpb`` warps,
the Pipeline model's N = ceil(N_total / P)), so a model's time is N / WPC(omega) cycles. The
Pipeline model is the simulation of the whole launch on one core (tail effects included).

:func:`predict_one` is the whole step for one GPU: build the IDGs from the emulation's traces
with that GPU's classes, simulate (and extrapolate, :mod:`pipeperf.analysis.extrapolate`),
evaluate every analytical model, the occupancy sweep and mapper g's what-ifs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeperf.analysis.results import Bound
from pipeperf.hardware.occupancy import Residency
from pipeperf.hardware.spec import GPUSpec
from pipeperf.idg.kernel_graph import KernelGraph
from pipeperf.models.compare import ANALYTICAL, evaluate
from pipeperf.simulate.simulator import PreparedKernel, SimResult

if TYPE_CHECKING:
    from pipeperf.analysis.records import Emulation, KernelLaunch
    from pipeperf.idg.build import WarpClasses
    from pipeperf.analysis.memory_trace import MemoryMap
    from pipeperf.analysis.options import AnalyzeOptions
    from pipeperf.analysis.results import GPUPrediction
    from pipeperf.analysis.sass_trace import SassView
    from pipeperf.ptx.ir import Function

PIPELINE = "pipeline"

#: a model's value on the whole traces from its value on the kept IDGs and on the shorter ones
Extrapolate = Callable[[float, list[float]], float]


def bound_of(r: SimResult, issue_limit: float) -> Bound:
    """The busiest subsystem (>= 90 % busy), else the issue limit (>= 90 % of slots), else latency.
    Shares are clipped to 1 and the raw value kept in ``Bound.clipped``: a fast-forwarded or
    extrapolated run scales busy time, issued instructions and cycles each by its own linear
    fit, so a share of them can come out a little above 1, which no real pipeline reaches."""
    issue_share = None
    if math.isfinite(issue_limit) and r.cycles > 0:
        issue_share = r.instructions_on_core / (r.cycles * issue_limit)
    idle = 0.0
    if r.cycles > 0:
        idle = max(0.0, 1.0 - r.issue_cycles / math.ceil(r.cycles))
    clipped = {k: round(v, 4) for k, v in r.subsystem_busy.items() if v > 1.0}
    busy = {k: round(min(1.0, v), 4) for k, v in r.subsystem_busy.items()}
    if issue_share is not None and issue_share > 1.0:
        clipped["issue slots"] = round(issue_share, 4)
        issue_share = 1.0
    name, frac = max(busy.items(), key=lambda kv: kv[1]) if busy else ("latency", 0.0)
    if frac >= 0.9:
        by = name
    elif issue_share is not None and issue_share >= 0.9:
        by = "issue limit"
    else:
        by = "latency"
    return Bound(by, busy, None if issue_share is None else round(issue_share, 4), round(idle, 4), clipped)


def warps_per_core(n_blocks: int, warps_per_block: int, cores: int) -> int:
    return math.ceil(n_blocks / cores) * warps_per_block


def analytical_predictions(kg: KernelGraph, gpu: GPUSpec, warps: list[int], n_warps_core: int,
                           clock_ghz: float | None = None) -> dict[str, dict[str, Any]]:
    """{model: {"cycles": [...], "seconds": [...], "unsupported": reason?}} at each occupancy
    (seconds at ``clock_ghz``: the Pipeline run's clock under its load, else the sustained clock)."""
    clock = clock_ghz or gpu.run_clock_ghz
    ev = evaluate(kg, gpu, warps, list(ANALYTICAL))
    out: dict[str, dict[str, Any]] = {}
    for name, curve in ev.curves.items():
        if curve.warps_per_cycle is None:
            out[name] = {"cycles": [None] * len(warps), "seconds": [None] * len(warps),
                         "unsupported": curve.unsupported}
            continue
        cyc = [n_warps_core / w if w and np.isfinite(w) and w > 0 else None for w in curve.warps_per_cycle]
        out[name] = {"cycles": cyc, "seconds": [c / (clock * 1e9) if c else None for c in cyc]}
    return out


def pipeline_runs(prep: PreparedKernel, wpb: int, groups: list[int], n_blocks: int, *,
                  scheduler: str = "rr", fast_forward: int | None = None,
                  attribute: bool = False) -> list[SimResult]:
    """Simulations of the launch with each number of resident groups (blocks) per core
    (``attribute``: with every slot cycle charged to an instruction, :mod:`pipeperf.analysis.stalls`)."""
    from pipeperf.util.progress import progress

    return [prep.run(wpb, g, n_blocks, scheduler, check_limits=False, fast_forward=fast_forward,
                     attribute=attribute) for g in progress(groups, "simulate", "occupancy")]


#: IDG nodes over all warp classes: each class is cut to fit (water-filling) and the rest
#: extrapolated, so the IDG builder, the simulator and the analytical models stay bounded
IDG_NODES = 40_000


def node_budget(log: Mapping[int, Any], func: Function, max_nodes: int | None, total: int = 0) -> float | None:
    """The share of each warp's trace the IDGs keep so the distinct traces' nodes stay within
    ``total`` (IDG_NODES); None: all of it. A share, not a length: every warp is cut alike."""
    from pipeperf.emulate.tracelog import TraceLog

    total = total or IDG_NODES
    if not isinstance(log, TraceLog) or not len(log):
        return None
    lens: dict[bytes, int] = {}
    for w, (b, _) in log.pc_signature(func.name, max_nodes).items():
        if b not in lens:
            lens[b] = log.length(w) + log.repeated(w)     # (skipped periods the IDGs repeat included)
    n = sum(min(x, max_nodes or x) for x in lens.values())
    return None if n <= total else total / n


def predict_one(emulation: Emulation, func: Function, spec: GPUSpec, memory: MemoryMap, *, launch: KernelLaunch,
                res: Residency, opts: AnalyzeOptions, sass: SassView | None = None) -> GPUPrediction:
    """Build the IDGs of ``emulation`` (its traces in ``spec``'s warp width) with ``memory.gpu``'s
    classes (``spec`` plus mapper g's, ``memory.class_names`` per pc), simulate the launch and
    evaluate every model, and simulate it again on each what-if GPU of ``memory.what_if`` (the same
    IDGs: only the memory classes' lambda/Lambda differ). ``memory.fills``: the loads whose L1 hits
    wait for an earlier load's fill (:func:`warp_idg`). ``sass``: the kernel's
    :class:`~pipeperf.analysis.sass_trace.SassView`: the IDGs hold its SASS. The prediction carries
    its :class:`~pipeperf.analysis.records.SimContext` (``sim``) for the advice, and the warps whose
    trace was cut (``truncated_warps``)."""
    gpu, overrides, mem_rows, notes = memory.gpu, memory.class_names, memory.rows, memory.notes
    alternatives, fills = memory.what_if, memory.fills
    from pipeperf.analysis.records import SimContext
    from pipeperf.analysis.extrapolate import Shorter, cut_note, extend, extrapolation_slopes, shorter_run, \
        skip_note
    from pipeperf.analysis.lockstep import phase_sensitivity
    from pipeperf.analysis.results import GPUPrediction
    from pipeperf.analysis.stalls import name_producers
    from pipeperf.emulate.sampling import sample_weights
    from pipeperf.analysis.shared_idgs import class_vector, shared_build
    from pipeperf.idg.build import kernel_graph_from_profile

    prof, path, grid, n_blocks = emulation.profile, launch.path, launch.grid, launch.n_blocks
    wpb = launch.warps_per_block(spec.warp_size)        # warps of this GPU's width per block
    blocks, scheduler, fast_forward = res.blocks, opts.scheduler, opts.fast_forward
    blocks_traced = sorted({w // wpb for w in prof.traces})
    max_nodes = opts.max_nodes
    share = None if max_nodes is None else node_budget(prof.traces, func, max_nodes)

    translator = None
    if sass is not None:
        from pipeperf.analysis.sass_trace import SassTranslator
        from pipeperf.hardware.mapper import map_instruction

        def ptx_class(pc: int) -> str:
            return overrides.get(pc) or map_instruction(func.instructions[pc], set(gpu.classes), gpu.name)

        translator = SassTranslator(sass, set(gpu.classes), gpu.name, ptx_class, measured=overrides)

    hoist = memory.hoist_bytes if translator is None else None
    packed = memory.packed if translator is None else {}
    spills = memory.spills if translator is None else None
    weights = sample_weights(blocks_traced, grid, prof.strata)
    # the GPUs that name every instruction's class alike build the same IDGs: built once (shared_idgs)
    same = None if translator is not None or spills is not None else (
        class_vector(func, set(gpu.classes), gpu.name, overrides), path, wpb, tuple(sorted(weights.items())),
        tuple(sorted(fills.items())), hoist, tuple(sorted(packed.items())))

    def build(cut: int | None, drop: bool = False, part: float | None = share) -> WarpClasses:
        def made() -> WarpClasses:
            return kernel_graph_from_profile(prof, func, set(gpu.classes), gpu.name, cut, path,
                                             class_overrides=overrides, warps_per_group=wpb, block_weights=weights,
                                             drop_periods=drop, fraction=part, fills=fills, translate=translator,
                                             hoist_bytes=hoist, packed=packed,
                                             insert=None if spills is None else spills.insert)
        return made() if same is None else shared_build(prof.traces, func, (same, cut, drop, part), made)

    classes = build(max_nodes)
    kg, info = classes.graph, classes.info
    if spills is not None and (sn := spills.note()) is not None:
        notes = notes + [sn]
    prep = PreparedKernel(kg, gpu)
    name_producers(prep, func)
    r = pipeline_runs(prep, wpb, [blocks], n_blocks, scheduler=scheduler, fast_forward=fast_forward,
                      attribute=True)[0]
    log = prof.traces
    skips = getattr(log, "skips", ())
    skipped = int(sum(k.count * int(k.period.sum()) for k in skips if not k.expand))   # extrapolated
    if any(k.expand for k in skips):
        from pipeperf.analysis.extrapolate import repeat_note

        notes = notes + [repeat_note(prof)]
    shorter: list[Shorter] = []
    shorter_kg: list[KernelGraph] = []
    work = r.simulated_instructions          # what one (re-)simulation of the launch costs the engine
    if info.instructions_full > info.instructions_kept:
        kinds = (("periods",) if skipped else ()) + (("cut",) if info.truncated_warps and max_nodes else ())
        for kind in kinds:
            half = _shorter_graph(build, kind, max_nodes, share)
            r2 = pipeline_runs(PreparedKernel(half.graph, gpu), wpb, [blocks], n_blocks, scheduler=scheduler,
                               fast_forward=fast_forward)[0]
            work += r2.simulated_instructions
            shorter.append(shorter_run(kind, half.info, r2))
            shorter_kg.append(half.graph)
        if shorter:
            whole = extend(r, info, shorter, skipped, gpu.issue_limit)
            r, f = whole.run, whole.factor
            if skipped:
                note = skip_note(prof, info, shorter, skipped, f)
            else:
                note = cut_note(info, shorter[0].info, f)
            notes = notes + [note]
    if translator is not None and translator.relaxed:
        from pipeperf.analysis.sass_walk import relaxed_note

        notes = notes + [relaxed_note(func.name)]
    if translator is not None:
        from pipeperf.analysis.sass_trace import unmatched_note

        if (un := unmatched_note(func.name, translator)) is not None:
            notes = notes + [un]
    bound = bound_of(r, gpu.issue_limit)
    n_core = warps_per_core(n_blocks, wpb, gpu.cores)
    resident = blocks * wpb
    preds = _model_predictions(kg, gpu, r, resident=resident, n_core=n_core, models_on=opts.models,
                               shorter_kg=shorter_kg,
                               extrapolate=lambda b, xs: extrapolation_slopes(b, info, shorter, skipped, xs))

    def resimulate(transform: Callable[[KernelGraph], KernelGraph] | None = None, on: GPUSpec | None = None,
                   group: int = wpb, resident: int = blocks, total: int = n_blocks) -> SimResult:
        """The launch's run with the IDGs passed through ``transform`` (KernelGraph -> KernelGraph),
        on GPU ``on`` (a what-if's classes), at another block size / residency / grid, extrapolated
        from the same shorter IDGs as the launch, so it compares with the launch's time."""
        def run(k: KernelGraph) -> SimResult:
            k = transform(k) if transform else k
            return pipeline_runs(PreparedKernel(k, on or gpu), group, [resident], total, scheduler=scheduler,
                                 fast_forward=fast_forward)[0]
        r1 = run(kg)
        if not shorter:
            return r1
        s2 = [shorter_run(x.kind, x.info, run(k2)) for x, k2 in zip(shorter, shorter_kg)]
        return extend(r1, info, s2, skipped, (on or gpu).issue_limit).run

    sw = _occupancy_sweep(prep, kg, gpu, r, res, launch_blocks=(wpb, n_blocks, n_core), opts=opts,
                          resimulate=resimulate if shorter else None, shorter_kg=shorter_kg,
                          extrapolate=lambda b, xs: extrapolation_slopes(b, info, shorter, skipped, xs)) \
        if opts.sweep else None
    limit = opts.resimulation_limit or 0     # 0: no limit
    costly = 0 < limit < work and (bool(alternatives) or opts.what_if or bool(opts.phase_check))
    if costly:
        notes = notes + [resimulation_note(work, limit)]
    what: dict[str, dict[str, Any]] = {}
    for name, alt in ({} if costly else alternatives).items():
        a = resimulate(on=alt)
        what[name] = {"cycles": a.cycles, "seconds": a.seconds, "speedup": r.cycles / a.cycles if a.cycles else None}
    phase = None
    if not costly and (opts.what_if if opts.phase_check is None else opts.phase_check):   # re-simulations
        phase = phase_sensitivity(gpu, r.subsystem_busy, r.seconds, resimulate)
        if phase is not None and not phase.smooth:
            notes = notes + [phase.note()]
    class_rows = [{"instructions": len(c.idg), "weight": c.weight} for c in kg.warp_classes]
    overhead = float(spec.launch.get("overhead_us", 0.0)) * 1e-6
    return GPUPrediction(gpu=spec.name, kernel=func.name, cycles=r.cycles, seconds=r.seconds, blocks_per_sm=blocks,
                         block_limit=res.limit, warps_per_block=wpb, occupancy=res.occupancy,
                         limited_by=res.limited_by, occupancy_source=res.source, bound=bound, predictions=preds,
                         profile=_run_profile(r), warp_classes=class_rows, memory=mem_rows, notes=notes, sweep=sw,
                         what_if=what, launch_overhead_seconds=overhead, phase_sensitivity=phase,
                         compute_capability=spec.compute_capability, truncated_warps=info.truncated_warps,
                         issued_per_traced=info.issued_per_traced,
                         sim=SimContext(prep, r, wpb, n_blocks, bool(shorter), None if costly else resimulate))


def _model_predictions(kg: KernelGraph, gpu: GPUSpec, r: SimResult, *, resident: int, n_core: int, models_on: bool,
                       shorter_kg: list[KernelGraph], extrapolate: Extrapolate) -> dict[str, dict[str, Any]]:
    """{model: {"cycles", "seconds"[, "unsupported"]}}: the Pipeline run ``r`` and, with
    ``models_on``, every analytical model at ``resident`` warps, extrapolated as the Pipeline's
    (``extrapolate(value, values on the shorter IDGs)``) where shorter IDGs were simulated."""
    preds: dict[str, dict[str, Any]] = {PIPELINE: {"cycles": r.cycles, "seconds": r.seconds}}
    models = analytical_predictions(kg, gpu, [resident], n_core, r.clock_ghz) if models_on else {}
    if shorter_kg and models:
        short = [analytical_predictions(k2, gpu, [resident], n_core, r.clock_ghz) for k2 in shorter_kg]
        for name, v in models.items():
            for k in ("cycles", "seconds"):
                b = v[k][0]
                if b is not None:
                    v[k] = [extrapolate(b, [x[name][k][0] for x in short])]
    for name, v in models.items():
        preds[name] = {"cycles": v["cycles"][0], "seconds": v["seconds"][0]}
        if "unsupported" in v:
            preds[name]["unsupported"] = v["unsupported"]
    return preds


def _run_profile(r: SimResult) -> dict[str, Any]:
    """The Pipeline run's figures the report shows."""
    return {"cycles": r.cycles, "warps_on_core": r.warps_on_core, "groups_on_core": r.groups_on_core,
            "instructions_on_core": r.instructions_on_core, "warps_per_cycle": r.warps_per_cycle,
            "ipc": r.ipc, "scheduler": r.scheduler, "issue_cycles": r.issue_cycles, "clock_ghz": r.clock_ghz,
            "fast_forward": r.fast_forward}


def resimulation_note(work: int, limit: int) -> str:
    """The note of an analysis whose re-simulations were skipped (one line, with the option)."""
    return (f"the what-ifs, the lock-step check and the advice that re-simulates were skipped: one simulation of "
            f"this launch runs {work / 1e6:,.0f} M instructions on the simulated SM (the limit for re-simulating "
            f"is {limit / 1e6:,.0f} M); --resimulation-limit 0 runs them")


def _occupancy_sweep(prep: PreparedKernel, kg: KernelGraph, gpu: GPUSpec, r: SimResult, res: Residency, *,
                     launch_blocks: tuple[int, int, int], opts: AnalyzeOptions,
                     resimulate: Callable[..., SimResult] | None = None, shorter_kg: Sequence[KernelGraph] = (),
                     extrapolate: Extrapolate | None = None) -> dict[str, Any]:
    """Every model's time at 1 .. (the resident limit, or the blocks each SM gets) blocks per SM;
    where the launch's time is extrapolated (skipped loop periods, cut IDGs: ``resimulate`` and the
    shorter IDGs), each point is extrapolated the same way, so the launch's occupancy reads its time.
    ``launch_blocks``: (warps per block, blocks, warps per SM over the launch)."""
    wpb, n_blocks, n_core = launch_blocks
    groups = list(range(1, max(res.blocks, min(res.limit, -(-n_blocks // gpu.cores))) + 1))
    if resimulate is not None:
        pipe = [resimulate(resident=g).seconds for g in groups]
    else:
        pipe = [x.seconds for x in pipeline_runs(prep, wpb, groups, n_blocks, scheduler=opts.scheduler,
                                                 fast_forward=opts.fast_forward)]
    warps = [g * wpb for g in groups]
    curves: dict[str, list[float | None]] = {PIPELINE: list(pipe)}
    if opts.models:
        short = [analytical_predictions(k2, gpu, warps, n_core, r.clock_ghz) for k2 in shorter_kg]
        for name, v in analytical_predictions(kg, gpu, warps, n_core, r.clock_ghz).items():
            curves[name] = [b if b is None or not short or extrapolate is None
                            else extrapolate(b, [x[name]["seconds"][i] for x in short])
                            for i, b in enumerate(v["seconds"])]
    return {"groups_per_sm": groups, "warps_per_sm": warps, "seconds": curves}


def _shorter_graph(build: Callable[..., WarpClasses], kind: str, max_nodes: int | None,
                   share: float | None) -> WarpClasses:
    """The IDGs the extrapolation compares with the launch's: without half of each skipped loop's
    recorded periods (``periods``), or cut at half the node budget (``cut``, only with one)."""
    if kind == "periods":
        return build(max_nodes, True)
    assert max_nodes is not None
    return build(max_nodes // 2, part=None) if share is None else build(max_nodes, part=share / 2)
