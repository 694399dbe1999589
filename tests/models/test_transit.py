"""Transit (Sec. 2.2.1): the crossing of two occupancy rooflines; Theorem 1."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeperf.idg import IDG, KernelGraph
from pipeperf.models import transit, volkov
from pipeperf.models.params import kernel_params

from model_test_helpers import chain_kernel, example, two_class_gpu


def test_example_splits_warps_as_eq11():
    """omega = 5: k = omega / (1 + CI Lambda_comp / Lambda_mem) = 15/7 warps wait for memory (Fig. 3)."""
    c = transit.predict(example(), np.array([5.0]))
    assert c.details["k_memory_warps"][0] == pytest.approx(15 / 7)
    assert c.details["k_eq11"][0] == pytest.approx(15 / 7)
    assert c.warps_per_cycle[0] == pytest.approx(5 / 28)          # Eq. 13: alpha_mem Lambda_mem + alpha_comp Lambda_comp = 28


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["comp", "mem"]), min_size=2, max_size=10).filter(lambda c: "comp" in c and "mem" in c),
    st.floats(0.25, 4), st.floats(0, 30), st.floats(0.25, 8), st.floats(0, 400),
    st.lists(st.integers(1, 64), min_size=1, max_size=6),
)
def test_theorem1_transit_equals_volkov_without_ilp(classes, lam_c, extra_c, lam_m, extra_m, warps):
    """No ILP (a dependence chain) and latencies >= max(CPI, 1 cycle): both give the same roofline."""
    gpu = two_class_gpu(lam_c, max(lam_c, 1.0) + extra_c, lam_m, max(lam_m, 1.0) + extra_m)
    kp = kernel_params(chain_kernel(classes), gpu)
    w = np.array(sorted(set(warps)), dtype=np.float64)
    assert transit.predict(kp, w).warps_per_cycle == pytest.approx(volkov.predict(kp, w).warps_per_cycle, rel=1e-9)


def test_with_ilp_transit_charges_full_latencies():
    kp = example()
    w = np.array([1.0, 3.0])
    assert np.all(transit.predict(kp, w).warps_per_cycle < volkov.predict(kp, w).warps_per_cycle)


def test_kernel_without_memory_is_unsupported():
    kg = KernelGraph.single(IDG.from_nodes("c", ["a", "b"], ["comp", "comp"], [[], ["a"]]))
    c = transit.predict(kernel_params(kg, two_class_gpu(1, 4, 2, 6)), np.array([1.0]))
    assert c.warps_per_cycle is None and "memory" in c.unsupported
    assert math.isnan(kernel_params(kg, two_class_gpu(1, 4, 2, 6)).lam_mem)
