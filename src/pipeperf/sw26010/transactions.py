"""Memory request transactions (MRT) of one DMA/Gload request (Eq. 5, Fig. 2).

SW26010 CPEs have no cache: main memory is read in whole DRAM transactions of
``Trans_size`` bytes, so a request costs the number of transactions it touches,
not its byte count. Eq. 5 gives ``ceil(Req_size / Trans_size)`` for a
contiguous request starting on a transaction boundary; Fig. 2 adds the strided
case, where every contiguous chunk (SWACC issues one DMA call per chunk,
Sec. II-B) pays its own partly-used transactions. We count exactly: a request is
``block`` contiguous bytes repeated over nested levels of (stride, count), the
first chunk starting ``offset`` bytes into a transaction; each chunk starting at
residue ``r`` (mod Trans_size) touches ``ceil((r + block) / Trans_size)``
transactions. Chunk residues are histogrammed (a cyclic convolution per level)
so the cost does not grow with the number of chunks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import gcd, prod

import numpy as np


@dataclass(frozen=True)
class Geometry:
    """Byte layout of one array's part of a request.

    ``levels`` is ((stride, count), ...) from innermost to outermost; an empty
    tuple is one contiguous block of ``block`` bytes.
    """

    block: int
    levels: tuple[tuple[int, int], ...] = ()
    offset: int = 0

    @property
    def chunks(self) -> int:
        return prod(c for _, c in self.levels)

    @property
    def useful_bytes(self) -> int:
        return self.block * self.chunks

    def mrt(self, trans_size: int) -> int:
        """Transactions this part touches (Eq. 5 generalised per Fig. 2)."""
        return mrt(self.block, self.levels, self.offset % trans_size, trans_size)

    def to_dict(self) -> dict:
        if not self.levels:
            out: dict = {"size": self.block}
        else:
            strides = [s for s, _ in self.levels]
            counts = [c for _, c in self.levels]
            out = {"block": self.block,
                   "stride": strides[0] if len(strides) == 1 else strides,
                   "blocks": counts[0] if len(counts) == 1 else counts}
        if self.offset:
            out["offset"] = self.offset
        return out


def level_residues(stride: int, count: int, trans_size: int) -> np.ndarray:
    """Histogram over residues r of ``k*stride mod trans_size`` for k < count."""
    hist = np.zeros(trans_size, dtype=np.int64)
    s = stride % trans_size
    period = trans_size // gcd(s, trans_size) if s else 1
    p = np.arange(min(period, count), dtype=np.int64)
    mult = (count - 1 - p) // period + 1
    np.add.at(hist, (p * s) % trans_size, mult)
    return hist


def chunk_residues(levels: tuple[tuple[int, int], ...], offset: int, trans_size: int) -> np.ndarray:
    """Histogram of the start residues of every chunk of a request."""
    hist = np.zeros(trans_size, dtype=np.int64)
    hist[offset % trans_size] = 1
    for stride, count in levels:
        step = level_residues(stride, count, trans_size)
        nonzero = np.flatnonzero(step)
        if len(nonzero) == 1:  # common case: a pure rotation
            hist = np.roll(hist, int(nonzero[0])) * step[nonzero[0]]
            continue
        out = np.zeros_like(hist)
        for r in np.flatnonzero(hist):  # cyclic convolution over occupied residues
            out += hist[r] * np.roll(step, int(r))
        hist = out
    return hist


@lru_cache(maxsize=65536)
def mrt(block: int, levels: tuple[tuple[int, int], ...], offset: int, trans_size: int) -> int:
    """Exact transaction count of a (possibly strided) request part."""
    if not levels:  # Eq. 5 (with the start offset of Fig. 2)
        return -(-(offset % trans_size + block) // trans_size)
    hist = chunk_residues(levels, offset, trans_size)
    per_residue = (np.arange(trans_size, dtype=np.int64) + block + trans_size - 1) // trans_size
    return int(hist @ per_residue)


def mrt_brute_force(geom: Geometry, trans_size: int) -> int:
    """Reference count by listing every chunk (tests only; slow for big requests)."""
    starts = np.array([geom.offset], dtype=np.int64)
    for stride, count in geom.levels:
        starts = (starts[None, :] + stride * np.arange(count, dtype=np.int64)[:, None]).ravel()
    first = starts // trans_size
    last = (starts + geom.block - 1) // trans_size
    return int(np.sum(last - first + 1))
