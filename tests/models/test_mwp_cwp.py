"""MWP-CWP (Eqs. 15-28) and MWP-CWP* (Sec. 5.1) on the example kernel."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.idg import IDG, KernelGraph
from pipeperf.models import mwp_cwp, volkov
from pipeperf.models.params import kernel_params

from model_test_helpers import example, two_class_gpu

W = np.arange(1.0, 13.0)


def test_example_is_memory_bound_with_mwp_3_and_cwp_4():
    """Sec. 2.3.2: MWP = 6/2 = 3 < CWP = 6/2 + 1 = 4."""
    c = mwp_cwp.predict(example(), W)
    assert c.details["MWP"] == 3 and c.details["CWP"] == 4
    assert c.details["case"][:3] == ["occupancy"] * 3          # omega <= min(MWP, CWP)
    assert set(c.details["case"][3:]) == {"memory"}


def test_cycles_per_run_by_hand():
    c = mwp_cwp.predict(example(), W)
    cpr = W / c.warps_per_cycle
    # Eq. 28: Lambda*_app = 2*6 + 4*1 = 16, plus CI * lambda_comp = 2 per extra warp
    assert cpr[:3] == pytest.approx([16, 18, 20])
    # Eq. 26: alpha_mem * omega * lambda_mem + CI * lambda_comp * MWP = 4 omega + 6
    assert cpr[3:] == pytest.approx(4 * W[3:] + 6)


def test_above_volkov_at_low_occupancy():
    """Sec. 2.3.2: computational latencies are ignored, so MWP-CWP beats Volkov at low omega."""
    above = mwp_cwp.predict(example(), W).warps_per_cycle > volkov.predict(example(), W).warps_per_cycle
    assert above.tolist() == [True] * 4 + [False] * 8      # 4/22 > 4/25, but 5/26 < 5/25


def test_corrected_model_takes_the_largest_case_with_lambda_app():
    c = mwp_cwp.predict_corrected(example(), W)
    cpr = W / c.warps_per_cycle
    expected = np.maximum.reduce([4 * W + 6, 4 * W + 6, 25 + 2 * (W - 1)])   # Eqs. 26, 27, 28 with Eq. 2
    assert cpr == pytest.approx(expected)
    assert c.warps_per_cycle[0] == pytest.approx(1 / 25)
    assert np.all(c.warps_per_cycle <= volkov.predict(example(), W).warps_per_cycle + 1e-12)


def test_compute_bound_case():
    """CI large: CWP = Lambda_mem / (CI lambda_comp) + 1 < MWP -> Eq. 27 once omega > CWP."""
    classes = ["comp"] * 8 + ["mem"]
    ids = [f"i{k}" for k in range(9)]
    kg = KernelGraph.single(IDG.from_nodes("ci8", ids, classes, [[]] + [[ids[k - 1]] for k in range(1, 9)]))
    kp = kernel_params(kg, two_class_gpu(1, 4, 1, 16))      # MWP = 16, CWP = 16/8 + 1 = 3
    c = mwp_cwp.predict(kp, np.array([2.0, 3.0, 4.0, 8.0]))
    assert c.details["case"] == ["occupancy", "occupancy", "compute", "compute"]
    assert (np.array([4.0, 8.0]) / c.warps_per_cycle[2:]) == pytest.approx(8 * np.array([4.0, 8.0]) + 16)


def test_kernel_without_memory_is_unsupported():
    kg = KernelGraph.single(IDG.from_nodes("c", ["a"], ["comp"], [[]]))
    kp = kernel_params(kg, two_class_gpu(1, 4, 2, 6))
    for fn in (mwp_cwp.predict, mwp_cwp.predict_corrected):
        c = fn(kp, W)
        assert c.warps_per_cycle is None and "memory" in c.unsupported
