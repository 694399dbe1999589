"""Device memory of one launch: global arena, per-CTA shared, per-thread local, const.

Why byte arenas: PTX addresses are byte addresses and the same bytes are read
with different types (``ld.v4.f32``, ``ld.u16``...); one ``uint8`` arena per
state space, viewed as the access type, serves every width without copies.
Global buffers lie at ``GLOBAL_BASE`` with guard gaps between them, so an
out-of-bounds access falls into a gap and is reported, not silently served.

Why memory costs what is touched: the arena is ``np.zeros`` (the OS maps its pages on first
write, so untouched bytes cost nothing) and generated inputs (``rand:f64:N``...,
:class:`~pipeperf.emulate.launch.GeneratedBuffer`) are written into it page by page when an
access first reaches them (:meth:`GlobalMemory.touch`), not when the launch is laid out: a
streaming kernel over 1 GiB buffers of which a few sampled CTAs are emulated touches megabytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from pipeperf.errors import PipeperfError

try:                                    # setup.py builds it; else GlobalMemory.check's NumPy path
    from pipeperf.emulate import _bounds  # the C extension (no stub)
except ImportError:
    _bounds = None

if TYPE_CHECKING:
    from pipeperf.emulate.launch import GeneratedBuffer

GLOBAL_BASE = 1 << 44  # generic addresses at or above this are global
SHARED_BASE = 1 << 40  # generic window of the CTA's shared memory (cvta.shared)
LOCAL_BASE = 2 << 40   # generic window of the thread's local memory (cvta.local)
CONST_BASE = 3 << 40
GAP = 256              # guard bytes between global allocations (and their alignment)
MAX_ARENA = 256 << 30  # refuse launches needing more bytes than this up front (the GPU's own memory is
                       # checked against its database size before: analyze.check_device_memory)
LAZY_ARENA = 1 << 30   # arenas at least this large are mapped without reserving swap (pages on first touch)
SINK = 256             # bytes of each out-of-bounds sink (--oob warn): the widest access of one thread
PAGE_SHIFT = 16        # arena pages whose generated inputs are made on first touch (64 KiB)


def _round(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _zeros(n: int, dtype) -> np.ndarray:
    """``n`` zeros whose pages cost memory only when touched. Large arenas are an anonymous private
    mapping without a swap reservation (Linux MAP_NORESERVE): ``np.zeros`` of more than the
    machine's memory is refused by the kernel's overcommit check even though a sampled launch
    touches a few megabytes of a 17 GB buffer."""
    import mmap
    import sys

    if n < LAZY_ARENA or not sys.platform.startswith("linux"):
        return np.zeros(n, dtype)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0x4000)
    return np.frombuffer(mmap.mmap(-1, n * np.dtype(dtype).itemsize, flags=flags), dtype)


class Arena:
    """A byte array with typed views cached per dtype."""

    def __init__(self, nbytes: int, track: bool = False):
        if nbytes > MAX_ARENA:          # a shared/local/constant window the kernel declares too large
            raise PipeperfError(f"the launch needs {nbytes:,} bytes of one memory space, more than the "
                                f"emulator's {MAX_ARENA >> 30} GiB")
        self.bytes = _zeros(_round(max(nbytes, 8), 8), np.uint8)
        self._views: dict = {}
        # hybrid mode: bytes whose value is unknown because a skipped store wrote them
        self.poison = _zeros(len(self.bytes), bool) if track else None
        self.tainted = False            # any byte ever poisoned: else a load need not look (most of them)

    def _span(self, bidx, n: int) -> np.ndarray:
        b = np.atleast_1d(np.asarray(bidx, np.int64))
        return (b[:, None] + np.arange(n)[None, :]).reshape(-1) if n > 1 else b

    def taint(self, bidx, n: int) -> None:
        if self.poison is not None:
            self.poison[self._span(bidx, n)] = True
            self.tainted = True

    def clean(self, bidx, n: int) -> None:
        if self.tainted:
            self.poison[self._span(bidx, n)] = False       # type: ignore[index]  # tainted: poison is there

    def dirty(self, bidx, n: int) -> bool:
        return self.tainted and bool(self.poison[self._span(bidx, n)].any())    # type: ignore[index]  # as above

    def view(self, dt: np.dtype) -> np.ndarray:
        v = self._views.get(dt)
        if v is None:
            v = self._views[dt] = self.bytes.view(dt)
        return v


class GlobalMemory:
    """Kernel buffers (and module ``.global`` variables) in one arena."""

    def __init__(self, oob_sinks: bool = False) -> None:
        """``oob_sinks`` (``--oob warn``): two scratch blocks past the buffers that out-of-bounds
        accesses are sent to (:meth:`sink`) instead of faulting: loads to one never written, so
        they read zeros, stores to another, so they change no buffer."""
        self.oob_sinks = oob_sinks
        self.sinks = (0, 0)
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.names: list[str] = []
        self.size = 0
        self.arena: Arena | None = None
        self._pending: list[tuple[int, np.ndarray | bytes | GeneratedBuffer]] = []

    def allocate(self, name: str, nbytes: int, data: np.ndarray | bytes | GeneratedBuffer | None = None) -> int:
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
        if self.oob_sinks:
            self.sinks = (self.size, self.size + SINK + GAP)
            self.size += 2 * (SINK + GAP)
        self.arena = Arena(self.size, track)
        # generated inputs: (arena offset, buffer, its pages already made); ``todo`` marks the
        # arena pages some of whose generated bytes are not made yet
        self._lazy: list[tuple[int, GeneratedBuffer, np.ndarray]] = []
        self.todo = np.zeros((len(self.arena.bytes) >> PAGE_SHIFT) + 1, bool)
        self.pages_made = 0
        for off, data in self._pending:
            if getattr(data, "generated", False):
                gen = cast("GeneratedBuffer", data)
                if gen.kind != "zeros" and gen.count:   # the arena is zeroed already
                    self._lazy.append((off, gen, np.zeros(gen.n_pages, bool)))
                    self.todo[off >> PAGE_SHIFT:((off + gen.nbytes - 1) >> PAGE_SHIFT) + 1] = True
                continue
            raw = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else \
                np.ascontiguousarray(data).view(np.uint8).reshape(-1)
            if raw.any():          # the arena starts zeroed (untouched pages): zeros cost nothing
                self.arena.bytes[off:off + len(raw)] = raw
        self._pending = []
        self._starts = np.array(self.starts, np.int64)
        self._ends = np.array(self.ends, np.int64)

    def touch(self, off: np.ndarray | None, nbytes: int, lo: int | None = None,
              hi: int | None = None) -> None:
        """Make the generated bytes of every arena page that accesses of ``nbytes`` at byte
        offsets ``off`` (checked in bounds; ``lo``/``hi`` their min/max if known; ``off`` None:
        every byte from ``lo`` to ``hi + nbytes``) reach, before the access reads or writes them."""
        if not self._lazy:
            return
        if lo is None:
            lo, hi = int(np.min(off)), int(np.max(off))  # type: ignore[arg-type]  # off: given without lo
        p0, p1 = lo >> PAGE_SHIFT, (hi + nbytes - 1) >> PAGE_SHIFT  # type: ignore[operator]  # hi: given with lo
        if not self.todo[p0:p1 + 1].any():
            return
        if p1 - p0 < 4 or off is None:
            pages = np.arange(p0, p1 + 1)
        else:
            off = np.asarray(off, np.int64)
            pages = off >> PAGE_SHIFT
            if nbytes > 1:
                pages = np.concatenate((pages, (off + (nbytes - 1)) >> PAGE_SHIFT))
            pages = np.unique(pages)
        for p in pages[self.todo[pages]].tolist():
            self._make_page(p)

    def _make_page(self, p: int) -> None:
        """Write the generated values of the buffers' pages overlapping arena page ``p``. A
        buffer page is made at the first touch of any arena page it overlaps, so no access has
        reached its bytes yet and writing it whole overwrites nothing."""
        a0, a1 = p << PAGE_SHIFT, (p + 1) << PAGE_SHIFT
        assert self.arena is not None          # finish() made it
        mem = self.arena.bytes
        for off, buf, made in self._lazy:
            b0, b1 = max(a0, off) - off, min(a1, off + buf.nbytes) - off
            if b0 >= b1:
                continue
            size = buf.page_elems * buf.dtype.itemsize
            for q in range(b0 // size, (b1 - 1) // size + 1):
                if not made[q]:
                    vals = buf.page(q)
                    mem[off + q * size:off + q * size + vals.nbytes] = vals.view(np.uint8)
                    made[q] = True
                    self.pages_made += 1
        self.todo[p] = False

    def read_back(self, addr: int, like: np.ndarray) -> np.ndarray:
        off = addr - GLOBAL_BASE
        nb = like.nbytes
        if nb:
            self.touch(None, nb, off, off)
        assert self.arena is not None          # finish() made it
        return self.arena.bytes[off:off + nb].copy().view(like.dtype).reshape(like.shape)

    def span_ok(self, lo: int, hi: int, nbytes: int) -> bool:
        """True when byte offsets ``lo``..``hi`` (+nbytes) lie in one allocation."""
        import bisect
        k = bisect.bisect_right(self.starts, lo) - 1
        return k >= 0 and lo >= 0 and hi + nbytes <= self.ends[k]

    def check(self, off: np.ndarray, nbytes: int) -> np.ndarray:
        """Mask of the byte offsets whose ``nbytes`` access lies inside one allocation (in C where
        the extension is built: one pass instead of a search and three masks)."""
        if _bounds is not None and off.ndim == 1 and off.dtype == np.int64 and off.flags.c_contiguous:
            ok = np.empty(len(off), bool)
            _bounds.in_allocations(off, nbytes, self._starts, self._ends, ok)
            return ok
        k = np.searchsorted(self._starts, off, side="right") - 1
        ok = k >= 0
        kk = np.where(ok, k, 0)
        return ok & (off + nbytes <= self._ends[kk]) & (off >= 0)

    def sink(self, load: bool) -> int:
        """The arena offset out-of-bounds loads (``load``) or stores and atomics are sent to."""
        return self.sinks[0] if load else self.sinks[1]

    def owner(self, off: int) -> str:
        for s, e, n in zip(self.starts, self.ends, self.names):
            if s <= off < e + GAP:
                return f"{n} [{s + GLOBAL_BASE:#x}, {e + GLOBAL_BASE:#x})"
        return "no allocation"
