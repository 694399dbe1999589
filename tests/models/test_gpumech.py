"""GPUMech RR and GTO with Volkov's typo corrections, and GPUMech(RR)* (Sec. 2.5)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.models import gpumech, volkov
from pipeperf.models.params import kernel_params, node_timing

from model_test_helpers import chain_kernel, example, two_class_gpu

W = np.arange(1.0, 17.0)


def huang_fig8():
    """GPUMech's Fig. 8: one interval of 3 instructions and 6 stall cycles."""
    return kernel_params(chain_kernel(["comp"] * 3 + ["mem"]), two_class_gpu(1, 1, 1, 6))


def test_intervals_of_the_example_kernel():
    """Computational latencies ignored: {c1, c2, m1} + 6 stall cycles, {c3, c4, m2} + 6."""
    kp = example()
    idg = kp.kernel.idgs[0]
    ivs = gpumech.intervals(idg, node_timing(idg, kp.gpu))
    assert [(iv.insts, iv.issue, iv.stall) for iv in ivs] == [(2, 2, 6), (2, 2, 6)]


def test_issue_probability_and_nonoverlapped_instructions_of_sec_2_5_1():
    """Issue probability 3 / (3 + 6); four warps: 2 non-overlapped instructions (Eq. 11)
    where GPUMech's Fig. 8 shows 6, which the corrected RR* gives."""
    kp = huang_fig8()
    w = np.array([4.0])
    rr = gpumech.predict_rr(kp, w)
    assert rr.details["issue_prob"] == pytest.approx(1 / 3)
    assert rr.details["CPR"] == pytest.approx([3 + 6 + 2])                # 12 instructions in 11 cycles
    assert gpumech.predict_rr_corrected(kp, w).details["CPR"] == pytest.approx([3 + 6 + 6])


def test_rr_goes_through_the_roof_and_rr_star_does_not():
    kp = example()
    roof = volkov.predict(kp, W).details["WPC_roof"]
    assert gpumech.predict_rr(kp, W).warps_per_cycle.max() > 2 * roof
    rr_star = gpumech.predict_rr_corrected(kp, W).warps_per_cycle
    assert np.all(rr_star <= roof + 1e-12) and rr_star[-1] == pytest.approx(roof)


def test_gto_converges_to_volkov_without_computational_latencies():
    """Sec. 2.5.2: issue probability ~1, so GTO = min(roof, omega / Lambda*_app) with
    Lambda*_app = 1 + 1 + 6 + 1 + 1 + 6 = 16; it reaches Volkov's roof."""
    kp = example()
    gto = gpumech.predict_gto(kp, W)
    assert gto.details["issue_prob_in_stall"] == pytest.approx([1, 1])
    assert gto.warps_per_cycle == pytest.approx(np.minimum(0.25, W / 16))
    assert np.all(gto.warps_per_cycle >= volkov.predict(kp, W).warps_per_cycle)
    assert gto.warps_per_cycle[-1] == volkov.predict(kp, W).warps_per_cycle[-1]


def test_consecutive_stalls_merge_into_one_interval():
    kp = kernel_params(chain_kernel(["comp", "mem", "mem", "comp"]), two_class_gpu(1, 1, 1, 6))
    idg = kp.kernel.idgs[0]
    ivs = gpumech.intervals(idg, node_timing(idg, kp.gpu))
    assert [(iv.insts, iv.stall) for iv in ivs] == [(1, 12), (1, 0)]


def test_a_warp_class_with_no_intervals_costs_nothing_and_warns_nothing():
    """An empty IDG (a warp with nothing to issue) gave 0/0 in Eq. 9 and NumPy warnings on stderr."""
    import warnings

    import numpy as np

    from pipeperf.models.gpumech import cpr_gto, cpr_rr

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (cpr_rr, cpr_gto):
            cycles, details = fn([], np.array([1.0, 4.0]))
            assert cycles.tolist() == [0.0, 0.0] and details["issue_prob"] == 1.0
