"""GlobalMemory.check in C (emulate/_bounds.c) against its NumPy path: the same mask for offsets
inside, between, before and past the allocations, at every access width, lanes in any order."""

import numpy as np
import pytest

from pipeperf.emulate import memory


def numpy_check(starts, ends, off, nbytes):
    k = np.searchsorted(starts, off, side="right") - 1
    ok = k >= 0
    kk = np.where(ok, k, 0)
    return ok & (off + nbytes <= ends[kk]) & (off >= 0)


@pytest.mark.skipif(memory._bounds is None, reason="the _bounds extension is not built")
@pytest.mark.parametrize("seed", range(8))
def test_in_allocations_equals_numpy(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5000, int(rng.integers(1, 8)))
    gaps = rng.integers(0, 300, len(sizes))
    starts = np.cumsum(gaps + np.r_[0, sizes[:-1]]).astype(np.int64)
    ends = (starts + sizes).astype(np.int64)
    off = rng.integers(-100, int(ends[-1]) + 100, 3000).astype(np.int64)
    if seed % 2:
        off.sort()
    for nbytes in (1, 4, 16, 64):
        ok = np.empty(len(off), bool)
        memory._bounds.in_allocations(off, nbytes, starts, ends, ok)
        np.testing.assert_array_equal(ok, numpy_check(starts, ends, off, nbytes))


@pytest.mark.skipif(memory._bounds is None, reason="the _bounds extension is not built")
@pytest.mark.parametrize("seed", range(6))
def test_span_equals_numpy(seed):
    """memops.resolve's range and alignment of a global access: (min, max) of the int64 offsets
    from GLOBAL_BASE (wrapping as NumPy's) and the OR of the addresses, addresses anywhere."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    a = (memory.GLOBAL_BASE + rng.integers(-(1 << 20), 1 << 40, n)).astype(np.uint64)
    if seed % 3 == 2:
        a[rng.integers(0, n, 3)] = np.uint64(2**64 - 8)           # huge: the int64 view wraps
    lo, hi, bits = memory._bounds.span(a, memory.GLOBAL_BASE)
    off = a.view(np.int64) - memory.GLOBAL_BASE
    assert (lo, hi) == (int(off.min()), int(off.max()))
    for nbytes in (1, 2, 4, 8, 16):
        assert bool(bits & (nbytes - 1)) == bool(np.any(a & np.uint64(nbytes - 1)))


@pytest.mark.skipif(memory._bounds is None, reason="the _bounds extension is not built")
def test_certainly_shared_only_when_every_check_passes():
    """wmma's one-pass check of a hybrid-mode shared fragment (wmma._certainly_shared): True only
    for aligned addresses in the shared window within the CTA's bytes; any doubt is False (then
    resolve decides and names the fault)."""
    from types import SimpleNamespace

    from pipeperf.emulate.wmma import _certainly_shared

    m = SimpleNamespace(layout=SimpleNamespace(shared_bytes=4096))
    S = memory.SHARED_BASE
    low = (S + np.arange(0, 2048, 16)).astype(np.uint64)
    assert _certainly_shared(m, low, S + 4096 - 2, "generic", 2)
    assert _certainly_shared(m, low - np.uint64(S), 4094, "shared", 2)
    assert not _certainly_shared(m, low, S + 4096, "generic", 2)           # past the CTA's bytes
    assert not _certainly_shared(m, low + np.uint64(1), S + 64, "generic", 2)  # misaligned lane
    assert not _certainly_shared(m, low, S + 65, "generic", 2)             # misaligned top
    bad = low.copy()
    bad[3] = memory.LOCAL_BASE                                               # a lane in the local window
    assert not _certainly_shared(m, bad, S + 64, "generic", 2)
    bad[3] = np.uint64(2**63)                                                # past the int64 range
    assert not _certainly_shared(m, bad, S + 64, "generic", 2)
    assert not _certainly_shared(m, low, S + 64, "global", 2)
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = (S + rng.integers(0, 5000, 64) * int(rng.choice([1, 2, 4]))).astype(np.uint64)
        top, size = int(a.max()) + int(rng.integers(0, 64)), int(rng.choice([2, 4, 8]))
        want = all(int(v) % size == 0 and int(v) - S + size <= 4096 for v in [*a.tolist(), top])
        assert _certainly_shared(m, a, top, "generic", size) == want
