"""GPUMech's intervals walked on lists (models/gpumech.intervals, issue 39) equal the NumPy walk they
replaced, interval for interval."""

from __future__ import annotations

import numpy as np
import pytest

from model_test_helpers import random_timed_idgs

from pipeperf.idg.graph import IDG
from pipeperf.models.gpumech import Interval, _close, intervals
from pipeperf.models.params import NodeTiming


def _reference(idg: IDG, t: NodeTiming) -> list[Interval]:
    cost = np.where(t.mem, 0.0, t.lam)
    ready_after = np.where(t.mem, t.Lam, t.lam)
    done = np.zeros(len(idg))
    out: list[Interval] = []
    n_i, issue_i, clock = 0, 0.0, 0.0
    for i in range(len(idg)):
        deps = idg.deps_of(i)
        start = max(clock, float(done[deps].max()) if len(deps) else 0.0)
        if start > clock:
            _close(out, n_i, issue_i, start - clock)
            n_i, issue_i = 0, 0.0
        done[i] = start + ready_after[i]
        clock = start + cost[i]
        if not t.mem[i]:
            n_i += 1
            issue_i += float(cost[i])
    end = float(done.max()) if len(done) else 0.0
    _close(out, n_i, issue_i, max(0.0, end - clock))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_intervals_equal_the_reference(seed):
    for idg, t in random_timed_idgs(seed, 30, 150, mem_share=0.3):
        assert intervals(idg, t) == _reference(idg, t)
