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

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from pipeperf.analysis.options import FAST_FORWARD_ROUNDS, AnalyzeOptions
from pipeperf.analysis.records import Emulation, KernelLaunch, SassTiming
from pipeperf.analysis.results import Analysis, GPUPrediction
from pipeperf.errors import PipeperfError
from pipeperf.sass.listing import ABSOLUTE_CALL
from pipeperf.util.gcpause import paused_gc
from pipeperf.util.launch_args import Dim3Like
from pipeperf.util.progress import progress

if TYPE_CHECKING:
    from fractions import Fraction

    from pipeperf.analysis.advice import LaunchShape
    from pipeperf.analysis.builds import Build, CompiledPTX
    from pipeperf.analysis.memory_trace import MemoryMap
    from pipeperf.analysis.sass_trace import SassView
    from pipeperf.emulate.profile import Profile
    from pipeperf.hardware.occupancy import Residency
    from pipeperf.hardware.spec import GPUSpec, InstrClass
    from pipeperf.ptx.ir import Function, Module
    from pipeperf.ptx.source_map import SourceMap

log = logging.getLogger(__name__)

#: trace entries kept over all traced warps: each warp keeps TRACE_ENTRIES / traced warps and is
#: counted beyond, so memory stays bounded on long loops (256 warps x 31 250 entries, with their
#: lanes' addresses, is a few hundred MB); the IDGs are cut there too and extrapolated, and
#: mapper g's statistics come from the kept entries (the report says so)
TRACE_ENTRIES = 8_000_000

#: the launch's arguments as callers give them: ``--arg`` strings, values in parameter order, or a
#: dict by parameter name (numbers, tuples, NumPy arrays, spec strings: a true boundary)
LaunchArgs = Sequence[Any] | Mapping[str, Any]


def analyze(path: str | Path, grid: Dim3Like, block: Dim3Like, args: LaunchArgs, gpus: Sequence[str],
            options: AnalyzeOptions | None = None, *, compiled: CompiledPTX | None = None,
            **kwargs: Any) -> Analysis:
    """Predict the run time of one launch on each GPU of ``gpus``: ``options`` (the defaults of
    :class:`AnalyzeOptions` if None) with ``kwargs`` replacing any of them (``what_if=False``, ...).
    ``args``: the ``--arg`` strings, or values in parameter order, or a dict by parameter name
    (:func:`pipeperf.emulate.launch.bind_args`); a NumPy array is a buffer's initial contents and
    receives the first emulation's writes (those of the emulated CTAs only, where a sample runs);
    the emulations of other builds start from a copy of the initial contents.

    The Python cyclic garbage collector is paused throughout: the traces are a million small
    acyclic objects, and its repeated full scans of them cost ~12 % of an analysis. ``compiled``:
    target -> (PTX, ptxas' resources) made already (:class:`pipeperf.analysis.builds.Builds`;
    ``pipeperf tune``'s compile task), built here otherwise."""
    opts = AnalyzeOptions.from_kwargs(options, **kwargs)
    with paused_gc():
        return _analyze(path, grid, block, args, gpus, opts, compiled=compiled)


