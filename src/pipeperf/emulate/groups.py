"""Thread groups: the set of threads that execute one instruction together.

A group is a ``slice`` (contiguous threads, the common converged case, whose
register reads are free NumPy views) or a sorted ``int64`` index array.
Warps are contiguous in thread order, so warp counts need no sorting.
"""

from __future__ import annotations

import numpy as np

Group = slice | np.ndarray


def size(g: Group) -> int:
    return g.stop - g.start if type(g) is slice else len(g)


def as_array(g: Group) -> np.ndarray:
    return np.arange(g.start, g.stop, dtype=np.int64) if type(g) is slice else g


def compact(a: np.ndarray) -> Group:
    """A sorted index array as a slice when it is contiguous."""
    n = len(a)
    if n and int(a[-1]) - int(a[0]) + 1 == n:
        return slice(int(a[0]), int(a[-1]) + 1)
    return a


def subset(g: Group, mask: np.ndarray | bool) -> Group:
    """Threads of ``g`` where ``mask`` (aligned with ``g``) is true."""
    if type(mask) is not np.ndarray:
        return g if mask else np.empty(0, np.int64)
    if mask.all():
        return g
    if type(g) is slice:
        return compact(np.flatnonzero(mask) + g.start)
    return g[mask]


def merge(a: Group, b: Group) -> Group:
    """Union of two disjoint groups."""
    if type(a) is slice and type(b) is slice:
        if a.stop == b.start:
            return slice(a.start, b.stop)
        if b.stop == a.start:
            return slice(b.start, a.stop)
    u = np.concatenate((as_array(a), as_array(b)))
    u.sort(kind="stable")
    return compact(u)


def count_warps(wid: np.ndarray, g: Group) -> int:
    """Distinct warps with at least one thread in ``g``."""
    if type(g) is slice:
        return 0 if g.stop <= g.start else int(wid[g.stop - 1] - wid[g.start]) + 1
    if len(g) == 0:
        return 0
    w = wid[g]
    return 1 + int(np.count_nonzero(w[1:] != w[:-1]))


def segments(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets and lengths of runs of equal values in sorted ``w``."""
    if len(w) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    starts = np.concatenate(([0], np.flatnonzero(w[1:] != w[:-1]) + 1))
    lengths = np.diff(np.concatenate((starts, [len(w)])))
    return starts, lengths
