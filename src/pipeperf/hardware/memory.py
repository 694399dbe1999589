"""Mapper g: context-dependent lambda/Lambda of memory instructions from traced addresses.

Sec. 4.4 and 6.3 of analytical-models-and-pipeline-model.txt: a memory instruction's cost depends
on the access pattern, not only on the GPU, so its (lambda, Lambda) come from a *memory analysis
module*.  The paper fed it nvprof aggregates; we compute the same quantities per instruction (per
PC) from the emulator's per-lane addresses of the traced warps:

* **Global memory** (loads, stores, atomics): the 32-byte sectors each warp request touches
  (coalescing) and, from a cache model of the traced sector stream, which of them hit in L2.
  The database's global class is the measured pattern of Table 5, ``ld.global.s32`` by a full
  warp: 32 x 4 B = 128 B = ``REF_SECTORS`` sectors from DRAM.  With ``m`` = sectors per request /
  ``REF_SECTORS`` and ``p`` the fraction of sectors served by DRAM, the paper's R rule becomes

      lambda' = m * (p * lambda_DRAM + (1 - p) * lambda_L2)
      Lambda' = p * Lambda_DRAM + (1 - p) * Lambda_L2 + max(0, m - 1) * (p * lambda_DRAM + (1 - p) * lambda_L2)

  which is exactly Sec. 6.3's three cases: ``R < 1`` (m = 1, p = R), ``R = 1`` and ``R > 1``
  (p = 1, m = R: an uncoalesced request costs R times the bandwidth and waits for its last
  sector).  A request of fewer sectors (a partial warp) costs proportionally less bandwidth.
* **Shared memory**: the bank-conflict degree D of each request = wavefronts - 1, wavefronts =
  the most distinct 4-byte words any of the 32 banks must deliver (a broadcast of one word is
  free; 8/16-byte accesses touch 2/4 words per lane).  Sec. 6.3: Lambda' = Lambda + D * lambda,
  lambda' = (1 + D) * lambda, with D averaged over the instruction's requests.
* Local memory is private and interleaved per thread by the hardware (always coalesced): kept.

The cache model is deliberately simple (and documented, so its limits are known): the traced
warps' global sector accesses in the order the warps progress (by position in each warp's trace,
then warp), a hit when the same sector was accessed fewer than ``capacity`` sector accesses
earlier (an access-distance LRU approximation, never optimistic with respect to true LRU).
``capacity`` is the GPU's L2 bytes / 32 scaled by the share of the GPU's concurrent warps that
the traced sample stands for.  Without an ``ld_global_l2`` class (seed GPUs: the papers give no L2
timings) hits are charged as DRAM and the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from pipeperf.errors import PipeperfError
from pipeperf.hardware.cache_model import SECTOR_SAMPLE, access_positions, dense_ids, hits_of, l2_hits, \
    previous_access, sector_sample, store_write_backs
from pipeperf.hardware.spec import GPUSpec, InstrClass
from pipeperf.util.memo import by_identity

SECTOR = 32                 # bytes per sector (L1/L2 transaction granularity since Maxwell)
REF_SECTORS = 4             # Table 5's ld.global.s32 by a full warp: 32 lanes x 4 B = 128 B
L2_CLASS = "ld_global_l2"   # optional GPU class: lambda/Lambda of a 128-B request that hits in L2
L1_CLASS = "ld_global_l1"   # optional GPU class: lambda/Lambda of a 128-B request that hits in L1
L1_FALLBACK = "ld_local_s32"   # the database's L1-hit class (local memory lives in L1) when L1_CLASS is absent
SPACES = ("global", "shared", "local")
KINDS = ("load", "store", "atomic")


@dataclass
class Accesses:
    """The traced memory accesses: per-request columns and the lanes' addresses in CSR layout."""

    pc: np.ndarray          # per request: instruction index in the kernel
    warp: np.ndarray        # per request: global warp id
    step: np.ndarray        # per request: position in its warp's trace (cache-model order)
    space: np.ndarray       # per request: index into SPACES
    nbytes: np.ndarray      # per request: bytes per lane (element size x vector width)
    lane_start: np.ndarray  # per request + 1: offset of its first lane in addr (CSR layout)
    addr: np.ndarray        # per lane row: byte address (uint64)
    kind: np.ndarray | None = None   # per request: index into KINDS; None: not known (no L1, atomics model)

    @property
    def load(self) -> np.ndarray | None:
        return None if self.kind is None else self.kind == KINDS.index("load")

    @classmethod
    def from_arrays(cls, pc: ArrayLike, warp: ArrayLike, step: ArrayLike, space: ArrayLike, nbytes: ArrayLike,
                    lanes: ArrayLike, addr: ArrayLike, kind: ArrayLike | None = None) -> Accesses:
        """Per-request columns, ``lanes`` = active lanes per request (>= 1) and ``addr`` their
        addresses concatenated request after request; ``kind`` (KINDS index) tells loads (which
        L1 caches) from stores and atomics (which bypass it; atomics serialise per address)."""
        n_lanes = np.asarray(lanes, np.int64)
        if len(n_lanes) and n_lanes.min() < 1:
            raise ValueError("every request needs at least one lane address")

        def col(v: ArrayLike) -> np.ndarray:
            return np.asarray(v, np.int64)

        return cls(col(pc), col(warp), col(step), np.asarray(space, np.int8), col(nbytes),
                   np.concatenate(([0], np.cumsum(n_lanes))), np.asarray(addr, np.uint64),
                   None if kind is None else np.asarray(kind, np.int8))

    @classmethod
    def from_rows(cls, requests: Sequence[tuple[int, int, int, str, int, Sequence[int]]]) -> Accesses:
        """``requests`` = (pc, warp, step, space, nbytes, lane addresses) per warp request."""
        cols = list(zip(*requests)) if requests else [()] * 6
        addrs = [np.asarray(r[5], np.uint64) for r in requests]
        return cls.from_arrays(cols[0], cols[1], cols[2], [SPACES.index(x) for x in cols[3]], cols[4],
                               [len(a) for a in addrs],
                               np.concatenate(addrs) if addrs else np.zeros(0, np.uint64))

    def __len__(self) -> int:
        return len(self.pc)


