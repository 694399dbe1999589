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

import functools
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
#: footprints larger than this (sectors, 512 KB; or lane accesses past 8 per sector) are not
#: followed: a GEMM block's whole K panel, whose reuse is the keys'; a convolution or stencil
#: block's tile with its halo is a few thousand. Bounds the work at MAX_SHIFTS x this
MAX_FOOTPRINT = 1 << 14
#: survival below this: the earlier CTA's data is as good as gone
MIN_SURVIVAL = 1e-3


@functools.lru_cache(maxsize=4096)
def _survival(x: float) -> float:
    """:func:`random_replacement_hit_rate` of ``x`` (rounded by the caller: the same few values recur)."""
    return random_replacement_hit_rate(x)


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
                  limit: float, wave_ctas: int = 0) -> dict[int, float]:
    """Per global load PC of ``pcs`` whose CTAs' footprints are shifts of one another (module
    doc), the share of its sectors that an earlier CTA's overlapping footprint left in L2
    (``limit``: the CTAs whose data fills the L2; ``wave_ctas``: the CTAs resident at once, 0 for
    the whole grid). PCs it cannot say anything of are absent."""
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
                                limit=limit, wave=wave_ctas or n_ctas))
    return out


def _shifts(evals: np.ndarray, grid: tuple[int, int, int], c: np.ndarray, *, n_ctas: int, window: int, wave: int,
            span: int) -> list[list[tuple[int, int, int]]]:
    """Per evaluated CTA ``i`` of ``evals``, the (byte shift, kind, distance in CTAs) of the CTAs
    ``j`` within ``window`` (and ``i``'s wave or an earlier one) whose footprint is shifted by less
    than ``span`` bytes, not 0: per shift and kind the nearest, nearest first (ties in shift then
    kind order), at most :data:`MAX_SHIFTS`. Kind 0: an earlier wave (before every access of
    ``i``); 1: the same wave, launched before ``i``; 2: the same wave, launched after. For every
    evaluated CTA at once (one pass over their candidates, not a dozen array calls per CTA)."""
    i = evals.astype(np.int64)
    start = (i // wave) * wave
    lo = np.maximum(0, i - window)
    hi = np.minimum(np.minimum(n_ctas, start + wave), i + window + 1)
    n = np.maximum(hi - lo, 0)
    e = np.repeat(np.arange(len(i)), n)
    j = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
    mine = j != i[e]
    e, j = e[mine], j[mine]
    d = (_coords(j, grid) - _coords(i, grid)[e]) @ c
    near = (np.abs(d) < span) & (d != 0)
    e, j, d = e[near], j[near], d[near]
    ie = i[e]
    kind = np.where(j < start[e], 0, np.where(j < ie, 1, 2))
    dist = np.abs(ie - j)
    o = np.lexsort((dist, kind, d, e))
    e, d, kind, dist = e[o], d[o], kind[o], dist[o]
    keep = np.ones(len(o), bool)
    keep[1:] = (e[1:] != e[:-1]) | (d[1:] != d[:-1]) | (kind[1:] != kind[:-1])
    e, d, kind, dist = e[keep], d[keep], kind[keep], dist[keep]
    o = np.lexsort((np.arange(len(e)), dist, e))    # equal distances keep (shift, kind) order
    e, d, kind, dist = e[o], d[o], kind[o], dist[o]
    first = np.searchsorted(e, np.arange(len(i)))
    rank = np.arange(len(e)) - first[e]
    cap = rank < MAX_SHIFTS
    e, rows = e[cap], list(zip(d[cap].tolist(), kind[cap].tolist(), dist[cap].tolist()))
    bounds = np.searchsorted(e, np.arange(len(i) + 1)).tolist()
    return [rows[bounds[k]:bounds[k + 1]] for k in range(len(i))]


def _group_reuse(acc: Accesses, sel: np.ndarray, pc: np.ndarray, cta: np.ndarray, members: list[int], *,
                 c: np.ndarray, grid: tuple[int, int, int], n_ctas: int, limit: float, wave: int) -> dict[int, float]:
    """:func:`overlap_reuse` for the loads ``members`` that share the strides ``c``.

    Who touches a sector first follows the cache model's own order (``memory.py``: the traced
    stream in step order, warps of one wave in lock-step, later waves after earlier ones): CTA
    ``j`` brought a sector in before CTA ``i``'s access at trace step ``t`` when ``j`` runs in an
    earlier wave, or in the same wave touches it at an earlier step (at the same step: ``j`` launched
    first). Counting it so, each sector is a miss once, as the traced stream counts it; without
    the order a 1D stencil's halo sector was a hit twice, at the right halo of one CTA (the next
    one's load came earlier in the stream) and at the left halo of the next (the previous CTA had
    loaded it), and the launch read less than its data from DRAM."""
    in_group = np.isin(pc, members)
    # footprint CTAs: the traced ones touching the most sectors here (interior, not masked)
    ctas, counts = np.unique(cta[in_group], return_counts=True)
    reps = ctas[np.argsort(-counts, kind="stable")[:FOOTPRINT_CTAS]]
    window = int(min(n_ctas, max(1.0, 6.0 * limit) if math.isfinite(limit) else n_ctas, 1 << 18))
    wave = max(1, min(int(wave), n_ctas))
    evals = np.unique(np.linspace(0, n_ctas - 1, EVAL_CTAS).round().astype(np.int64))
    num = dict.fromkeys(members, 0.0)
    den = dict.fromkeys(members, 0.0)
    never = np.iinfo(np.int64).max
    finite = math.isfinite(limit)
    survival: dict[int, float] = {}          # distance in CTAs -> the survival of its data (limit is fixed)
    for rep in reps:
        mine = np.flatnonzero(in_group & (cta == rep))
        req = sel[mine]
        n_lanes = acc.lane_start[req + 1] - acc.lane_start[req]
        if int(n_lanes.sum()) > 8 * MAX_FOOTPRINT:
            return {}
        lanes = _lane_rows(acc, req)
        steps = np.repeat(acc.step[req] - acc.step[req].min(), n_lanes)     # the CTA's own trace steps
        lane_pc = np.repeat(pc[mine], n_lanes)
        # each address once, at the first step the CTA touches it
        o = np.lexsort((steps, lanes))
        first = np.ones(len(o), bool)
        first[1:] = lanes[o][1:] != lanes[o][:-1]
        addr, addr_step = lanes[o][first], steps[o][first]
        addr_sec = addr // SECTOR                 # addr is sorted: its sectors too
        sectors, sec_start = np.unique(addr_sec, return_index=True)
        if len(sectors) > MAX_FOOTPRINT or not len(sectors):
            return {}
        sec_step = np.minimum.reduceat(addr_step, sec_start)     # each sector's first step
        span = int(addr.max() - addr.min()) + SECTOR
        per_pc = {}
        for p in members:
            m = lane_pc == p
            sec_p, st_p = lanes[m] // SECTOR, steps[m]
            o = np.lexsort((st_p, sec_p))
            keep = np.ones(len(o), bool)
            keep[1:] = sec_p[o][1:] != sec_p[o][:-1]
            per_pc[p] = (np.searchsorted(sectors, sec_p[o][keep]), st_p[o][keep])
        touched: dict[int, np.ndarray | None] = {}   # shift -> per footprint sector, the shifted CTA's first step
        shifts = _shifts(evals, grid, c, n_ctas=n_ctas, window=window, wave=wave, span=span)
        for e in range(len(evals)):
            surv = {p: np.zeros(len(idx)) for p, (idx, _) in per_pc.items()}
            if shifts[e]:
                rows: list[np.ndarray] = []           # per shift met: its first steps, kind, survival
                ks: list[int] = []
                hs: list[float] = []
                for s, k, dd in shifts[e]:
                    h = survival.get(dd)
                    if h is None:
                        h = survival[dd] = 1.0 if not finite else _survival(round(dd / max(limit, 1e-12), 4))
                    if h < MIN_SURVIVAL:
                        continue
                    if s not in touched:
                        whole = s % SECTOR == 0          # whole sectors: shift the sectors, not the bytes
                        sh = sectors + s // SECTOR if whole else (addr + s) // SECTOR
                        at = np.minimum(np.searchsorted(sectors, sh), len(sectors) - 1)
                        ok = sectors[at] == sh
                        tj = None                    # a shift that meets none of the footprint: None
                        if ok.any():
                            tj = np.full(len(sectors), never, np.int64)
                            np.minimum.at(tj, at[ok], (sec_step if whole else addr_step)[ok])
                        touched[s] = tj
                    tj = touched[s]
                    if tj is not None:
                        rows.append(tj)
                        ks.append(k)
                        hs.append(h)
                if rows:
                    _best_survival(surv, per_pc, rows, ks, hs, never)
            for p, (idx, _) in per_pc.items():
                num[p] += float(surv[p].sum())
                den[p] += len(idx)
    return {p: num[p] / den[p] for p in members if den[p] > 0}


def _best_survival(surv: dict[int, np.ndarray], per_pc: dict[int, tuple[np.ndarray, np.ndarray]],
                   rows: list[np.ndarray], ks: list[int], hs: list[float], never: int) -> None:
    """Raise ``surv[p]`` (per sector of load ``p``) to the best survival ``hs[m]`` among the shifted
    CTAs ``m`` that touched the sector before (``rows[m]``: their first step per footprint sector;
    ``ks[m]``: 0 an earlier wave, 1 the same wave launched before, 2 after): every shift at once,
    in blocks of shifts that keep the arrays small (a maximum of the same values: as one by one)."""
    k_all, h_all = np.array(ks), np.array(hs)
    step = max(1, (1 << 20) // max(1, len(rows[0]), *(len(idx) for idx, _ in per_pc.values())))
    for a in range(0, len(rows), step):
        block = np.stack(rows[a:a + step])
        k, h = k_all[a:a + step, None], h_all[a:a + step, None]
        for p, (idx, t) in per_pc.items():
            their = block[:, idx]
            before = np.where(k == 0, their != never, np.where(k == 1, their <= t, their < t))
            np.maximum(surv[p], np.where(before, h, 0.0).max(axis=0), out=surv[p])
