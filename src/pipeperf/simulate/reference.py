"""A plain-Python reference for the compiled engine: the same model, stated as simply as it goes.

It reads the same :class:`~pipeperf.simulate.engine.EngineInput` and returns the same
:class:`~pipeperf.simulate.engine.CoreResult` as :func:`pipeperf.simulate.engine.run_core`, with
the same floating-point operations in the same order, so that the two agree bit for bit
(tests/simulate/test_reference_engine.py checks it on random IDGs, GPUs and schedulers). It is
100-1000x slower: it visits every warp in every processed cycle, where the C engine keeps bitsets
of the warps that can act, stops its scan once every pipeline is full and jumps over cycles by a
bound it maintains as it goes. It has no stall attribution (the C engine's own tests check that
attribution changes no result).

The model, per processed cycle ``t`` (an integer; each cycle is the interval [t, t + 1)):

1. Issue credits grow by the issue limit, capped at max(limit, 1).
2. The priority order of the warp slots: round-robin (RR) starts after the slot that issued last;
   greedy-then-oldest (GTO) takes that slot first, then the others oldest group first.
3. In that order, a warp is a candidate when its next instruction is ready within the cycle
   (operands complete, barrier released, a cycle after its previous issue) and its pipeline is
   not busy past the cycle. A pipeline offers ceil((t + 1 - tau) / minlam) issue slots from
   tau = max(t, its free time); once that many candidates ready at tau are ahead of a warp, the
   warp is not a candidate (except at first-come pipelines, which take every candidate).
4. While credits last, the pipelines fill their slots earliest first: each pipeline's pick is its
   first candidate (in priority order) ready at tau, issuing at tau, else the one ready soonest,
   issuing then; first-come pipelines pick the candidate ready longest. Among the pipelines'
   picks the earliest issues, ties to the larger lambda, then to priority. An issue holds the
   pipeline lambda cycles and completes Lambda cycles later (a fill wait may delay it); a
   barrier completes for its whole group Lambda_bar after the last warp reached it.
5. A group is done when every warp issued everything and its last result (Lret) is in; the next
   group takes its slots ``dispatch`` cycles later, but no sooner than ``interval`` after the
   core's previous group start, and becomes the youngest in GTO's age order.
6. The next processed cycle is the first in which some warp could issue: the floor of the
   smallest max(ready time, pipeline free time), at least t + 1; credits grow over the cycles
   jumped (limit x their number, capped).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass

from pipeperf.simulate.engine import DEADLOCK, GTO, OK, CoreResult, EngineInput

INF = math.inf


@dataclass
class _Slot:
    """One resident warp: which warp of the launch, its class, its next instruction and when it
    may issue, and each of its instructions' completion times."""

    warp: int = -1
    cls: int = 0
    head: int = 0                # index (in its IDG) of its next instruction
    start: float = 0.0           # its group's start time
    last_issue: float = -INF
    ready: float = INF           # when its next instruction may issue (inf: none, or at a barrier)
    comp: list[float] | None = None
    bar_node: int = 0            # the barrier it waits at
    bar_rec: int = 0             # that barrier's record


@dataclass
class _Group:
    unissued: int = 0            # warps with instructions left to issue
    arrivals: int = 0            # warps at the pending barrier
    last_arrival: float = 0.0
    max_comp: float = 0.0        # the latest result it waits for before it retires


