"""Warp scheduling: runs a compiled program over a thread group until every thread leaves.

Why it reconverges: every thread has a PC; the scheduler always runs the lowest pending PC
for *all* threads waiting there, so threads that split at a branch meet again where the
paths join (the immediate post-dominator in nvcc's block layout), and each instruction costs
one vectorised NumPy operation however many warps execute it. Warp-level counts are the
number of distinct warps among those threads. ``bar.sync`` holds a CTA's threads until all
its live threads (or its thread count) have arrived at that barrier id, through whichever
``bar``/``barrier`` instructions (Volta and later count a barrier by id, not by instruction).
Pending groups live in ``waiting`` (pc -> group) with a min-heap of their PCs; groups at a
barrier in ``blocked`` (pc -> group); ``bar.arrive``'s arrivals in ``arrived`` (id -> per CTA).
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.budget import TRACED_STEP, WIDTH_SHIFT
from pipeperf.emulate.clocks import ISSUED
from pipeperf.emulate.errors import EmulationError
from pipeperf.emulate.program import BAR, BRA, BRX, CALL, EXIT, OP, RET, Program
from pipeperf.emulate.state import State
from pipeperf.ptx.ir import Immediate, Instruction, ParamList

ONE = np.uint64(1)


def execute(m: Any, prog: Program, st: State, start, pc0: int = 0,
            probe: tuple[int, int, int] | None = None) -> int | None:
    """Run ``prog`` from instruction ``pc0`` for the threads ``start`` until all leave.

    ``probe=(t, p, budget)``: run one iteration of the loop ``t..p`` only (the loop skipper's
    check, :mod:`pipeperf.emulate.loops`): the steps it took when the whole group takes the
    back-edge ``p`` again, None when it leaves the loop or runs past ``budget`` steps.
