"""A steady C allocator for the emulator's per-step NumPy temporaries (glibc only).

Why: glibc serves blocks above its mmap threshold (128 KiB at start) with fresh mmaps, zeroed
by the kernel page by page, and only raises the threshold after freeing such a block. An
emulator step allocates and frees arrays of 100 KiB to a few MiB over a group's threads, so
whether the threshold has risen depends on what ran before: one change to the loop skipper's
snapshots left it low and cost wmma-gemm-2048 500 000 page faults (1 s of system time). Fixing
it where glibc's own adjustment tops out (32 MiB, trim at twice that) makes the cost steady;
larger arrays (lazily zeroed device memory) are still mmapped, so peak RSS does not change.

NumPy also asks the kernel for transparent huge pages on its large arrays (madvise). Where the
system compacts memory for madvised regions on the fault (``defrag = madvise``, the common
default), every fresh array of hundreds of MB stalls there: covariance-768's analysis spent
2.9 s of system time with it and 1.0 s without (``NUMPY_MADVISE_HUGEPAGE=0``, 2026-11-24), so the
analysis turns it off unless the user's environment sets that variable.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20
_done = False


def steady_allocator() -> None:
    """Fix glibc's mmap and trim thresholds once per process (no-op elsewhere or on failure)."""
    global _done
    if _done or not sys.platform.startswith("linux"):
        return
    _done = True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD)
    except (OSError, AttributeError):       # musl and others have no mallopt
        pass
    if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
        import numpy as np

        core = getattr(np, "_core", None) or getattr(np, "core", None)        # NumPy 2 / 1
        setter = getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)
        if setter is not None:
            setter(False)


#: glibc's automatic trim threshold while freed pages are kept for the next analysis (:func:`keep_freed`)
KEEP_THRESHOLD = 1 << 30
_kept = False


def keep_freed() -> None:
    """Keep the heap's free pages for the next analysis (``pipeperf tune``'s variants,
    ``AnalyzeOptions.trim_heap=False``): glibc otherwise returns the heap's top to the system
    at a free whenever more than the trim threshold (64 MiB, :func:`steady_allocator`) lies free
    there, so when mapper g's columns (~10-80 MB) end up at the top, every variant maps them afresh,
    page by page (a TILE=8 variant of the tune example: 44 000 minor faults against 1 200). Peak
    RSS does not grow; between variants the process stays near it. Once per process; no-op off glibc."""
    global _kept
    if _kept or not sys.platform.startswith("linux"):
        return
    _kept = True
    steady_allocator()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_TRIM_THRESHOLD, KEEP_THRESHOLD)
    except (OSError, AttributeError):
        pass


def release_freed() -> None:
    """Give the heap's free pages back to the system (glibc ``malloc_trim``; no-op elsewhere): after
    a large structure of small arrays is dropped (the emulator's memory log), its pages stay
    resident in the heap while the next stage's large arrays are mapped afresh, so peak RSS would
    count both."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass
