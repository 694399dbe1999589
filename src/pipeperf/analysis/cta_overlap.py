"""CTAs whose global footprints overlap without being equal: the halo a stencil or convolution
block shares with its neighbours, found in L2 when the neighbour brought it in.

Why: :func:`pipeperf.analysis.cta_sharing.cta_keys` finds CTAs that address *the same* memory at
an instruction (a GEMM's rows of A down a grid row); the traced clusters of consecutive CTAs show
reuse between neighbours along ``blockIdx.x``. A 2D convolution or stencil block of ``by`` output
rows stages ``by + 2r`` input rows: the blocks above and below, launched one grid row (``gridDim.x``
CTAs) earlier or later, read ``2r`` of those rows too. No two of those CTAs have equal keys, and
the traced clusters rarely hold two CTAs one grid row apart, so every staged row was a DRAM miss:
the own-H200 conv17 launches with one-row blocks read the 67.6 MB input 17 times from DRAM
(1.26 GB) where the GPU reads it about once.

How: a traced CTA's addresses at a load give its footprint. Where the lowest address each traced
CTA touches there is ``m0 + c . blockIdx`` for integer byte strides ``c`` (fitted on the traced
CTAs, exact for at least 3 in 4 of them: the others are the grid's bounds-masked edges), CTA ``j``
touches the footprint shifted by ``c . (blockIdx_j - blockIdx_i)``. For CTAs ``i`` spread over the
launch order, each sector of ``i``'s footprint that an earlier CTA ``j`` touched is in L2 with
the probability that it survived the CTAs launched in between (``random_replacement_hit_rate`` of
their distance over the CTAs the L2 holds, as for equal keys). Loads whose strides all vanish
(every CTA the same addresses) are left to the keys, which count them exactly.

Assumed, as for the keys: CTAs run in launch order (x fastest), and each CTA's footprint has the
traced one's shape (true away from masked edges).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from pipeperf.analysis.cta_sharing import random_replacement_hit_rate
from pipeperf.hardware.accesses import SECTOR, SPACES, Accesses

#: CTAs spread over the launch order whose coverage is averaged
EVAL_CTAS = 32
#: traced CTAs whose footprints stand for every CTA's
FOOTPRINT_CTAS = 2
#: distinct shifts looked at per evaluated CTA (nearest first)
MAX_SHIFTS = 256
#: footprints larger than this (sectors) are not followed (a GEMM block's whole K range: its
#: reuse is the keys'); bounds the work at MAX_SHIFTS x this
MAX_FOOTPRINT = 1 << 16
#: survival below this: the earlier CTA's data is as good as gone
MIN_SURVIVAL = 1e-3


def _coords(lin: np.ndarray, grid: tuple[int, int, int]) -> np.ndarray:
    gx, gy = int(grid[0]), int(grid[1])
    return np.stack([lin % gx, (lin // gx) % gy, lin // (gx * gy)], axis=1)


def fit_strides(ctas: np.ndarray, lowest: np.ndarray, grid: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """Integer byte strides ``c`` with ``lowest = m0 + c . coords(ctas)`` exactly for at least 3
    in 4 of the CTAs (``ctas``: linear launch-order ids; ``lowest``: each one's lowest address at
    one instruction); None when no such fit exists or a dimension of the grid does not vary among
    the CTAs (its stride cannot be told)."""
    if len(ctas) < 3:
        return None
    xyz = _coords(ctas.astype(np.int64), grid)
    vary = [k for k in range(3) if grid[k] > 1]
    if not vary or any(len(np.unique(xyz[:, k])) < 2 for k in vary):
        return None
    m = lowest.astype(np.float64)
    a = np.column_stack([np.ones(len(ctas))] + [xyz[:, k].astype(np.float64) for k in vary])
    sol, *_ = np.linalg.lstsq(a, m - m.min(), rcond=None)
    c = [0, 0, 0]
    for k, v in zip(vary, sol[1:]):
        c[k] = int(round(float(v)))
    rest = lowest.astype(np.int64) - xyz @ np.array(c, np.int64)
    _, counts = np.unique(rest, return_counts=True)
    if counts.max() * 4 < len(ctas) * 3:
        return None
    return c[0], c[1], c[2]


def _lane_rows(acc: Accesses, req: np.ndarray) -> np.ndarray:
    """The lane addresses of requests ``req`` (int64), concatenated."""
    start, stop = acc.lane_start[req], acc.lane_start[req + 1]
    n = stop - start
    idx = np.repeat(start - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
    return acc.addr[idx].astype(np.int64)


def overlap_reuse(acc: Accesses, pcs: Iterable[int], grid: tuple[int, int, int], warps_per_cta: int,
                  limit: float) -> dict[int, float]:
    """Per global load PC of ``pcs`` whose CTAs' footprints are shifts of one another (module
    doc), the share of its sectors that an earlier CTA's overlapping footprint left in L2
    (``limit``: the CTAs whose data fills the L2). PCs it cannot say anything of are absent."""
    pcs = sorted({int(p) for p in pcs})
    if not pcs or acc.kind is None or warps_per_cta < 1:
        return {}
    n_ctas = math.prod(int(g) for g in grid)
    if n_ctas < 2:
        return {}
    glob = acc.space == SPACES.index("global")
    load = acc.load
    assert load is not None
    sel = np.flatnonzero(glob & load & np.isin(acc.pc, pcs))
    if not len(sel):
        return {}
    lowest_req = np.minimum.reduceat(acc.addr, acc.lane_start[:-1])[sel].astype(np.int64) \
        if len(acc.addr) else np.zeros(0, np.int64)
    cta = acc.warp[sel] // warps_per_cta
    pc = acc.pc[sel]
    # the lowest address per (pc, CTA)
    order = np.lexsort((lowest_req, cta, pc))
    pc_s, cta_s, low_s = pc[order], cta[order], lowest_req[order]
    first = np.ones(len(order), bool)
    first[1:] = (pc_s[1:] != pc_s[:-1]) | (cta_s[1:] != cta_s[:-1])
    pc_u, cta_u, low_u = pc_s[first], cta_s[first], low_s[first]
    groups: dict[tuple[int, int, int], list[int]] = {}
    for p in pcs:
        m = pc_u == p
        c = fit_strides(cta_u[m], low_u[m], grid)
        if c is None or c == (0, 0, 0):
            continue
        groups.setdefault(c, []).append(p)
    out: dict[int, float] = {}
    for c, members in groups.items():
        out.update(_group_reuse(acc, sel, pc, cta, members, c=np.array(c, np.int64), grid=grid, n_ctas=n_ctas,
                                limit=limit))
    return out


def _group_reuse(acc: Accesses, sel: np.ndarray, pc: np.ndarray, cta: np.ndarray, members: list[int], *,
                 c: np.ndarray, grid: tuple[int, int, int], n_ctas: int, limit: float) -> dict[int, float]:
    """:func:`overlap_reuse` for the loads ``members`` that share the strides ``c``."""
    in_group = np.isin(pc, members)
    # footprint CTAs: the traced ones touching the most sectors here (interior, not masked)
    ctas, counts = np.unique(cta[in_group], return_counts=True)
    reps = ctas[np.argsort(-counts, kind="stable")[:FOOTPRINT_CTAS]]
    window = int(min(n_ctas, max(1.0, 6.0 * limit) if math.isfinite(limit) else n_ctas, 1 << 18))
    evals = np.unique(np.linspace(0, n_ctas - 1, EVAL_CTAS).round().astype(np.int64))
    num = dict.fromkeys(members, 0.0)
    den = dict.fromkeys(members, 0.0)
    for rep in reps:
        mine = in_group & (cta == rep)
        lanes = _lane_rows(acc, sel[mine])
        addr = np.unique(lanes)
        sectors = np.unique(addr // SECTOR)
        if len(sectors) > MAX_FOOTPRINT or not len(sectors):
            return {}
        span = int(addr.max() - addr.min()) + SECTOR
        per_pc = {p: np.searchsorted(sectors, np.unique(_lane_rows(acc, sel[mine & (pc == p)]) // SECTOR))
                  for p in members}
        covered: dict[int, np.ndarray] = {}             # shift -> sectors of the footprint it covers
        for i in evals:
            lo = max(0, int(i) - window)
            if lo >= i:
                surv = np.zeros(len(sectors))
            else:
                j = np.arange(lo, int(i), dtype=np.int64)
                d = (_coords(j, grid) - _coords(np.array([i]), grid)) @ c
                near = (np.abs(d) < span) & (d != 0)
                d, dist = d[near], int(i) - j[near]
                surv = np.zeros(len(sectors))
                if len(d):
                    # per distinct shift its nearest CTA (the latest launched), nearest first
                    o = np.lexsort((dist, d))
                    keep = np.ones(len(o), bool)
                    keep[1:] = d[o][1:] != d[o][:-1]
                    d, dist = d[o][keep], dist[o][keep]
                    o = np.argsort(dist, kind="stable")[:MAX_SHIFTS]
                    for s, dd in zip(d[o].tolist(), dist[o].tolist()):
                        h = 1.0 if not math.isfinite(limit) else random_replacement_hit_rate(dd / max(limit, 1e-12))
                        if h < MIN_SURVIVAL:
                            break
                        mask = covered.get(s)
                        if mask is None:
                            mask = covered[s] = np.isin(sectors, np.unique((addr + s) // SECTOR))
                        np.maximum(surv, np.where(mask, h, 0.0), out=surv)
            for p, idx in per_pc.items():
                num[p] += float(surv[idx].sum())
                den[p] += len(idx)
    return {p: num[p] / den[p] for p in members if den[p] > 0}
