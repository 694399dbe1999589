"""Device memory of one launch: global arena, per-CTA shared, per-thread local, const.

Why byte arenas: PTX addresses are byte addresses and the same bytes are read
with different types (``ld.v4.f32``, ``ld.u16``...); one ``uint8`` arena per
state space, viewed as the access type, serves every width without copies.
Global buffers lie at ``GLOBAL_BASE`` with guard gaps between them, so an
out-of-bounds access falls into a gap and is reported, not silently served.
"""

from __future__ import annotations

import numpy as np

GLOBAL_BASE = 1 << 44  # generic addresses at or above this are global
SHARED_BASE = 1 << 40  # generic window of the CTA's shared memory (cvta.shared)
LOCAL_BASE = 2 << 40   # generic window of the thread's local memory (cvta.local)
CONST_BASE = 3 << 40
GAP = 256              # guard bytes between global allocations (and their alignment)
MAX_ARENA = 8 << 30    # refuse launches needing more bytes than this up front


def _round(n: int, a: int) -> int:
    return (n + a - 1) // a * a


class Arena:
    """A byte array with typed views cached per dtype."""

    def __init__(self, nbytes: int, track: bool = False):
        self.bytes = np.zeros(_round(max(nbytes, 8), 8), np.uint8)
        self._views: dict = {}
        # hybrid mode: bytes whose value is unknown because a skipped store wrote them
        self.poison = np.zeros(len(self.bytes), bool) if track else None

    def _span(self, bidx, n: int) -> np.ndarray:
        b = np.atleast_1d(np.asarray(bidx, np.int64))
        return (b[:, None] + np.arange(n)[None, :]).reshape(-1) if n > 1 else b

    def taint(self, bidx, n: int) -> None:
        if self.poison is not None:
            self.poison[self._span(bidx, n)] = True

    def clean(self, bidx, n: int) -> None:
        if self.poison is not None:
            self.poison[self._span(bidx, n)] = False

    def dirty(self, bidx, n: int) -> bool:
        return self.poison is not None and bool(self.poison[self._span(bidx, n)].any())

    def view(self, dt: np.dtype) -> np.ndarray:
        v = self._views.get(dt)
        if v is None:
            v = self._views[dt] = self.bytes.view(dt)
        return v


class GlobalMemory:
    """Kernel buffers (and module ``.global`` variables) in one arena."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.names: list[str] = []
        self.size = 0
        self.arena: Arena | None = None
        self._pending: list[tuple[int, np.ndarray | bytes]] = []

    def allocate(self, name: str, nbytes: int, data: np.ndarray | bytes | None = None) -> int:
        """Reserve ``nbytes``; returns the device (generic) address."""
        off = self.size
        self.starts.append(off)
        self.ends.append(off + nbytes)
        self.names.append(name)
        self.size = _round(off + nbytes, GAP) + GAP
        if data is not None:
            self._pending.append((off, data))
        return GLOBAL_BASE + off

    def finish(self, track: bool = False) -> None:
        self.arena = Arena(self.size, track)
        for off, data in self._pending:
            raw = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else \
                np.ascontiguousarray(data).view(np.uint8).reshape(-1)
            if raw.any():          # the arena starts zeroed (untouched pages): zeros cost nothing
                self.arena.bytes[off:off + len(raw)] = raw
        self._pending = []
        self._starts = np.array(self.starts, np.int64)
        self._ends = np.array(self.ends, np.int64)

    def read_back(self, addr: int, like: np.ndarray) -> np.ndarray:
        off = addr - GLOBAL_BASE
        nb = like.nbytes
        return self.arena.bytes[off:off + nb].copy().view(like.dtype).reshape(like.shape)

    def span_ok(self, lo: int, hi: int, nbytes: int) -> bool:
        """True when byte offsets ``lo``..``hi`` (+nbytes) lie in one allocation."""
        import bisect
        k = bisect.bisect_right(self.starts, lo) - 1
        return k >= 0 and lo >= 0 and hi + nbytes <= self.ends[k]

    def check(self, off: np.ndarray, nbytes: int) -> np.ndarray:
        """Mask of the byte offsets whose ``nbytes`` access lies inside one allocation."""
        k = np.searchsorted(self._starts, off, side="right") - 1
        ok = k >= 0
        kk = np.where(ok, k, 0)
        return ok & (off + nbytes <= self._ends[kk]) & (off >= 0)

    def owner(self, off: int) -> str:
        for s, e, n in zip(self.starts, self.ends, self.names):
            if s <= off < e + GAP:
                return f"{n} [{s + GLOBAL_BASE:#x}, {e + GLOBAL_BASE:#x})"
        return "no allocation"
