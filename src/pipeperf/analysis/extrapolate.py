"""Extrapolating a launch's time from shorter IDG sets of the same traces.

The IDGs keep a bounded share of each traced warp (the trace cap, ``IDG_NODES``) and the emulator
jumps over periodic loop iterations; what was left out is put back here: the launch is also
simulated on shorter IDG sets (cut at half the budget, or with half of each skipped loop's
recorded periods dropped) and the time is extended linearly in the missing instructions, floored
by the busiest resource. The report's notes saying so are written here too."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace as dc_replace
from typing import TYPE_CHECKING, cast
from collections.abc import Sequence

if TYPE_CHECKING:
    from pipeperf.emulate.profile import Profile
    from pipeperf.emulate.tracelog import TraceLog
    from pipeperf.idg.build import BuildInfo
    from pipeperf.simulate.simulator import SimResult


@dataclass(frozen=True)
class Shorter:
    """A shorter IDG set of the same traces, simulated: ``kind`` "cut" (each warp's trace cut at
    half the budget) or "periods" (half the recorded periods of each skipped loop left out)."""

    kind: str
    info: BuildInfo      # how its traces were cut
    cycles: float        # the Pipeline run's cycles on it
    models: dict[str, dict[str, list[float | None]]] | None = None   # the analytical models on it
    busy: dict[str, float] | None = None               # busy cycles per subsystem of that run
    issued: float | None = None                        # warp instructions it issued on the core


def extrapolation_slopes(cycles: float, info: BuildInfo, shorter: Sequence[Shorter], skipped: int,
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


def cut_note(info: BuildInfo, info_half: BuildInfo, f: float) -> str:
    return (f"{info.truncated_warps} of {info.warps_traced} traced warps run past {info.max_nodes:,} "
            f"instructions ({info.instructions_full:,} traced instructions, {info.instructions_kept:,} in the "
            f"IDGs): the Pipeline time is extrapolated from simulations of the first {info_half.max_nodes:,} "
            f"and {info.max_nodes:,} instructions of each warp (x{f:.3g}; exact where the loop's schedule "
            "repeats), and so are the analytical models")


def busy_cycles(r: SimResult) -> dict[str, float]:
    return {s: share * r.cycles for s, share in r.subsystem_busy.items()}


def shorter_run(kind: str, info: BuildInfo, r: SimResult) -> Shorter:
    """A shorter IDG set's run, as the extrapolation reads it."""
    return Shorter(kind, info, r.cycles, busy=busy_cycles(r), issued=r.instructions_on_core)


@dataclass(frozen=True)
class Extended:
    """The run of the whole traces (``run``) and its factor over the kept IDGs' run (``factor``)."""

    run: SimResult
    factor: float


def extend(r: SimResult, info: BuildInfo, shorter: Sequence[Shorter], skipped: int, issue_limit: float) -> Extended:
    """The run of whole traces from the kept IDGs' run ``r`` and the shorter runs: the slopes
    (:func:`extrapolation_slopes`) floored by the busiest resource (:func:`resource_floor`)."""
    cycles = extrapolation_slopes(r.cycles, info, shorter, skipped)
    floor = resource_floor(r, cycles, info, shorter, skipped, issue_limit=issue_limit)
    return scaled(r, floor.cycles, info, floor.busy)


@dataclass(frozen=True)
class ResourceFloor:
    """The extrapolated cycles, raised to the busiest resource's, and each subsystem's busy cycles."""

    cycles: float
    busy: dict[str, float]


def resource_floor(r: SimResult, cycles: float, info: BuildInfo, shorter: Sequence[Shorter], skipped: int, *,
                   issue_limit: float) -> ResourceFloor:
    """The extrapolated ``cycles`` raised, where needed, to what the whole traces' busiest pipeline
    and issue slots need: each subsystem's busy time and the issued instructions are sums over
    instructions, so they extrapolate linearly and exactly (as the cycles do), and no schedule
    finishes before its busiest resource. This matters where the kept IDGs are dominated by
    something the skipped periods are not (a compute loop's kept part is load-heavy: dropping
    periods then barely shortens the run, and the cycles' slope alone under-counts them).
    Returns the cycles and each subsystem's extrapolated busy cycles (:class:`ResourceFloor`)."""
    busy_a = busy_cycles(r)
    busy_full: dict[str, float] = {}
    for s, b in busy_a.items():
        short = [x.busy.get(s, 0.0) for x in shorter if x.busy is not None]
        v = extrapolation_slopes(b, info, shorter, skipped, short, sums=True) \
            if len(short) == len(shorter) else None
        busy_full[s] = b if v is None else v
    issued = None
    short_issued = [float(x.issued) for x in shorter if x.issued is not None]
    if len(short_issued) == len(shorter):
        issued = extrapolation_slopes(float(r.instructions_on_core), info, shorter, skipped,
                                      short_issued, sums=True)
    floor = max(busy_full.values(), default=0.0)
    if issued is not None and math.isfinite(issue_limit) and issue_limit > 0:
        floor = max(floor, issued / issue_limit)
    return ResourceFloor(max(cycles, floor), busy_full)