@dataclass
class PcMemory:
    """What the traced warps did at one memory instruction."""

    pc: int
    space: str
    requests: int = 0
    sectors: int = 0            # global: sectors touched, summed over requests
    l2_hits: int = 0            # global: of those, sectors the cache model finds in L2
    intra_hits: int = 0         # global: hits on sectors the same CTA touched before
    l1_hits: int = 0            # global loads: sectors found in the SM's L1 (the CTA's share of it)
    lane_ops: int = 0           # atomics: lanes (operations) summed over requests
    same_address_lanes: int = 0  # atomics: per request the most lanes on one address, summed
    hot_ops: int = 0            # global atomics: operations of the sample on its hottest address that
                                # several sampled CTAs update (a grid-wide counter); 0: none shared
    ctas_sampled: int = 0       # global atomics: CTAs of the sample that issued this instruction
    shared_by: float = 1.0      # global: CTAs of a wave that read the same sectors (address structure)
    wavefronts: int = 0         # shared: summed over requests
    l1_wavefronts: float = 0.0  # global loads: L1 cycles per request (l1_load_wavefronts), summed; 0: not known
    min_sectors: int = 0        # global: sectors the requested bytes need at best (perfect coalescing)
    #: global: the (L2, L1) hit rates that set a request's latency, where they are not this
    #: pattern's own: a what-if that only drops redundant sectors keeps where the data come from
    latency_hit_rates: tuple[float, float] | None = None
    #: global loads: the load instruction (pc) of the same warp that last touched most of this
    #: one's L1-hit sectors, -1 for none: while that load's fill is in flight the hit waits for it
    #: (a hit on a reserved line: :func:`fill_sources`)
    fill_pc: int = -1

    @property
    def sectors_per_request(self) -> float:
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def hit_rate(self) -> float:
        """L2 hit rate: the traced stream's, or, when more CTAs of a wave share the sectors than
        the traced clusters show, the first of ``shared_by`` CTAs misses what its own earlier
        accesses did not bring (miss = (1 - intra-CTA hit rate) / shared_by); the smaller miss wins."""
        if not self.sectors:
            return 0.0
        miss = 1.0 - self.l2_hits / self.sectors
        if self.shared_by > 1.0:
            miss = min(miss, (1.0 - self.intra_hits / self.sectors) / self.shared_by)
        return 1.0 - miss

    @property
    def l1_hit_rate(self) -> float:
        return self.l1_hits / self.sectors if self.sectors else 0.0

    @property
    def traced_hit_rate(self) -> float:
        return self.l2_hits / self.sectors if self.sectors else 0.0

    @property
    def l1_wavefronts_per_request(self) -> float:
        """A global load's cycles in the L1 when it hits (:func:`l1_load_wavefronts`); without the
        count, its sectors in 128-byte reference requests, as mapper g charged before."""
        if self.l1_wavefronts and self.requests:
            return self.l1_wavefronts / self.requests
        return self.sectors_per_request / REF_SECTORS

    @property
    def conflict_degree(self) -> float:
        """D: mean extra shared-memory wavefronts per request."""
        return self.wavefronts / self.requests - 1.0 if self.requests else 0.0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"pc": self.pc, "space": self.space, "requests": self.requests}
        if self.space == "global":
            d.update(sectors_per_request=round(self.sectors_per_request, 4), l1_hit_rate=round(self.l1_hit_rate, 4),
                     l2_hit_rate=round(self.hit_rate, 4),
                     l2_hit_rate_traced=round(self.traced_hit_rate, 4), shared_by_ctas=round(self.shared_by, 3),
                     min_sectors_per_request=round(self.min_sectors / self.requests, 4) if self.requests else 0.0)
            if self.fill_pc >= 0:
                d["fill_pc"] = self.fill_pc
        elif self.space == "shared":
            d.update(conflict_degree=round(self.conflict_degree, 4))
        return d


_CHUNK = 1 << 15             # requests per block of the vectorised per-request analysis


