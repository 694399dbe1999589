"""Long loops without emulating every iteration (issue 16).

Why: a thread that loops 10^5 times costs the emulator 10^5 x the body's steps, while in hybrid
mode the state that steers a loop (counters, pointers: the branch and address slices) usually
changes by the same amount every iteration. At each back-edge that a whole thread group takes,
:class:`LoopSkipper` compares the group's registers and the launch's counters with those of the
previous back-edges. Once ``PERIODS`` consecutive iterations changed every register by the same
per-thread delta (integers only; no float register and no register a load, atomic, shuffle or
vote wrote may change), ran the same steps and added the same counts, the loop is periodic: it
jumps K iterations ahead at once (registers += K x delta, every count += K x its period's) and
records the skip in the trace (:class:`~pipeperf.emulate.tracelog.Skip`), so the IDGs hold a few
periods and the analysis extrapolates the time over the skipped ones.

K is the exit compare's solution (the ``setp`` guarding the back-edge, affine in the iteration),
else found by search; each K is checked by emulating the iteration after the jump (a probe, its
effects undone): it must run the same steps with the same deltas. Assumptions, stated in the
report: addresses and counters do not wrap during the skipped iterations, and a loop that
continues after K iterations continued through all of them (true of affine exit compares).
Loops that write memory (atomics, executed stores and ``cp.async`` copies), call, exit or branch
through tables are never skipped, so what a skipped iteration would have written never matters. Two
exceptions (issue 39): a store or ``cp.async`` copy that hybrid mode only counts and logs (its data
outside the slice) while no executed instruction reads memory, whose bytes then steer nothing (a
persistent tensor-core GEMM's tile copies); and a plain
``bar.sync`` when the group going round is every live thread of the batch (all arrive together,
so the barrier only counts) -- the K loop of a tiled GEMM; one jumped by fewer than MIN_JUMP_BARRIER
iterations (a tuning sweep's 8- to 32-iteration K loops) has its skipped periods repeated in the IDGs
instead of extrapolated (:data:`MIN_JUMP_REPEAT`). A jump under MIN_JUMP iterations is not
taken: a short inner loop is emulated whole, so the loop around it repeats and is skipped instead;
nor are loops whose iterations change no register (every iteration the same state: only another
thread's store could end one, a spin-wait, and the step budget stops it if none does). Clock reads
advance by the same cycles every iteration (:mod:`pipeperf.emulate.clocks`): a skip advances them too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.budget import BudgetExhausted
from pipeperf.emulate.clocks import ISSUED
from pipeperf.emulate.tracelog import Skip, SynthBlock
from pipeperf.ptx.slices import written_registers

#: consecutive identical iterations needed before a loop is skipped (and kept in the trace);
#: a loop already skipped once needs KNOWN_PERIODS (its instances are many: an inner loop)
PERIODS = 4
KNOWN_PERIODS = 2
#: consecutive back-edges whose iteration changed the registers differently from the one before
#: (a loop that is not periodic, or not yet) before the watch backs off as after a failed skip:
#: every snapshot costs about two emulated steps, and a spin or search loop that never repeats
#: otherwise pays it at every back-edge (half the emulation of a 512-thread hash loop)
MISSES = 2 * PERIODS
#: fewest iterations a jump skips: a shorter one saves less than its probes cost, and emulating a
#: short inner loop whole keeps every iteration of the loop around it alike, so that one is skipped
#: (a nested skip changes the outer iteration's counts and is never periodic)
MIN_JUMP = 16
#: the same for a loop holding a bar.sync when the skipped periods are extrapolated: there the
#: linear extrapolation of the kept periods was 1.1-1.5 % off the exact path for the tune example's
#: 32-iteration K loop (TILE=8, block 8x1, V100; a jump of 26) and 3.3 % for its 16-iteration one
#: (TILE=16, block 16x16), exact to rounding for 48- to 128-iteration K loops of 16x16 tiles and the
#: SGEMM's (docs/experiments/2026-11-27-issue39-speed.md, 2026-11-28-tune-throughput-3.md): the
#: slope between 4 and 2 kept periods (iterations 2-5, near the launch's start) was 6 % above the
#: mean cost of the later periods there; a short loop has few of those to average it out
MIN_JUMP_BARRIER = 40
#: a shorter jump of a barrier loop (at least this many iterations) is taken when the loop is not
#: inside another one: its skipped periods are not extrapolated but repeated in the IDGs
#: (:attr:`~pipeperf.emulate.tracelog.Skip.expand`), so the simulation runs every iteration as the
#: exact path does; only the emulation of their steps is saved (counts added, accesses synthesised)
MIN_JUMP_REPEAT = 2
#: scalar counters a period adds to (besides the per-instruction arrays)
SCALARS = ("branches", "divergent_branches", "barriers", "atomics", "global_load_requests",
           "global_store_requests", "global_load_sectors", "global_store_sectors", "shared_requests",
           "shared_load_requests", "shared_store_requests", "shared_bank_conflicts", "local_requests")
#: instructions that make a loop unskippable: they write memory or leave the thread group's control
BLOCKING_ROOTS = frozenset({"st", "atom", "red", "cp", "cp.async", "wmma.store", "stmatrix", "call", "bar",
                            "barrier", "exit", "trap", "ret", "brx", "membar", "fence", "red.async",
                            "st.async", "cp.reduce.async.bulk", "mbarrier", "griddepcontrol"})
#: stores a loop may hold when they are not executed (hybrid mode, data outside the slice) and no
#: executed instruction reads memory (:func:`_memory_unread`): then they only count and log addresses
UNWRITTEN_STORES = frozenset({"st", "wmma.store", "stmatrix", "cp.async"})
#: instructions that read memory (their data could steer a path when executed)
READS = frozenset({"ld", "ldu", "atom", "red", "tex", "tld4", "suld", "wmma.load", "ldmatrix", "cp", "cp.async",
                   "prefetch"})
#: memory instructions whose handler, when not executed (hybrid mode, outside the slice), only counts
#: and logs: their destinations keep their values, so a loop's snapshots leave them out (a persistent
#: GEMM's fragment registers are thousands of arrays)
COUNT_ONLY = frozenset({"ld", "ldu", "st", "atom", "red", "wmma.load", "wmma.store"})
#: instructions whose destinations carry data the skip cannot extrapolate
DATA_ROOTS = frozenset({"ld", "ldu", "atom", "shfl", "vote", "tex", "tld4", "suld", "match", "redux",
                        "wmma.load", "ldmatrix", "activemask"})
#: lane addresses synthesised for skipped periods over a launch (the memory model's input;
#: 8 bytes each): past it, a warp's memory statistics end where its synthesis stopped. The
#: warps' logging frontier (the trace budget, what emulating every iteration would have logged)
#: bounds it first; this only caps a launch whose traced loops are all memory accesses. A
#: smaller cap makes the statistics a prefix of each loop: 8 M gave a 4096^3 SGEMM 27 % too fast
#: (L2 hits of the loop's first iterations only), 64 M was within 1 % of every iteration's
SYNTH_ADDRESSES = 64_000_000
_SIGNED = {"s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64}
_UNSIGNED = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
             "b16": np.uint16, "b32": np.uint32, "b64": np.uint64}


@dataclass
class _Watch:
    """One loop instance (a thread group going round one back-edge) as seen at its back-edges."""

    group: tuple
    steps: int
    regs: dict[str, np.ndarray]
    scalars: np.ndarray
    per_pc: np.ndarray               # cnt_w, cnt_t, cnt_on and visits over the loop's pcs
    tlen: np.ndarray                 # entries executed by the group's traced warps
    kept: np.ndarray                 # entries kept of them
    skips_done: int
    delta: tuple | None = None       # the last iteration's changes
    same: int = 0                    # consecutive iterations with that delta
    recorded: np.ndarray | None = None   # per traced warp: trailing whole periods kept
    wait: int = 0                    # back-edges to let pass before looking again
    backoff: int = 1
    tries: int = field(default=0)
    before: tuple | None = None      # the delta of the iteration before the last (a period of 2 shows in it)
    stride: int = 1                  # iterations between snapshots: 2 for a loop of period 2 (double buffering)
    phase: int = 0                   # back-edges since the snapshot (a stride-2 watch looks at every second)
    misses: int = 0                  # consecutive iterations whose delta differed from the one before


@dataclass(frozen=True)
class _Loop:
    ok: bool                         # nothing in [t, p] makes it unskippable
    data_regs: frozenset[str]        # registers written with loaded / exchanged data
    exit_compare: object | None      # the setp guarding the back-edge, if any
    regs: tuple[str, ...] = ()       # every register the loop's executed instructions write: no other
                                     # can change between its back-edges (nor in a probe, which stays in it)
    bars: bool = False               # it holds a bar.sync: skipped only when the group is every live thread
    enclosed: bool = False           # a back-edge after it jumps before it: an outer loop holds it


class LoopSkipper:
    """Periodic-loop detection and skipping for one :class:`~pipeperf.emulate.machine.Machine`."""

    def __init__(self, machine) -> None:
        self.m = machine
        self.watches: dict[tuple, _Watch] = {}
        self.loops: dict[tuple, _Loop] = {}
        self.visits: dict[str, list[int]] = {}
        self.skips_done = 0
        self.iterations_skipped = 0
        self.instances = 0
        self.float_regs: dict[str, frozenset[str]] = {}
        self.synth_left = SYNTH_ADDRESSES
        self.known: set[tuple] = set()
        self.unread: dict[str, bool] = {}

    def visit_counts(self, prog) -> list[int]:
        v = self.visits.get(prog.func.name)
        if v is None:
            v = self.visits[prog.func.name] = [0] * (prog.n + 1)
        return v

    def new_batch(self) -> None:
        self.watches.clear()

    # ------------------------------------------------------------------ static checks
    def _loop(self, prog, t: int, p: int) -> _Loop:
        key = (prog.func.name, t, p)
        lp = self.loops.get(key)
        if lp is None:
            from pipeperf.emulate.program import BAR, BRA, BRX, CALL, EXIT, RET

            ins = prog.func.instructions
            ok, data, setp, bars = True, set(), None, False
            mem_unread = self._memory_unread(prog)
            named: set[str] = set()
            guard = prog.guard[p]
            for i in range(t, p + 1):
                x = ins[i]
                k = prog.kind[i]
                if prog.emulated[i] or (prog.handler[i] is not None and x.root not in COUNT_ONLY):
                    named.update(written_registers(x))       # what an iteration can change
                counted_store = x.root in UNWRITTEN_STORES and not prog.emulated[i] and mem_unread
                if (k == BAR and not bar_ok(x)) or k in (BRX, CALL, EXIT, RET) or \
                        (x.root in BLOCKING_ROOTS and k != BAR and not counted_store):
                    ok = False
                if k == BAR:
                    bars = True
                if k == BRA and i != p and not t <= prog.target[i] <= p:
                    ok = False                      # a jump out of the loop (break): not periodic here
                if x.root in DATA_ROOTS:
                    data.update(written_registers(x))
                if guard is not None and x.root == "setp" and i < p and \
                        guard[0] in written_registers(x):
                    setp = x
            if self.m.clocked:                      # its instructions advance the clocks: a skip must too
                named.add(ISSUED)
            enclosed = any(prog.kind[i] == BRA and prog.target[i] <= t for i in range(p + 1, prog.n))
            lp = self.loops[key] = _Loop(ok and guard is not None, frozenset(data), setp, tuple(sorted(named)),
                                         bars, enclosed)
        return lp

    def _floats(self, func) -> frozenset[str]:
        f = self.float_regs.get(func.name)
        if f is None:
            f = frozenset(r for d in func.reg_decls if d.type in ("f16", "f32", "f64", "f16x2", "bf16")
                          for r in d.registers())
            self.float_regs[func.name] = f
        return f

    def _memory_unread(self, prog) -> bool:
        """No executed instruction reads shared, global or local memory (hybrid mode with no load in
        the slice): what a store writes then never steers a path or an address, so a loop's stores
        that are only counted and logged (not executed) cannot make a skipped iteration matter."""
        mem = self.unread.get(prog.func.name)
        if mem is None:
            mem = self.unread[prog.func.name] = not any(
                prog.emulated[i] and (x.root in READS or x.root in UNWRITTEN_STORES)
                and x.space not in ("param", "const") for i, x in enumerate(prog.func.instructions))
        return mem

    # ------------------------------------------------------------------ the back-edge
    def back_edge(self, prog, st, cur, p: int, t: int, steps: int, waiting: dict, cnt: tuple) -> None:
        """``cur`` took the back-edge ``p -> t`` as a whole: look at the loop, maybe skip ahead."""
        if any(q <= p for q in waiting):
            return                                  # other threads could join the loop
        lp = self._loop(prog, t, p)
        if not lp.ok or (lp.bars and G.size(cur) != int(self.m.live.sum())):
            return                                  # a barrier others could still reach: not one group's loop
        key = (prog.func.name, t, p)
        gk = (cur.start, cur.stop) if type(cur) is slice else (len(cur), hash(cur.tobytes()))
        w = self.watches.get(key)
        if w is not None and w.group != gk:
            w = None
        if w is not None and w.stride > 1 and w.wait == 0:
            w.phase += 1
            if w.phase < w.stride:
                return                              # the middle of a period of 2: looked at its end
            w.phase = 0
        if w is not None and w.wait > 0:
            w.wait -= 1
            if w.wait:
                return
            self.watches[key] = self._snapshot(prog, st, cur, gk, t, p, steps, cnt, lp)
            self.watches[key].backoff, self.watches[key].stride = w.backoff, w.stride
            return
        snap = self._snapshot(prog, st, cur, gk, t, p, steps, cnt, lp)
        if w is not None:
            snap.stride = w.stride
        if w is None:
            self.watches[key] = snap
            self.instances += 1
            return
        delta = self._delta(w, snap, st, prog, lp)
        if delta is None or w.skips_done != self.skips_done:
            snap.backoff = min(w.backoff * 2, 1024)
            snap.wait = snap.backoff
            self.watches[key] = snap
            return
        kept_whole = (snap.kept - w.kept) == (snap.tlen - w.tlen)
        if w.delta is not None and _equal(w.delta, delta):
            snap.same = w.same + 1
            snap.recorded = np.where(kept_whole, w.recorded + 1, 0)  # type: ignore[operator]  # set with delta
        elif w.stride == 1 and w.before is not None and _equal(w.before, delta):
            # this iteration did what the one before the last did, not what the last did: a period of
            # two iterations (a ping-pong buffer); from here on one snapshot every second back-edge
            snap.stride, snap.same = 2, 0
            snap.before, snap.backoff = None, w.backoff
            self.watches[key] = snap
            return
        else:
            snap.same = 1
            snap.recorded = kept_whole.astype(np.int64)
            snap.misses = w.misses + 1
            if snap.misses >= MISSES:                 # not periodic (yet): look again later, less often
                snap.backoff = min(w.backoff * 2, 1024)
                snap.wait, snap.misses = snap.backoff, 0
                self.watches[key] = snap
                return
        snap.delta, snap.backoff = delta, w.backoff
        snap.before = w.delta
        self.watches[key] = snap
        need = KNOWN_PERIODS if key in self.known else PERIODS
        # a short barrier loop whose periods would be repeated in the IDGs (MIN_JUMP_REPEAT) is
        # tried after KNOWN_PERIODS: no slope is measured on its recorded periods, the probe confirms
        early = KNOWN_PERIODS <= snap.same < need and lp.bars and not lp.enclosed
        if snap.same >= need or early:
            k = self._skip(prog, st, cur, t, p, snap, lp, cnt, early=early)
            if k:
                del self.watches[key]
                self.known.add(key)
            elif early:
                pass                                # looked at again at the next back-edge
            else:
                snap.backoff = min(w.backoff * 2, 1024)
                snap.wait = snap.backoff

    def _snapshot(self, prog, st, cur, gk, t, p, steps, cnt, lp: _Loop) -> _Watch:
        idx = cur                                   # (a converged group's slices copied, not gathered)
        if type(idx) is slice:
            regs = {k: st.regs[k][idx].copy() for k in lp.regs if k in st.regs}
        else:
            regs = {k: st.regs[k][idx] for k in lp.regs if k in st.regs}
        c = self.m.counters
        scal = np.array([getattr(c, a) for a in SCALARS], np.int64)
        per = np.array([a[t:p + 1] for a in cnt], np.int64)
        tw = st.trace_wid[idx] if st.traced_any else None
        d = np.zeros(0, np.int64)
        if tw is not None:
            ws = np.sort(tw[tw >= 0])                 # the distinct warps (a sort: NumPy 2.4's hashing
            d = c.dense(ws[np.r_[True, ws[1:] != ws[:-1]]] if len(ws) else ws)   # unique costs ~4x more here)
        return _Watch(gk, steps, regs, scal, per, c._tlen[d].copy(), c._kept[d].copy(), self.skips_done)

    def _delta(self, a: _Watch, b: _Watch, st, prog, lp: _Loop) -> tuple | None:
        """What one iteration changed, or None when it cannot be extrapolated."""
        floats = self._floats(prog.func)
        changed = {}
        for k, v in b.regs.items():
            u = a.regs.get(k)
            if u is None or u.shape != v.shape:
                return None
            if v.dtype == np.bool_:
                if not np.array_equal(u, v):
                    return None
                continue
            d = v - u                                 # raw bits: modular, either signedness
            if d.any():
                if k in floats or k in lp.data_regs:
                    return None
                changed[k] = d
        steps = b.steps - a.steps
        per = b.per_pc - a.per_pc
        if steps <= 0 or int(per[3].sum()) != steps:
            return None                               # a step outside the loop's pcs
        return (changed, b.scalars - a.scalars, per, b.tlen - a.tlen, steps)

    # ------------------------------------------------------------------ skipping
    def _skip(self, prog, st, cur, t: int, p: int, w: _Watch, lp: _Loop, cnt: tuple, early: bool = False) -> int:
        """Jump the most iterations a probe confirms (0: none) and account for them. A barrier loop
        jumped by fewer than MIN_JUMP_BARRIER iterations has its periods repeated in the IDGs
        (:attr:`Skip.expand`); ``early``: only such a jump (the watch has KNOWN_PERIODS periods)."""
        assert w.delta is not None                     # a watch is skipped once it has a period
        changed = w.delta[0]
        if not changed.keys() - {ISSUED}:
            # no register moves: every iteration is the same state, so the loop cannot reach its exit
            # by itself (only another thread's store could end it) and a jump would only multiply its
            # counts (a frozen clock-wait once jumped 2^40 iterations at a time, past int64); it runs
            # on, and a runaway stops on the step budget
            return 0
        repeat = lp.bars and not lp.enclosed and w.recorded is not None and bool((w.recorded >= 1).all())
        least = -(-(MIN_JUMP_REPEAT if repeat else MIN_JUMP_BARRIER if lp.bars else MIN_JUMP) // w.stride)   # in periods
        long = -(-MIN_JUMP_BARRIER // w.stride)
        est = self._estimate(lp.exit_compare, prog.guard[p], st, cur, changed)
        if early and (not repeat or est is None or est >= long):
            return 0                                  # not a short barrier loop: waits for PERIODS
        ok = lambda k: self._probe(prog, st, cur, t, p, w, k, cnt)
        good = 0
        if est is not None:
            # the exit compare is solved: its count is the answer (a probe confirms it); past it the
            # loop would have exited, and a one-iteration probe cannot see an overshot '!=' exit
            if est < least:
                return 0                              # a short loop: emulated whole (see MIN_JUMP)
            if repeat and est < long:
                # periods repeated in the IDGs: a probe that agrees is the period after the jump,
                # run (untraced) as the emulation would: kept, and counted as one more jumped
                if self._probe(prog, st, cur, t, p, w, est, cnt, keep=True):
                    self._apply(st, cur, t, p, w, est, cnt, expand=True, probed=True)
                    return est + 1
                good = _last_good(ok, 0, est)
            elif ok(est):
                good = est
            else:                                     # the probe disagrees: the most it confirms
                good = _last_good(ok, 0, est)
        elif _monotone(lp.exit_compare):
            # unsolved but monotone ('<', '<=', ...): once past the bound the loop exits, so a probe
            # after a jump too far fails, and galloping then bisecting finds the last good jump
            k = PERIODS
            while k < 1 << 40 and ok(k):
                good, k = k, k * 4
            good = _last_good(ok, good, k)
        if good < least or (early and good >= long):
            return 0
        self._apply(st, cur, t, p, w, good, cnt, expand=lp.bars and good < long)
        return good

    def _estimate(self, setp, guard: tuple[str, bool], st, cur, changed: dict) -> int | None:
        """Iterations the exit compare lets pass after this one, less one (the probe's), or None."""
        if setp is None or len(setp.srcs) != 2 or len(setp.modifiers) < 1:
            return None
        cmp, ty = setp.modifiers[0], setp.types[-1] if setp.types else ""
        scalar = _SIGNED.get(ty) or _UNSIGNED.get(ty)
        if scalar is None or cmp not in ("lt", "le", "gt", "ge", "ne", "lo", "ls", "hi", "hs"):
            return None
        dt = np.dtype(scalar)
        idx = G.as_array(cur)
        vals, ds = [], []
        from pipeperf.ptx.ir import Immediate, Register
        for op in setp.srcs:
            if type(op) is Immediate and isinstance(op.value, int):
                vals.append(np.full(len(idx), op.value, np.int64))
                ds.append(np.zeros(len(idx), np.int64))
            elif type(op) is Register and op.name in st.regs:
                raw = st.regs[op.name][idx]
                if raw.dtype.itemsize < dt.itemsize:
                    return None
                v = raw.astype(np.dtype(f"u{dt.itemsize}")).view(dt) if raw.dtype.itemsize != dt.itemsize \
                    else raw.view(dt)
                d = changed.get(op.name)
                d = np.zeros(len(idx), np.int64) if d is None else \
                    d.astype(np.dtype(f"u{dt.itemsize}")).view(np.dtype(f"i{dt.itemsize}")).astype(np.int64)
                if dt == np.uint64 and (v > (1 << 62)).any():
                    return None
                vals.append(v.astype(np.int64))
                ds.append(d)
            else:
                return None
        e = vals[1] - vals[0]                          # b - a
        s = ds[0] - ds[1]                              # per iteration, a - b grows by s
        rel = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}.get(cmp, cmp)
        name, neg = guard
        taken_if_true = (name == written_registers(setp)[0]) != neg   # p, or its complement q
        if not taken_if_true:
            rel = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "ne": "eq"}[rel]
        if rel in ("gt", "ge"):                        # a - b > e' <=> (b - a) < -... : flip sides
            e, s, rel = -e, -s, {"gt": "lt", "ge": "le"}[rel]
        with np.errstate(all="ignore"):
            if rel == "lt":                            # continue while j*s < e
                if (s <= 0).any():
                    return None
                n = -((-e) // s) - 1
            elif rel == "le":                          # continue while j*s <= e
                if (s <= 0).any():
                    return None
                n = e // s
            elif rel == "ne":                          # continue while j*s != e
                if (s == 0).any() or ((e % np.where(s == 0, 1, s)) != 0).any():
                    return None
                n = e // s - 1
                if (n < 0).any():
                    return None
            else:
                return None
        return int(n.min()) - 1

    def _probe(self, prog, st, cur, t, p, w: _Watch, k: int, cnt: tuple, keep: bool = False) -> bool:
        """Does the iteration after a jump of ``k`` run as the period did? (effects undone; with
        ``keep``, kept where it did: the state is then the jump's plus that period, run untraced)"""
        assert w.delta is not None                     # a watch is probed once it has a period
        m, c = self.m, self.m.counters
        idx = G.as_array(cur)
        names = [n for n in self._loop(prog, t, p).regs if n in st.regs]
        saved = {n: st.regs[n][idx] for n in names}
        scal = [getattr(c, a) for a in SCALARS]
        per = [a[t:p + 1] for a in cnt]
        self._jump_regs(st, idx, w.delta[0], k)
        regs0 = {n: st.regs[n][idx] for n in names}
        traced = st.traced_any
        st.traced_any = False
        try:
            steps: int | None = 0
            for _ in range(w.stride):                  # one period: one iteration, or two
                assert steps is not None
                s = m._execute(prog, st, cur, pc0=t, probe=(t, p, 2 * w.delta[4] + 8 - steps))
                steps = None if s is None else steps + s
                if steps is None:
                    break
        except BudgetExhausted:                        # the launch's, not this k's: it stops here
            raise
        except Exception:                              # a fault, a hybrid fallback: not this k
            steps = None
        finally:
            st.traced_any = traced
        good = False
        if steps is not None:
            regs1 = {n: st.regs[n][idx] for n in names if n in st.regs}
            d = _Watch(w.group, 0, regs0, np.array(scal, np.int64), np.array(per, np.int64), w.tlen, w.kept, 0)
            e = _Watch(w.group, steps, regs1, np.array([getattr(c, a) for a in SCALARS], np.int64),
                       np.array([a[t:p + 1] for a in cnt], np.int64), w.tlen, w.kept, 0)
            delta = self._delta(d, e, st, prog, self._loop(prog, t, p))
            good = delta is not None and _equal(delta[:3] + delta[4:], w.delta[:3] + w.delta[4:])
        if good and keep:
            return True
        for n, v in saved.items():                    # undo: the state at the back-edge
            st.regs[n][idx] = v
        for a, v in zip(SCALARS, scal):
            setattr(c, a, v)
        for a, v in zip(cnt, per):
            a[t:p + 1] = v
        return good

    @staticmethod
    def _jump_regs(st, idx, changed: dict, k: int) -> None:
        for n, d in changed.items():
            r = st.regs[n]
            r[idx] = r[idx] + d * d.dtype.type(k % (1 << (8 * d.dtype.itemsize)))

    def _apply(self, st, cur, t: int, p: int, w: _Watch, k: int, cnt: tuple, expand: bool = False,
               probed: bool = False) -> None:
        """Jump ``k`` periods: registers, counts, trace lengths and synthesised accesses. ``probed``:
        the probe's period after them was kept (:meth:`_probe`): the registers and counts already
        hold it, and the trace counts it as one more skipped period (it ran untraced)."""
        assert w.delta is not None and w.recorded is not None   # set together, by back_edge()
        changed, dscal, dper, dtlen, _ = w.delta
        idx = G.as_array(cur)
        if not probed:
            self._jump_regs(st, idx, changed, k)
        c = self.m.counters
        for a, d in zip(SCALARS, dscal.tolist()):
            setattr(c, a, getattr(c, a) + k * d)
        for a, d in zip(cnt, dper.tolist()):
            for i, x in enumerate(d):
                if x:
                    a[t + i] += k * x
        n = k + 1 if probed else k                    # periods the trace skips
        if st.traced_any and len(dtlen):
            tw = st.trace_wid[idx]
            ws = np.unique(tw[tw >= 0])
            dn = c.dense(ws)
            self._synthesize(ws, dn, dtlen, n)
            c._tlen[dn] += n * dtlen
            c.trace.skips.append(Skip(ws, c._kept[dn].copy(), dtlen.copy(),
                                      np.minimum(w.recorded, PERIODS), int(n), w.stride, expand))
        self.skips_done += 1
        self.iterations_skipped += n * w.stride * (G.size(cur) // 32 or 1)


    def _synthesize(self, ws: np.ndarray, dn: np.ndarray, period: np.ndarray, k: int) -> None:
        """Log the memory accesses of the skipped periods for the memory model: each access of
        the last period again, at its position plus j periods and its lanes' addresses plus j
        times their change from the period before (checked equal in structure), for j = 1..k
        while the warps' logging frontier and :data:`SYNTH_ADDRESSES` allow; where that stops
        short, the warps' frontier moves there, so their logged accesses stay a contiguous start."""
        c = self.m.counters
        log = c.memory_log
        end = c._tlen[dn]                           # positions before the jump
        last, prev = [], []
        i = len(log) - 1
        ok = bool((end <= c.mem_frontier[dn]).all())
        seen: list = [None, None]                       # the last warps array looked up, and its rows

        def rows(bw: np.ndarray) -> tuple | None:
            """(rows of ``ws``, their positions, periods, twice their periods) of the block's warps,
            None where one is not of the group (a block of one group's step shares its array)."""
            w0 = seen[0]
            if w0 is not None and (bw is w0 or (len(bw) == len(w0) and np.array_equal(bw, w0))):
                return seen[1]
            j = np.searchsorted(ws, bw)
            r = None
            if len(bw) and not (j >= len(ws)).any() and not (ws[j] != bw).any():
                r = (j, end[j], period[j], 2 * period[j])
            seen[0], seen[1] = bw, r
            return r

        while ok and i >= 0:
            block = log[i]
            if type(block) is SynthBlock:               # an earlier skip's: read its oldest period
                r = rows(block.warps)                   # before expanding it (reaching past two
                if r is None:                           # periods stops the scan)
                    break
                if (r[1] - block.first_steps() > r[3]).any():
                    break
                block = tuple(block)
            fn, pc, bw, bpos, blen, baddr = block
            r = rows(bw)
            if r is None:
                break
            rel = r[1] - bpos                           # 1 .. period: the last period
            if (rel > r[3]).any():
                break
            if (rel <= r[2]).all():
                last.append(i)
            elif (rel > r[2]).all():
                prev.append(i)
            else:
                ok = False
            i -= 1
        ok = ok and len(last) == len(prev)
        pairs = []
        for a, b in zip(reversed(last), reversed(prev)) if ok else ():
            fa, pa, wa, sa, la, xa = log[a]
            fb, pb, wb, sb, lb, xb = log[b]
            r = rows(wa)
            if r is None or fa != fb or pa != pb or not (wa is wb or np.array_equal(wa, wb)) or \
                    not np.array_equal(la, lb) or not np.array_equal(sa - sb, r[2]):
                ok = False
                break
            pairs.append((fa, pa, wa, sa, la, xa, xa - xb, r[2]))
        per_period = sum(len(p[5]) for p in pairs)
        kk = 0
        if ok:
            room = int(((c.mem_frontier[dn] - end) // np.maximum(period, 1)).min())
            kk = max(0, min(k, room, self.synth_left // max(1, per_period)))
        if kk:
            for fa, pa, wa, sa, la, xa, dx, pw in pairs:
                log.append(SynthBlock(fa, pa, wa, sa, la, xa, dx, pw, kk))
            self.synth_left -= kk * per_period
        if kk < k:
            c.mem_frontier[dn] = np.minimum(c.mem_frontier[dn], end + kk * period)


def bar_ok(x) -> bool:
    """A plain ``bar.sync``/``barrier.sync`` (no arrive, no reduction): when every live thread of
    the batch goes round the loop as one group, all arrive together and it only counts."""
    return not ({"arrive", "red", "warp"} & set(x.modifiers))


def _last_good(ok, lo: int, hi: int) -> int:
    """Bisect between a jump ``lo`` the probe accepts (or 0) and one ``hi`` it refuses."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _monotone(setp) -> bool:
    """An ordered exit compare (not '!=' or '=='): one iteration's probe past its bound fails."""
    return setp is not None and bool(setp.modifiers) and setp.modifiers[0] in (
        "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")


def _equal(a, b) -> bool:
    """Deltas equal: the same registers changed by the same amounts, the same counts added."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b)
    return a == b