class _Core:
    """The state of one simulated core; :func:`run_core` drives it."""

    def __init__(self, inp: EngineInput):
        self.inp = inp
        self.off, self.length = list(memoryview(inp.off)), list(memoryview(inp.length))
        self.sub = list(memoryview(inp.sub))
        self.lam, self.Lam, self.Lret = (list(memoryview(a)) for a in (inp.lam, inp.Lam, inp.Lret))
        self.is_bar = [bool(b) for b in memoryview(inp.is_bar).cast("B")]
        self.bar_prev, self.minlam = list(memoryview(inp.bar_prev)), list(memoryview(inp.minlam))
        self.dep_ptr, self.dep_idx = list(memoryview(inp.dep_ptr)), list(memoryview(inp.dep_idx))
        self.fill = list(memoryview(inp.fill)) if inp.fill is not None else None
        self.fill_cycles = list(memoryview(inp.fill_cycles)) if inp.fill_cycles is not None else None
        n_sub = len(self.minlam)
        self.fifo = [bool(b) for b in memoryview(inp.fifo).cast("B")] if inp.fifo is not None else [False] * n_sub
        self.warp_cls = list(memoryview(inp.warp_cls))
        self.gs = inp.group_size
        self.M = min(inp.n_resident, inp.n_groups)
        self.slots = [_Slot() for _ in range(self.M * self.gs)]
        self.groups = [_Group() for _ in range(self.M)]
        self.age = list(range(len(self.slots)))          # GTO's order, oldest first
        self.tfree = [0.0] * n_sub                      # when each pipeline takes its next instruction
        self.busy = [0.0] * n_sub
        self.next_group = self.groups_done = 0
        self.last_start = self.end = 0.0
        self.issued = 0
        self.rec: list[list[float]] = [[], [], [], []]  # warp, instruction, issue, completion

    def node(self, s: _Slot) -> int:
        """The flattened index of the slot's next instruction."""
        return self.off[s.cls] + s.head

    def ready_time(self, s: _Slot) -> float:
        """When the slot's next instruction may issue: its group started, a cycle after the warp's
        previous issue, its operands and the barrier before it complete."""
        if s.head >= self.length[s.cls]:
            return INF
        assert s.comp is not None
        g = self.node(s)
        r = max(s.start, s.last_issue + 1.0)
        for e in range(self.dep_ptr[g], self.dep_ptr[g + 1]):
            r = max(r, s.comp[self.dep_idx[e]])
        if self.bar_prev[g] >= 0:
            r = max(r, s.comp[self.bar_prev[g]])
        return r

    def load_group(self, m: int, t0: float, youngest: bool) -> None:
        """The next group of the launch takes resident group m's slots from time t0."""
        gid = self.next_group
        self.next_group += 1
        grp = self.groups[m] = _Group(max_comp=t0)
        for j in range(self.gs):
            w = gid * self.gs + j
            c = self.warp_cls[w]
            n = self.length[c]
            self.slots[m * self.gs + j] = _Slot(warp=w, cls=c, start=t0, ready=t0 if n > 0 else INF, comp=[INF] * n)
            grp.unissued += n > 0
        if youngest:
            mine = range(m * self.gs, (m + 1) * self.gs)
            self.age = [s for s in self.age if s not in mine] + list(mine)

    def priority(self, last: int) -> list[int]:
        """The slots in the scheduler's order for this cycle (``last``: the slot that issued last)."""
        n = len(self.slots)
        if self.inp.scheduler == GTO:
            return ([last] if last >= 0 else []) + [s for s in self.age if s != last]
        first = last + 1 if last + 1 < n else 0
        return [(first + k) % n for k in range(n)]

    def candidates(self, t: float, order: list[int]) -> dict[int, list[int]]:
        """Per pipeline, the slots that may issue to it within [t, t + 1), in priority order."""
        t1 = t + 1.0
        out: dict[int, list[int]] = {}
        ready_at_first_slot = [0] * len(self.minlam)
        for i in order:
            s = self.slots[i]
            if s.ready >= t1:
                continue
            su = self.sub[self.node(s)]
            if self.tfree[su] >= t1:
                continue
            tau = max(self.tfree[su], t)
            if not self.fifo[su]:
                if ready_at_first_slot[su] >= _slots_offered(t1 - tau, self.minlam[su]):
                    continue            # earlier warps ready at tau claim every slot it offers
                if s.ready <= tau:
                    ready_at_first_slot[su] += 1
            out.setdefault(su, []).append(i)
        return out

    def pick(self, t: float, su: int, waiting: list[int]) -> tuple[float, int] | None:
        """Pipeline su's choice among its waiting slots: (issue time, slot), or None this cycle."""
        tau = max(self.tfree[su], t)
        if tau >= t + 1.0:
            return None
        ready = [self.slots[i].ready for i in waiting]
        if self.fifo[su]:                               # the one ready longest (first on ties)
            k = ready.index(min(ready))
            x = max(ready[k], tau)
        else:
            now = [k for k, r in enumerate(ready) if r <= tau]
            k = now[0] if now else ready.index(min(ready))
            x = tau if now else ready[k]
        return (x, waiting[k]) if x < t + 1.0 else None

    def issue(self, i: int, x: float) -> None:
        """Slot i issues its next instruction at time x."""
        s, m = self.slots[i], i // self.gs
        assert s.comp is not None
        grp, g, h = self.groups[m], self.node(s), s.head
        su = self.sub[g]
        self.tfree[su] = x + self.lam[g]
        self.busy[su] += self.lam[g]
        self.issued += 1
        rec = len(self.rec[0])
        if self.inp.record:
            self.rec[0].append(s.warp)
            self.rec[1].append(h)
            self.rec[2].append(x)
            self.rec[3].append(INF)
        if self.is_bar[g]:
            s.bar_node, s.bar_rec = h, rec
            grp.arrivals += 1
            grp.last_arrival = max(grp.last_arrival, x)
            if grp.arrivals == self.gs:                 # the last warp arrived: release the group
                tb = grp.last_arrival + self.Lam[g]
                for j in range(m * self.gs, (m + 1) * self.gs):
                    o = self.slots[j]
                    assert o.comp is not None
                    o.comp[o.bar_node] = tb
                    if self.inp.record:
                        self.rec[3][o.bar_rec] = tb
                    if j != i:
                        o.ready = self.ready_time(o)
                grp.max_comp = max(grp.max_comp, tb)
                grp.arrivals, grp.last_arrival = 0, 0.0
        else:
            cp = x + self.Lam[g]
            if self.fill is not None and self.fill_cycles is not None and self.fill[g] >= 0:
                cp = max(cp, s.comp[self.fill[g]] + self.fill_cycles[g])    # its data come with that fill
            s.comp[h] = cp
            grp.max_comp = max(grp.max_comp, x + self.Lret[g])
            if self.inp.record:
                self.rec[3][rec] = cp
        s.head, s.last_issue = h + 1, x
        s.ready = self.ready_time(s)
        if s.head == self.length[s.cls]:
            grp.unissued -= 1
        if grp.unissued == 0 and grp.arrivals == 0:
            self.end = max(self.end, grp.max_comp)
            self.groups_done += 1
            if self.next_group < self.inp.n_groups:
                t0 = max(grp.max_comp + self.inp.dispatch, self.last_start + self.inp.interval)
                self.last_start = t0
                self.load_group(m, t0, youngest=True)
            else:
                for j in range(m * self.gs, (m + 1) * self.gs):
                    self.slots[j].ready = INF

    def next_cycle(self, t: float) -> float:
        """The first cycle after t in which some warp could issue (inf: none ever can)."""
        soonest = INF
        for s in self.slots:
            if s.ready < INF:
                soonest = min(soonest, max(s.ready, self.tfree[self.sub[self.node(s)]]))
        return max(math.floor(soonest), t + 1.0) if soonest < INF else INF