def scaled(r: SimResult, cycles: float, info: BuildInfo, busy: dict[str, float] | None = None) -> Extended:
    """``r`` with ``cycles``, its seconds, throughputs, instruction count and (given the whole
    traces' busy cycles) subsystem shares scaled to match."""
    scale = info.instructions_full / info.instructions_kept
    f = cycles / r.cycles
    shares = r.subsystem_busy if busy is None else {s: min(1.0, b / cycles) for s, b in busy.items()}
    out = dc_replace(r, cycles=cycles, seconds=r.seconds * f, warps_per_cycle=r.warps_per_cycle / f,
                     ipc=r.ipc * scale / f, instructions_on_core=int(round(r.instructions_on_core * scale)),
                     issue_cycles=r.issue_cycles * f, subsystem_busy=shares)
    return Extended(out, f)



def skip_note(prof: Profile, info: BuildInfo, shorter: Sequence[Shorter], skipped: int, f: float) -> str:
    """What the emulator's loop skipping and the IDG budget left out, and how the time covers it."""
    from pipeperf.emulate.loops import KNOWN_PERIODS, PERIODS

    log = cast("TraceLog", prof.traces)          # loops were skipped: the emulator's TraceLog
    skips = [k for k in log.skips if not k.expand]        # (the repeated ones: repeat_note)
    iters = sum(k.count * k.iterations * len(k.warps) for k in skips)
    pairs = sum(k.iterations == 2 for k in skips)
    pair_text = (f"; {pairs:,} of them ping-pong loops whose period is two iterations (double buffering)"
                 if pairs else "")
    n, n2 = info.instructions_full, info.instructions_kept
    runs = ["all the kept periods"] + [{"periods": "half of each loop's recorded periods left out",
                                        "cut": f"each warp cut at {s.info.max_nodes:,}"}[s.kind] for s in shorter]
    cut = (f"; {info.truncated_warps} warps' IDGs cut at {info.max_nodes:,} instructions, the rest extrapolated "
           "at the slope of their second half") if info.truncated_warps else ""
    return (f"periodic loops: the emulator jumped over {iters:,} iterations of the traced warps in "
            f"{len(skips):,} loop instance{'s' if len(skips) != 1 else ''} (each after {PERIODS} identical "
            f"periods, {KNOWN_PERIODS} for a loop already skipped{pair_text}; counts added exactly; mapper g's memory statistics include the skipped periods' "
            f"accesses, synthesised from their address strides); {n:,} traced instructions, "
            f"{skipped:,} of them skipped, {n2:,} in the IDGs{cut}: the Pipeline time is extrapolated linearly "
            f"from simulations of the IDGs with {', with '.join(runs)} (x{f:.3g}; exact where every period costs "
            f"what the simulated ones did; never below the busiest pipeline's or the issue slots' time, "
            f"extrapolated the same way), and so are the analytical models")



def repeat_note(prof: Profile) -> str:
    """What the emulator skipped of short loops holding a barrier whose periods the IDGs repeat
    (:data:`~pipeperf.emulate.loops.MIN_JUMP_REPEAT`): nothing extrapolated, only not emulated."""
    from pipeperf.emulate.loops import KNOWN_PERIODS, MIN_JUMP_BARRIER

    log = cast("TraceLog", prof.traces)
    skips = [k for k in log.skips if k.expand]
    iters = sum(k.count * k.iterations * len(k.warps) for k in skips)
    return (f"short barrier loops: the emulator jumped over {iters:,} iterations of the traced warps in "
            f"{len(skips):,} loop instance{'s' if len(skips) != 1 else ''} of fewer than {MIN_JUMP_BARRIER} "
            f"iterations (each after {KNOWN_PERIODS} identical periods and a probe of the iteration after the jump; "
            "counts added exactly; mapper g's memory statistics include the skipped periods' accesses, "
            "synthesised from their address strides); the IDGs repeat each loop's last emulated period in "
            "their place, so the Pipeline time simulates every iteration (not extrapolated)")
