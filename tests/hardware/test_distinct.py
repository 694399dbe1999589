"""``accesses.distinct``: ``np.unique`` of a memory log's columns (runs of equal values) from the
runs' heads or a count, the same values, dtype and first positions."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.hardware.accesses import distinct

_RNG = np.random.default_rng(7)


@pytest.mark.parametrize("x", [
    np.repeat(_RNG.integers(0, 3000, 2000), _RNG.integers(1, 100, 2000)),     # runs (a pc column)
    _RNG.integers(0, 8192, 100_000),                                          # short runs, short range
    np.repeat(np.arange(256), 40)[_RNG.permutation(10240)] // 8,              # CTA ids of shuffled warps
    _RNG.integers(-5, 5, 1000).astype(np.int32),                              # negative values
    _RNG.integers(0, 1 << 40, 10_000),                                        # a long range: no count
    np.arange(10, dtype=np.uint64) * 7,
    np.zeros(0, np.int64),
    np.array([3, 1, 2], np.int8),
])
def test_distinct_is_unique(x):
    a, b = np.unique(x), distinct(x)
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a, b)
    (a, ai), (b, bi) = np.unique(x, return_index=True), distinct(x, return_index=True)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ai, bi)
