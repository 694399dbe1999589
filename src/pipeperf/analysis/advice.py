"""Advice: what to change in a kernel or its launch, each with the time the Pipeline model predicts
for the changed kernel, from re-simulating it (never a rule of thumb such as "more occupancy is
faster"). Only advice whose predicted gain is at least :data:`MIN_GAIN` is given, largest first,
and, where the launch's warps run in lock step, at least its phase spread (:func:`min_gain`).

* bank conflicts, uncoalesced global accesses, serialised same-address atomics (combined per warp): mapper g's
  what-ifs (:data:`pipeperf.hardware.memory_classes.WHAT_IF`), the same IDGs simulated with the fixed
  access pattern's lambda/Lambda, naming the source line of the worst instruction;
* occupancy / block size: the launch simulated at other block sizes (the same warps, grouped in
  blocks of the new size, the grid resized to the same threads; resident blocks from the
  occupancy rules at the new size) and, when registers limit occupancy, at the register cap
  that admits one more block, with the registers ptxas gives the build capped at it (the same
  instructions: the spill code it may cause is reported, not simulated);
* tail effect of the last wave: the launch simulated with whole waves of blocks, its time scaled
  to the launch's blocks per SM (the same work spread evenly over the SMs);
* a long dependency chain (low ILP): the arithmetic recurrence whose operands the warps wait for
  most (each link an instruction of the class of the one before, e.g. ``acc += a * b``) split into
  two interleaved chains, as two partial accumulators do, and simulated (the final combining add
  is not counted; valid where the operation is associative, which the IDG cannot tell).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pipeperf.analysis.floors import TOLERANCE
from pipeperf.analysis.records import SimContext
from pipeperf.analysis.results import Advice

if TYPE_CHECKING:
    from pipeperf.analysis.results import GPUPrediction
    from pipeperf.hardware.spec import GPUSpec
    from pipeperf.idg.graph import IDG
    from pipeperf.idg.kernel_graph import KernelGraph

#: advice below this predicted gain (a share of the kernel time) is not shown
MIN_GAIN = 0.05
#: idle share (no running block in a warp slot) above which larger blocks are block-dispatch advice
DISPATCH_BOUND = 0.25
#: block sizes tried for the occupancy / block-size advice (threads)
BLOCK_SIZES = (64, 128, 256, 512, 1024)


@dataclass(frozen=True)
class LaunchShape:
    """The launch as the occupancy rules see it on one GPU."""

    spec: GPUSpec              # the database's (no mapper g classes)
    block: tuple[int, int, int]
    n_blocks: int
    resources: dict[str, int]  # ptxas' registers/thread and static shared bytes of this GPU's build
    dynamic_shared: int
    max_blocks_per_sm: int | None
    target: str = ""           # this GPU's build target (sm_XX), named in advice on how to apply a change
    #: max registers -> ptxas' resources of this GPU's build with -maxrregcount=N (Build.capped_resources)
    capped: Callable[[int], dict[str, int]] | None = None


def min_gain(pred: GPUPrediction) -> float:
    """The smallest gain worth advising: MIN_GAIN, or the launch's own phase spread where its warps
    run in lock step (analysis/lockstep.py): a gain inside that spread is not one the model resolves."""
    ps = getattr(pred, "phase_sensitivity", None)
    return max(MIN_GAIN, ps.spread) if ps is not None and not ps.smooth else MIN_GAIN


def advice_for(pred: GPUPrediction, ctx: SimContext, launch: LaunchShape) -> list[Advice]:
    """Every piece of advice for one kernel x GPU whose predicted gain is >= :func:`min_gain`, largest first."""
    items = _memory_advice(pred)
    if ctx.resimulate is not None:         # None: re-simulating was too costly (predict.resimulation_note)
        items += _block_size_advice(pred, ctx, launch) + _register_advice(pred, ctx, launch) \
            + _tail_advice(pred, ctx, launch) + _chain_advice(pred, ctx)
    floor = min_gain(pred)
    return sorted((a for a in items if a.gain >= floor and _physical(pred, a)), key=lambda a: -a.gain)


def _physical(pred: GPUPrediction, a: Advice) -> bool:
    """Advice rests on the Pipeline's times only where they are physical (analysis/floors.py): none
    while the launch's own time is below a floor, and no item whose changed time is below the issue
    floor (a change keeps the warp instructions; it may cut DRAM traffic, so that floor is not applied)."""
    floors = getattr(pred, "floors", None)
    if floors is None:
        return True
    if floors.violation(pred.seconds) is not None:
        return False
    return not (floors.issue_seconds and a.seconds_after < floors.issue_seconds * (1.0 - TOLERANCE))


def _where(rows: list[dict]) -> str:
    r = rows[0]
    if r.get("source_file"):
        return f"{r['source_file']}:{r['source_line']} ({r['opcode']}, PTX line {r['ptx_line']})"
    return f"PTX line {r['ptx_line']} ({r['opcode']})"


_MEMORY = {
    "no bank conflicts": ("bank conflicts",
                          lambda r: r.get("space") == "shared" and (r.get("conflict_degree") or 0) > 0,
                          lambda r: r["conflict_degree"],
                          lambda r: f"{r['conflict_degree'] + 1:.3g}-way shared-memory bank conflicts at {{where}}: "
                                    "pad the shared array's rows (e.g. [32][33]) or permute the index so a warp's "
                                    "lanes hit distinct banks"),
    "coalesced global accesses": ("uncoalesced access",
                                  lambda r: r.get("space") == "global"
                                  and r.get("sectors_per_request", 0) > r.get("min_sectors_per_request", 0) > 0,
                                  lambda r: r["sectors_per_request"] / r["min_sectors_per_request"],
                                  lambda r: f"uncoalesced global access at {{where}}: {r['sectors_per_request']:.3g} "
                                            "sectors per request; make consecutive lanes touch consecutive "
                                            "addresses (e.g. transpose through shared memory, or index with the lane "
                                            "in the fastest dimension)"),
    "atomics combined per warp": ("atomics",
                                   lambda r: r.get("space") == "global" and r["opcode"].startswith(("atom", "red")),
                                   lambda r: r["requests"],
                                   lambda r: ("atomics on the words of one L2 line serialise at {where} (one L2 "
                                              "slice's atomic unit takes every update of a few counters, e.g. a "
                                              "histogram's bins): count per block in shared memory and add each "
                                              "block's counts once, or combine a warp's lanes on one address first "
                                              "(__match_any_sync)") if r.get("line_contention") else
                                             ("same-address atomics serialise at {where}: combine each warp's values "
                                              "first (a warp-shuffle reduction, __shfl_down_sync) and issue one "
                                              "atomic per warp")),
}


def _memory_advice(pred: GPUPrediction) -> list[Advice]:
    """Mapper g's what-ifs, which already re-simulated the fixed access pattern."""
    from pipeperf.hardware.memory_classes import WHAT_IF

    out = []
    for what, v in pred.what_if.items():
        if what not in _MEMORY or not v.get("seconds"):
            continue
        kind, match, worst, words = _MEMORY[what]
        rows = sorted((r for r in pred.memory if match(r)), key=lambda r: -worst(r))
        if not rows:
            continue
        text = words(rows[0]).format(where=_where(rows))
        out.append(Advice(kind, text, pred.seconds, float(v["seconds"]),
                          f"re-simulated with {WHAT_IF[what]}",
                          {"what_if": what, "ptx_line": rows[0]["ptx_line"], "source_file": rows[0].get("source_file"),
                           "source_line": rows[0].get("source_line")}))
    return out


