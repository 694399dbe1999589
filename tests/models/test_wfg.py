"""The WFG model (Eqs. 30-36), its problems (Fig. 6, Eqs. 37-40) and WFG* (Eqs. 41-42)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.models import volkov, wfg
from pipeperf.models.params import kernel_params

from model_test_helpers import chain_kernel, example, two_class_gpu

W = np.arange(1.0, 9.0)


def test_wfg_of_the_example_kernel():
    """Fig. 5: {c1 -> c2} (ILP 1), m1 -> {c3, c4} (ILP 2), m2 -> exit."""
    kp = example()
    nodes = wfg.wfg_of(kp.kernel.idgs[0], kp)
    assert [(n.kind, n.alpha, n.ilp) for n in nodes] == [("comp", 2, 1), ("mem", 1, 1), ("comp", 2, 2), ("mem", 1, 1)]
    assert nodes[1].dep_target == 2 and nodes[3].dep_target == 4


def test_example_cycles_per_warp_by_hand():
    """omega = 3: arcs 2*4/3 and 2*max(1, 4/6) = 2, CYC_comp = 8/3 + 2 + 1*2 = 20/3 (Eq. 31),
    lambda_mem^trans = 1 (Eq. 34), NBC_avg = 20/9 (Eq. 35), Lambda_exposed = 6 - 40/9 (Eq. 36)."""
    c = wfg.predict(example(), np.array([1.0, 3.0, 4.0]))
    assert c.details["CYC_comp"] == pytest.approx([14, 20 / 3, 6])
    assert c.details["NBC_avg"] == pytest.approx([14 / 3, 20 / 9, 2])
    assert c.details["lambda_mem_trans"] == pytest.approx([1, 1, 1])
    assert c.details["Lambda_exposed"]["1"] == pytest.approx([6, 6 - 40 / 9, 0])
    assert c.details["CPW"] == pytest.approx([8 + 4 + 2 * 6, 8 / 3 + 2 + 2 * (6 - 40 / 9), 2 + 2 + 2 * 1])


def test_example_is_slightly_above_volkov_at_three_and_four_warps():
    """Sec. 2.4.4: all compute cycles hide memory latency, also those already hiding compute latency."""
    w = np.array([3.0, 4.0])
    assert np.all(wfg.predict(example(), w).warps_per_cycle > volkov.predict(example(), w).warps_per_cycle)
    assert np.all(wfg.predict_corrected(example(), w).warps_per_cycle < volkov.predict(example(), w).warps_per_cycle)


def test_corrected_example_by_hand():
    """omega = 4, lambda_mem^instr = 0: CYC_comp = 4, NBC_avg = 4/3, Eq. 42 gives 1.5 for both loads."""
    c = wfg.predict_corrected(example(), np.array([4.0]))
    assert c.details["Lambda_exposed"]["1"] == pytest.approx([1.5])
    assert c.details["Lambda_exposed"]["3"] == pytest.approx([1.5])
    assert c.details["CPW"] == pytest.approx([7.0])
    assert c.details["Lambda_exposed_eq41"]["1"] == pytest.approx([(6 - 3 * 4 / 3) / 4])   # Eq. 41


# Fig. 6: alpha_mem = 1, ILP = 1, negligible CPIs; (alpha_comp, Lambda_comp, Lambda_mem)
FIG6 = {"case1": (2, 4.0, 6.0), "case2": (1, 11.0, 3.0), "case3": (1, 3.0, 11.0)}
TINY = 1e-7


def fig6(case: str):
    n, Lam_c, Lam_m = FIG6[case]
    return kernel_params(chain_kernel(["comp"] * n + ["mem"]), two_class_gpu(TINY, Lam_c, TINY, Lam_m))


def eq40(case: str, w: np.ndarray) -> np.ndarray:
    n, Lam_c, Lam_m = FIG6[case]
    a = n * Lam_c
    return a + Lam_m * w - (w - 1) * a / 2                                   # Eq. 40


@pytest.mark.parametrize("case", sorted(FIG6))
def test_fig6_volkov_gives_14_cycles_per_run_everywhere(case):
    c = volkov.predict(fig6(case), W)
    assert W / c.warps_per_cycle == pytest.approx(np.full(len(W), 14.0))


def test_fig6_case2_cycles_per_run_fall_with_occupancy():
    """Compute-intensive case: two warps 'run faster' than one -- impossible."""
    cpr = W / wfg.predict(fig6("case2"), W).warps_per_cycle
    assert cpr[:2] == pytest.approx(eq40("case2", W[:2]), rel=1e-5)          # 14, 11.5
    assert cpr[1] < cpr[0] and cpr[2] < cpr[0]


@pytest.mark.parametrize("case", ["case1", "case3"])
def test_fig6_cases_1_and_3_follow_eq40(case):
    cpr = W / wfg.predict(fig6(case), W).warps_per_cycle
    assert cpr == pytest.approx(eq40(case, W), rel=1e-5)
    assert np.all(np.diff(cpr) > 0)                  # case 3 grows fast: 14, 23.5, 33, ...


@pytest.mark.parametrize("case", sorted(FIG6))
def test_fig6_corrected_wfg_never_falls_and_matches_volkov(case):
    cpr = W / wfg.predict_corrected(fig6(case), W).warps_per_cycle
    assert np.all(np.diff(cpr) >= -1e-6)
    assert cpr == pytest.approx(np.full(len(W), 14.0), rel=1e-5)


def test_memory_node_without_users_depends_on_the_exit():
    kp = kernel_params(chain_kernel(["mem", "comp"]), two_class_gpu(1, 4, 2, 6))
    nodes = wfg.wfg_of(kp.kernel.idgs[0], kp)
    assert nodes[0].dep_target == 1
    store_last = kernel_params(chain_kernel(["comp", "mem"]), two_class_gpu(1, 4, 2, 6))
    assert wfg.wfg_of(store_last.kernel.idgs[0], store_last)[1].dep_target == 2


def test_weighted_mean_transition_latency_eq32():
    """omega = 1: arcs 8 and 4 over alpha_comp = 4 instructions -> 3 cycles per instruction."""
    c = wfg.predict(example(), np.array([1.0]))
    assert c.details["lambda_comp_trans_mean"] == pytest.approx([3.0])
