"""Bank conflicts of wmma fragments counted row by row (one row per warp's request, issue 39) equal
the general per-(warp, word) count of :func:`~pipeperf.emulate.memops.bank_conflicts`."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pipeperf.emulate.memops import bank_conflicts, row_conflicts


@pytest.mark.parametrize("seed", range(6))
def test_row_conflicts_equal_the_general_count(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        nw, e, size = int(rng.integers(1, 6)), int(rng.choice([4, 8, 16])), int(rng.choice([2, 4]))
        n = nw * 32
        stride = np.uint64(rng.integers(1, 40))
        base = (rng.integers(0, 4096, size=n).astype(np.uint64) if trial % 2 else
                np.arange(n, dtype=np.uint64) * stride) * np.uint64(size)
        addr = (base[:, None] + rng.integers(0, 64, size=(n, e)).astype(np.uint64) * np.uint64(size)).reshape(-1)
        general = bank_conflicts(SimpleNamespace(block_threads=256), SimpleNamespace(wid=np.arange(n) // 32),
                                 np.repeat(np.arange(n), e), addr, size)
        assert row_conflicts((addr >> np.uint64(2)).reshape(nw, -1)) == general
    assert general >= 0
