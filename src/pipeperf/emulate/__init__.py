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
from typing import TYPE_CHECKING, Any
from collections.abc import Sequence

from pipeperf.emulate.budget import DEFAULT_STEPS
from pipeperf.emulate.profile import CSV_COLUMNS, Profile, csv_text   # before profile() below, which it leaves
from pipeperf.errors import PipeperfError

if TYPE_CHECKING:
    import numpy as np

    from pipeperf.emulate.launch import Launch
    from pipeperf.ptx.ir import Function, Module

#: re-exported names, imported on first use: this package, and ``pipeperf.emulate.budget`` (which the
#: commands' options read), cost no NumPy
_LAZY = {"Launch": "pipeperf.emulate.launch",
         "load_module": "pipeperf.ptx.load"}      # the launch file loader, for run_kernel's callers


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def select_kernel(module: Module, name: str | None) -> Function:
    """The kernel ``--kernel NAME`` means (an entry name, or a C++ kernel's CUDA name:
    :func:`~pipeperf.ptx.cuda_names.resolve_entry`); with no name, the only one."""
    from pipeperf.ptx.cuda_names import resolve_entry

    ks = module.kernels
    entry = resolve_entry([k.name for k in ks], name, module.file)
    return next(k for k in ks if k.name == entry)


def run_kernel(path: str | Path | Module, grid: Any, block: Any, args: Any,
               kernel: str | None = None, shared: int = 0, mode: str = "full",
               max_steps: int = DEFAULT_STEPS, batch_threads: int = 1 << 18,
               trace_warps: int = 0, arch: str | None = None, memory: bool = True,
               trace_blocks: str | Sequence[int] | None = None,
               ctas: str | Sequence[int] | None = None, trace_cap: int | None = None,
               nvcc_flags: Sequence[str] = (), fast_loops: bool = False,
               allow_dtype_mismatch: bool = False, oob: str = "error", trace_addresses: bool = True,
               bank_conflicts: bool = True) -> Profile:
    """Emulate one launch. NumPy arrays in ``args`` are device buffers and receive the
    kernel's writes (in full mode, all CTAs); returns the :class:`Profile`. ``memory=False``
    (hybrid only) skips address computation: fewer instructions, memory statistics ``None``.

    Traces (``prof.traces``, keyed by launch-wide warp id): ``trace_blocks=None`` traces the
    first ``trace_warps`` warps; ``"spread"`` traces every warp of the first, the last and
    evenly spaced CTAs, as many whole CTAs as fit in ``trace_warps`` (at least one); a list
    traces those CTAs' warps. ``ctas`` emulates only a sample of CTAs (plus the traced ones):
    a list of CTA linear indices, or ``"traced"``. A sample is used only when
    :func:`~pipeperf.emulate.sampling.sampling_safe` proves the emulated CTAs' traces equal
    the full launch's; else every CTA runs. ``prof.counts`` says what ran: ``ctas_emulated``
    of ``ctas_total``, ``partial`` (counts cover only the sample), ``sampling`` (why).
    ``fast_loops`` jumps over the iterations of periodic loops (:mod:`pipeperf.emulate.loops`):
    counts are extrapolated over them and ``prof.traces.skips`` says where. ``max_steps``: the
    launch's step budget (:mod:`pipeperf.emulate.budget`), past which it stops with one line.
    ``allow_dtype_mismatch``: take a ``.npy`` whose dtype is not its pointer's element type.
    ``oob``: ``error`` (an out-of-bounds global access stops the launch, at its source line) or
    ``warn`` (loads there read zeros, stores are dropped; ``prof.out_of_bounds`` counts them per line).
    ``trace_addresses=False``: the traced lanes' addresses only in ``prof.memory_log``, not in the
    trace entries too (what analyze asks: it releases the log once mapper g has read it).
    ``bank_conflicts=False``: ``counts['shared_bank_conflicts']`` is not counted (stays 0): analyze
    takes the traced warps' bank wavefronts from mapper g and reads no count of them."""
    import numpy as np

    from pipeperf.emulate.launch import Launch, bind_args, check_cuda_limits, dim3
    from pipeperf.emulate.profile import build_profile
    from pipeperf.ptx.load import load_module
    from pipeperf.ptx.params import ParamNames
    from pipeperf.util.alloc import steady_allocator

    steady_allocator()
    module = load_module(path, arch, nvcc_flags)
    func = select_kernel(module, kernel)
    param_names = ParamNames.for_file(func, module.file)
    values, names = bind_args(func, args, file=module.file, names=param_names,
                              allow_dtype_mismatch=allow_dtype_mismatch)
    launch = Launch(dim3(grid, "grid"), dim3(block, "block"), values, names, int(shared), param_names)
    check_cuda_limits(launch.grid, launch.block)
    nblocks = launch.num_blocks
    wpc = -(-launch.threads_per_block // 32)
    trace, traced_ctas = _traced(trace_blocks, trace_warps, nblocks, wpc)
    strata = None
    if ctas is not None:
        from pipeperf.emulate.sampling import Strata

        strata = Strata.of(func, launch)
        trace, traced_ctas, ctas = _with_strata(strata, trace, traced_ctas, ctas, wpc)
    sample, why = _sample(ctas, traced_ctas, func, module, launch, memory or mode == "full")
    weights = None
    if sample is not None and strata is not None and strata.split:
        from pipeperf.emulate.sampling import sample_weights

        w = sample_weights(sample, launch.grid, strata)
        weights = np.asarray([w[int(b)] for b in sample], np.float64)
        why += _strata_note(strata, sample)
    t0 = time.perf_counter()
    kw = dict(mode=mode, max_steps=max_steps, batch_threads=batch_threads,
              trace_warps=trace_warps, memory=memory, trace=trace, ctas=sample, trace_cap=trace_cap,
              fast_loops=fast_loops, oob=oob, trace_addresses=trace_addresses, bank_conflicts=bank_conflicts)
    m, fallback, checked = _emulate(module, func, launch, sample, kw, weights)
    prof = build_profile(m, time.perf_counter() - t0)
    prof.counts["ctas_bounds_checked"] = checked
    if checked:
        why += (f"; {checked} more CTA{'s' if checked > 1 else ''} at the grid's extremes checked for "
                "out-of-bounds accesses")
    prof.counts["hybrid_fallback"] = fallback
    if m.loops is not None:
        prof.counts["loops_skipped"] = m.loops.skips_done
        prof.counts["loop_iterations_skipped"] = m.loops.iterations_skipped
    prof.counts["ctas_total"] = nblocks
    prof.counts["ctas_emulated"] = nblocks if sample is None else len(sample)
    prof.counts["partial"] = sample is not None
    prof.counts["sampling"] = why
    prof.strata = strata
    prof.params = {n: v for n, v in zip(names, values) if isinstance(v, (int, float)) and not isinstance(v, bool)}
    prof.notes += _printf_note(m.counters.printf_calls, sample is not None)
    prof.out_of_bounds = _oob_rows(m.counters.out_of_bounds, module)
    if prof.out_of_bounds:
        n = sum(r["loads"] + r["stores"] for r in prof.out_of_bounds)
        where = " of the emulated CTAs" if sample is not None else ""
        prof.notes.append(f"--oob warn: {n:,} out-of-bounds global thread accesses{where} on "
                          f"{len(prof.out_of_bounds)} line(s) went on (loads read zeros, stores were dropped; "
                          "a real GPU reads whatever lies there, so values and paths may differ)")
    return prof


def _oob_rows(counts: dict[int, list[int]], module: Module) -> list[dict[str, Any]]:
    """The per-PTX-line out-of-bounds counts as rows naming the source line, most first."""
    from pipeperf.ptx.source_map import SourceMap

    smap, rows = SourceMap(module), []
    for line, (loads, stores) in counts.items():
        hit = smap.at_ptx_line(line)
        loc = smap.location(*hit) if hit else None
        rows.append({"ptx_line": line, "source": loc.where if loc else f"PTX line {line}",
                     "loads": loads, "stores": stores})
    return sorted(rows, key=lambda r: -(r["loads"] + r["stores"]))


def _printf_note(calls: int, partial: bool) -> list[str]:
    """The note that a kernel's printf calls were counted, not executed (nothing is printed)."""
    if not calls:
        return []
    where = " in the emulated CTAs" if partial else ""
    return [f"{calls} printf call{'s' * (calls != 1)}{where} not executed (the emulator prints nothing)"]


def _traced(trace_blocks: str | Sequence[int] | None, trace_warps: int, nblocks: int,
            warps_per_cta: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(launch-wide warp ids to trace or None for the first ``trace_warps``, the traced CTAs)."""
    import numpy as np

    from pipeperf.emulate import sampling as S

    if trace_blocks is not None:
        if isinstance(trace_blocks, str):
            if trace_blocks != "spread":
                raise PipeperfError(f"unknown trace selection {trace_blocks!r} (spread, or CTA indices)")
            traced_ctas = S.spread_ctas(nblocks, max(1, int(trace_warps) // warps_per_cta))
        else:
            traced_ctas = np.unique(np.asarray(list(trace_blocks), np.int64))
            if len(traced_ctas) and (traced_ctas[0] < 0 or traced_ctas[-1] >= nblocks):
                raise PipeperfError(f"traced CTA index outside the grid of {nblocks} blocks")
        return S.warps_of(traced_ctas, warps_per_cta), traced_ctas
    if trace_warps:
        return None, np.arange(-(-min(int(trace_warps), nblocks * warps_per_cta) // warps_per_cta), dtype=np.int64)
    return None, None


def _with_strata(strata, trace, traced_ctas, ctas, wpc: int):
    """(trace, traced CTAs, ctas) with one CTA of every stratum of ``strata`` added where a guard
    splits CTAs (:class:`~pipeperf.emulate.sampling.Strata`), traced when the trace is a spread of
    whole CTAs: the partly masked CTAs are always emulated, never stood for by full ones."""
    import numpy as np

    from pipeperf.emulate.sampling import warps_of

    if not any(strata.cuts):
        return trace, traced_ctas, ctas
    reps = strata.representatives()
    if trace is not None and traced_ctas is not None:          # a spread (or listed) trace: trace them
        traced_ctas = np.union1d(traced_ctas, reps)
        return warps_of(traced_ctas, wpc), traced_ctas, ctas
    base = traced_ctas if isinstance(ctas, str) else ctas
    if base is None:
        return trace, traced_ctas, ctas
    return trace, traced_ctas, [int(b) for b in np.union1d(np.asarray(list(base), np.int64), reps)]


def _strata_note(strata, sample) -> str:
    """The sampling line's words on the partly masked CTAs' strata and the weighting."""
    import numpy as np

    g = strata.grid
    cut = {"xyz"[d]: c for d, c in enumerate(strata.masked) if c}
    weighted = "; counts weighted by the grid CTAs each emulated one stands for"
    own = sum(1 for b in np.asarray(sample)
              if any((int(b) // int(np.prod(g[:d]))) % g[d] in strata.masked[d] for d in range(3)))
    where = ", ".join(f"block {a} {', '.join(map(str, c))}" for a, c in cut.items())
    return (f"; {strata.split} CTA{'s' if strata.split > 1 else ''} partly masked by bounds checks ({where}) "
            f"in strata of their own, {own} of them emulated" + weighted)


def _sample(ctas: str | Sequence[int] | None, traced_ctas: np.ndarray | None, func: Function,
            module: Module, launch: Launch, memory: bool) -> tuple[np.ndarray | None, str]:
    """The CTAs to emulate (None: all) and why, the sample kept only when it is safe."""
    from pipeperf.emulate import sampling as S

    sample = S.resolve_ctas(ctas, launch.num_blocks, traced_ctas)
    why = "all CTAs requested"
    if sample is not None:
        safe, why = S.sampling_safe(func, module, memory=memory, launch=launch)
        if not safe:
            sample = None
            why = "emulated every CTA: " + why
    elif ctas is not None:
        why = "the sample is the whole grid"
    return sample, why


def _emulate(module: Module, func: Function, launch: Launch, sample: np.ndarray | None, kw: dict,
             weights: np.ndarray | None = None):
    """Run the launch (optimistic hybrid first, rerun conservatively on a fallback) and the
    bounds-check CTAs; (machine, whether it fell back, CTAs checked). Faults name source lines.
    ``weights`` (per sampled CTA, the grid CTAs it stands for): the sample is run again, untraced
    and in hybrid mode (the same counts), in batches of one weight, and ``m.weighted`` holds
    its weighted counts; a separate run, so the traced run's batches (and loop skips) stay."""
    from pipeperf.emulate.errors import HybridFallback
    from pipeperf.emulate.machine import Machine

    fallback = False
    try:
        try:
            m = Machine(module, func, launch, optimistic=True, **kw)
            m.run()
        except HybridFallback:
            fallback = True
            m = Machine(module, func, launch, optimistic=False, **kw)
            m.run()
        if weights is not None:
            import numpy as np

            opts = dict(kw, mode="hybrid", trace=np.empty(0, np.int64), trace_warps=0, trace_cap=None,
                        memory=True, weights=weights)
            counting = Machine(module, func, launch, optimistic=False, **opts)
            counting.run()
            m.weighted = counting.weighted
        checked = _check_extremes(module, func, launch, sample, kw, m.counters.out_of_bounds) \
            if sample is not None and (kw["memory"] or kw["mode"] == "full") else 0
    except PipeperfError as e:                   # a fault at a PTX line: say its source line
        from pipeperf.ptx.source_map import at_source

        raise at_source(e, module) from None
    return m, fallback, checked


def _check_extremes(module: Module, func: Function, launch: Launch, sample: np.ndarray, kw: dict,
                    oob: dict[int, list[int]]) -> int:
    """Emulate, untraced, the CTAs where the launch's affine addresses and guards reach their
    extremes (:func:`pipeperf.emulate.bounds.extreme_ctas`) that the sample skipped, so an access
    out of its buffer anywhere in the grid faults as it does when every CTA runs; the sample is
    safe (its CTAs' paths do not depend on other CTAs' writes), so neither do theirs. Returns
    how many CTAs that took; with ``--oob warn`` their out-of-bounds counts are added to ``oob``."""
    import numpy as np

    from pipeperf.emulate.bounds import extreme_ctas
    from pipeperf.emulate.machine import Machine

    extra = np.setdiff1d(extreme_ctas(func, launch), sample)
    if len(extra):
        opts = dict(kw, trace=np.empty(0, np.int64), ctas=extra, trace_warps=0, trace_cap=None, memory=True)
        mx = Machine(module, func, launch, optimistic=False, **opts)
        mx.run()
        for line, (loads, stores) in mx.counters.out_of_bounds.items():
            row = oob.setdefault(line, [0, 0])
            row[0] += loads
            row[1] += stores
    return len(extra)


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
