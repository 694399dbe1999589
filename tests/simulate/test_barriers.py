"""The iterative barrier kernel (Fig. 15): larger groups wait longer at each barrier."""

import numpy as np
import pytest

from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.paper_kernels import iterative_barrier
from pipeperf.simulate import simulate


@pytest.mark.parametrize("name", ["fermi_c2050", "pascal_gtx1060"])
def test_time_grows_with_group_size_at_fixed_occupancy(name):
    gpu = load_gpu(name)
    occupancy = 32
    sizes = [s for s in (1, 2, 4, 8, 16, 32) if occupancy // s <= gpu.max_groups_per_core]
    times = [simulate(iterative_barrier(64), gpu, s, occupancy // s,
                      total_groups=(occupancy // s) * gpu.cores * 2).cycles for s in sizes]
    assert np.all(np.diff(times) > 0), times
    assert times[-1] > 1.3 * times[0]


def test_barrier_releases_all_warps_together():
    gpu = load_gpu("pascal_gtx1060")
    r = simulate(iterative_barrier(3), gpu, 4, 1, total_groups=gpu.cores, profile=True)
    p = r.profile
    bar = np.array([c == "bar_sync" for c in p.class_name])
    for k in range(3):
        done = p.complete[bar & (p.instr == 2 * k + 1)]
        arrive = p.issue[bar & (p.instr == 2 * k + 1)]
        assert len(done) == 4
        assert np.all(done == done[0])                                  # one release time
        assert done[0] == pytest.approx(arrive.max() + gpu.classes["bar_sync"].latency)
        after = p.issue[p.instr == 2 * k + 2]
        assert np.all(after >= done[0])
