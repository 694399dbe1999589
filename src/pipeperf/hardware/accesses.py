"""The records of mapper g: the traced memory accesses (:class:`Accesses`, per-request columns
and the lanes' addresses, built by :mod:`pipeperf.analysis.memory_trace` from the emulator's
traces) and the statistics of each memory instruction (:class:`PcMemory`) that the memory
analysis (:mod:`pipeperf.hardware.memory`) computes from them and the mapping
(:mod:`pipeperf.hardware.memory_classes`) turns into lambda/Lambda."""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

SECTOR = 32                 # bytes per sector (L1/L2 transaction granularity since Maxwell)
REF_SECTORS = 4             # Table 5's ld.global.s32 by a full warp: 32 lanes x 4 B = 128 B
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
    #: per request: the bank wavefronts (:func:`~pipeperf.hardware.banks.bank_wavefronts`) and the
    #: return wavefronts of a shared request counted where its lanes were logged
    #: (:func:`~pipeperf.analysis.memory_trace.traced_accesses`), -1 for the others; such a request
    #: keeps only its first lane's address in ``addr``. None: every request keeps its lanes
    waves: np.ndarray | None = None
    returns: np.ndarray | None = None
    #: load PCs whose requests bypass the L1 (``cp.async.cg``: cached in L2 only, PTX ISA): they
    #: neither hit nor fill the L1 in the cache model
    no_l1: frozenset[int] = frozenset()

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
    hot_line_ops: int = 0       # global atomics: the same on its hottest 128-byte L2 line (its words' operations)
    distinct_ops: int = 0       # atomics: per request the distinct addresses, summed (the ops left if a warp
                                # combined its lanes on one address first)
    ctas_sampled: int = 0       # global atomics: CTAs of the sample that issued this instruction
    shared_by: float = 1.0      # global: CTAs of a wave that read the same sectors (address structure)
    wavefronts: int = 0         # shared: summed over requests
    #: shared: the wavefronts the requests' data return needs whatever the banks (one register per
    #: lane per cycle: a 16-byte load 4, 2 where lanes pair on one address), summed; 0: not known
    return_wavefronts: int = 0
    l1_wavefronts: float = 0.0  # global loads: L1 cycles per request (l1_load_wavefronts), summed; 0: not known
    min_sectors: int = 0        # global: sectors the requested bytes need at best (perfect coalescing)
    #: global: the (L2, L1) hit rates that set a request's latency, where they are not this
    #: pattern's own: a what-if that only drops redundant sectors keeps where the data come from
    latency_hit_rates: tuple[float, float] | None = None
    #: global loads: the load instruction (pc) of the same warp that last touched most of this
    #: one's L1-hit sectors, -1 for none: while that load's fill is in flight the hit waits for it
    #: (a hit on a reserved line: :func:`pipeperf.hardware.memory.fill_sources`)
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
        """A global load's cycles in the L1 when it hits (:func:`pipeperf.hardware.banks.l1_load_wavefronts`); without the
        count, its sectors in 128-byte reference requests, as mapper g charged before."""
        if self.l1_wavefronts and self.requests:
            return self.l1_wavefronts / self.requests
        return self.sectors_per_request / REF_SECTORS

    @property
    def conflict_degree(self) -> float:
        """D: mean extra shared-memory wavefronts per request (bank conflicts and the return of
        wide loads alike: what the request costs)."""
        return self.wavefronts / self.requests - 1.0 if self.requests else 0.0

    @property
    def conflict_free_wavefronts(self) -> int:
        """The wavefronts with no bank conflict: one per request, or its data return's."""
        return max(self.requests, self.return_wavefronts)

    @property
    def bank_conflict_degree(self) -> float:
        """Mean wavefronts per request beyond the conflict-free ones: what padding or permuting
        the index can remove (a 16-byte load's four return cycles are not a conflict)."""
        extra = self.wavefronts - self.conflict_free_wavefronts
        return max(0, extra) / self.requests if self.requests else 0.0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"pc": self.pc, "space": self.space, "requests": self.requests}
        if self.space == "global":
            d.update(sectors_per_request=round(self.sectors_per_request, 4), l1_hit_rate=round(self.l1_hit_rate, 4),
                     l2_hit_rate=round(self.hit_rate, 4),
                     l2_hit_rate_traced=round(self.traced_hit_rate, 4), shared_by_ctas=round(self.shared_by, 3),
                     min_sectors_per_request=round(self.min_sectors / self.requests, 4) if self.requests else 0.0)
            if self.fill_pc >= 0:
                d["fill_pc"] = self.fill_pc
            if self.hot_line_ops > self.hot_ops:
                d["line_contention"] = True      # atomics: the hottest L2 line's words, not one address
        elif self.space == "shared":
            d.update(conflict_degree=round(self.bank_conflict_degree, 4),
                     wavefronts_per_request=round(self.wavefronts / self.requests, 4) if self.requests else 0.0)
        return d


_CHUNK = 1 << 14             # requests per block of the vectorised per-request analysis


