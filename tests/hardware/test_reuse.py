"""The cache model's previous access in C (hardware/_reuse.c) against the sort it replaces:
the same array on random streams (few and many distinct sectors, int64 and uint64 keys, keys
whose hashes collide), and the sort where the positions are not a permutation."""

import numpy as np
import pytest

from pipeperf.hardware import cache_model
from pipeperf.hardware.cache_model import access_positions, l2_hits, previous_access

pytestmark = pytest.mark.skipif(cache_model._reuse is None, reason="the _reuse extension is not built")


def sorted_previous(sectors, pos):
    """previous_access as the NumPy path computes it (C disabled)."""
    saved, cache_model._reuse = cache_model._reuse, None
    try:
        return previous_access(sectors, pos)
    finally:
        cache_model._reuse = saved


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("distinct", [1, 7, 1000, 10**6, 2**62])
def test_previous_access_equals_the_sort(seed, distinct):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 20000))
    sectors = rng.integers(0, distinct, n).astype(np.uint64 if seed % 2 else np.int64)
    pos = access_positions(rng.integers(0, n // 3 + 1, n))        # ties kept in stream order
    fast = previous_access(sectors, pos)
    assert fast.dtype == np.int64
    np.testing.assert_array_equal(fast, sorted_previous(sectors, pos))
    np.testing.assert_array_equal(l2_hits(None, sectors, 50.0, pos),
                                  cache_model.hits_of(sorted_previous(sectors, pos), pos, 50.0))


def test_colliding_keys_and_tiny_streams():
    sectors = (np.arange(4096, dtype=np.uint64) << np.uint64(40)).repeat(3)      # same low bits
    pos = np.random.default_rng(0).permutation(len(sectors))
    np.testing.assert_array_equal(previous_access(sectors, pos), sorted_previous(sectors, pos))
    for n in (0, 1, 2):
        s, p = np.zeros(n, np.int64), np.arange(n)
        np.testing.assert_array_equal(previous_access(s, p), sorted_previous(s, p))


def test_not_a_permutation_falls_back_to_the_sort():
    sectors = np.array([5, 5, 6, 5], np.int64)
    pos = np.array([10, 30, 20, 40])                  # distinct but not 0..n-1: the sort's answer
    np.testing.assert_array_equal(previous_access(sectors, pos), [-1, 0, -1, 1])
    assert cache_model._reuse.previous_access(sectors, pos, np.empty(4, np.int64)) is False
