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
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping, Sequence
from dataclasses import replace

from pipeperf.analysis.options import FAST_FORWARD_ROUNDS, AnalyzeOptions
from pipeperf.analysis.results import Analysis, GPUPrediction
from pipeperf.errors import PipeperfError
from pipeperf.sass.listing import ABSOLUTE_CALL
from pipeperf.util.gcpause import paused_gc
from pipeperf.util.progress import progress

if TYPE_CHECKING:
    from pipeperf.analysis.memory_trace import MemoryMap

log = logging.getLogger(__name__)

#: trace entries kept over all traced warps: each warp keeps TRACE_ENTRIES / traced warps and is
#: counted beyond, so memory stays bounded on long loops (256 warps x 31 250 entries, with their
#: lanes' addresses, is a few hundred MB); the IDGs are cut there too and extrapolated, and
#: mapper g's statistics come from the kept entries (the report says so)
TRACE_ENTRIES = 8_000_000


def analyze(path: str | Path, grid: Any, block: Any, args: Sequence[Any] | Mapping[str, Any], gpus: Sequence[str],
            options: AnalyzeOptions | None = None, compiled: Any = None, **kwargs: Any) -> Analysis:
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
        return _analyze(path, grid, block, args, gpus, opts, compiled)


def _analyze(path: str | Path, grid: Any, block: Any, args: Sequence[Any] | Mapping[str, Any], gpus: Sequence[str],
             opts: AnalyzeOptions, compiled: Any = None) -> Analysis:
    from pipeperf.analysis.advice import LaunchShape, explain
    from pipeperf.analysis.builds import Builds
    from pipeperf.analysis.floors import floors_of
    from pipeperf.analysis.predict import predict_one
    from pipeperf.analysis.roofline_counts import add_quantitative_roofline
    from pipeperf.emulate import run_kernel, select_kernel
    from pipeperf.emulate.launch import dim3
    from pipeperf.emulate.profile import hypa_metrics
    from pipeperf.hardware.occupancy import launch_residency
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.ptx.source_map import SourceMap

    t0 = time.perf_counter()
    specs = [load_gpu(name) for name in gpus]          # an unknown GPU fails before any work
    if not specs:
        raise PipeperfError("no GPU to analyze for: name at least one (--gpu NAME)")
    check_device_memory(specs, args)
    g3, b3 = dim3(grid, "grid"), dim3(block, "block")
    threads = math.prod(b3)
    wpb = -(-threads // 32)
    n_blocks = math.prod(g3)
    if opts.max_blocks_per_sm is not None and opts.max_blocks_per_sm < 1:
        raise PipeperfError(f"max blocks per SM must be >= 1, got {opts.max_blocks_per_sm}")
    builds = Builds(Path(path), opts.arch, list(opts.nvcc_flags), compiled)
    module = builds.default.module
    func = select_kernel(module, opts.kernel)
    resources = builds.default.kernel_resources(func.name, Path(path))
    per_gpu = [builds.for_gpu(spec) for spec in specs]      # one compile per distinct target
    traced = min(max(1, int(opts.trace_warps)), n_blocks * wpb)      # the warps a spread sample can trace
    cap = None if opts.exact else max(1024, TRACE_ENTRIES // traced)
    run_opts = opts.resolved(cap)
    profs: dict[str, Any] = {}      # one emulation per distinct PTX, dropped after the last GPU using it
    pristine = _fresh(args) if len({b.code_key for b in per_gpu}) > 1 else None   # (the first one writes args)
    out: Analysis | None = None
    for i, (spec, build) in enumerate(progress(list(zip(specs, per_gpu)), "analyze", "GPU")):
        func = select_kernel(build.module, func.name)
        if build.code_key not in profs:
            t_emulate = time.perf_counter()
            log.info("emulating %s (grid %s, block %s) for %s", func.name, g3, b3, spec.name)
            launch_args = args if pristine is None or not i else _fresh(pristine)
            profs[build.code_key] = _emulate(run_kernel, build.module, func.name, g3, b3, launch_args, opts.mode,
                                             opts.trace_warps, opts.shared, opts.all_ctas, cap,
                                             fast_loops=opts.skip_loops and not opts.exact,
                                             max_steps=opts.max_steps,    # errors at their source line
                                             allow_dtype_mismatch=opts.allow_dtype_mismatch, oob=opts.oob)
            log.info("emulated in %.1f s", time.perf_counter() - t_emulate)
        log.info("%s: memory model, simulation%s", spec.name, ", what-ifs and advice" if opts.what_if else "")
        prof = profs[build.code_key]
        if all(b.code_key != build.code_key for b in per_gpu[i + 1:]):
            del profs[build.code_key]
        if out is None:
            out = Analysis(func.name, g3, b3, resources, len(prof.traces), n_blocks * wpb, 0,
                           ctas_emulated=int(prof.counts.get("ctas_emulated", n_blocks)),
                           ctas_total=int(prof.counts.get("ctas_total", n_blocks)),
                           sampling=str(prof.counts.get("sampling", "")), hypa=hypa_metrics(prof.counts),
                           out_of_bounds=list(prof.out_of_bounds))
        own = build.kernel_resources(func.name, Path(path))

        def predict(build, opts=opts, run_opts=run_opts, spec=spec, prof=prof, func=func):
            """This GPU's prediction from ``build`` (its registers, its SASS)."""
            own = build.kernel_resources(func.name, Path(path))
            res = launch_residency(spec, threads, own, opts.shared, n_blocks, opts.max_blocks_per_sm, build.note)
            sass, sass_notes = _sass_view(build, func, spec, opts)
            mmap, prof_gpu = _mapper_g(prof, func, spec, build, res, opts, wpb, n_blocks, g3, b3, cap, sass)
            mmap = replace(mmap, notes=mmap.notes + sass_notes + prof.notes)
            wpb_gpu = -(-threads // spec.warp_size)        # warps of this GPU's width per block
            return predict_one(prof_gpu, func, spec, mmap, wpb=wpb_gpu, n_blocks=n_blocks, res=res, opts=run_opts,
                               path=str(path), grid=g3, sass=sass), mmap.rows
        (pred, truncated), mem_rows = predict(build)
        pred.resources = dict(own)
        pred.build = {"target": build.target, "note": build.note, "ptxas_options": list(build.ptxas_flags)}
        add_quantitative_roofline(pred, prof.counts, mem_rows if opts.memory else None, str(path), spec.name)
        pred.floors = floors_of(pred, spec)
        explain(pred, func, SourceMap(build.module),
                LaunchShape(spec, b3, n_blocks, own, opts.shared, opts.max_blocks_per_sm, build.target,
                            lambda cap, b=build, name=func.name: b.capped_resources(name, cap)),
                advise=opts.what_if)
        if opts.isa == "sass":
            _spills_counted(pred, build, func.name, predict,
                            replace(opts, what_if=False, sweep=False, phase_check=False, models=False),
                            replace(run_opts, what_if=False, sweep=False, phase_check=False, models=False))
        out.predictions.append(pred)
        out.truncated_warps = truncated
    assert out is not None                  # specs is not empty
    out.seconds_analysis = time.perf_counter() - t0
    return out


def _spills_counted(pred: Any, build: Any, name: str, predict: Any, opts: AnalyzeOptions,
                    run_opts: AnalyzeOptions) -> None:
    """On the SASS path, the register-cap advice re-predicted from the SASS of the build capped at
    its registers: the spill code (LDL/STL) is then timed, which the occupancy-only
    re-simulation leaves out; a capped build that fails keeps the advice as it was."""
    for a in pred.advice:
        cap = a.change.get("max_registers")
        if cap is None or a.change.get("registers") is None:
            continue
        try:
            capped = build.capped(name, int(cap))
            (p2, _), _ = predict(capped, opts=opts, run_opts=run_opts)
        except PipeperfError as e:
            a.how += f" (the capped build's SASS could not be timed: {e.message})"
            continue
        a.seconds_after = p2.seconds
        a.how = (f"registers and spills from ptxas with -maxrregcount={cap} for {build.target or 'the target'}; "
                 f"re-predicted from that build's SASS (its spill loads and stores timed) at "
                 f"{p2.blocks_per_sm} blocks/SM")
    from pipeperf.analysis.advice import min_gain

    pred.advice = [a for a in pred.advice if a.change.get("max_registers") is None or a.gain >= min_gain(pred)]


def _sass_view(build: Any, func: Any, spec: Any, opts: AnalyzeOptions) -> tuple[Any, list[str]]:
    """With ``isa="sass"``, the kernel's SASS for ``spec``'s build and the note saying so; where
    there is none (a call or indirect branch, no SASS for a 64-wide GPU), None and the note why the
    IDGs stay PTX."""
    if opts.isa != "sass":
        return None, []
    if spec.warp_size != 32:
        return None, [f"SASS timing: {spec.name} has {spec.warp_size}-wide warps and no NVIDIA SASS; timed from the PTX"]
    try:
        view = build.sass_view(func)
    except PipeperfError as e:
        return None, [f"{e}; timed from the PTX"]
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
    return view, notes


def _mapper_g(prof: Any, func: Any, spec: Any, build: Any, res: Any, opts: AnalyzeOptions, wpb: int, n_blocks: int,
              g3: tuple[int, int, int], b3: tuple[int, int, int], cap: int | None, sass: Any = None
              ) -> tuple[MemoryMap, Any]:
    """Mapper g for one GPU where ``opts.memory`` asks for it (:class:`MemoryMap`; only the GPU
    without it), and the profile with its traces in that GPU's warp width."""
    from pipeperf.analysis.memory_trace import MemoryMap
    from pipeperf.ptx.source_map import SourceMap

    mmap = MemoryMap(spec)
    threads = math.prod(b3)
    if opts.memory:
        from pipeperf.analysis.memory_trace import launch_memory, memory_coverage_note

        mmap = launch_memory(prof, func, spec, wpb, res.blocks, n_blocks, g3, b3, opts.warm_l2,
                             SourceMap(build.module), sass)
        mmap = replace(mmap, what_if=mmap.what_if if opts.what_if else {},
                       notes=mmap.notes + memory_coverage_note(prof.traces, cap))
    if sass is not None:                # SASS accesses mapper g has no class for: wide shared, local
        from pipeperf.analysis.sass_trace import wide_shared_classes

        local, local_notes = _local_classes(mmap.gpu, sass, build.resources.get(func.name, {}), res.blocks, threads,
                                            opts.shared, min(spec.cores, n_blocks))
        extra = {**wide_shared_classes(sass, mmap.gpu), **local}
        # the what-if GPUs too: the IDG builder names these classes there as well
        mmap = replace(mmap, gpu=mmap.gpu.with_classes(**extra), notes=mmap.notes + local_notes,
                       what_if={k: g.with_classes(**extra) for k, g in mmap.what_if.items()})
    prof_gpu = prof
    if spec.warp_size != 32:
        from pipeperf.analysis.wavefronts import wide_warp_traces

        prof_gpu = replace(prof, traces=wide_warp_traces(prof.traces, threads, spec.warp_size))
    return mmap, prof_gpu


def _local_classes(gpu: Any, sass: Any, own: dict[str, int], blocks: int, threads: int, dynamic_shared: int,
                   active_sms: int) -> tuple[dict[str, Any], list[str]]:
    """The classes of the SASS's local accesses (spills, stack arrays: hardware/local_memory.py) by
    name, and the note saying where their footprint fits."""
    from pipeperf.hardware.local_memory import LOCAL_OPCODES, local_class, local_class_name, local_footprint
    from pipeperf.hardware.mapper import resolve
    from pipeperf.hardware.sass_mapper import access_bytes

    instrs = sass.sass.instructions
    fp = local_footprint(instrs, int(own.get("local_bytes", 0)), access_bytes)
    if fp is None:
        return {}, []
    resident = blocks * threads
    smem = blocks * (int(own.get("shared_bytes", 0)) + int(dynamic_shared or 0))
    have = set(gpu.classes)
    kinds = {(resolve(LOCAL_OPCODES[x.opcode], have, gpu.name), access_bytes(x)) for x in instrs
             if x.opcode in LOCAL_OPCODES}
    classes = {local_class_name(b, w): local_class(gpu, b, w, fp, resident, smem, active_sms) for b, w in kinds}
    where = next(iter(classes.values())).source.split(";")[0].removeprefix("local memory, ")
    note = f"local memory (register spills, stack arrays): {fp.instructions} LDL/STL in the SASS, {where}"
    return classes, [note]


def check_device_memory(specs, args: Sequence[Any] | Mapping[str, Any]) -> None:
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


def _emulate(run_kernel, module, name: str, grid, block, args, mode: str, trace_warps: int,
             shared: int, all_ctas: bool, trace_cap: int | None = None, fast_loops: bool = True,
             max_steps: int | None = None, allow_dtype_mismatch: bool = False, oob: str = "error"):
    """Trace whole CTAs spread over the grid (first, last, evenly between; ``trace_warps`` warps
    at most, one CTA at least) with lane addresses, and emulate only those CTAs unless
    ``all_ctas`` or their traces could depend on other CTAs' writes (``prof.counts['sampling']``)."""
    return run_kernel(module, grid, block, args, kernel=name, mode=mode, trace_warps=trace_warps,
                      trace_blocks="spread", ctas=None if all_ctas else "traced", shared=shared,
                      memory=True, trace_cap=trace_cap, fast_loops=fast_loops,
                      allow_dtype_mismatch=allow_dtype_mismatch, oob=oob, trace_addresses=False,
                      **({} if max_steps is None else {"max_steps": max_steps}))


def _fresh(args: Sequence[Any] | Mapping[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
    """``args`` with each NumPy array replaced by a copy of it (everything else as it is): the
    emulator writes its buffers, and each build's emulation must start from the launch's contents."""
    import numpy as np

    def fresh(v: Any) -> Any:
        return v.copy() if isinstance(v, np.ndarray) else v

    if isinstance(args, Mapping):
        return {k: fresh(v) for k, v in args.items()}
    return [fresh(v) for v in args]


__all__ = ["FAST_FORWARD_ROUNDS", "TRACE_ENTRIES", "Analysis", "AnalyzeOptions", "GPUPrediction", "analyze"]
