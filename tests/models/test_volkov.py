"""Roofline (Eq. 1) and Volkov's occupancy roofline (Eqs. 2-3) on the example kernel,
and Volkov as an upper bound of the Pipeline simulator."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeperf.models import pipeline, roofline, volkov
from pipeperf.models.params import kernel_params
from pipeperf.simulate import PreparedKernel

from model_test_helpers import example, random_gpu, random_kernel

W = np.arange(1.0, 17.0)


def test_roofline_of_the_example_is_at_the_ridge():
    """Sec. 2.1: ridge point lambda_mem/lambda_comp = 2 = CI, IPC^roof = 1, WPC = 1/4."""
    c = roofline.predict(example(), W)
    assert c.details["ridge_CI"] == 2
    assert c.details["IPC_app_roof"] == 1
    assert np.all(c.warps_per_cycle == 0.25)


def test_volkov_reaches_the_roof_at_seven_warps():
    """Sec. 2.2: Lambda_app = 25, WPC 1/25 for one warp, the peak 1/4 at seven warps."""
    c = volkov.predict(example(), W)
    assert c.details["Lambda_app"] == 25
    assert c.warps_per_cycle[0] == pytest.approx(1 / 25)
    assert c.warps_per_cycle[5] < 0.25 and c.warps_per_cycle[6] == 0.25
    assert c.details["roof_reached_at"] == 7
    assert c.details["ridge_occupancy"] == pytest.approx(6.25)


def test_volkov_includes_the_issue_limit():
    kp = example()
    kp_il = kernel_params(kp.kernel, kp.gpu.with_issue_limit(1.0))
    c = volkov.predict(kp_il, W)
    assert c.details["bound_by"] == "issue limit"
    assert c.warps_per_cycle.max() == pytest.approx(1 / 6)         # 6 instructions at IL = 1
    assert np.all(roofline.predict(kp_il, W).warps_per_cycle == 0.25)   # the Roofline ignores it (Table 7)


@settings(max_examples=30, deadline=None)
@given(random_kernel(barriers=False), random_gpu(integer=True), st.lists(st.integers(1, 24), min_size=1, max_size=4),
       st.sampled_from(["rr", "gto"]))
def test_volkov_bounds_the_simulator_from_above(kernel, gpu, warps, scheduler):
    """Each warp needs at least Lambda_app and every subsystem (and the issue limit) caps the rate.

    Strict for whole simulations with whole-cycle parameters. (With fractional latencies a
    warp that starts mid-cycle can beat its isolated time by up to a cycle, because the
    simulator allows one issue per warp per cycle *window*.) The steady-state curve of
    :mod:`pipeperf.models.pipeline` subtracts two finite runs, whose transients differ a
    little: it stays within 1.5 % (the estimate is within 1.1 % of the true steady state,
    see benchmarks/models_steady_state.py).
    """
    kp = kernel_params(kernel, gpu)
    w = np.array(sorted(set(warps)), dtype=np.float64)
    bound = volkov.predict(kp, w).warps_per_cycle
    prep = PreparedKernel(kernel, gpu)
    for k, om in enumerate(w.astype(int)):
        whole = prep.run(1, om, om * 8, scheduler, check_limits=False).warps_per_cycle
        assert whole <= bound[k] * (1 + 1e-9)
    steady = pipeline.predict(kp, w, scheduler, runs=32).warps_per_cycle
    assert np.all(steady <= bound * 1.015)


def test_volkov_ignores_a_subsystem_that_is_never_used():
    kp = example()
    assert math.isfinite(roofline.roof(kp)[0]) and roofline.roof(kp)[1] == "alu = mem"