def _analyze(path: str | Path, grid: Dim3Like, block: Dim3Like, args: LaunchArgs, gpus: Sequence[str],
             opts: AnalyzeOptions, *, compiled: CompiledPTX | None = None) -> Analysis:
    """The stages per GPU: build -> :class:`Emulation` (once per distinct PTX) -> mapper g's
    :class:`~pipeperf.analysis.memory_trace.MemoryMap` -> :func:`~pipeperf.analysis.predict.predict_one`
    -> the prediction completed (roofline row, floors, per-line time, advice) -> :class:`Analysis`."""
    from pipeperf.analysis.builds import Builds
    from pipeperf.analysis.results import ptx_lines
    from pipeperf.emulate import run_kernel, select_kernel
    from pipeperf.emulate.launch import dim3
    from pipeperf.emulate.profile import hypa_metrics
    from pipeperf.hardware.spec import load_gpu

    t0 = time.perf_counter()
    specs = [load_gpu(name) for name in gpus]          # an unknown GPU fails before any work
    if not specs:
        raise PipeperfError("no GPU to analyze for: name at least one (--gpu NAME)")
    check_device_memory(specs, args)
    g3, b3 = dim3(grid, "grid"), dim3(block, "block")
    if opts.max_blocks_per_sm is not None and opts.max_blocks_per_sm < 1:
        raise PipeperfError(f"max blocks per SM must be >= 1, got {opts.max_blocks_per_sm}")
    builds = Builds(Path(path), opts.arch, list(opts.nvcc_flags), compiled)
    func = select_kernel(builds.default.module, opts.kernel)
    launch = KernelLaunch(str(path), func.name, g3, b3)
    resources = builds.default.kernel_resources(func.name, Path(path))
    per_gpu = [builds.for_gpu(spec) for spec in specs]      # one compile per distinct target
    warps = launch.n_blocks * launch.warps_per_block()
    traced = min(max(1, int(opts.trace_warps)), warps)      # the warps a spread sample can trace
    cap = None if opts.exact else max(1024, TRACE_ENTRIES // traced)
    run_opts = opts.resolved(cap)
    emulations: dict[str, Emulation] = {}   # one per distinct PTX, dropped after the last GPU using it
    first: Emulation | None = None
    pristine = _fresh(args) if len({b.code_key for b in per_gpu}) > 1 else None   # (the first one writes args)
    preds: list[GPUPrediction] = []
    for i, (spec, build) in enumerate(progress(list(zip(specs, per_gpu)), "analyze", "GPU")):
        if build.code_key not in emulations:
            t_emulate = time.perf_counter()
            log.info("emulating %s (grid %s, block %s) for %s", func.name, g3, b3, spec.name)
            launch_args = args if pristine is None or not i else _fresh(pristine)
            prof = _emulate(run_kernel, build.module, launch, launch_args, opts, trace_cap=cap)
            emulations[build.code_key] = Emulation(prof, cap)
            log.info("emulated in %.1f s", time.perf_counter() - t_emulate)
        log.info("%s: memory model, simulation%s", spec.name, ", what-ifs and advice" if opts.what_if else "")
        emu = emulations[build.code_key]
        if all(b.code_key != build.code_key for b in per_gpu[i + 1:]):
            del emulations[build.code_key]
        first = first or emu
        preds.append(_completed(_predict_gpu(launch, emu, spec, build, opts, run_opts), launch, emu, spec, build,
                                opts=opts, run_opts=run_opts))
    assert first is not None                  # specs is not empty
    counts = first.profile.counts
    return Analysis(kernel=func.name, grid=g3, block=b3, resources=resources, warps_traced=len(first.traces),
                    warps_total=warps, truncated_warps=preds[-1].truncated_warps, predictions=preds,
                    ctas_emulated=int(counts.get("ctas_emulated", launch.n_blocks)),
                    ctas_total=int(counts.get("ctas_total", launch.n_blocks)),
                    sampling=str(counts.get("sampling", "")), hypa=hypa_metrics(counts),
                    out_of_bounds=list(first.profile.out_of_bounds),
                    ptx_lines=ptx_lines(builds.default.module, func, builds.default.target) if opts.source_lines else None,
                    seconds_analysis=time.perf_counter() - t0)


def _predict_gpu(launch: KernelLaunch, emu: Emulation, spec: GPUSpec, build: Build, opts: AnalyzeOptions,
                 run_opts: AnalyzeOptions) -> GPUPrediction:
    """The launch's prediction on ``spec`` from ``build`` (its registers, its SASS) and the
    emulation of its PTX: residency, mapper g, then :func:`~pipeperf.analysis.predict.predict_one`."""
    from pipeperf.analysis.predict import predict_one
    from pipeperf.emulate import select_kernel
    from pipeperf.hardware.occupancy import launch_residency

    func = select_kernel(build.module, launch.kernel)
    own = build.kernel_resources(func.name, Path(launch.path))
    res = launch_residency(spec, launch.threads, own, opts.shared, launch.n_blocks, opts.max_blocks_per_sm,
                           build.note)
    sass = _sass_view(build, func, spec, opts)
    view = sass.view
    if view is not None:                # the SASS of wmma lines: generic shared loads, row conflicts
        from pipeperf.analysis.sass_trace import with_wmma_lines

        view = with_wmma_lines(view, func, emu.profile.wmma_row_bytes, emu.profile.resolved_spaces)
    fusion, hoist, packed, ptx_notes, spilled = (_ptx_schedule(build, func, spec, opts) if view is None
                                                 else ({}, None, {}, (), None))
    mmap = _mapper_g(launch, emu, spec, build, res, opts, sass=view, fusion=fusion, spilled=spilled)
    spills = None
    if spilled is not None:             # the PTX IDGs get the SASS's spill code (analysis/ptx_spills.py)
        from pipeperf.analysis.ptx_spills import PtxSpills
        from pipeperf.analysis.sass_trace import local_access_class

        available = set(mmap.gpu.classes)
        spills = PtxSpills(spilled, func, lambda x: local_access_class(x, available, spec.name), own)
    mmap = replace(mmap, notes=mmap.notes + list(sass.notes) + list(ptx_notes) + emu.profile.notes,
                   hoist_bytes=hoist, packed=packed, spills=spills)
    return predict_one(emu.in_warps_of(spec.warp_size, launch.threads), func, spec, mmap, launch=launch, res=res,
                       opts=run_opts, sass=view)


def _completed(pred: GPUPrediction, launch: KernelLaunch, emu: Emulation, spec: GPUSpec, build: Build, *,
               opts: AnalyzeOptions, run_opts: AnalyzeOptions) -> GPUPrediction:
    """``pred`` with what follows the simulation: its build's resources, the quantitative roofline
    row, the physical floors, the GPU's peaks (the headline's), the per-line time and advice, and
    on the SASS path the register-cap advice re-predicted with its spills."""
    from pipeperf.analysis.advice import LaunchShape
    from pipeperf.analysis.floors import floors_of
    from pipeperf.analysis.roofline_counts import add_quantitative_roofline
    from pipeperf.emulate import select_kernel
    from pipeperf.hardware.peaks import load_peaks
    from pipeperf.ptx.source_map import SourceMap

    func = select_kernel(build.module, launch.kernel)
    own = build.kernel_resources(func.name, Path(launch.path))
    try:
        peaks = load_peaks(spec.name)
    except PipeperfError:                 # a GPU with no peak rates: the headline gives no share of peak
        peaks = None
    pred = replace(pred, resources=dict(own), peaks=peaks,
                   build={"target": build.target, "note": build.note, "ptxas_options": list(build.ptxas_flags)})
    pred = add_quantitative_roofline(pred, emu.profile.counts, pred.memory if opts.memory else None, launch.path,
                                     spec.name)
    pred = replace(pred, floors=floors_of(pred.quantitative.metrics if pred.quantitative else None, spec,
                                          pred.issued_per_traced))
    pred = _explained(pred, func, SourceMap(build.module),
                   LaunchShape(spec=spec, block=launch.block, n_blocks=launch.n_blocks, resources=own,
                               dynamic_shared=opts.shared, max_blocks_per_sm=opts.max_blocks_per_sm,
                               target=build.target, capped=lambda cap: build.capped_resources(launch.kernel, cap)),
                   advise=opts.what_if, lines=opts.source_lines)
    if opts.isa == "sass":
        pred = _spills_counted(pred, launch, emu, spec, build,
                               opts=replace(opts, what_if=False, sweep=False, phase_check=False, models=False),
                               run_opts=replace(run_opts, what_if=False, sweep=False, phase_check=False,
                                                models=False))
    return pred


def _explained(pred: GPUPrediction, func: Function, sources: SourceMap, launch: LaunchShape,
               advise: bool = True, lines: bool = True) -> GPUPrediction:
    """``pred`` with its per-line time (``source_lines``, ``time_not_on_lines``; with ``lines``) and,
    with ``advise``, its ``advice`` from its simulation context, the context dropped (the IDGs need
    not outlive the analysis). ``pipeperf tune`` asks for neither: it reports the time and bound."""
    from pipeperf.analysis.advice import advice_for
    from pipeperf.analysis.stalls import METHOD, line_times, pc_stalls

    ctx = pred.sim
    if ctx is None:
        return pred
    if not lines and not advise:
        return replace(pred, sim=None)
    st = pc_stalls(ctx.run, ctx.prep)
    if st is not None:
        per_line = line_times(st, func, sources, pred.cycles)
        note = METHOD + (" (the shares are those of the simulated IDGs, which hold part of each warp's "
                         "trace, scaled to the extrapolated time)" if ctx.cut else "")
        pred = replace(pred, source_lines=per_line.lines, time_not_on_lines=per_line.idle, notes=pred.notes + [note])
    ctx = replace(ctx, func=func, sources=sources)
    if advise:
        pred = replace(pred, advice=advice_for(pred, ctx, launch))
        why = pred.floors.violation(pred.seconds) if pred.floors is not None else None
        if why is not None:
            pred = replace(pred, notes=pred.notes + [f"no advice: the Pipeline time is not physical ({why})"])
    return replace(pred, sim=None)


def _spills_counted(pred: GPUPrediction, launch: KernelLaunch, emu: Emulation, spec: GPUSpec, build: Build, *,
                    opts: AnalyzeOptions, run_opts: AnalyzeOptions) -> GPUPrediction:
    """On the SASS path, the register-cap advice re-predicted from the SASS of the build capped at
    its registers: the spill code (LDL/STL) is then timed, which the occupancy-only
    re-simulation leaves out; a capped build that fails keeps the advice as it was."""
    from pipeperf.analysis.advice import min_gain

    advice = []
    for a in pred.advice:
        cap = a.change.get("max_registers")
        if cap is None or a.change.get("registers") is None:
            advice.append(a)
            continue
        try:
            p2 = _predict_gpu(launch, emu, spec, build.capped(launch.kernel, int(cap)), opts, run_opts)
        except PipeperfError as e:
            advice.append(replace(a, how=a.how + f" (the capped build's SASS could not be timed: {e.message})"))
            continue
        advice.append(replace(a, seconds_after=p2.seconds, how=(
            f"registers and spills from ptxas with -maxrregcount={cap} for {build.target or 'the target'}; "
            f"re-predicted from that build's SASS (its spill loads and stores timed) at "
            f"{p2.blocks_per_sm} blocks/SM")))
    pred = replace(pred, advice=advice)
    return replace(pred, advice=[a for a in advice if a.change.get("max_registers") is None
                                 or a.gain >= min_gain(pred)])


def _sass_view(build: Build, func: Function, spec: GPUSpec, opts: AnalyzeOptions) -> SassTiming:
    """With ``isa="sass"``, the kernel's SASS for ``spec``'s build and the note saying so; where
    there is none (a call or indirect branch, no SASS for a 64-wide GPU), no view and the note why
    the IDGs stay PTX."""
    if opts.isa != "sass":
        return SassTiming()
    if spec.warp_size != 32:
        return SassTiming(None, (f"SASS timing: {spec.name} has {spec.warp_size}-wide warps and no NVIDIA SASS; "
                                 "timed from the PTX",))
    try:
        view = build.sass_view(func)
    except PipeperfError as e:
        return SassTiming(None, (f"{e}; timed from the PTX",))
    note = f"timed from the SASS ptxas makes for {build.target or 'the PTX target'}"
    if view.coverage < 1.0:
        note += f" ({view.coverage:.0%} of the PTX's work lines found in it)"
    notes = [note]
    for sub, length in view.sass.calls:
        if sub == ABSOLUTE_CALL:
            notes.append("SASS timing: the absolute calls (CALL.ABS: a system function such as __assertfail "
                         "of an assert, or vprintf) are timed as the call sites alone, not the function")
        else:
            notes.append(f"SASS timing: the calls to ptxas' subroutine {sub} ({length} instructions: a "
                         "special-operand path, e.g. of an IEEE division) are timed as the call sites alone: "
                         "the subroutine's own instructions are not")
    return SassTiming(view, tuple(notes))


def _ptx_schedule(build: Build, func: Function, spec: GPUSpec, opts: AnalyzeOptions
                  ) -> tuple[dict[int, tuple[int, int]], int | None, dict[int, tuple[int, Fraction]], tuple[str, ...],
                             SassView | None]:
    """PTX IDGs, what ptxas does to the PTX's loads for ``spec``'s build: the loads it widens
    (:attr:`SassView.fusion`: PTX pc -> (group, k)), which mapper g then merges as the SASS does
    (:func:`~pipeperf.analysis.memory_trace.spread_fused_classes`), and the loaded bytes per thread
    its schedule keeps in flight (:func:`~pipeperf.analysis.sass_trace.loaded_bytes_in_flight`),
    up to which the IDG builder hoists the PTX's loads (:func:`~pipeperf.idg.build.load_hoisting`),
    and the f16 arithmetic it contracts and packs (:func:`~pipeperf.analysis.sass_trace.packed_half_arithmetic`),
    which the IDG builder merges (:func:`~pipeperf.idg.build.packed_entries`). And the view itself
    where its SASS has spill code the PTX lacks (:func:`~pipeperf.analysis.ptx_spills.has_spill_code`),
    which the IDG builder then adds. None of them, and a note why, where there is no SASS (no CUDA
    toolkit, a 64-wide GPU, a listing the view cannot match)."""
    from pipeperf.analysis.ptx_spills import has_spill_code
    from pipeperf.analysis.sass_trace import loaded_bytes_in_flight, packed_half_arithmetic
    from pipeperf.util.memo import by_identity

    if spec.warp_size != 32:
        return {}, None, {}, (), None
    try:
        view = build.sass_view(func)
    except PipeperfError as e:
        return {}, None, {}, (f"the PTX's loads and f16 arithmetic timed in its own order, widths and count: no "
                              f"SASS to take ptxas' from ({e})",), None
    packed = packed_half_arithmetic(view, func)
    notes: tuple[str, ...] = ()
    if packed:
        ks = sorted({k for _g, k in packed.values()})
        notes = (f"f16 arithmetic ptxas contracts and packs (HFMA2: two halves, a multiply and an add each): "
                 f"{len(packed)} PTX instructions on {len({g for g, _k in packed.values()})} lines issued as one "
                 f"node per {', '.join(map(str, ks))} (the SASS's f16 operations per instruction over the PTX's, "
                 "per line); the merged node's dependences are the union of its PTX ones, its class "
                 "the last one's",)
    # the views are memoised per build (a tuning sweep's variants and GPUs share nine): so is this scan
    in_flight = by_identity("loaded_bytes_in_flight", [view.sass], None, lambda: loaded_bytes_in_flight(view.sass))
    return (dict(view.fusion) if opts.memory else {}, in_flight, packed, notes,
            view if has_spill_code(view, func, build.resources.get(func.name, {})) else None)


def _mapper_g(launch: KernelLaunch, emu: Emulation, spec: GPUSpec, build: Build, res: Residency,
              opts: AnalyzeOptions, *, sass: SassView | None = None,
              fusion: Mapping[int, tuple[int, int]] | None = None, spilled: SassView | None = None) -> MemoryMap:
    """Mapper g for one GPU where ``opts.memory`` asks for it (:class:`MemoryMap`; only the GPU
    without it), from the emulation's 32-wide warps, with the SASS's local and wide shared
    classes where the IDGs hold SASS, and its local classes where the PTX IDGs get the spill
    code of ``spilled`` (analysis/ptx_spills.py)."""
    from pipeperf.analysis.memory_trace import MemoryMap
    from pipeperf.emulate import select_kernel
    from pipeperf.ptx.source_map import SourceMap

    func = select_kernel(build.module, launch.kernel)
    mmap = MemoryMap(spec)
    if opts.memory:
        from pipeperf.analysis.memory_trace import launch_memory, memory_coverage_note

        mmap = launch_memory(emu.profile, func, spec, launch=launch, blocks_per_sm=res.blocks,
                             warm_l2=opts.warm_l2, sources=SourceMap(build.module), sass=sass, trim=opts.trim_heap,
                             what_if=opts.what_if, fusion=fusion)
        mmap = replace(mmap, what_if=mmap.what_if if opts.what_if else {},
                       notes=mmap.notes + memory_coverage_note(emu.traces, emu.trace_cap))
    view = sass if sass is not None else spilled
    if view is not None:                # SASS accesses mapper g has no class for: wide shared, local
        mmap = _with_sass_classes(mmap, view, build.resources.get(func.name, {}), blocks=res.blocks,
                                  threads=launch.threads, dynamic_shared=opts.shared,
                                  active_sms=min(spec.cores, launch.n_blocks), wide=sass is not None)
    return mmap


def _with_sass_classes(mmap: MemoryMap, sass: SassView, own: Mapping[str, int], *, blocks: int, threads: int,
                       dynamic_shared: int, active_sms: int, wide: bool = True) -> MemoryMap:
    """``mmap`` with the classes of the SASS's wide shared accesses (with ``wide``: the IDGs hold
    SASS) and of its local accesses (spills, stack arrays: hardware/local_memory.py) added to its
    GPU and what-if GPUs (the IDG builder names them there too), and the note saying where the
    local footprint fits."""
    from pipeperf.analysis.sass_trace import wide_shared_classes
    from pipeperf.hardware.local_memory import LOCAL_OPCODES, local_class, local_class_name, local_footprint
    from pipeperf.hardware.mapper import resolve
    from pipeperf.hardware.sass_mapper import access_bytes

    gpu = mmap.gpu
    instrs = sass.sass.instructions
    fp = local_footprint(instrs, int(own.get("local_bytes", 0)), access_bytes)
    local: dict[str, InstrClass] = {}
    notes: list[str] = []
    if fp is not None:
        resident = blocks * threads
        smem = blocks * (int(own.get("shared_bytes", 0)) + int(dynamic_shared or 0))
        have = set(gpu.classes)
        kinds = {(resolve(LOCAL_OPCODES[x.opcode], have, gpu.name), access_bytes(x)) for x in instrs
                 if x.opcode in LOCAL_OPCODES}
        local = {local_class_name(b, w): local_class(gpu, b, w, fp, resident, smem, active_sms) for b, w in kinds}
        where = next(iter(local.values())).source.split(";")[0].removeprefix("local memory, ")
        notes = [f"local memory (register spills, stack arrays): {fp.instructions} LDL/STL in the SASS, {where}"]
    extra = {**(wide_shared_classes(sass, gpu) if wide else {}), **local}
    free = {**(wide_shared_classes(sass, gpu, conflicts=False) if wide else {}), **local}     # the wmma rows' conflicts dropped
    return replace(mmap, gpu=gpu.with_classes(**extra), notes=mmap.notes + notes,
                   what_if={k: g.with_classes(**(free if k == "no bank conflicts" else extra))
                            for k, g in mmap.what_if.items()})


def check_device_memory(specs: Sequence[GPUSpec], args: LaunchArgs) -> None:
    """Refuse, in one line, a launch whose buffers exceed a GPU's device memory
    (``memory.dram_bytes``, the vendor's capacity): it cannot run there, so no time is predicted."""
    from pipeperf.util.launch_args import buffer_bytes

    need = buffer_bytes(args.values() if isinstance(args, Mapping) else args)
    for spec in specs:
        have = spec.memory.get("dram_bytes")
        if have and need > have:
            raise PipeperfError(f"the launch's buffers take {need / 2**30:.3g} GiB, more than the "
                                f"{have / 2**30:.3g} GiB of device memory of {spec.name} (memory.dram_bytes): "
                                "it cannot run there; shrink the buffers or pick a larger GPU")


def _emulate(run_kernel: Callable[..., Profile], module: Module, launch: KernelLaunch, args: LaunchArgs,
             opts: AnalyzeOptions, *, trace_cap: int | None = None) -> Profile:
    """Trace whole CTAs spread over the grid (first, last, evenly between; ``opts.trace_warps``
    warps at most, one CTA at least) with lane addresses, and emulate only those CTAs unless
    ``opts.all_ctas`` or their traces could depend on other CTAs' writes (``prof.counts['sampling']``).
    Loops are skipped unless ``opts.exact``; ``opts.max_steps`` errors at the loop's source line."""
    return run_kernel(module, launch.grid, launch.block, args, kernel=launch.kernel, mode=opts.mode,
                      trace_warps=opts.trace_warps, trace_blocks="spread", ctas=None if opts.all_ctas else "traced",
                      shared=opts.shared, memory=True, trace_cap=trace_cap,
                      fast_loops=opts.skip_loops and not opts.exact,
                      allow_dtype_mismatch=opts.allow_dtype_mismatch, oob=opts.oob, trace_addresses=False,
                      bank_conflicts=False,
                      **({} if opts.max_steps is None else {"max_steps": opts.max_steps}))


def _fresh(args: LaunchArgs) -> LaunchArgs:
    """``args`` with each NumPy array replaced by a copy of it (everything else as it is): the
    emulator writes its buffers, and each build's emulation must start from the launch's contents."""
    import numpy as np

    def fresh(v: Any) -> Any:
        return v.copy() if isinstance(v, np.ndarray) else v

    if isinstance(args, Mapping):
        return {k: fresh(v) for k, v in args.items()}
    return [fresh(v) for v in args]


__all__ = ["FAST_FORWARD_ROUNDS", "TRACE_ENTRIES", "Analysis", "AnalyzeOptions", "GPUPrediction", "analyze"]