Every step is charged to the launch's step budget (:mod:`pipeperf.emulate.budget`), which stops
a runaway loop with one line.

    Longer than 80 lines on purpose: this is the emulator's inner loop, and the operations
    and branches every step takes stay inline so their state stays in local variables; the
    rarer kinds (indirect branches, exits, barriers, calls) are functions of their own."""
    c = m.counters
    cnt_w, cnt_t, cnt_on = c.arrays(prog)
    waiting: dict[int, Any] = {}
    heap: list[int] = []
    blocked: dict[int, Any] = {}
    arrived: dict[int, np.ndarray] = {}
    cur, pc = start, pc0
    wid = st.wid
    steps = 0
    n_ins = prog.n
    kind, handler, guard, target, cost = prog.kind, prog.handler, prog.guard, prog.target, prog.cost
    trace = c.trace if st.traced_any else None
    loops = m.loops if probe is None else None
    visits = m.loops.visit_counts(prog) if m.loops is not None else None
    cnt = (cnt_w, cnt_t, cnt_on, visits)
    n_probe = G.size(start)
    budget = m.budget
    unit = TRACED_STEP if trace is not None else 1
    issued = st.regs.get(ISSUED)              # the clocks' instruction count (clock-reading kernels only)
    while True:
        if cur is None:
            cur, pc = _next_group(m, prog, st, waiting, heap, blocked, arrived, probe is not None)
            if cur is None:
                return None
        if probe is not None and (pc < probe[0] or pc > probe[1] or steps >= probe[2]):
            return None
        if pc >= n_ins:
            _leave(m, st, cur, prog)
            cur = None
            continue
        steps += 1
        nw = G.count_warps(wid, cur)
        nt = G.size(cur)
        budget.left -= unit * cost[pc] + (nt >> WIDTH_SHIFT)
        if budget.left < budget.mark:
            budget.checkpoint(m.file, prog, pc)
        if issued is not None:
            issued[cur] += ONE
        if visits is not None:
            visits[pc] += 1
        cnt_w[pc] += nw
        cnt_t[pc] += nt
        gd = guard[pc]
        on = cur
        gmask = None
        if gd is not None:
            gmask = st.reg(gd[0], np.dtype(np.bool_))[cur]
            if gd[1]:
                gmask = ~gmask
            on = G.subset(cur, gmask)
        non = G.size(on)
        cnt_on[pc] += non
        if trace is not None:
            c.record(prog, pc, st, cur, gmask)
        k = kind[pc]
        if k == OP:
            h = handler[pc]
            if h is not None and non:
                h(st, on)
            cur, pc = advance(cur, pc + 1, waiting, heap)
        elif k == BRA:
            tgt = target[pc]
            c.branches += nw
            if gd is None or non == nt:
                if tgt <= pc:                      # a back-edge taken by the whole group
                    if probe is not None:
                        if pc == probe[1] and nt == n_probe and not waiting:
                            return steps
                    elif loops is not None:
                        loops.back_edge(prog, st, cur, pc, tgt, steps, waiting, cnt)
                cur, pc = advance(cur, tgt, waiting, heap)
                continue
            if non:
                c.divergent_branches += divergent(wid, cur, gmask)  # type: ignore[arg-type]  # gd: not None
                rest = G.subset(cur, ~gmask)  # type: ignore[operator]  # gd, so gmask, not None here
                push(on, tgt, waiting, heap)
                cur, pc = advance(rest, pc + 1, waiting, heap)
            else:
                cur, pc = advance(cur, pc + 1, waiting, heap)
        elif k == BRX:
            _branch_indirect(m, prog, st, pc, cur, on, gmask, nw, waiting, heap)
            cur = None
        elif k == EXIT or k == RET:  # noqa: SIM109 -- no tuple built per step of the SIMT loop
            cur, pc = _exit(m, st, k, pc, cur, on, gmask, waiting, heap)
        elif k == BAR:
            cur, pc = _barrier(m, prog, st, pc, cur, on, gmask, nw, waiting, heap, blocked, arrived)
        elif k == CALL:
            if non:
                call(m, prog.func.instructions[pc], st, on)
            cur, pc = advance(cur, pc + 1, waiting, heap)


def _next_group(m: Any, prog: Program, st: State, waiting: dict, heap: list, blocked: dict,
                arrived: dict, probing: bool):
    """The pending group with the lowest PC, else the threads a barrier releases; (None, -1)
    when every thread has left (or, probing, when the probed group has)."""
    while heap and heap[0] not in waiting:
        heapq.heappop(heap)
    if heap:
        pc = heapq.heappop(heap)
        return waiting.pop(pc), pc
    if probing or not blocked:
        return None, -1
    if not release(m, prog, st, blocked, arrived, waiting, heap):
        raise EmulationError(
            f"kernel {m.kernel.name}: barrier deadlock: threads wait at "
            f"bar.sync on PTX line(s) "
            + ", ".join(str(prog.func.instructions[p].line) for p in sorted(blocked))
            + " but their CTAs' other threads have left or wait at other barriers"
            + _counts(m, prog, st, blocked, arrived),
            file=m.file)
    return _next_group(m, prog, st, waiting, heap, blocked, arrived, probing)


def _branch_indirect(m: Any, prog: Program, st: State, pc: int, cur, on, gmask, nw: int,
                     waiting: dict, heap: list) -> None:
    """brx.idx: each thread of ``on`` to its entry of the table; the rest to ``pc + 1``."""
    c = m.counters
    wid = st.wid
    non, nt = G.size(on), G.size(cur)
    c.branches += nw
    tab = prog.brx_tables[pc]
    if callable(tab):
        tab(st, on)
    rest = G.subset(cur, ~gmask) if non < nt else None
    if non:
        idx = st.reg(tab[0], np.dtype(np.uint32))[on].astype(np.int64)
        if np.any(idx >= len(tab[1])):
            x = prog.func.instructions[pc]
            raise EmulationError(f"kernel {m.kernel.name}: brx.idx index "
                                 f"{int(idx.max())} outside its table of "
                                 f"{len(tab[1])} labels", file=m.file, line=x.line)
        tg = tab[1][idx]
        starts, _ = G.segments(wid[on])
        tmin = np.minimum.reduceat(tg, starts)
        tmax = np.maximum.reduceat(tg, starts)
        c.divergent_branches += int(np.count_nonzero(tmin != tmax))
        if rest is not None:
            c.divergent_branches += divergent(wid, cur, gmask) - 0
        oa = G.as_array(on)
        for t_ in np.unique(tg):
            push(G.compact(oa[tg == t_]), int(t_), waiting, heap)
    if rest is not None and G.size(rest):
        push(rest, pc + 1, waiting, heap)


def _exit(m: Any, st: State, k: int, pc: int, cur, on, gmask, waiting: dict, heap: list):
    """exit (or a kernel's ret): ``on`` leaves (its CTAs' live counts drop); the rest go on."""
    non, nt = G.size(on), G.size(cur)
    rest = G.subset(cur, ~gmask) if non < nt else None
    if k == EXIT and non and st.top:
        m.live -= np.bincount(st.cta[on], minlength=len(m.live))
    if rest is not None and G.size(rest):
        return advance(rest, pc + 1, waiting, heap)
    return None, pc


def _barrier(m: Any, prog: Program, st: State, pc: int, cur, on, gmask, nw: int, waiting: dict,
             heap: list, blocked: dict, arrived: dict):
    """bar.sync: ``on`` waits until its CTAs' live threads (or the thread count) have arrived at
    the barrier's id; bar.arrive: ``on`` is counted there and goes on."""
    if not st.top:
        raise EmulationError("bar.sync in device functions is not emulated", file=m.file)
    m.counters.barriers += nw
    non, nt = G.size(on), G.size(cur)
    bid, count, arrive_only = prog.bars[pc]
    if not non:
        return advance(cur, pc + 1, waiting, heap)
    key = _bar_id(m, prog, st, pc, bid, on)
    if arrive_only:
        a = arrived.setdefault(key, np.zeros(len(m.live), np.int64))
        a += _arrivals(st, G.as_array(on), len(m.live), count is not None)
        release(m, prog, st, blocked, arrived, waiting, heap, key)
        return advance(cur, pc + 1, waiting, heap)
    blocked[pc] = G.merge(blocked[pc], on) if pc in blocked else on
    if non < nt:
        push(G.subset(cur, ~gmask), pc + 1, waiting, heap)
    release(m, prog, st, blocked, arrived, waiting, heap, key)
    return None, pc


