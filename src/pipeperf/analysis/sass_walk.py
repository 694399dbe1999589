"""Block counts and the walk of the SASS-aware IDGs (:mod:`pipeperf.analysis.sass_trace`): how
often each SASS basic block ran, from an integer program over the work each block does per source
line and the CFG's flow (SciPy's HiGHS; its linear relaxation, rounded, past the time limit), and
an execution order that runs the blocks that often along the CFG's edges."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.sass.listing import SassFunction

#: cost of one unit of divergence or re-convergence slack, and of ending the walk early, against
#: one instruction's worth of unmatched work
_SLACK_COST, _CUT_COST, _FLOW_COST = 0.25, 0.5, 1e-4


def cfg_edges(sass: SassFunction) -> list[tuple[int, int]]:
    """The CFG's edges (block, successor; -1 the exit), in the order block counts give their flows."""
    return [(b.index, s) for b in sass.blocks for s in b.successors]


#: the integer program's time limit (s); past it, the linear relaxation (rounded)
MILP_SECONDS = 20.0


def relaxed_note(name: str) -> str:
    """The note saying the block counts of ``name`` are the linear relaxation's."""
    return (f"SASS timing: the integer program for {name}'s block counts ran past its {MILP_SECONDS:g} s limit; "
            "the counts are its linear relaxation's, rounded (the walk's order and flows approximate)")