def request_units(acc: Accesses, reqs: np.ndarray, unit_shift: int,
                  sort: bool = True) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """Yield (requests, units, distinct) blocks: ``units`` (n, W) holds, per request of ``reqs``,
    the sorted 2**unit_shift-byte units its lanes touch, padded with repeats; ``distinct`` marks
    each unit's first occurrence in its row.  Fixed-width rows keep this a few NumPy calls per block.
    ``sort=False``: the units in lane order and no ``distinct`` (None), for a caller that marks them."""
    start = acc.lane_start
    sh = np.uint64(unit_shift)
    for c in range(0, len(reqs), _CHUNK):
        r = reqs[c:c + _CHUNK]
        s0, n = start[r], start[r + 1] - start[r]
        width = int(n.max())
        if int(n.min()) == width and len(acc.addr) % width == 0 and not (s0 % width).any():
            a = acc.addr.reshape(-1, width)[s0 // width]   # (whole rows of one width: a row gather)
        else:
            a = acc.addr[s0[:, None] + np.minimum(np.arange(width)[None, :], (n - 1)[:, None])]
        nbytes = acc.nbytes[r]
        first = a >> sh
        nb = int(nbytes[0]) if len(nbytes) else 1
        if 0 < nb <= 1 << unit_shift and nb & (nb - 1) == 0 and (nbytes == nb).all() and \
                not (a & np.uint64(nb - 1)).any():
            k = 1                             # aligned lanes of a power of 2 bytes: each in one unit
        else:
            last = (a + nbytes.astype(np.uint64)[:, None] - np.uint64(1)) >> sh
            k = int((last - first).max()) + 1
        if k > 1:
            units = np.minimum(first[:, :, None] + np.arange(k, dtype=np.uint64), last[:, :, None])
            units = units.reshape(len(r), -1)
        else:
            units = first
        if not sort:
            yield r, units, None
            continue
        units = np.sort(units, axis=1)
        distinct = np.ones(units.shape, bool)
        distinct[:, 1:] = units[:, 1:] != units[:, :-1]
        yield r, units, distinct


def fuse_requests(acc: Accesses, groups: Mapping[int, tuple[int, int]]) -> Accesses:
    """The requests as the SASS makes them where ptxas widened loads: per warp, each run of ``k``
    consecutive requests of one group (``groups``: pc -> (group, k), the PTX loads of one source
    line and space whose SASS loads are ``k`` times as wide) becomes one request of ``k`` times the
    bytes per lane at the first one's addresses (ptxas fuses only adjacent, aligned words, so the
    lanes' other words follow them). The merged request keeps its first PC."""
    if not groups or not len(acc):
        return acc
    if acc.waves is not None:
        raise ValueError("requests whose lanes were counted and dropped (Accesses.waves) cannot be fused")
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
    out = Accesses.from_arrays(acc.pc[keep], acc.warp[keep], acc.step[keep], acc.space[keep], nbytes[keep],
                               lanes[keep], acc.addr[lane_keep], None if acc.kind is None else acc.kind[keep])
    out.no_l1 = acc.no_l1
    return out


def combine_atomic_lanes(stats: dict[int, PcMemory], pcs: Iterable[int]) -> None:
    """Atomics whose SASS first combines the warp's lanes (ptxas' REDUX/POPC aggregation of a
    warp-uniform integer atomic): one lane per request reaches the L2, so one operation per
    request on its address (the "atomics combined per warp" what-if, made the fact)."""
    for pc in pcs:
        st = stats.get(pc)
        if st is not None and st.space == "global" and st.lane_ops and st.same_address_lanes > st.requests:
            stats[pc] = replace(st, same_address_lanes=st.requests,
                                hot_ops=round(st.hot_ops * st.requests / st.same_address_lanes),
                                hot_line_ops=round(st.hot_line_ops * st.requests / st.same_address_lanes))


def distinct(x: np.ndarray, return_index: bool = False) -> Any:
    """``np.unique(x)`` (with ``return_index``: and each value's first position) of a 1-D integer
    column that comes in runs of equal values (a memory log's pc and warp columns: one block of
    requests per instruction): from the runs' first elements, or by counting where the values
    span a short range. Why: ``np.unique`` hashes or sorts every one of ~10^6 requests, three
    times per emulation."""
    n = len(x)
    if n == 0 or x.dtype.kind not in "iu":
        return np.unique(x, return_index=True) if return_index else np.unique(x)
    heads = np.flatnonzero(np.r_[True, x[1:] != x[:-1]])
    if return_index:
        vals, first = np.unique(x[heads], return_index=True)
        return vals, heads[first]
    if len(heads) * 8 > n:                          # short runs: a count over the range, if short
        lo, hi = int(x.min()), int(x.max())
        if hi - lo <= 4 * n:
            seen = np.bincount((x - x.dtype.type(lo)).astype(np.intp), minlength=hi - lo + 1)
            return (np.flatnonzero(seen) + lo).astype(x.dtype)
    return np.unique(x[heads])