def _request_units(acc: Accesses, reqs: np.ndarray,
                   unit_shift: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Yield (requests, units, distinct) blocks: ``units`` (n, W) holds, per request of ``reqs``,
    the sorted 2**unit_shift-byte units its lanes touch, padded with repeats; ``distinct`` marks
    each unit's first occurrence in its row.  Fixed-width rows keep this a few NumPy calls per block."""
    start = acc.lane_start
    sh = np.uint64(unit_shift)
    for c in range(0, len(reqs), _CHUNK):
        r = reqs[c:c + _CHUNK]
        s0, n = start[r], start[r + 1] - start[r]
        width = int(n.max())
        idx = s0[:, None] + np.minimum(np.arange(width)[None, :], (n - 1)[:, None])
        a = acc.addr[idx]
        nb = acc.nbytes[r].astype(np.uint64)[:, None]
        first = a >> sh
        last = (a + nb - np.uint64(1)) >> sh
        k = int((last - first).max()) + 1
        if k > 1:
            units = np.minimum(first[:, :, None] + np.arange(k, dtype=np.uint64), last[:, :, None])
            units = units.reshape(len(r), -1)
        else:
            units = first
        units = np.sort(units, axis=1)
        distinct = np.ones(units.shape, bool)
        distinct[:, 1:] = units[:, 1:] != units[:, :-1]
        yield r, units, distinct


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
    pcs, first = np.unique(acc.pc, return_index=True)
    for i, j in zip(pcs.tolist(), first.tolist()):
        out[i] = PcMemory(i, SPACES[int(acc.space[j])])
    if len(acc) == 0:
        return out
    n_pcs = int(acc.pc.max()) + 1
    counts = np.bincount(acc.pc, minlength=n_pcs)
    for pc, st in out.items():
        st.requests = int(counts[pc])
    g_req = np.flatnonzero(acc.space == SPACES.index("global"))
    if len(g_req):
        caches = _Caches(l2_capacity_sectors, l1_capacity_sectors, l2_launch_sectors)
        _global_stats(acc, g_req, out, n_pcs, caches, warps_per_cta, notes)
    if acc.kind is not None:
        _atomics(acc, out, warps_per_cta)
    s_req = np.flatnonzero(acc.space == SPACES.index("shared"))
    if len(s_req):
        _shared_stats(acc, s_req, out, n_pcs)
    return out


@dataclass
class _Caches:
    """The capacities the cache model runs with, in sectors (scaled down with a spatial sample)."""

    l2: float
    l1: float
    l2_launch: float | None

    def scaled(self, rate: int) -> _Caches:
        return _Caches(self.l2 / rate, self.l1 / rate, None if self.l2_launch is None else self.l2_launch / rate)


def _global_sectors(acc: Accesses, g_req: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(request, sector) of every distinct sector each global request touches, request by request."""
    reqs, secs = [], []
    for r, units, distinct in _request_units(acc, g_req, 5):
        reqs.append(np.repeat(r, distinct.sum(axis=1)))
        secs.append(units[distinct])
    return np.concatenate(reqs), np.concatenate(secs)


def _read_only(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """``arrays`` made read-only: a memoised result shared by the GPUs of one analysis."""
    for a in arrays:
        a.flags.writeable = False
    return arrays


def _global_stats(acc: Accesses, g_req: np.ndarray, out: dict[int, PcMemory], n_pcs: int, caches: _Caches,
                  warps_per_cta: int | None, notes: list[str] | None) -> None:
    """Sectors per request, L2 hits and (with ``warps_per_cta``) same-CTA and L1 hits of the
    global requests ``g_req``, into ``out``."""
    # the sectors each request touches: the same for every GPU of one analysis (32-byte sectors everywhere)
    req, sec = by_identity("global_sectors", (acc.addr, acc.lane_start, acc.nbytes, acc.space), None,
                           lambda: _read_only(_global_sectors(acc, g_req)))
    lanes = np.diff(acc.lane_start)[g_req]
    need = -(-(lanes * acc.nbytes[g_req]) // SECTOR)              # ceil(bytes / 32) per request
    n_min = np.bincount(acc.pc[g_req], weights=need, minlength=n_pcs)
    n_sec = np.bincount(acc.pc[req], minlength=n_pcs)
    n_accesses = len(sec)
    keep, rate = sector_sample(sec)
    footprint = dense_ids(sec)[0] / rate if acc.load is not None and caches.l2_launch is not None else 0.0
    if rate > 1:            # follow 1 in `rate` sectors; capacities shrink with the stream
        req, sec = req[keep], sec[keep]
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


def _banks_and_lines(acc: Accesses, reqs: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per block of ``reqs``: (requests, bank wavefronts, distinct 128-byte lines), from one pass
    over each request's sorted 4-byte words (a line holds 32 of them)."""
    atom = acc.kind == KINDS.index("atomic") if acc.kind is not None else np.zeros(len(acc), bool)
    floor = return_wavefronts(acc, reqs)
    for r, words, distinct in _request_units(acc, reqs, 2):
        row = np.broadcast_to(np.arange(len(r))[:, None], words.shape)
        # an atomic's lanes on one word serialise (each is a read-modify-write), others broadcast
        dist = distinct | atom[r][:, None]
        key = row[dist] * 32 + (words[dist] & np.uint64(31)).astype(np.int64)
        waves = np.bincount(key, minlength=len(r) * 32).reshape(len(r), 32).max(axis=1)
        waves = np.maximum(waves, floor[r])
        line = words >> np.uint64(5)                           # sorted rows: count the changes
        lines = 1 + (line[:, 1:] != line[:, :-1]).sum(axis=1)
        yield r, waves, lines


def return_wavefronts(acc: Accesses, reqs: np.ndarray) -> np.ndarray:
    """Per request (indexed like ``acc``): the cycles the L1/shared memory needs to return its data,
    whatever the banks: 128 bytes, one register per lane of a warp, per cycle, so a 64-bit load
    takes 2 and a 128-bit load 4; half that where every pair of neighbouring lanes (lane n and
    n^1, or n and n^2) reads the same address, whose registers are returned packed. NVIDIA
    developer forum, 'Unexpected shared memory bank conflict' (77228, answer 2, on compute
    capability 7.0-7.5): "The return bandwidth of L1 and shared memory is 128 bytes/cycle == 1
    register/cycle. The uniform access can achieve 2x the performance by packing the return
    registers. ... LDS.128 requires 4 requests per instruction as it returns 4 registers. If the
    guidelines are met the requests/instruction should reduce from 4 to 2." The pair rule is
    checked on full warps (the traced addresses are the active lanes', in lane order)."""
    out = np.ones(len(acc), np.int64)
    regs = np.maximum(1, acc.nbytes // 4)
    wide = reqs[regs[reqs] > 1]
    if not len(wide):
        return out
    lanes = np.diff(acc.lane_start)
    full = wide[lanes[wide] == 32]
    out[wide] = regs[wide]
    if len(full):
        a = acc.addr[acc.lane_start[full][:, None] + np.arange(32)[None, :]]
        pairs = (a[:, 0::2] == a[:, 1::2]).all(axis=1)
        quads = (a.reshape(-1, 8, 2, 2)[:, :, 0, :] == a.reshape(-1, 8, 2, 2)[:, :, 1, :]).all(axis=(1, 2))
        packed = pairs | quads
        out[full[packed]] = np.maximum(1, regs[full[packed]] // 2)
    return out


def bank_wavefronts(acc: Accesses, reqs: np.ndarray) -> np.ndarray:
    """Per request (indexed like ``acc``; 0 outside ``reqs``): the most distinct 4-byte words any
    of the 32 banks must deliver, lanes on one word broadcasting and an atomic's lanes on one word
    serialising. The wavefronts of a shared-memory request (CUDA C++ Programming Guide, 'Shared
    Memory': 32 banks of 4 bytes), and of the L1's data stage for a global load that hits: on
    Ampere and Hopper, te42kyfo/gpu-benches gpu-strides (a40.txt, a100.txt, h200.txt; commit
    0a45416) measures l1tex__data_pipe_lsu_wavefronts per warp load of floats at a stride of s
    floats as gcd(s, 32): 1, 2, 4, 8, 16, 32 for s = 1, 2, 4, 8, 16, 32, 1 for every odd s."""
    out = np.zeros(len(acc), np.int64)
    for r, waves, _ in _banks_and_lines(acc, reqs):
        out[r] = waves
    return out


#: cache lines the L1's tag stage looks up per cycle after a request's first: te42kyfo/gpu-benches
#: gpu-strides (a40.txt, a100.txt, h200.txt; commit 0a45416) measures
#: l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld per warp load of floats spread over
#: 1, 2, 4, 8, 16, 32 lines (strides 1, 2, 4, 8, 16, 31 floats) as 1.00, 1.22-1.24, 1.84-1.89,
#: 2.72-2.83, 4.67, 8.5: one cycle, then about a quarter cycle per further line
L1_TAG_LINES_PER_CYCLE = 4


def l1_load_wavefronts(acc: Accesses, reqs: np.ndarray) -> np.ndarray:
    """Per global load request (indexed like ``acc``; 0 outside ``reqs``): its cycles in the L1
    when it hits, the larger of the data stage's bank wavefronts (:func:`bank_wavefronts`) and the
    tag stage's 1 + (lines - 1) / L1_TAG_LINES_PER_CYCLE for the 128-byte lines it touches.
    gpu-strides' cycles per warp load are that maximum: a stride of 32 floats (32 lines, one
    bank) takes 32 cycles, of 31 floats (32 lines, 32 banks) 8.5; 128 contiguous bytes one."""
    out = np.zeros(len(acc), np.float64)
    for r, waves, lines in _banks_and_lines(acc, reqs):
        out[r] = np.maximum(waves, 1.0 + (lines - 1) / L1_TAG_LINES_PER_CYCLE)
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
    # the same for every GPU of one analysis (32 banks of 4 bytes everywhere): computed once
    waves = by_identity("bank_wavefronts", (acc.addr, acc.lane_start, acc.nbytes, acc.space)
                        + (() if acc.kind is None else (acc.kind,)), acc.kind is None, lambda: bank_wavefronts(acc, s_req))
    w_pc = np.bincount(acc.pc, weights=waves, minlength=n_pcs)
    for pc, st in out.items():
        if st.space == "shared":
            st.wavefronts = int(w_pc[pc])


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
        rows = np.repeat(np.arange(len(rq)), lanes[rq])
        addr = np.concatenate([acc.addr[acc.lane_start[r]:acc.lane_start[r + 1]] for r in rq])
        _, per_req = np.unique(np.stack([rows.astype(np.uint64), addr]), axis=1, return_counts=True)
        # most lanes on one address, per request: unique pairs are sorted by request first
        pair_req = np.unique(np.stack([rows.astype(np.uint64), addr]), axis=1)[0].astype(np.int64)
        most = np.zeros(len(rq), np.int64)
        np.maximum.at(most, pair_req, per_req)
        st.same_address_lanes = int(most.sum())
        if st.space != "global" or not warps_per_cta:
            continue
        cta = np.repeat(acc.warp[rq] // warps_per_cta, lanes[rq])
        st.ctas_sampled = len(np.unique(cta))
        u, inv, count = np.unique(addr, return_inverse=True, return_counts=True)
        ctas_on = np.zeros(len(u), np.int64)
        pairs = np.unique(np.stack([inv.astype(np.int64), cta]), axis=1)
        np.add.at(ctas_on, pairs[0], 1)
        shared = ctas_on >= 2
        st.hot_ops = int(count[shared].max()) if shared.any() else 0


def atomic_class(base: InstrClass, st: PcMemory, gpu: GPUSpec, name: str, launch_scale: float,
                 active_sms: int) -> InstrClass | None:
    """lambda of a global atomic when operations on one address serialise at the L2 (the GPU's
    ``atomics.global_same_address_per_clk``, GPU-wide): the larger of (a) its lanes on one
    address per request, one after the other, and (b) its SM's share of the launch's operations
    on its hottest grid-wide address (the sample's count x ``launch_scale`` = CTAs of the launch
    per sampled CTA); None when the database has no such rate or nothing serialises."""
    rate = gpu.atomics.get("global_same_address_per_clk") if getattr(gpu, "atomics", None) else None
    if not rate or not st.requests:
        return None
    per_request = st.same_address_lanes / st.requests / rate
    total_requests = st.requests * launch_scale
    grid_wide = st.hot_ops * launch_scale / rate * max(1, active_sms) / total_requests if st.hot_ops else 0.0
    lam = max(per_request, grid_wide)
    if lam <= base.cpi:
        return None
    src = (f"mapper g from {base.name}: same-address atomics serialise at {rate:g}/clock GPU-wide; "
           f"{st.same_address_lanes / st.requests:.3g} lanes on one address per request"
           + (f", the hottest address takes {st.hot_ops * launch_scale:.4g} operations over the launch" if st.hot_ops else "")
           + f"; on the '{ATOMIC_SUBSYSTEM}' subsystem (the owning L2 slice's atomic unit, beside DRAM traffic)")
    return InstrClass(name, ATOMIC_SUBSYSTEM, lam, base.latency + max(0.0, lam - base.cpi), src, True)


#: where same-address atomics serialise: the atomic unit of the L2 slice that owns the address,
#: a resource of its own (its queue does not hold up other addresses' DRAM or L2 traffic, so a
#: reduction's one atomic per block overlaps the loads that stream the input)
ATOMIC_SUBSYSTEM = "atomic"


@dataclass
class MemoryMapping:
    """Mapper g's result: the adjusted class of each memory PC, and what it was derived from."""

    classes: dict[int, InstrClass] = field(default_factory=dict)   # pc -> adjusted class
    stats: dict[int, PcMemory] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def global_class(base: InstrClass, st: PcMemory, l2: InstrClass | None, name: str,
                 dram_cpi: float | None = None, l1: InstrClass | None = None) -> InstrClass:
    """Sec. 6.3's R rule generalised to m = sectors/request / REF_SECTORS and the shares of the
    sectors served by L1 (``l1``'s lambda/Lambda), L2 (``l2``'s) and DRAM (``base``'s, or
    ``dram_cpi`` per reference request: the achievable bandwidth's share, :func:`dram_request_cpi`)."""
    m = st.sectors_per_request / REF_SECTORS
    h = st.hit_rate if l2 is not None else 0.0
    q1 = min(st.l1_hit_rate, h) if l1 is not None and l2 is not None else 0.0
    p = 1.0 - h                                        # DRAM share
    lam_dram = base.cpi if dram_cpi is None else dram_cpi
    lam_l2, Lam_l2 = (l2.cpi, l2.latency) if l2 is not None else (lam_dram, base.latency)
    lam_l1, Lam_l1 = (l1.cpi, l1.latency) if l1 is not None else (0.0, 0.0)
    # L2 and DRAM serve a request's sectors, 4 per reference request; the L1 its wavefronts
    # (bank conflicts, lines looked up: PcMemory.l1_wavefronts_per_request)
    w1 = st.l1_wavefronts_per_request if q1 > 0.0 else 0.0
    lam_far = p * lam_dram + (h - q1) * lam_l2
    hl, l1l = st.latency_hit_rates if st.latency_hit_rates is not None else (h, st.l1_hit_rate)
    hl = hl if l2 is not None else 0.0
    ql = min(l1l, hl) if l1 is not None and l2 is not None else 0.0
    Lam_mix = (1.0 - hl) * base.latency + (hl - ql) * Lam_l2 + ql * Lam_l1
    lam = max(m * lam_far + q1 * w1 * lam_l1, 1e-6)
    Lam = Lam_mix + max(0.0, m - 1.0) * lam_far + q1 * max(0.0, w1 - 1.0) * lam_l1
    src = (f"mapper g from {base.name}: {st.sectors_per_request:.2f} sectors/request (reference "
           f"{REF_SECTORS}), " + (f"L1 hit rate {q1:.2f}" + (f" ({w1:.3g} L1 cycles per request)" if q1 > 0 else "")
                                  + ", " if l1 is not None else "") + f"L2 hit rate {h:.2f}"
           + (f" (address shared by {st.shared_by:.3g} CTAs of a wave)" if st.shared_by > 1 else "")
           + ("" if l2 is not None else " (no L2 class: hits as DRAM)")
           + (f"; DRAM {lam_dram:.3g} cycles per {REF_SECTORS * SECTOR} B at the achievable bandwidth"
              if dram_cpi is not None else ""))
    # a request served by one level (nearly) alone uses that level's pipeline: L1 hits the L1/
    # shared-memory pipeline, L2 hits the L2 slices' (the L2 class's subsystem), and neither
    # queues behind DRAM requests, whose bandwidth only misses use (the levels run side by side)
    if l1 is not None and q1 >= ONE_LEVEL:
        sub = l1.subsystem
    elif l2 is not None and h - q1 >= ONE_LEVEL:
        sub = l2.subsystem
    else:
        sub = base.subsystem
    # a hit that waits for an in-flight fill (PcMemory.fill_pc) reads its data out of the L1 after
    # the fill: its L1 cycles, queued behind the requests that waited before it
    return InstrClass(name, sub, lam, Lam, src, True, after_fill=q1 * w1 * lam_l1)


#: share of a request's sectors one cache level must serve for it to be issued to that level's
#: pipeline alone (L1: the L1 class's subsystem; L2: the L2 class's)
ONE_LEVEL = 0.95


def dram_request_cpi(gpu: GPUSpec, read_fraction: float, active_sms: int) -> float | None:
    """SM cycles per reference request (REF_SECTORS sectors) from DRAM when ``active_sms`` SMs
    share the GPU's achievable DRAM bandwidth for a traffic mix with ``read_fraction`` of the
    bytes read (None when the database has no achievable bandwidth).

    The database gives the bandwidth published stream benchmarks achieve reading (``dram_read_gbs``),
    writing (``dram_write_gbs``) and copying one read to one write (``dram_copy_gbs``); a mix in
    between is interpolated linearly in the read share between those three points (a point the
    database lacks takes the nearest one it has: read from copy, write from copy). The vendor
    peak is not reached by any access stream, so it is never used here."""
    m = gpu.memory
    known: list[float] = [m[k] for k in ("dram_read_gbs", "dram_copy_gbs", "dram_write_gbs") if m.get(k)]
    if not known:
        return None
    read: float = m.get("dram_read_gbs") or m.get("dram_copy_gbs") or known[0]   # a missing point: the nearest known
    copy: float = m.get("dram_copy_gbs") or min(known)
    write: float = m.get("dram_write_gbs") or copy
    f = min(1.0, max(0.0, read_fraction))
    bw = write + (copy - write) * f / 0.5 if f <= 0.5 else copy + (read - copy) * (f - 0.5) / 0.5
    # cycles at the light-load clock (GPUSpec.clock_at(0), the one the simulator converts a
    # light-arithmetic run's cycles with): a DRAM-bound kernel keeps the arithmetic light
    bytes_per_cycle_per_sm = bw / gpu.clock_at(0.0) / max(1, min(active_sms, gpu.cores))
    return REF_SECTORS * SECTOR / bytes_per_cycle_per_sm


def dram_rate_note(gpu: GPUSpec, read_fraction: float) -> str | None:
    """What :func:`dram_request_cpi` had to stand in for, in one line for the report (None when
    the database has the figures this traffic mix needs): no achievable figure at all (DRAM
    requests then cost the load/store classes' lambda, the vendor peak's share where the file
    derives it from the peak), or a missing read or write point taken from the nearest one."""
    m = gpu.memory
    have = {k: m.get(f"dram_{k}_gbs") for k in ("read", "copy", "write")}
    if not any(have.values()):
        peak = m.get("dram_peak_gbs")
        return (f"{gpu.name} has no achievable DRAM bandwidth in the GPU database: DRAM requests cost the "
                "ld_global_s32/st_global classes' lambda" + (f", derived from the vendor peak {peak:g} GB/s, "
                "which no access stream reaches (DRAM-bound times are optimistic)" if peak else ""))
    f = min(1.0, max(0.0, read_fraction))
    used = {"write": f < 0.5, "copy": 0.0 < f < 1.0, "read": f > 0.5}      # the interpolation's points
    missing = [k for k in ("read", "copy", "write") if used[k] and not have[k]]
    if not missing:
        return None
    least = min(v for v in have.values() if v)
    stand = {"read": have["copy"] or next(v for v in have.values() if v), "write": have["copy"] or least,
             "copy": least}                                        # as dram_request_cpi takes them
    return (f"{gpu.name} lacks an achievable DRAM " + " and ".join(
        f"{k} figure ({stand[k]:g} GB/s stands in)" for k in missing) + " in the GPU database")


def l2_class(gpu: GPUSpec, active_sms: int) -> InstrClass | None:
    """The GPU's L2-hit class (``ld_global_l2``) with its lambda set by the measured L2 bandwidth
    (``memory.l2_bandwidth_bytes_per_clk``, what the L2 slices achieve together) divided among
    the SMs that have blocks, as DRAM's is (:func:`dram_request_cpi`): the slices are a GPU-wide
    resource, so a launch on fewer SMs gets a larger share each. Without that figure the class
    is taken as the file gives it."""
    l2 = gpu.classes.get(L2_CLASS)
    bw = gpu.memory.get("l2_bandwidth_bytes_per_clk")
    if l2 is None or not bw:
        return l2
    sms = max(1, min(active_sms, gpu.cores))
    cpi = REF_SECTORS * SECTOR / (bw / sms)
    return replace(l2, cpi=cpi, source=f"{l2.source}; lambda {cpi:.3g}: {REF_SECTORS * SECTOR} B at "
                                       f"memory.l2_bandwidth_bytes_per_clk {bw:g} B/clk shared by {sms} SMs")


def shared_class(base: InstrClass, st: PcMemory, name: str) -> InstrClass:
    """Sec. 6.3: Lambda' = Lambda + D * lambda, lambda' = (1 + D) * lambda."""
    d = max(0.0, st.conflict_degree)
    src = f"mapper g from {base.name}: bank-conflict degree D = {d:.2f}"
    return InstrClass(name, base.subsystem, (1 + d) * base.cpi, base.latency + d * base.cpi, src, True)


#: a generic access's class (mapper f counts generic as global) once the emulation has seen where
#: its addresses fall: the hardware serves a generic address in the shared or local window from
#: that state space (PTX ISA, "Generic Addressing"), so it costs that space's class, not a trip
#: to L2 (the WMMA loads of cuda-samples' GEMMs and any pointer into shared memory ptxas could
#: not prove shared)
_GENERIC_RESOLVED = {("ld_global_s32", "shared"): "ld_shared_f32", ("st_global", "shared"): "st_shared",
                     ("atom_global", "shared"): "atom_shared", ("ld_global_s32", "local"): "ld_local_s32",
                     ("st_global", "local"): "st_local"}


def resolved_class(base: str, space: str, gpu: GPUSpec) -> str:
    """``base`` (mapper f's class) for an access found in ``space``; unchanged where the GPU lacks
    the space's class or the class is already that space's."""
    cls = _GENERIC_RESOLVED.get((base, space))
    return cls if cls is not None and cls in gpu.classes else base


def map_memory(stats: Mapping[int, PcMemory], base_class: Mapping[int, str], gpu: GPUSpec,
               label: Mapping[int, str] | None = None, dram_cpi: float | None = None,
               launch_scale: float = 1.0, active_sms: int = 1) -> MemoryMapping:
    """Adjusted classes for the memory PCs in ``stats`` whose base class (mapper f) is ``base_class[pc]``.

    Classes are named ``<base>@<label>`` (label: the PTX line by default) so reports can say which
    instruction got which lambda/Lambda. ``dram_cpi``: a DRAM request's lambda at the launch's
    achievable bandwidth share (else the base class's); ``launch_scale`` (CTAs of the launch per
    sampled CTA) and ``active_sms`` scale same-address atomics to the whole launch."""
    out = MemoryMapping(stats=dict(stats))
    l2 = l2_class(gpu, active_sms)
    l1 = l1_class(gpu) if any(s.l1_hits or (s.latency_hit_rates and s.latency_hit_rates[1])
                              for s in stats.values()) else None
    if l2 is None and any(s.space == "global" and s.l2_hits for s in stats.values()):
        out.notes.append(f"GPU '{gpu.name}' has no '{L2_CLASS}' class: sectors the cache model finds "
                         "in L2 are charged as DRAM accesses")
    for pc, st in stats.items():
        if pc not in base_class or st.requests == 0:
            continue
        cls = resolved_class(base_class[pc], st.space, gpu)
        base = gpu.classes.get(cls)
        if base is None:
            raise PipeperfError(f"GPU '{gpu.name}' has no instruction class '{cls}'")
        name = f"{base.name}@{label[pc] if label and pc in label else pc}"
        if st.space == "global" and st.lane_ops:
            out.classes[pc] = atomic_class(base, st, gpu, name, launch_scale, active_sms) or \
                global_class(base, st, l2, name, dram_cpi, l1)
        elif st.space == "global":
            out.classes[pc] = global_class(base, st, l2, name, dram_cpi, l1)
        elif st.space == "shared":
            out.classes[pc] = shared_class(base, st, name)
    return out


#: what-if analyses of the memory access pattern: name -> what it assumes
WHAT_IF = {
    "no bank conflicts": "every shared-memory request in one wavefront (D = 0)",
    "coalesced global accesses": "every global request touches only the sectors its bytes need",
    "atomics combined per warp": "same-address global atomics first combined within each warp (a "
                                 "warp-shuffle reduction): one lane per warp and address reaches L2, after "
                                 "the 5 dependent shuffle-and-add steps' latency (their issue slots are not "
                                 "counted)",
}


def ideal_stats(stats: Mapping[int, PcMemory], what: str) -> dict[int, PcMemory] | None:
    """``stats`` as if the access pattern were fixed as ``what`` (a WHAT_IF key) says; None when
    nothing would change (no conflicts, already coalesced)."""
    from dataclasses import replace

    if what not in WHAT_IF:
        raise PipeperfError(f"unknown what-if '{what}': expected one of {', '.join(WHAT_IF)}")
    out, changed = dict(stats), False
    for pc, st in stats.items():
        if what == "no bank conflicts" and st.space == "shared" and st.wavefronts > st.requests:
            out[pc], changed = replace(st, wavefronts=st.requests), True
        elif what == "coalesced global accesses" and st.space == "global" and st.sectors > st.min_sectors > 0:
            # the sectors a coalesced pattern no longer touches are taken from the hits first (in
            # L1 and L2): an uncoalesced pattern's hits are mostly its own redundant re-touches,
            # so the DRAM sectors stay. Its requests wait for the same data from the same levels:
            # the latency keeps the pattern's hit rates (else the fewer, now mostly missing,
            # sectors would read as a slower request and the fix as a slowdown)
            extra = st.sectors - st.min_sectors
            out[pc] = replace(st, sectors=st.min_sectors, l2_hits=max(0, st.l2_hits - extra),
                              intra_hits=max(0, st.intra_hits - extra), l1_hits=max(0, st.l1_hits - extra),
                              l1_wavefronts=0.0,          # coalesced: its sectors' reference requests
                              latency_hit_rates=st.latency_hit_rates or (st.hit_rate, st.l1_hit_rate))
            changed = True
        elif (what == "atomics combined per warp" and st.space == "global" and st.lane_ops
              and st.same_address_lanes > st.requests):
            # one lane per request on one address; the hottest address gets one operation per
            # request instead of one per lane (its lanes per request taken as the mean)
            out[pc] = replace(st, same_address_lanes=st.requests,
                              hot_ops=round(st.hot_ops * st.requests / st.same_address_lanes))
            changed = True
    return out if changed else None


def warp_combined(c: InstrClass, gpu: GPUSpec) -> InstrClass:
    """An atomic whose warp first combines its lanes' values (the "atomics combined per warp"
    what-if): it issues log2(32) = 5 dependent shuffle-and-add steps later, which the IDG does
    not hold, so their latency (mapper f's shfl and add_f32 classes) is added to its own."""
    from pipeperf.hardware.mapper import resolve

    have = set(gpu.classes)
    step = gpu.classes[resolve("shfl", have, gpu.name)].latency + gpu.classes[resolve("add_f32", have, gpu.name)].latency
    return InstrClass(c.name, c.subsystem, c.cpi, c.latency + 5 * step,
                      c.source + f"; after a warp-shuffle combine: + 5 x {step:g} cycles", True)


def l1_class(gpu: GPUSpec) -> InstrClass | None:
    """lambda/Lambda of a global load that hits in L1: ``ld_global_l1``, else the local-memory
    load class, which the database measures as an L1 hit."""
    return gpu.classes.get(L1_CLASS) or gpu.classes.get(L1_FALLBACK)


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


def fuse_requests(acc: Accesses, groups: Mapping[int, tuple[int, int]]) -> Accesses:
    """The requests as the SASS makes them where ptxas widened loads: per warp, each run of ``k``
    consecutive requests of one group (``groups``: pc -> (group, k), the PTX loads of one source
    line and space whose SASS loads are ``k`` times as wide) becomes one request of ``k`` times the
    bytes per lane at the first one's addresses (ptxas fuses only adjacent, aligned words, so the
    lanes' other words follow them). The merged request keeps its first PC."""
    if not groups or not len(acc):
        return acc
    gid = np.full(len(acc), -1, np.int64)
    kk = np.ones(len(acc), np.int64)
    for pc, (g, k) in groups.items():
        at = acc.pc == pc
        gid[at], kk[at] = g, k
    sel = np.flatnonzero(gid >= 0)
    if not len(sel):
        return acc
    order = sel[np.lexsort((acc.step[sel], acc.warp[sel], gid[sel]))]
    run = np.r_[True, (gid[order][1:] != gid[order][:-1]) | (acc.warp[order][1:] != acc.warp[order][:-1])]
    start = np.maximum.accumulate(np.where(run, np.arange(len(order)), 0))
    pos = np.arange(len(order)) - start
    head = pos % kk[order] == 0
    keep = np.ones(len(acc), bool)
    keep[order[~head]] = False
    nbytes = acc.nbytes.copy()
    nbytes[order[head]] *= kk[order[head]]
    lanes = np.diff(acc.lane_start)
    lane_keep = np.repeat(keep, lanes)
    return Accesses.from_arrays(acc.pc[keep], acc.warp[keep], acc.step[keep], acc.space[keep], nbytes[keep],
                                lanes[keep], acc.addr[lane_keep], None if acc.kind is None else acc.kind[keep])


def combine_atomic_lanes(stats: dict[int, PcMemory], pcs: Iterable[int]) -> None:
    """Atomics whose SASS first combines the warp's lanes (ptxas' REDUX/POPC aggregation of a
    warp-uniform integer atomic): one lane per request reaches the L2, so one operation per
    request on its address (the "atomics combined per warp" what-if, made the fact)."""
    for pc in pcs:
        st = stats.get(pc)
        if st is not None and st.space == "global" and st.lane_ops and st.same_address_lanes > st.requests:
            stats[pc] = replace(st, same_address_lanes=st.requests,
                                hot_ops=round(st.hot_ops * st.requests / st.same_address_lanes))
