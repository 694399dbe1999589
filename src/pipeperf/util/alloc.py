"""A steady C allocator for the emulator's per-step NumPy temporaries (glibc only).

Why: glibc serves blocks above its mmap threshold (128 KiB at start) with fresh mmaps, zeroed
by the kernel page by page, and only raises the threshold after freeing such a block. An
emulator step allocates and frees arrays of 100 KiB to a few MiB over a group's threads, so
whether the threshold has risen depends on what ran before: one change to the loop skipper's
snapshots left it low and cost wmma-gemm-2048 500 000 page faults (1 s of system time). Fixing
it where glibc's own adjustment tops out (32 MiB, trim at twice that) makes the cost steady;
larger arrays (lazily zeroed device memory) are still mmapped, so peak RSS does not change.
"""

from __future__ import annotations

import ctypes
import ctypes.util
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