def _slots_offered(span: float, minlam: float) -> float:
    """The issue slots a pipeline taking an instruction every ``minlam`` cycles offers in ``span``."""
    return math.ceil(span / minlam) if minlam > 0 else INF


def run_core(inp: EngineInput) -> CoreResult:
    """Simulate one core as :func:`pipeperf.simulate.engine.run_core` does (module docstring)."""
    if inp.dep_col is not None:
        raise ValueError("the reference engine has no stall attribution")
    core = _Core(inp)
    for m in range(core.M):
        core.last_start = m * inp.interval
        core.load_group(m, core.last_start, youngest=False)
    cap = max(inp.issue_limit, 1.0)
    t, credits, last, issue_cycles = 0.0, 0.0, -1, 0
    status = OK
    while core.groups_done < inp.n_groups:
        credits = credits + inp.issue_limit if credits + inp.issue_limit < cap else cap
        order = core.priority(last)            # fixed for the cycle
        rank = {i: k for k, i in enumerate(order)}
        waiting = core.candidates(t, order)
        issued_now = False
        while credits >= 1.0:
            picks = []                          # (issue time, -lambda, priority, pipeline, slot)
            for su, slots in waiting.items():
                p = core.pick(t, su, slots) if slots else None
                if p is not None:
                    x, i = p
                    picks.append((x, -core.lam[core.node(core.slots[i])], rank[i], su, i))
            if not picks:
                break
            x, _, _, su, i = min(picks)
            waiting[su].remove(i)
            core.issue(i, x)
            credits -= 1.0
            issued_now, last = True, i
        issue_cycles += issued_now
        if core.groups_done >= inp.n_groups:
            break
        nt = core.next_cycle(t)
        if nt == INF:
            status = DEADLOCK
            core.end = t
            break
        skipped = nt - t - 1.0
        c2 = credits + inp.issue_limit * skipped
        credits = c2 if c2 < cap else cap
        t = nt
    return CoreResult(status, core.end, array("d", core.busy), core.issued, issue_cycles,
                      array("q", [int(v) for v in core.rec[0]]), array("q", [int(v) for v in core.rec[1]]),
                      array("d", core.rec[2]), array("d", core.rec[3]))
