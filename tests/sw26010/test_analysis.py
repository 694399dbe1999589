"""Sec. IV analyses: DMA granularity (Eq. 13), double buffering (Eq. 14), active CPEs (Eq. 15)."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.sw26010.analysis import active_cpes, analyze, dma_granularity, double_buffer
from pipeperf.sw26010.kernel import load_kernel
from pipeperf.sw26010.model import predict

from .helpers import kernel_from_text


def _spec(size: int, count: int, floating: float, cpes: int = 64, direction: str = "in"):
    return kernel_from_text(f"""
kernel: a
active_cpes: {cpes}
dma: [{{name: r, direction: {direction}, size: {size}, count: {count}}}]
compute: {{blocks: [{{count: 1, floating: {floating}, ilp: 1}}]}}
""")


def test_eq13_smaller_requests_increase_overlap():
    # Two 4 KB requests -> 32 requests of 256 B: saving (1/2 - 1/32) x T_DMA (Eq. 13).
    p = predict(_spec(4096, 2, 100000))
    a = dma_granularity(p)
    assert a.details["dma_reqs_before"] == 2 and a.details["dma_reqs_after"] == 32
    assert a.saving_us == pytest.approx((1 / 2 - 1 / 32) * p.us("t_dma"))
    assert a.predicted_us == pytest.approx(p.t_total_us - a.saving_us)
    assert "Eq. 8" in a.explanation


def test_eq13_custom_granularity_and_below_trans_size_refused():
    p = predict(_spec(4096, 2, 100000))
    assert dma_granularity(p, 1024).details["dma_reqs_after"] == 8
    with pytest.raises(PipeperfError, match="below Trans_size"):
        dma_granularity(p, 128)


def test_eq13_no_gain_for_requests_already_at_transaction_size():
    a = dma_granularity(predict(_spec(256, 10, 100000)))
    assert a.saving_us == 0 and "cannot be split" in a.explanation


def test_eq13_saving_capped_by_exposed_computation():
    # Scenario 2: T_overlap = T_comp already, so more overlap cannot shorten the run (Eq. 7).
    p = predict(_spec(4096, 2, 1))
    assert p.terms["scenario"] == 2
    assert dma_granularity(p).saving_us == 0


def test_eq14_no_benefit_in_scenario2():
    p = predict(_spec(4096, 40, 10))
    assert p.terms["scenario"] == 2
    a = double_buffer(p)
    assert a.saving_us == 0 and "Scenario 2" in a.explanation


def test_eq14_bounded_by_exposed_computation():
    # 64 CPEs x 4 requests of 8 KB: T_DMA = 4 x 64 x 32 x 11.6 = 95027 cycles, NG = 16,
    # T_DMA_ov = (15/16)(3/4) T_DMA = 66816; T_comp = 7700 x 9 = 69300 leaves 2484 cycles
    # exposed, less than one group's copy-in (95027 / 16 = 5939).
    p = predict(_spec(8192, 4, 7700))
    a = double_buffer(p)
    room = p.us("t_comp") - p.us("t_overlap")
    assert p.terms["scenario"] == 1
    assert room < p.us("t_dma_in") / p.terms["ng_dma"]
    assert a.saving_us == pytest.approx(room)
    assert a.saving_us == pytest.approx((69300 - 66816) / 1450)


# --- Eq. 15: fewer active CPEs ------------------------------------------------------------------

def test_eq15_fewer_cpes_help_when_dma_wastes_transactions_and_dominates(examples):
    p = predict(load_kernel(examples / "small_dma.yaml"))
    a = active_cpes(p)
    t_dma, t_comp = p.us("t_dma"), p.us("t_comp")
    assert t_dma > t_comp
    # 192 B requests grow to 256 B (still one transaction) at 48 CPEs; at 40 they would need two.
    assert a.details["best_active_cpes"] == 48
    assert a.saving_us == pytest.approx(0.25 * (t_dma - t_comp))          # Eq. 15, delta = 1/4
    by_cpes = {c["active_cpes"]: c["saving_us"] for c in a.details["candidates"]}
    assert by_cpes[40] == 0 and by_cpes[56] == pytest.approx((8 / 64) * (t_dma - t_comp))


def test_eq15_no_benefit_when_computation_dominates():
    # Wasteful 128 B requests, but T_comp > T_DMA: more CPEs are better.
    p = predict(_spec(128, 10, 10000))
    assert p.us("t_comp") > p.us("t_dma")
    a = active_cpes(p)
    assert a.saving_us == 0 and "T_comp" in a.explanation


def test_eq15_no_benefit_without_transaction_waste():
    # 4 KB requests use every byte of their transactions: T_DMA does not fall with fewer CPEs.
    p = predict(_spec(4096, 40, 10))
    assert p.us("t_dma") > p.us("t_comp")
    a = active_cpes(p)
    assert a.saving_us == 0 and "waste no transactions" in a.explanation


def test_eq15_explicit_target_and_range_check():
    p = predict(_spec(128, 40, 10))
    a = active_cpes(p, target=32)
    assert a.details["best_active_cpes"] == 32
    assert a.saving_us == pytest.approx(0.5 * (p.us("t_dma") - p.us("t_comp")))
    with pytest.raises(PipeperfError):
        active_cpes(p, target=64)


def test_analyze_uses_measured_baseline_when_given(examples):
    p = predict(load_kernel(examples / "vecadd.yaml"))
    results = analyze(p, baseline_us=900.0)
    assert [r.equation for r in results] == ["Eq. 13", "Eq. 14", "Eq. 15"]
    assert all(r.baseline_kind == "measured" and r.baseline_us == 900.0 for r in results)
    assert all(r.saving_us >= 0 and r.explanation for r in results)
