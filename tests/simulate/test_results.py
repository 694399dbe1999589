"""Derived outputs: seconds, warps per cycle, IPC, busy fractions, profiles, the example kernel."""

import pytest

from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.paper_kernels import example_kernel
from pipeperf.simulate import simulate


def test_example_kernel_single_warp_is_lambda_app():
    """One warp in isolation takes Lambda_app = 25 cycles (Sec. 2.2 of the paper)."""
    r = simulate(example_kernel(), load_gpu("example_table2"), 1, 1, profile=True)
    assert r.cycles == 25
    assert list(r.profile.issue) == [0, 4, 8, 14, 15, 19]


def test_derived_quantities_are_consistent():
    gpu = load_gpu("example_table2")
    r = simulate(example_kernel(), gpu, 1, 10)
    assert r.seconds == pytest.approx(r.cycles / (gpu.clock_ghz * 1e9))
    assert r.warps_per_cycle == pytest.approx(10 / r.cycles)
    assert r.ipc == pytest.approx(60 / r.cycles)
    assert r.subsystem_busy["alu"] == pytest.approx(40 * 1 / r.cycles)
    assert r.subsystem_busy["mem"] == pytest.approx(20 * 2 / r.cycles)
    # at high occupancy both pipelines approach saturation (ridge point, Sec. 2.1)
    many = simulate(example_kernel(), gpu, 1, 40, total_groups=1600)
    assert many.warps_per_cycle == pytest.approx(0.25, rel=0.02)


def test_a_warp_issues_at_most_once_per_cycle():
    """Fractional lambdas give sub-cycle issue times, but a warp's own issues stay a cycle apart,
    so no warp finishes faster than it would alone (the Volkov bound relies on it)."""
    import math

    import numpy as np

    from pipeperf.hardware.spec import GPUSpec, InstrClass
    from pipeperf.idg import IDG, KernelGraph

    g = GPUSpec("frac", 1, 1.0, math.inf, {"x": InstrClass("x", "p", 0.25, 6.5)})
    k = KernelGraph.single(IDG.from_nodes("two", ["a", "b"], ["x", "x"], [[], []]))
    alone = simulate(k, g, 1, 1).cycles
    r = simulate(k, g, 1, 16, total_groups=64, profile=True)
    p = r.profile
    for w in np.unique(p.warp):
        iss = np.sort(p.issue[p.warp == w])
        assert np.all(np.diff(iss) >= 1.0)
        assert p.complete[p.warp == w].max() - iss[0] >= alone - 1e-9