def _simulate(ctx: SimContext, wpb: int, resident: int, n_blocks: int,
              transform: Callable[[KernelGraph], KernelGraph] | None = None) -> float:
    """The launch's time with blocks of ``wpb`` warps, ``resident`` per SM, ``n_blocks`` of them
    (and the IDGs passed through ``transform``), extrapolated as the launch's was."""
    assert ctx.resimulate is not None          # predict_one sets it
    return ctx.resimulate(transform, group=wpb, resident=resident, total=n_blocks).seconds


def _block_size_advice(pred: GPUPrediction, ctx: SimContext, launch: LaunchShape) -> list[Advice]:
    """Simulate the launch at each other block size of BLOCK_SIZES (1-D blocks without barriers:
    the same warps regrouped, the grid resized to the same threads) and keep the fastest."""
    from pipeperf.hardware.occupancy import resident_blocks
    from pipeperf.errors import PipeperfError

    spec, (bx, by, bz) = launch.spec, launch.block
    threads = bx * by * bz
    if by != 1 or bz != 1 or any(g.n_barriers for g in ctx.prep.kernel.idgs):
        return []                          # a tile's shape or a barrier ties the code to its block size
    best = None
    for t in BLOCK_SIZES:
        if t == threads or t > int(getattr(spec, "max_threads_per_block", 1024) or 1024):
            continue
        wpb = -(-t // spec.warp_size)
        n = -(-ctx.n_blocks * threads // t)
        try:
            limit, occ, limiter, _ = resident_blocks(spec, wpb, t, launch.resources, launch.dynamic_shared)
        except PipeperfError:
            continue
        if launch.max_blocks_per_sm is not None:
            limit = min(limit, launch.max_blocks_per_sm)
        resident = max(1, min(limit, -(-n // spec.cores)))
        s = _simulate(ctx, wpb, resident, n)
        if best is None or s < best[0]:
            best = (s, t, n, resident, occ)
    if best is None:
        return []
    s, t, n, resident, occ = best
    kind = "block size"
    if resident * -(-t // spec.warp_size) > pred.blocks_per_sm * pred.warps_per_block:
        kind = "occupancy"
    elif t > threads and _idle_share(pred, 0) >= DISPATCH_BOUND:
        kind = "block dispatch"           # slots wait for tiny blocks to retire and start
    text = (f"block size {threads} -> {t} threads (grid {ctx.n_blocks} -> {n} blocks): occupancy "
            f"{pred.occupancy:.0%} (limited by {pred.limited_by}) -> {occ:.0%}, {resident} blocks/SM resident")
    return [Advice(kind, text, pred.seconds, s,
                   "re-simulated with the same warps in blocks of the new size and the occupancy rules at "
                   "that size (assumes each thread's work does not depend on the block size)",
                   {"block": t, "grid": n, "blocks_per_sm": resident})]


def _idle_share(pred: GPUPrediction, which: int) -> float:
    """The share of the simulated time warp slots sat idle (0: no running block, 1: warp done)."""
    from pipeperf.simulate.simulator import IDLE

    return sum(r["share_pct"] for r in pred.time_not_on_lines if r["reason"] == IDLE[which]) / 100


def _register_advice(pred: GPUPrediction, ctx: SimContext, launch: LaunchShape) -> list[Advice]:
    """When registers limit occupancy: the register cap that admits one more block per SM, built
    with ``-maxrregcount`` for this GPU's target (ptxas' real registers and spill bytes, where
    ptxas answers) and simulated at the occupancy those registers give."""
    from pipeperf.errors import PipeperfError
    from pipeperf.hardware.occupancy import resident_blocks

    regs = int(launch.resources.get("registers", 0))
    if pred.limited_by != "registers" or regs <= 16:
        return []
    spec, threads = launch.spec, math.prod(launch.block)
    wpb = pred.warps_per_block

    def blocks(res: dict) -> tuple[int, float]:
        limit, occ, _, _ = resident_blocks(spec, wpb, threads, res, launch.dynamic_shared)
        return (limit if launch.max_blocks_per_sm is None else min(limit, launch.max_blocks_per_sm)), occ

    for cap in range(regs - 1, 15, -1):
        limit, occ = blocks(dict(launch.resources, registers=cap))
        if limit > pred.block_limit:
            break
    else:
        return []
    built, how = None, "registers assumed to be the cap (no ptxas to build with it)"
    if launch.capped is not None:
        try:
            built = launch.capped(cap)
        except PipeperfError as e:
            how = f"registers assumed to be the cap (the capped build failed: {e.message})"
    got, spill = cap, ""
    if built:
        got = int(built.get("registers", cap))
        limit, occ = blocks(dict(launch.resources, **built))
        if limit <= pred.block_limit:
            return []                      # ptxas cannot meet the cap: no more blocks fit
        local = int(built.get("local_bytes", 0)) - int(launch.resources.get("local_bytes", 0))
        spill = f", {local} B more local memory per thread (spills)" if local > 0 else ", no spills"
        how = f"registers and spills from ptxas with -maxrregcount={cap} for {launch.target or 'this target'}"
    resident = max(1, min(limit, -(-ctx.n_blocks // spec.cores)))
    if resident <= pred.blocks_per_sm:
        return []                          # the grid has too few blocks to use the extra slots
    s = _simulate(ctx, wpb, resident, ctx.n_blocks)
    on = f" for {launch.target}" if launch.target else ""
    text = (f"registers limit occupancy to {pred.occupancy:.0%}: cap them at {cap}/thread "
            f"(-maxrregcount={cap}{on}, or __launch_bounds__({threads}, {resident}); now {regs}, "
            f"{got} with the cap{spill}) for {resident} blocks/SM ({occ:.0%})")
    return [Advice("occupancy", text, pred.seconds, s,
                   f"{how}; re-simulated with more resident blocks and the same instructions (the spill "
                   "code's extra local loads and stores are not counted)",
                   {"max_registers": cap, "registers": got, "blocks_per_sm": resident,
                    "local_bytes": int((built or {}).get("local_bytes", launch.resources.get("local_bytes", 0))),
                    "target": launch.target})]


def _tail_advice(pred: GPUPrediction, ctx: SimContext, launch: LaunchShape) -> list[Advice]:
    """A last wave that fills few of the GPU's block slots: the launch's blocks spread evenly over
    the SMs in whole waves, each block as costly as in a simulation of whole waves."""
    m = pred.blocks_per_sm
    per_sm = ctx.n_blocks / launch.spec.cores            # blocks per SM, on average
    whole = math.ceil(per_sm / m) * m                     # the busiest SM's blocks, in whole waves
    if per_sm <= m or whole * launch.spec.cores == ctx.n_blocks:
        return []
    s = _simulate(ctx, ctx.warps_per_block, m, whole * launch.spec.cores) * per_sm / whole
    slots = m * launch.spec.cores
    waves = ctx.n_blocks / slots
    text = (f"{ctx.n_blocks} blocks make {waves:.2f} waves of {slots} "
            f"({m} blocks/SM x {launch.spec.cores} SMs); the last is {waves - math.floor(waves):.0%} full. "
            f"A grid of whole waves ({math.floor(waves) * slots or slots} or {math.ceil(waves) * slots} blocks, "
            "the work redistributed, or a grid-stride loop) would remove it")
    return [Advice("tail effect", text, pred.seconds, s,
                   "re-simulated with whole waves of blocks, the time scaled to the launch's blocks per SM "
                   "(the work spread evenly over the SMs)", {"blocks_per_sm_whole_waves": whole})]


#: shortest recurrence the chain advice considers (links), and its least share of the slot cycles
MIN_CHAIN = 8


def _chains(g: IDG, arithmetic: np.ndarray) -> list[np.ndarray]:
    """Recurrences of one IDG: maximal sequences of arithmetic nodes each of which depends on the
    one before, of the same class (its latest same-class operand), the one before having no other
    such successor: ``acc += a * b`` through a loop, unrolled or not."""
    n = len(g)
    prev = np.full(n, -1, np.int64)
    taken = np.zeros(n, bool)
    for i in np.flatnonzero(arithmetic):
        deps = g.dep_idx[g.dep_ptr[i]:g.dep_ptr[i + 1]]
        same = deps[g.cls[deps] == g.cls[i]]
        if len(same):
            j = int(same.max())
            if not taken[j]:
                prev[i], taken[j] = j, True
    out = []
    for i in np.flatnonzero((prev >= 0) & ~taken):    # chain ends: walk back to the start
        chain = [int(i)]
        while prev[chain[-1]] >= 0:
            chain.append(int(prev[chain[-1]]))
        if len(chain) >= MIN_CHAIN:
            out.append(np.array(chain[::-1], np.int64))
    return out


def _split(g: IDG, chains: list[np.ndarray]) -> IDG:
    """``g`` with each chain's link k made to depend on link k - 2 instead of k - 1 (two
    interleaved partial chains)."""
    from pipeperf.idg.graph import IDG

    repl = {}
    for c in chains:
        for k in range(1, len(c)):
            repl[int(c[k])] = (int(c[k - 1]), int(c[k - 2]) if k >= 2 else -1)
    ptr, idx = [0], []
    for i in range(len(g)):
        deps = g.dep_idx[g.dep_ptr[i]:g.dep_ptr[i + 1]].tolist()
        if i in repl:
            old, new = repl[i]
            deps = [d for d in deps if d != old] + ([new] if new >= 0 else [])
            deps = sorted(set(deps))
        idx += deps
        ptr.append(len(idx))
    return IDG.from_arrays(g.name, g.classes, g.cls, np.array(ptr), np.array(idx, np.int32), g.barrier,
                           g.ids, g.pcs, g.fill)


def _chain_advice(pred: GPUPrediction, ctx: SimContext) -> list[Advice]:
    """The recurrence the warps wait on most, split in two and simulated."""
    from pipeperf.idg.kernel_graph import KernelGraph, WarpClass
    from pipeperf.simulate.simulator import ARITHMETIC

    prep, a = ctx.prep, ctx.run.attribution
    if a is None or ctx.func is None:
        return []
    arith = np.array([prep.subsystems[q] in ARITHMETIC for q in prep.sub.tolist()], bool)
    found = []                             # (wait slot cycles, class index, chains)
    for k, g in enumerate(prep.kernel.idgs):
        off = int(prep.off[k])
        chains = _chains(g, arith[off:off + len(g)])
        for c in chains:
            rows = off + c[1:]
            wait = float(a.cells[rows, prep.dependency_columns()[off + c[:-1]]].sum())
            found.append((wait, k, c))
    if not found:
        return []
    wait, k, chain = max(found, key=lambda f: f[0])
    if wait < MIN_GAIN * a.total:
        return []                          # the recurrence's waits cannot be worth MIN_GAIN
    node_pcs = prep.kernel.idgs[k].pcs
    if node_pcs is None:
        return []
    pcs = set(node_pcs[chain].tolist())
    gpu = prep.gpu

    def split(kg: KernelGraph) -> KernelGraph:
        """Every warp class's recurrences through the chosen instructions, split in two."""
        classes = []
        for wc in kg.warp_classes:
            g = wc.idg
            ar = np.array([gpu.classes[c].subsystem in ARITHMETIC for c in g.classes], bool)[g.cls]
            mine = [c for c in _chains(g, ar) if g.pcs is not None and pcs & set(g.pcs[c].tolist())]
            classes.append(WarpClass(_split(g, mine), wc.weight) if mine else wc)
        return KernelGraph(kg.name, tuple(classes), kg.source, kg.group_classes)

    after = _simulate(ctx, ctx.warps_per_block, pred.blocks_per_sm, ctx.n_blocks, split)
    ins = ctx.func.instructions
    lines: dict[str, None] = {}              # ordered set
    for pc in pcs:
        loc = ctx.sources.location(ctx.func, ins[pc]) if ctx.sources is not None else None
        lines[f"{loc.file}:{loc.line}" if loc else f"PTX line {ins[pc].line}"] = None
    where = ", ".join(list(lines)[:3]) or "?"
    op = ins[int(node_pcs[chain[0]])].opcode
    text = (f"a dependent chain of {op} at {where} (each waits for the one before, "
            f"{100 * wait / a.total:.0f}% of the warp slots' time): if the operation is associative (a "
            "sum), keep two partial results (e.g. acc0 += ...; acc1 += ... on alternate iterations) "
            "and add them at the end")
    how = "re-simulated with the chain split into two interleaved chains (the final add not counted)"
    return [Advice("dependency chain", text, pred.seconds, after, how,
                   {"chain_links_simulated": len(chain), "ptx_lines": sorted(ins[pc].line for pc in pcs)})]