def _bar_id(m: Any, prog: Program, st: State, pc: int, op, on) -> int:
    """The barrier id of instruction ``pc`` for the threads ``on`` (an immediate, or a register
    all of them hold the same value in)."""
    if isinstance(op, Immediate):
        return int(op.value)
    v = np.unique(st.reg(op.name, np.dtype(np.uint32))[on])
    if len(v) != 1:
        raise EmulationError(f"kernel {m.kernel.name}: threads reach one barrier instruction with "
                             f"different barrier ids ({', '.join(map(str, v[:4]))})", file=m.file,
                             line=prog.func.instructions[pc].line)
    return int(v[0])


def _arrivals(st: State, a: np.ndarray, n_ctas: int, counted: bool) -> np.ndarray:
    """Arrivals per CTA of the threads ``a``: threads, or, at a barrier with a thread count,
    32 per warp (the hardware marks a warp's arrival)."""
    if not counted:
        return np.bincount(st.cta[a], minlength=n_ctas)
    _, first = np.unique(st.wid[a], return_index=True)
    return 32 * np.bincount(st.cta[a[first]], minlength=n_ctas)


def _leave(m: Any, st: State, cur, prog: Program) -> None:
    """``cur`` ran past the last instruction: a kernel's threads leave their CTAs."""
    if prog.func.kind == "entry":
        m.live -= np.bincount(st.cta[G.as_array(cur)], minlength=len(m.live))


def push(g, pc: int, waiting: dict, heap: list) -> None:
    """Let group ``g`` wait at ``pc`` (merged with the threads already there)."""
    if pc in waiting:
        waiting[pc] = G.merge(waiting[pc], g)
    else:
        waiting[pc] = g
        heapq.heappush(heap, pc)


def advance(g, pc: int, waiting: dict, heap: list):
    """Continue ``g`` at ``pc``, absorbing threads already waiting there, unless a lower PC
    is pending (then ``g`` waits and the lowest PC runs next)."""
    if pc in waiting:
        g = G.merge(g, waiting.pop(pc))
    while heap and heap[0] not in waiting:
        heapq.heappop(heap)
    if heap and heap[0] < pc:
        push(g, pc, waiting, heap)
        low = heapq.heappop(heap)
        return waiting.pop(low), low
    return g, pc


