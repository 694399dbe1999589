"""WFG at one occupancy on floats (models/wfg._one_omega, issue 39) equals the array path bit for bit,
its intermediate quantities included."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.models import wfg
from pipeperf.models.wfg_graph import COMP, MEM, WfgNode


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("corrected", [False, True])
def test_one_omega_equals_the_array_path(seed, corrected, monkeypatch):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(wfg.MAX_NODE_DETAILS + 1, 200))
        nodes = []
        for k in range(n):
            kind = (COMP, MEM, "sync")[int(rng.integers(0, 3))]
            nodes.append(WfgNode(kind, k, int(rng.integers(1, 9)), float(rng.uniform(1, 4)), float(rng.uniform(0.5, 8)),
                                 float(rng.uniform(1, 500)), int(rng.integers(k + 1, n + 1)) if kind == MEM else -1))
        w = np.array([float(rng.integers(1, 64))])
        lam, sync = float(rng.uniform(0, 5)), float(rng.integers(0, 3))
        fast, d_fast = wfg.warp_cycles(nodes, w, lam, sync, corrected)
        with monkeypatch.context() as mp:
            mp.setattr(wfg, "MAX_NODE_DETAILS", 10 ** 9)          # the array path
            slow, d_slow = wfg.warp_cycles(nodes, w, lam, sync, corrected)
        assert fast.dtype == slow.dtype and np.array_equal(fast, slow)
        for k, v in d_fast.items():
            assert np.array_equal(np.asarray(v), np.asarray(d_slow[k])), k
