"""The cache model's stream operations: reuse within a capacity over a sector stream, L2
write-backs, the spatial sample of a long stream, and dense ids of sectors and CTAs.

Why apart from :mod:`pipeperf.hardware.memory`: these are the hot NumPy passes over every traced
sector access (10^7 for a long loop), one job, tested on their own; ``memory`` turns their
results into per-instruction statistics and classes.
"""

from __future__ import annotations

import numpy as np

try:                                    # setup.py builds it; else the sort below
    from pipeperf.hardware import _reuse  # type: ignore[attr-defined]  # the C extension: no stub
except ImportError:
    _reuse = None

#: global sector accesses the cache model follows one by one; past it, a spatial sample (below)
SECTOR_SAMPLE = 4_000_000


def access_positions(order_key: np.ndarray) -> np.ndarray:
    """Each access's position in the order ``order_key`` gives (ties keep the stream's order)."""
    n = len(order_key)
    order = np.argsort(order_key, kind="stable")
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n)
    return pos


def l2_hits(order_key: np.ndarray, sectors: np.ndarray, capacity: float,
            pos: np.ndarray | None = None) -> np.ndarray:
    """Hit flag per access of a sector stream (``order_key`` gives the access order; ``pos``, its
    :func:`access_positions`, when the caller has them): a hit when the same sector was accessed
    fewer than ``capacity`` accesses earlier."""
    if pos is None:
        pos = access_positions(order_key)
    return hits_of(previous_access(sectors, pos), pos, capacity)


def previous_access(sectors: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Per access of a sector stream (``pos``: each access's place in the stream), the index of
    the previous access to the same sector, -1 for a first touch: in C (``_reuse.c``, a linear
    walk of the stream) where built and ``pos`` is a permutation of the accesses, else by a sort."""
    n = len(sectors)
    if _reuse is not None and n >= 2 and sectors.dtype.kind in "iu" and sectors.dtype.itemsize == 8:
        prev = np.empty(n, np.int64)
        if _reuse.previous_access(np.ascontiguousarray(sectors), np.ascontiguousarray(pos, np.int64), prev):
            return prev
    prev = np.full(n, -1, np.int64)
    if n < 2:
        return prev
    by_sector = _by_sector_then_position(sectors, pos)
    same = sectors[by_sector[1:]] == sectors[by_sector[:-1]]
    prev[by_sector[1:][same]] = by_sector[:-1][same]
    return prev


def _by_sector_then_position(sectors: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``np.lexsort((pos, sectors))``: one stable sort of the key (sector, position), both taken
    from their least, where it fits in 62 bits (ties kept in order, as lexsort keeps them)."""
    lo = int(pos.min())
    span = int(pos.max()) - lo + 1
    first = sectors.min()
    if (int(sectors.max()) - int(first) + 1) * span >= 1 << 62:
        return np.lexsort((pos, sectors))
    key = (sectors - first).astype(np.int64)
    key *= span
    key += pos
    key -= lo
    return np.argsort(key, kind="stable")


def hits_of(prev: np.ndarray, pos: np.ndarray, capacity: float) -> np.ndarray:
    """Hit flag per access: its sector was accessed (``prev``, :func:`previous_access`) fewer than
    ``capacity`` accesses earlier."""
    seen = prev >= 0
    hit = np.zeros(len(prev), bool)
    hit[seen] = (pos[seen] - pos[prev[seen]]) <= capacity
    return hit


def store_write_backs(hit: np.ndarray, pos: np.ndarray, sectors: np.ndarray, store: np.ndarray,
                      capacity: float) -> np.ndarray:
    """``hit`` with a store's hit kept only where the sector was stored before within the L2's
    reach (``pos``: the accesses' :func:`access_positions`; the caller applies it where the
    launch's stream does not fit in the L2): L2 is write-back, so the first store to a clean
    sector (one a load brought in, as an in-place update's is) makes it dirty, and a stream larger
    than the L2 evicts it, writing it to DRAM during the kernel; later stores to the dirty sector
    are L2 hits. A launch whose data fit keeps its dirty sectors to the kernel's end."""
    if not store.any():
        return hit
    n = len(sectors)
    idx = np.flatnonzero(store)
    by = np.lexsort((pos[idx], sectors[idx]))
    s, p = sectors[idx][by], pos[idx][by]
    again = np.zeros(len(idx), bool)
    again[1:] = (s[1:] == s[:-1]) & ((p[1:] - p[:-1]) <= capacity)
    rewrite = np.zeros(n, bool)
    rewrite[idx[by]] = again
    return np.where(store, hit & rewrite, hit)


def sector_sample(sectors: np.ndarray, limit: int = SECTOR_SAMPLE) -> tuple[np.ndarray, int]:
    """(mask, R): the accesses to 1 in R sectors, R = ceil(accesses / limit), chosen by a hash of
    the sector so that every access to a kept sector is kept (SHARDS, Waldspurger et al., FAST
    2015): reuse distances in the sample are the stream's over R, so a cache of C sectors
    becomes one of C / R and the sample's hit rates estimate the stream's."""
    r = -(-len(sectors) // limit)
    if r <= 1:
        return np.ones(len(sectors), bool), 1
    h = sectors.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)     # in place from here: the
    h >>= np.uint64(40)                                                  # stream can be 10^7 long
    h %= np.uint64(r)
    return h == 0, int(r)


#: widest value range :func:`dense_ids` marks in a table (bytes: one per value of the range)
DENSE_SPAN = 1 << 26


def distinct_count(values: np.ndarray) -> int:
    """``dense_ids(values)[0]`` (the number of distinct values) without the ranks: a table over a
    narrow range marked block by block (no array of the values' size beyond the input)."""
    n = len(values)
    if n == 0:
        return 0
    lo, hi = values.min(), values.max()
    span = int(hi) - int(lo) + 1
    if span > max(DENSE_SPAN, 4 * n):    # a sort: NumPy 2's hashing np.unique takes ~70x as long on
        v = np.sort(values)               # 4 M uint64 (6 s against 0.08 s, 2026-11-28)
        return 1 + int(np.count_nonzero(v[1:] != v[:-1]))
    seen = np.zeros(span, bool)
    for c in range(0, n, 1 << 22):
        seen[(values[c:c + (1 << 22)] - lo).astype(np.int64, copy=False)] = True
    return int(np.count_nonzero(seen))


def dense_ids(values: np.ndarray) -> tuple[int, np.ndarray]:
    """(distinct values, each value's rank among them): ``np.unique(values, return_inverse=True)``
    exactly, by marking the values in a table over their range when it is narrow (sector numbers
    of one launch's buffers, CTA ids), which is linear instead of a sort of 10^7 values."""
    n = len(values)
    if n == 0:
        return 0, np.zeros(0, np.int64)
    lo, hi = values.min(), values.max()
    span = int(hi) - int(lo) + 1
    if span > max(DENSE_SPAN, 4 * n):
        u, inv = np.unique(values, return_inverse=True)
        return len(u), inv.astype(np.int64, copy=False)
    off = (values - lo).astype(np.int64, copy=False)
    seen = np.zeros(span, bool)
    seen[off] = True
    rank = np.cumsum(seen, dtype=np.int64)
    rank -= 1
    return int(rank[-1]) + 1, rank[off]
