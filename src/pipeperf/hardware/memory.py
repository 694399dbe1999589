"""Mapper g, the measurement: the statistics each memory instruction's lambda/Lambda come from.

Sec. 4.4 and 6.3 of analytical-models-and-pipeline-model.txt: a memory instruction's cost depends
on the access pattern, not only on the GPU, so its (lambda, Lambda) come from a *memory analysis
module*.  The paper fed it nvprof aggregates; we compute the same quantities per instruction (per
PC) from the emulator's per-lane addresses of the traced warps (:class:`~pipeperf.hardware.accesses.Accesses`
in, :class:`~pipeperf.hardware.accesses.PcMemory` out):

* **Global memory** (loads, stores, atomics): the 32-byte sectors each warp request touches
  (coalescing) and, from a cache model of the traced sector stream, which of them hit in L1 and L2.
* **Shared memory**: the bank-conflict degree of each request (:mod:`pipeperf.hardware.banks`).
* Local memory is private and interleaved per thread by the hardware (always coalescing): kept.

The classes these statistics give on a GPU (Sec. 6.3's R rule) are :mod:`pipeperf.hardware.memory_classes`.

The cache model is deliberately simple (and documented, so its limits are known): the traced
warps' global sector accesses in the order the warps progress (by position in each warp's trace,
then warp), a hit when the same sector was accessed fewer than ``capacity`` sector accesses
earlier (an access-distance LRU approximation, never optimistic with respect to true LRU).
``capacity`` is the GPU's L2 bytes / 32 scaled by the share of the GPU's concurrent warps that
the traced sample stands for (:func:`l2_capacity_sectors`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeperf.hardware.accesses import KINDS, SECTOR, SPACES, Accesses, PcMemory, distinct, request_units
from pipeperf.hardware import request_scan
from pipeperf.hardware.banks import bank_wavefronts, l1_load_wavefronts, return_wavefronts
from pipeperf.hardware.cache_model import DENSE_SPAN, SECTOR_SAMPLE, access_positions, dense_ids, distinct_count, hits_of, l2_hits, \
    previous_access, sector_sample, store_write_backs
from pipeperf.hardware.memory_classes import l1_class
from pipeperf.hardware.spec import GPUSpec
from pipeperf.util.memo import by_identity


def analyze_accesses(acc: Accesses, l2_capacity_sectors: float, warps_per_cta: int | None = None,
                     l1_capacity_sectors: float = 0.0, l2_launch_sectors: float | None = None,
                     notes: list[str] | None = None) -> dict[int, PcMemory]:
    """Per-PC coalescing, L2 hits and bank-conflict statistics of the traced accesses; with
    ``warps_per_cta`` also the hits on sectors the same CTA touched before (``intra_hits``), and
    with an L1 share (``l1_capacity_sectors`` per CTA, loads known) the loads' L1 hits: a load's
    sector hits when its CTA loaded it fewer than that many of its own sector loads earlier
    (consecutive CTAs run on different SMs, so L1 reuse is taken to be within a CTA; stores
    write through and do not allocate). ``l2_launch_sectors``: the L2 in sectors per sampled CTA's
    share of the launch (L2 size / CTAs the sample stands for): where the sample touches more,
    the launch's stream outgrows the L2 and a store's first write to a sector is written back to
    DRAM during the kernel (:func:`~pipeperf.hardware.cache_model.store_write_backs`)."""
    out: dict[int, PcMemory] = {}
    # (the same for every GPU of one emulation: their accesses share these columns)
    pcs, spaces = by_identity("pc_spaces", (acc.pc, acc.space), None, lambda: _pc_spaces(acc))
    for i, sp in zip(pcs, spaces):
        out[i] = PcMemory(i, SPACES[sp])
    if len(acc) == 0:
        return out
    n_pcs = pcs[-1] + 1
    counts = by_identity("pc_counts", (acc.pc,), None, lambda: np.bincount(acc.pc, minlength=n_pcs).tolist())
    for pc, st in out.items():
        st.requests = counts[pc]
    g_req = by_identity("space_requests", (acc.space,), SPACES.index("global"),
                        lambda: _read_only((np.flatnonzero(acc.space == SPACES.index("global")),))[0])
    if len(g_req):
        caches = _Caches(l2_capacity_sectors, l1_capacity_sectors, l2_launch_sectors)
        _global_stats(acc, g_req, out, n_pcs, caches, warps_per_cta, notes)
    if acc.kind is not None:
        _atomics(acc, out, warps_per_cta)
    s_req = by_identity("space_requests", (acc.space,), SPACES.index("shared"),
                        lambda: _read_only((np.flatnonzero(acc.space == SPACES.index("shared")),))[0])
    if len(s_req):
        _shared_stats(acc, s_req, out, n_pcs)
    return out


def _pc_spaces(acc: Accesses) -> tuple[list[int], list[int]]:
    """The accesses' distinct PCs, ascending, and each one's space (its first request's)."""
    pcs, first = distinct(acc.pc, return_index=True)
    return pcs.tolist(), acc.space[first].astype(np.int64).tolist()


@dataclass
class _Caches:
    """The capacities the cache model runs with, in sectors (scaled down with a spatial sample)."""

    l2: float
    l1: float
    l2_launch: float | None

    def scaled(self, rate: int) -> _Caches:
        return _Caches(self.l2 / rate, self.l1 / rate, None if self.l2_launch is None else self.l2_launch / rate)


def _global_sectors(acc: Accesses, g_req: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(request, sector) of every distinct sector each global request touches, request by request,
    each one's ascending: in C where built (:mod:`~pipeperf.hardware.request_scan`), else requests
    spanning few sectors marked in a bitmap, the others sorted."""
    if request_scan.AVAILABLE:
        return request_scan.distinct_units(acc, g_req, 5)
    reqs, secs = [], []
    for r, units, _ in request_units(acc, g_req, 5, sort=False):
        lo = units.min(1)
        rel = (units - lo[:, None]).astype(np.int64)
        span = rel.max(1)
        near = span < max(64, 16 * units.shape[1])        # a bitmap at most 16x the units
        if near.all():
            row, sec = _marked_sectors(rel, lo, int(span.max()))
            reqs.append(r[row])
            secs.append(sec)
            continue
        parts = [(np.flatnonzero(~near), *_sorted_sectors(units[~near]))]
        if near.any():
            parts.append((np.flatnonzero(near), *_marked_sectors(rel[near], lo[near], int(span[near].max()))))
        counts = [np.bincount(row, minlength=len(sel)) for sel, row, _ in parts]
        n_row = np.empty(len(r), np.int64)                # per request: its distinct sectors
        for (sel, _, _), c in zip(parts, counts):
            n_row[sel] = c
        first = np.cumsum(n_row) - n_row                  # where each request's sectors start
        out = np.empty(int(n_row.sum()), np.uint64)
        for (sel, row, sec), c in zip(parts, counts):     # each sector's rank within its request
            out[first[sel][row] + np.arange(len(row)) - (np.cumsum(c) - c)[row]] = sec
        reqs.append(np.repeat(r, n_row))
        secs.append(out)
    req = np.concatenate(reqs)
    del reqs                                  # (one list's blocks and one whole array at a time)
    return req, np.concatenate(secs)


def _marked_sectors(rel: np.ndarray, lo: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, sector) of each row's distinct units, rows in order and each one's ascending, from
    offsets ``rel`` (overwritten) above the rows' lowest ``lo``, at most ``span``: a bitmap, no sort."""
    width = span + 1
    marks = np.zeros(len(rel) * width, bool)
    rel += (np.arange(len(rel), dtype=np.int64) * width)[:, None]
    marks[rel.reshape(-1)] = True
    at = np.flatnonzero(marks)
    row = at // width
    return row, lo[row] + (at - row * width).astype(np.uint64)


def _sorted_sectors(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_marked_sectors` of rows of units, by sorting each row."""
    units = np.sort(units, axis=1)
    distinct = np.ones(units.shape, bool)
    distinct[:, 1:] = units[:, 1:] != units[:, :-1]
    return np.repeat(np.arange(len(units)), distinct.sum(axis=1)), units[distinct]


def _sampled_sectors(acc: Accesses, g_req: np.ndarray, n_pcs: int, limit: int = SECTOR_SAMPLE) -> tuple[Any, ...]:
    """(request, sector) of the accesses the cache model follows (:func:`sector_sample`: to 1 in R
    sectors, R = ``rate``), the sectors per PC of the whole stream, R, the stream's accesses and its
    distinct sectors: in C without holding the whole stream (:func:`request_scan.sampled_units`)
    where built and the sectors' range is narrow, else from the whole stream."""
    got = request_scan.sampled_units(acc, g_req, 5, limit, DENSE_SPAN) if request_scan.AVAILABLE else None
    if got is not None:
        req, sec, counts, rate, n_accesses, n_distinct = got
        n_sec = np.bincount(acc.pc[g_req], weights=counts, minlength=n_pcs).astype(np.int64)
        return _read_only((req, sec, n_sec)) + (rate, n_accesses, n_distinct)
    req, sec = _global_sectors(acc, g_req)
    n_sec = np.bincount(acc.pc[req], minlength=n_pcs)
    keep, rate = sector_sample(sec, limit)
    n_accesses, n_distinct = len(sec), distinct_count(sec)
    if rate > 1:
        req, sec = req[keep], sec[keep]
    return _read_only((req, sec, n_sec)) + (rate, n_accesses, n_distinct)


def _read_only(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """``arrays`` made read-only: a memoised result shared by the GPUs of one analysis."""
    for a in arrays:
        a.flags.writeable = False
    return arrays


def _global_stats(acc: Accesses, g_req: np.ndarray, out: dict[int, PcMemory], n_pcs: int, caches: _Caches,
                  warps_per_cta: int | None, notes: list[str] | None) -> None:
    """Sectors per request, L2 hits and (with ``warps_per_cta``) same-CTA and L1 hits of the
    global requests ``g_req``, into ``out``."""
    # the sectors each request touches and the sample followed: the same for every GPU of one analysis
    # (32-byte sectors everywhere); only the sample is kept (the whole stream can be 10^7 sectors)
    req, sec, n_sec, rate, n_accesses, n_distinct = by_identity(
        "global_sectors", (acc.addr, acc.lane_start, acc.nbytes, acc.space, acc.pc), n_pcs,
        lambda: _sampled_sectors(acc, g_req, n_pcs))
    lanes = np.diff(acc.lane_start)[g_req]
    need = -(-(lanes * acc.nbytes[g_req]) // SECTOR)              # ceil(bytes / 32) per request
    n_min = np.bincount(acc.pc[g_req], weights=need, minlength=n_pcs)
    footprint = n_distinct / rate if acc.load is not None and caches.l2_launch is not None else 0.0
    if rate > 1:            # follow 1 in `rate` sectors; capacities shrink with the stream
        caches = caches.scaled(rate)
        if notes is not None:
            notes.append(f"cache model: {n_accesses:,} global sector accesses, more than the "
                         f"{SECTOR_SAMPLE:,} followed one by one: L1/L2 hit rates from the accesses to 1 in "
                         f"{rate} sectors (chosen by hash; capacities scaled by 1/{rate}; SHARDS)")
    key = acc.step[req] * (int(acc.warp.max()) + 1) + acc.warp[req]
    pos = access_positions(key)
    hit = l2_hits(key, sec, caches.l2, pos)
    if caches.l2_launch is not None and acc.load is not None and footprint > caches.l2_launch:
        hit = store_write_backs(hit, pos, sec, ~acc.load[req], caches.l2)
    pcs = acc.pc[req]
    n_kept = np.bincount(pcs, minlength=n_pcs)
    # per-PC counts over every sector; the hit counts scaled from the PC's sampled sectors
    scale = np.divide(n_sec, n_kept, out=np.zeros(n_pcs), where=n_kept > 0)
    n_hit = np.bincount(pcs, weights=hit, minlength=n_pcs) * scale
    n_intra: np.ndarray = np.zeros(n_pcs)
    n_l1: np.ndarray = np.zeros(n_pcs)
    fills: dict[int, int] = {}
    if warps_per_cta:
        _, sec_id = dense_ids(sec)
        n_ctas, cta_id = dense_ids(acc.warp[req] // warps_per_cta)
        own = sec_id * n_ctas + cta_id                                   # (sector, CTA) pairs
        n_intra = np.bincount(pcs, weights=l2_hits(key, own, caches.l2, pos), minlength=n_pcs) * scale
        if caches.l1 > 0 and acc.load is not None:
            ld = acc.load[req]
            if acc.no_l1:                                                # (cp.async.cg: L2 only)
                ld = ld & ~np.isin(pcs, np.fromiter(acc.no_l1, np.int64))
            if ld.any():
                ckey = cta_id[ld] * (int(key.max()) + 1) + key[ld]      # each CTA's own stream
                pos1 = access_positions(ckey)
                prev = previous_access(own[ld], pos1)
                hit1 = hits_of(prev, pos1, caches.l1)
                n_l1 = np.bincount(pcs[ld], weights=hit1, minlength=n_pcs) * scale
                fills = fill_sources(pcs[ld], acc.warp[req[ld]], prev, hit1)
    n_l1_waves: np.ndarray = np.zeros(n_pcs)
    if acc.load is not None and n_l1.any():           # only where loads hit the L1
        ld_req = g_req[acc.load[g_req] & (n_l1[acc.pc[g_req]] > 0)]
        some, per_req = per_pc_sample(acc.pc[ld_req], L1_WAVEFRONT_SAMPLE, n_pcs)
        waves = np.bincount(acc.pc[ld_req[some]], weights=l1_load_wavefronts(acc, ld_req[some])[ld_req[some]],
                            minlength=n_pcs)
        n_l1_waves = waves * per_req
        if notes is not None and len(some) < len(ld_req):
            notes.append(f"L1 cycles per request (bank wavefronts, tag lookups) from {L1_WAVEFRONT_SAMPLE:,} "
                         "evenly spaced requests of each load instruction that has more")
    for pc, st in out.items():
        if st.space == "global":
            st.sectors, st.l2_hits, st.intra_hits = int(n_sec[pc]), int(round(n_hit[pc])), int(round(n_intra[pc]))
            st.l1_hits = int(round(n_l1[pc]))
            st.fill_pc = fills.get(pc, -1)
            st.min_sectors = int(n_min[pc])
            st.l1_wavefronts = float(n_l1_waves[pc])


def fill_sources(pcs: np.ndarray, warps: np.ndarray, prev: np.ndarray, hit: np.ndarray) -> dict[int, int]:
    """{load pc: the pc whose fill its L1 hits wait for}, from one CTA-ordered stream of load sector
    accesses (``pcs``, ``warps``; ``prev``: the previous access to each one's sector; ``hit``: L1
    hits). A hit on a sector whose last access was the same warp's earlier load may find that
    load's data still on the way: the L1 has reserved the line and queues the hit until the fill
    arrives (GPGPU-Sim's HIT_RESERVED request status, gpgpu-sim/gpgpu-sim_distribution
    src/gpgpu-sim/gpu-cache.h at 8be43f1: the request waits in the line's MSHR entry). A PC
    gets a fill source when most of its hits are of that kind and on one PC; whether the fill is
    still in flight when the hit issues is the simulator's to say (it links each dynamic hit to
    the warp's latest earlier instance of that PC: :func:`pipeperf.idg.build.warp_idg`). Hits
    on another warp's fill are not linked (the simulated warps' IDGs are separate)."""
    mine = hit & (prev >= 0)
    mine[mine] = warps[prev[mine]] == warps[mine]
    if not mine.any():
        return {}
    q, p = pcs[mine], pcs[prev[mine]]
    width = int(max(q.max(), p.max())) + 1
    pairs, count = np.unique(q * width + p, return_counts=True)
    hits = np.bincount(pcs[hit], minlength=width)
    out: dict[int, int] = {}
    best: dict[int, int] = {}
    for pair, c in zip(pairs.tolist(), count.tolist()):
        qq, pp = divmod(pair, width)
        if c > best.get(qq, 0) and 2 * c >= hits[qq]:
            best[qq], out[qq] = c, pp
    return out


#: load requests per instruction whose L1 cycles are counted one by one; an instruction with more
#: takes the mean of that many evenly spaced ones (a warp's pattern at one PC rarely varies)
L1_WAVEFRONT_SAMPLE = 4096


def per_pc_sample(pcs: np.ndarray, cap: int, n_pcs: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Positions into ``pcs`` (each element a request's PC) of at most ``cap`` evenly spaced
    requests per PC, in order, and per PC the requests each kept one stands for (indexed by PC,
    at least ``n_pcs`` long)."""
    n_pcs = max(n_pcs, int(pcs.max()) + 1 if len(pcs) else 0)
    count = np.bincount(pcs, minlength=n_pcs)
    order = np.argsort(pcs, kind="stable")
    start = np.concatenate(([0], np.cumsum(count)[:-1])) if n_pcs else np.zeros(0, np.int64)
    rank = np.arange(len(pcs)) - start[pcs[order]]           # position within its PC, in order
    n = count[pcs[order]]
    step = np.maximum(1.0, n / cap)
    keep = (n <= cap) | (np.floor(rank / step) != np.floor((rank - 1) / step))
    kept = np.bincount(pcs[order[keep]], minlength=n_pcs)
    per_req = np.divide(count, kept, out=np.zeros(n_pcs), where=kept > 0)
    return np.sort(order[keep]), per_req


def _shared_stats(acc: Accesses, s_req: np.ndarray, out: dict[int, PcMemory], n_pcs: int) -> None:
    """Wavefronts of the shared requests ``s_req``: the most distinct words any bank must deliver."""
    # the same for every GPU of one analysis (32 banks of 4 bytes everywhere): computed once; the
    # data return's floor once for both the wavefronts and the conflict-free count
    if acc.waves is not None and acc.returns is not None:
        waves, returns = by_identity("counted_wavefronts", (acc.waves, acc.returns, acc.addr, acc.lane_start,
                                                            acc.nbytes, acc.space), acc.kind is None,
                                     lambda: _counted_wavefronts(acc, s_req))
    else:
        returns = by_identity("return_wavefronts", (acc.addr, acc.lane_start, acc.nbytes, acc.space), True,
                              lambda: return_wavefronts(acc, s_req))
        waves = by_identity("bank_wavefronts", (acc.addr, acc.lane_start, acc.nbytes, acc.space)
                            + (() if acc.kind is None else (acc.kind,)), acc.kind is None,
                            lambda: bank_wavefronts(acc, s_req, returns))
    w_pc, f_pc = by_identity("shared_sums", (acc.pc, acc.space, waves, returns), n_pcs,
                             lambda: _per_pc_sums(acc.pc, waves, returns, s_req, n_pcs))
    for pc, st in out.items():
        if st.space == "shared":
            st.wavefronts = int(w_pc[pc])
            st.return_wavefronts = int(f_pc[pc])


def _counted_wavefronts(acc: Accesses, s_req: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bank wavefronts, return wavefronts) per request, as :func:`bank_wavefronts` and
    :func:`return_wavefronts` give them, where ``acc.waves``/``acc.returns`` hold those counted
    already (-1: not counted; those of ``s_req`` are counted here from their lanes)."""
    assert acc.waves is not None and acc.returns is not None
    counted = acc.waves >= 0
    waves = np.where(counted, acc.waves, 0)
    returns = np.where(counted, acc.returns, 1)
    rest = s_req[~counted[s_req]]
    if len(rest):
        floor = return_wavefronts(acc, rest)
        waves[rest] = bank_wavefronts(acc, rest, floor)[rest]
        returns[rest] = floor[rest]
    _read_only((waves, returns))
    return waves, returns


def _per_pc_sums(pc: np.ndarray, waves: np.ndarray, returns: np.ndarray, s_req: np.ndarray,
                 n_pcs: int) -> tuple[np.ndarray, np.ndarray]:
    """Per PC: the shared requests' bank wavefronts and their return floors, summed."""
    floor = np.zeros(len(pc), np.int64)
    floor[s_req] = returns[s_req]
    w_pc, f_pc = _read_only((np.bincount(pc, weights=waves, minlength=n_pcs),
                             np.bincount(pc, weights=floor, minlength=n_pcs)))
    return w_pc, f_pc


def _atomics(acc: Accesses, out: dict[int, PcMemory], warps_per_cta: int | None) -> None:
    """Per atomic PC: lane operations, the most lanes on one address per request (they serialise),
    and, over the sample, the operations on the hottest address several CTAs update."""
    a_req = np.flatnonzero(acc.kind == KINDS.index("atomic"))
    if not len(a_req):
        return
    lanes = np.diff(acc.lane_start)
    for pc in np.unique(acc.pc[a_req]).tolist():
        st = out[pc]
        rq = a_req[acc.pc[a_req] == pc]
        st.lane_ops = int(lanes[rq].sum())
        n_lanes = lanes[rq]
        rows = np.repeat(np.arange(len(rq)), n_lanes)
        first_lane = np.repeat(acc.lane_start[rq] - (np.cumsum(n_lanes) - n_lanes), n_lanes)
        addr = acc.addr[first_lane + np.arange(len(rows))]             # the requests' lanes, in order
        n_addr, addr_id = dense_ids(addr)
        pairs, per_req = _sorted_runs(rows * n_addr + addr_id)    # (request, address) pairs and their lanes
        most = np.zeros(len(rq), np.int64)
        np.maximum.at(most, pairs // n_addr, per_req)     # most lanes on one address, per request
        st.same_address_lanes = int(most.sum())
        st.distinct_ops = len(per_req)
        if st.space != "global" or not warps_per_cta:
            continue
        cta = np.repeat(acc.warp[rq] // warps_per_cta, lanes[rq])
        st.ctas_sampled = distinct_count(cta)
        st.hot_ops = _hottest_shared(addr, cta)
        st.hot_line_ops = _hottest_shared(addr // L2_LINE, cta)


#: the bytes of an L2 line: the unit an L2 slice owns (every word of a line goes to one slice's atomic unit)
L2_LINE = 128


def _hottest_shared(key: np.ndarray, cta: np.ndarray) -> int:
    """The operations on the most-updated ``key`` (an address, a line) that at least two CTAs update; 0: none."""
    n_key, inv = dense_ids(key)
    count = np.bincount(inv, minlength=n_key)
    n_cta, cta_id = dense_ids(cta)
    pairs, _ = _sorted_runs(inv * n_cta + cta_id)         # distinct (key, CTA) pairs
    ctas_on = np.bincount(pairs // n_cta, minlength=n_key)
    shared = ctas_on >= 2
    return int(count[shared].max()) if shared.any() else 0


def _sorted_runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys in order, how often each occurs) of non-negative int64 keys: ``np.unique(...,
    return_counts=True)`` by one sort (the (request, address) pairs of a histogram's 4 M atomic lanes
    as ``np.unique(axis=1)`` took ~1 min, a sort of their int64 keys well under a second)."""
    if not len(keys):
        return keys, np.zeros(0, np.int64)
    s = np.sort(keys)
    first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    return s[first], np.diff(np.r_[first, len(s)])


def l1_capacity_sectors(gpu: GPUSpec, resident_ctas: int) -> float:
    """One CTA's share of its SM's L1 data cache for global loads, in sectors (0: no L1 model)."""
    l1_bytes = gpu.memory.get("l1_bytes") if getattr(gpu, "memory", None) else None
    if not l1_bytes or l1_class(gpu) is None:
        return 0.0
    return float(l1_bytes) / SECTOR / max(1, resident_ctas)


def l2_reach_bytes(gpu: GPUSpec) -> float | None:
    """The L2 bytes a launch's data can occupy (None: not known): ``memory.l2_bytes``, or on a GPU
    whose L2 is split into sections that each replicate the lines their own SMs read
    (``memory.l2_section_bytes``: the A100's two 20 MB partitions) one section's, since data that
    SMs on both sides read is held in both (te42kyfo/gpu-benches README: past one section's size
    "data cannot be replicated in both L2 cache sections"). Hits in the far section after a near
    miss are not modelled (they are counted as misses)."""
    mem = gpu.memory if getattr(gpu, "memory", None) else {}
    x = mem.get("l2_section_bytes") or mem.get("l2_bytes")
    return float(x) if x else None


def l2_capacity_sectors(gpu: GPUSpec, traced_warps: int, concurrent_warps: int) -> float:
    """The L2 share of the traced sample, in sectors (inf when the GPU's L2 size is unknown)."""
    l2_bytes = l2_reach_bytes(gpu)
    if not l2_bytes:
        return float("inf")
    share = min(1.0, traced_warps / max(1, concurrent_warps))
    return float(l2_bytes) / SECTOR * share