@lru_cache(maxsize=512)
def solve_block_counts(sass: SassFunction, work_b: bytes, shape: tuple[int, int], demand_b: bytes, weight_b: bytes
                       ) -> tuple[np.ndarray, np.ndarray, bool]:
    """Integer block counts x and edge flows: min sum weight |work^T x - demand| + slack and cut
    costs, subject to one entry and flow conservation up to divergence slack; and whether they are
    the linear relaxation's (the integer program ran past :data:`MILP_SECONDS`)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix

    work = np.frombuffer(work_b).reshape(shape)
    demand = np.frombuffer(demand_b)
    weight = np.frombuffer(weight_b)
    nb, nr = shape
    edges = cfg_edges(sass)
    ne = len(edges)
    # variables: edges | x (nb) | merge slack m (nb) | divergence slack s (nb) | cut (nb) | r+ (nr) | r- (nr)
    ox, om, osl, oc, orp, orm = ne, ne + nb, ne + 2 * nb, ne + 3 * nb, ne + 4 * nb, ne + 4 * nb + nr
    nv = ne + 4 * nb + 2 * nr
    c = np.zeros(nv)
    c[:ne] = _FLOW_COST
    c[om:oc] = _SLACK_COST
    c[oc:orp] = _CUT_COST
    c[orp:orm] = weight
    c[orm:] = weight
    a = lil_matrix((2 * nb + nr, nv))
    lo = np.zeros(2 * nb + nr)
    for k, (b, s) in enumerate(edges):
        a[nb + b, k] = 1.0                       # out-flow of b
        if s >= 0:
            a[s, k] = 1.0                        # in-flow of s
    for b in range(nb):
        a[b, ox + b], a[b, om + b] = -1.0, -1.0  # in(b) - m_b - x_b = -[b == entry]
        a[nb + b, ox + b], a[nb + b, osl + b], a[nb + b, oc + b] = -1.0, -1.0, 1.0   # out(b) + cut_b - s_b - x_b = 0
    lo[0] = -1.0
    for r in range(nr):
        for bi in np.flatnonzero(work[:, r]).tolist():
            a[2 * nb + r, ox + bi] = work[bi, r]
        a[2 * nb + r, orp + r], a[2 * nb + r, orm + r] = -1.0, 1.0
        lo[2 * nb + r] = demand[r]
    # a loop runs only if control enters it: x_h <= M * (flow into h along forward edges) for every
    # block h a back edge (to a block laid out no later) reaches; else a circulation on a loop no
    # path reaches would satisfy the counts. (Every cycle holds a back edge, and a forward entry
    # comes from an earlier block, so all runs connect to the entry.)
    heads = sorted({t for b, t in edges if 0 < t <= b})
    big = 4.0 * float(demand.sum()) + 1000.0
    reach = lil_matrix((len(heads), nv))
    for i, h in enumerate(heads):
        reach[i, ox + h] = 1.0
        for k, (b, t) in enumerate(edges):
            if t == h and b < h:
                reach[i, k] = -big
    integral = np.ones(nv)
    integral[orp:] = 0
    constraints = [LinearConstraint(a.tocsr(), lo, lo)]
    if heads:
        constraints.append(LinearConstraint(reach.tocsr(), -np.inf, 0.0))
    res = milp(c, constraints=constraints, integrality=integral,
               bounds=Bounds(0, np.inf), options={"time_limit": MILP_SECONDS})
    relaxed = res.x is None
    if relaxed:
        # no integer solution within the time limit (a large CFG on a loaded machine): the linear
        # relaxation, rounded (the walk takes the counts as they come; flows off by a rounding
        # are absorbed as divergence), said so in the analysis' notes
        res = milp(c, constraints=constraints, integrality=np.zeros(nv), bounds=Bounds(0, np.inf))
        if res.x is None:
            raise PipeperfError(f"SASS timing: no block counts for {sass.name} ({res.message})")
    x = np.rint(res.x[ox:om]).astype(np.int64)
    flows = np.rint(res.x[:ne]).astype(np.int64)
    x.setflags(write=False)
    flows.setflags(write=False)
    return x, flows, relaxed


def walk(sass: SassFunction, counts: np.ndarray, flows: np.ndarray | None = None) -> list[int]:
    """Blocks in a plausible execution order, each ``counts[b]`` times, along the edges' ``flows``
    (:func:`cfg_edges` order; None: from the counts alone). A loop (a back edge, to a block laid out
    no later) runs its iterations evenly over its entries (Bresenham over entries: 12 iterations of
    an inner loop entered 4 times run 3 each); any other branch goes the way furthest behind its
    share of the block's exits. Blocks left over (divergent paths the flows could not route) are
    spliced in after a predecessor's last run."""
    edges = cfg_edges(sass)
    if flows is None:
        flows = np.array([counts[t] if t >= 0 else 0 for _, t in edges], np.int64)
    out_edges: dict[int, list[int]] = defaultdict(list)
    for k, (b, _t) in enumerate(edges):
        out_edges[b].append(k)
    back = [0 <= t <= b for b, t in edges]
    loop_trips: dict[int, float] = {}                        # header -> iterations per entry
    for h in range(len(sass.blocks)):
        inflow = [(k, b) for k, (b, t) in enumerate(edges) if t == h]
        again = sum(int(flows[k]) for k, _ in inflow if back[k])
        entries = sum(int(flows[k]) for k, _ in inflow if not back[k]) + (1 if h == 0 else 0)
        if again and entries:
            loop_trips[h] = again / entries
    entered: dict[int, int] = defaultdict(int)               # header -> entries so far
    trips: dict[int, int] = defaultdict(int)                 # header -> iterations in this entry
    left = counts.astype(np.int64).copy()
    left_e = flows.astype(np.int64).copy()
    visits: dict[int, int] = defaultdict(int)
    used = np.zeros(len(edges), np.int64)
    order: list[int] = []
    b = 0 if len(left) and left[0] > 0 else -1
    if b == 0 and 0 in loop_trips:
        entered[0] = 1
    while b >= 0 and left[b] > 0:
        order.append(b)
        left[b] -= 1
        visits[b] += 1
        ks = [k for k in out_edges[b] if left_e[k] > 0]
        if not ks:
            break
        k = -1
        for kb in (k2 for k2 in ks if back[k2]):              # continue a loop while this entry's share lasts
            h, n = edges[kb][1], entered[edges[kb][1]]
            want = round(n * loop_trips.get(h, 0.0)) - round((n - 1) * loop_trips.get(h, 0.0))
            if trips[h] < want:
                k = kb
                break
        if k < 0:
            fwd = [k2 for k2 in ks if not back[k2]] or ks
            total = sum(int(flows[k2]) for k2 in out_edges[b]) or 1
            k = max(fwd, key=lambda k2: visits[b] * flows[k2] / total - used[k2])
        left_e[k] -= 1
        used[k] += 1
        t = edges[k][1]
        if t >= 0 and back[k]:
            trips[t] += 1
        elif t >= 0 and t in loop_trips:                       # a new entry into a loop
            entered[t] += 1
            trips[t] = 0
        b = t
    if left.sum() > 0:                            # divergent paths: after a predecessor's last run
        preds: dict[int, list[int]] = defaultdict(list)
        for blk in sass.blocks:
            for s in blk.successors:
                if s >= 0:
                    preds[s].append(blk.index)
        for b in np.flatnonzero(left > 0).tolist():
            at = max((i for i, o in enumerate(order) if o in preds[b]), default=len(order) - 1)
            order[at + 1:at + 1] = [b] * int(left[b])
    return order