def release(m: Any, prog: Program, st: State, blocked: dict, arrived: dict, waiting: dict, heap: list,
            only: int | None = None) -> bool:
    """Release the waiters of every CTA whose barrier (id ``only``, else each id waited at) has all
    its arrivals: its live threads, or its thread count, counted over every instruction that
    reaches that id. Released threads wait at the instruction after theirs; True if any were."""
    by_id: dict[int, list[int]] = {}
    for p, g in blocked.items():
        k = _bar_id(m, prog, st, p, prog.bars[p][0], g)
        if only is None or k == only:
            by_id.setdefault(k, []).append(p)
    n_ctas = len(m.live)
    done = False
    for key in sorted(by_id):
        pcs = by_id[key]
        counts = [prog.bars[p][1] for p in pcs if prog.bars[p][1] is not None]
        a = np.concatenate([G.as_array(blocked[p]) for p in pcs])
        a.sort()
        have = _arrivals(st, a, n_ctas, bool(counts)) + arrived.get(key, 0)
        waits = np.bincount(st.cta[a], minlength=n_ctas) > 0
        need = m.live if not counts else _bar_id(m, prog, st, pcs[0], counts[0], blocked[pcs[0]])
        complete = waits & (have >= need)
        if not complete.any():
            continue
        done = True
        if key in arrived:
            arrived[key][complete] = 0
        for p in pcs:
            g = G.as_array(blocked[p])
            mask = complete[st.cta[g]]
            if len(g[~mask]):
                blocked[p] = G.compact(g[~mask])
            else:
                del blocked[p]
            if mask.any():
                push(G.compact(g[mask]), p + 1, waiting, heap)
    return done


def _counts(m: Any, prog: Program, st: State, blocked: dict, arrived: dict) -> str:
    """Why the barriers cannot complete, for the deadlock's line: each id's thread count."""
    ids = sorted({(_bar_id(m, prog, st, p, prog.bars[p][0], g), prog.bars[p][1]) for p, g in blocked.items()},
                 key=lambda t: t[0])
    parts = [f"barrier {k}" + (f" waits for {c} threads" if c is not None else " waits for every live thread")
             for k, c in ids]
    return " (" + "; ".join(parts) + ")"


def call(m: Any, x: Instruction, st: State, on) -> None:
    """A device-function call: the callee runs to its return for the threads ``on`` in a
    state of their own; arguments and the return value pass through .param storage."""
    rets = [op for op in x.dsts if type(op) is ParamList]
    ops = list(x.srcs)
    fname = x.callee
    args = next((op for op in ops if type(op) is ParamList), ParamList(()))
    ret = rets[0] if rets else None
    try:
        callee = m.module.function(fname)
    except KeyError:
        raise EmulationError(f"call of unknown function {fname}", file=m.file, line=x.line) from None
    if fname == "vprintf" and not callee.has_body:
        _printf(m, ret, st, on)
        return
    if not callee.has_body:
        raise EmulationError(f"call of {fname}, which has no body (extern)", file=m.file,
                             line=x.line)
    prog = m.programs.get(fname)
    if prog is None:
        prog = m.programs[fname] = Program(m, callee, None)
    a = G.as_array(on)
    sub = State(callee, len(a))
    sub.top = False
    sub.wid, sub.cta, sub.tix, sub.lane = st.wid[a], st.cta[a], st.tix[a], st.lane[a]
    sub.smem_base = st.smem_base[a]
    if st.traced_any:
        sub.trace_wid, sub.traced_any = st.trace_wid[a], True  # type: ignore[index]  # set when traced
    sub.special = {k: (v[a] if isinstance(v, np.ndarray) else v) for k, v in st.special.items()}
    for p, arg in zip(callee.params, args.items):
        for (name, off), arr in st.params.items():
            if name == arg.name:
                sub.params[(p.name, off)] = arr[a].copy()
    if ISSUED in st.regs:                       # the callee's instructions advance the caller's clocks
        sub.regs[ISSUED] = st.regs[ISSUED][a]
    execute(m, prog, sub, slice(0, len(a)))
    if ISSUED in st.regs:
        st.regs[ISSUED][a] = sub.regs[ISSUED]
    if ret is not None and ret.items and callee.returns:
        for (name, off), arr in sub.params.items():
            if name == callee.returns[0].name:
                st.param_store((ret.items[0].name, off), arr.dtype)[a] = arr


def _printf(m: Any, ret: ParamList | None, st: State, on) -> None:
    """``printf`` (CUDA's ``vprintf``) is not executed, only counted (the profile's note says how
    often): a kernel that prints is still profiled. It returns 0 (no characters) to the caller."""
    a = G.as_array(on)
    m.counters.printf_calls += len(a)
    if ret is not None and ret.items:
        st.param_store((ret.items[0].name, 0), np.dtype(np.int32))[a] = 0


def divergent(wid: np.ndarray, cur, mask: np.ndarray) -> int:
    """Warps of ``cur`` in which some but not all threads have ``mask`` set."""
    w = wid[cur]
    starts, lengths = G.segments(w)
    s = np.add.reduceat(mask.astype(np.int32), starts)
    return int(np.count_nonzero((s > 0) & (s < lengths)))
