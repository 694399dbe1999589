"""Eqs. 2-19 of the quantitative roofline on hand-computed examples.

Reference kernel K (fp32): M_fma32 = 600, M_fp32 = 1000, M_int = 500, M_ldst = 300,
M_inst = 100 warp instructions, 40 + 10 DRAM transactions. GPU G: T_SP = 1000, T_DP = 500,
T_int = 250, T_add = 500, T_ldst = 250 (G/s), B_mem = 100 GB/s. By hand:
W_comp = 1600, W_traf = 1600 B, E_mix = 1600/2000 = 0.8, I_total = 3200, D_ops = 0.3125,
D_ldst = 0.09375, D_other = 0.59375, W = (1, 2, 1), C = (0.3125, 0.1875, 0.59375),
E_instr = 0.3125 / 1.09375 = 2/7, T'_op = 0.8 * 2/7 * 1000 = 1600/7, O_krn = 1,
O_dev = 16/7 -> memory bound, T = 100 G/s, time = 1600 B / 100 GB/s = 16 ns.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import GpuPeaks
from pipeperf.models import quantitative as q

K = q.KernelMetrics("K", m_fma32=600, m_fma64=0, m_ldst=300, m_inst=100, m_fp32=1000, m_fp64=0,
                    m_int=500, m_tran_r=40, m_tran_w=10)
G = GpuPeaks("G", t_sp=1000, t_dp=500, t_int=250, t_add=500, t_ldst=250, b_mem=100)


def metrics(**changes: float) -> q.KernelMetrics:
    base = dict(m_fma32=600, m_fma64=0, m_ldst=300, m_inst=100, m_fp32=1000, m_fp64=0,
                m_int=500, m_tran_r=40, m_tran_w=10)
    base.update(changes)
    return q.KernelMetrics("K", **base)


def test_kernel_type_rule_prefers_fp64_then_fp32_then_int():
    assert q.kernel_type(K) == "fp32"
    assert q.kernel_type(metrics(m_fp64=1)) == "fp64"
    assert q.kernel_type(metrics(m_fp32=0, m_fma32=0)) == "int"


def test_kernel_type_refuses_half_precision_only_kernel():
    with pytest.raises(PipeperfError, match="half-precision"):
        q.kernel_type(metrics(m_fp32=0, m_fma32=0, m_fp16=64))
    # forcing a type bypasses the rule
    assert q.kernel_parameters(metrics(m_fp32=0, m_fma32=0, m_fp16=64), "int").k_type == "int"


def test_eq2_w_comp_per_type():
    assert q.w_comp(K, "fp32") == 1600  # 1000 + 600
    assert q.w_comp(metrics(m_fp64=800, m_fma64=200), "fp64") == 1000
    assert q.w_comp(K, "int") == 500


def test_eq3_w_traf_is_32_bytes_per_transaction():
    assert q.w_traf(K) == 32 * 50


def test_eq4_e_mix():
    assert q.e_mix(K, "fp32") == pytest.approx(0.8)
    assert q.e_mix(metrics(m_fp64=800, m_fma64=200), "fp64") == pytest.approx(1000 / 1600)
    assert q.e_mix(K, "int") == 0.5
    assert q.e_mix(metrics(m_fma32=1000), "fp32") == 1.0  # all multiply-adds
    with pytest.raises(PipeperfError, match="exceed"):
        q.e_mix(metrics(m_fma32=1001), "fp32")


def test_eq8_eq9_instruction_counts():
    assert q.i_ops(K, "fp32") == 1000
    assert q.i_ops(K, "int") == 500
    assert q.i_total(K) == 3200


def test_eq5_eq6_eq7_densities():
    d_ops, d_ldst, d_other = q.densities(K, "fp32")
    assert (d_ops, d_ldst, d_other) == pytest.approx((0.3125, 0.09375, 0.59375))
    d_ops, _, d_other = q.densities(K, "int")
    assert d_ops == pytest.approx(500 / 3200) and d_other == pytest.approx(1 - 800 / 3200)


def test_densities_reject_inconsistent_or_empty_counts():
    with pytest.raises(PipeperfError, match="exceed 32 x inst_executed"):
        q.densities(metrics(m_fp32=3000, m_fma32=0, m_ldst=300), "fp32")
    with pytest.raises(PipeperfError, match="inst_executed is zero"):
        q.densities(metrics(m_inst=0), "fp32")


def test_eq10_peak_by_type():
    assert (q.t_op(G, "fp32"), q.t_op(G, "fp64"), q.t_op(G, "int")) == (1000, 500, 250)


def test_eq11_eq12_eq13_weights():
    assert q.weights(G, "fp32") == pytest.approx((1.0, 2.0, 1.0))
    assert q.weights(G, "fp64")[0] == pytest.approx(2.0)
    assert q.weights(G, "int")[0] == pytest.approx(4.0)


def test_eq14_to_eq18_costs_efficiency_adjusted_peak():
    p = q.predict(K, G)
    assert (p.c_op, p.c_ldst, p.c_other) == pytest.approx((0.3125, 0.1875, 0.59375))
    assert p.e_instr == pytest.approx(2 / 7)
    assert p.t_op_adjusted == pytest.approx(1600 / 7)


def test_eq19_memory_bound():
    p = q.predict(K, G)
    assert p.params.o_krn == pytest.approx(1.0)
    assert p.o_dev == pytest.approx(16 / 7)
    assert p.bound == "memory"
    assert p.t_predicted == pytest.approx(100.0)
    assert p.predicted_seconds == pytest.approx(16e-9)


def test_eq19_compute_bound():
    p = q.predict(metrics(m_tran_r=4, m_tran_w=1), G)  # W_traf = 160 B, O_krn = 10 > 16/7
    assert p.bound == "compute"
    assert p.t_predicted == pytest.approx(1600 / 7)
    assert p.predicted_seconds == pytest.approx(1600 / (1600 / 7 * 1e9))  # 7 ns


def test_eq19_tie_is_memory_bound_and_continuous():
    # only FMAs: E_mix = E_instr = 1, T'_op = T_SP = 1000, O_dev = 10; W_comp 6400, W_traf 640
    m = metrics(m_fp32=3200, m_fma32=3200, m_int=0, m_ldst=0, m_tran_r=20, m_tran_w=0)
    p = q.predict(m, G)
    assert p.params.o_krn == p.o_dev == 10
    assert p.bound == "memory"
    assert p.predicted_seconds == pytest.approx(6400 / (1000 * 1e9))


def test_kernel_without_traffic_is_compute_bound_and_serialises():
    p = q.predict(metrics(m_tran_r=0, m_tran_w=0), G)
    assert p.bound == "compute" and math.isinf(p.params.o_krn)
    doc = p.to_dict()
    assert doc["o_krn"] == "inf"
    json.dumps(doc, allow_nan=False)


def test_kernel_without_beneficial_ops_takes_traffic_time():
    p = q.predict(metrics(m_fp32=0, m_fma32=0, m_int=0), G, "int")
    assert p.bound == "memory" and p.predicted_seconds == pytest.approx(1600 / 100e9)
    assert any("no int operations" in n for n in p.notes)


def test_forced_type_without_its_instructions_is_an_error():
    with pytest.raises(PipeperfError, match="no fp64 instructions"):
        q.predict(K, G, "fp64")


def test_prediction_dict_exposes_every_intermediate_quantity():
    doc = q.predict(K, G).to_dict()
    for key in ("predicted_seconds", "bound", "k_type", "w_comp", "w_traf", "e_mix", "d_ops",
                "d_ldst", "d_other", "w_op", "w_ldst", "w_other", "c_op", "c_ldst", "c_other",
                "e_instr", "t_op", "t_op_adjusted", "o_krn", "o_dev", "t_predicted"):
        assert key in doc, key
    assert json.loads(json.dumps(doc)) == doc


def test_negative_count_is_refused():
    with pytest.raises(PipeperfError, match="not a count"):
        metrics(m_int=-1)


counts = st.integers(min_value=0, max_value=10**9)


@settings(max_examples=60, deadline=None)
@given(fma=counts, extra=counts, ints=counts, ldst=counts, slack=counts, rd=counts, wr=counts,
       t_sp=st.floats(100, 1e5), ratio=st.floats(0.01, 1), t_ldst=st.floats(10, 1e4),
       t_add=st.floats(10, 1e5), b_mem=st.floats(10, 5000))
def test_prediction_is_min_of_adjusted_roofs_and_never_beats_plain_roofline(
        fma, extra, ints, ldst, slack, rd, wr, t_sp, ratio, t_ldst, t_add, b_mem):
    fp32 = fma + extra + 1
    warp = math.ceil((fp32 + ints + ldst + slack) / 32) + 1
    m = q.KernelMetrics("k", m_fma32=fma, m_fma64=0, m_ldst=ldst, m_inst=warp, m_fp32=fp32,
                        m_fp64=0, m_int=ints, m_tran_r=rd, m_tran_w=wr)
    g = GpuPeaks("g", t_sp=t_sp, t_dp=t_sp * ratio, t_int=t_sp * ratio, t_add=t_add,
                 t_ldst=t_ldst, b_mem=b_mem)
    p = q.predict(m, g)
    w_comp, w_traf = fp32 + fma, 32 * (rd + wr)
    expected = max(w_comp / (p.t_op_adjusted * 1e9), w_traf / (b_mem * 1e9))
    assert p.predicted_seconds == pytest.approx(expected, rel=1e-9)
    plain = max(w_comp / (t_sp * 1e9), w_traf / (b_mem * 1e9))
    assert p.predicted_seconds >= plain * (1 - 1e-12)
    assert 0 < p.e_instr <= 1 and 0.5 <= p.params.e_mix <= 1
