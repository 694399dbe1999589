"""The headline record: plain-words bound, rates against the GPU's peaks, one line per GPU in
the terminal report."""

from __future__ import annotations

import pytest

from pipeperf.analysis.results import Bound
from pipeperf.report.headline import bound_words, headline
from pipeperf.util.units import format_seconds


@pytest.mark.parametrize("bound, words", [
    (Bound("mem", {"mem": 0.912, "alu": 0.2}, 0.3, 0.05), "memory bound: global memory (L2/DRAM) 91% busy"),
    (Bound("lsu", {"lsu": 0.95}, 0.5, 0.0), "shared-memory bound: load/store unit (shared memory) 95% busy"),
    (Bound("alu", {"alu": 0.97}, 0.6, 0.0), "compute bound: FP32/INT32 ALUs 97% busy"),
    (Bound("issue limit", {"alu": 0.5}, 0.93, 0.01), "issue bound: 93% of issue slots used"),
    (Bound("latency", {"mem": 0.2, "lsu": 0.0}, 0.1, 0.38),
     "latency bound: 10% of issue slots used, 38% of cycles issue nothing (busiest: global memory (L2/DRAM) 20%)"),
    # two thirds of the issue slots used: not "latency bound: 5 % of cycles issue nothing"
    (Bound("latency", {"alu": 0.4}, 0.66, 0.05),
     "no single bound (nothing >= 90 % busy): 66% of issue slots used, 5% of cycles issue nothing "
     "(busiest: FP32/INT32 ALUs 40%)"),
    (Bound("mem", {"mem": 1.0}, 0.2, 0.1, {"mem": 1.013}),
     "memory bound: global memory (L2/DRAM) 100% busy (clipped from 101%: busy time and cycles extrapolated "
     "separately)"),
])
def test_bound_in_plain_words(bound, words):
    assert bound_words(bound) == words


def test_seconds_keep_their_unit():
    assert [format_seconds(s) for s in (812e-9, 53.1e-6, 4.2e-3, 2.0)] == ["812 ns", "53.1 us", "4.2 ms", "2 s"]


def test_headline_rates_are_the_launch_counts_over_the_predicted_time(transpose_report):
    from pipeperf.hardware.spec import load_gpu

    for p in transpose_report.predictions:
        h = headline(p)
        m = p.quantitative.metrics
        assert h.seconds == p.seconds
        assert h.dram_bytes == pytest.approx((m.m_tran_r + m.m_tran_w) * 32)
        assert h.dram_gbs == pytest.approx(h.dram_bytes / p.seconds / 1e9)
        assert h.peak_dram_gbs == load_gpu(p.gpu).memory["dram_peak_gbs"]      # the vendor peak, said so
        assert h.peak_dram_source == f"vendor peak, memory.dram_peak_gbs of {p.gpu}"
        assert f"GB/s vendor peak, memory.dram_peak_gbs of {p.gpu})" in h.text()
        assert 0 < h.dram_pct_of_peak < 1
        assert h.flop == 0 and h.gflops == 0          # a transpose does no FP arithmetic
        assert h.warps_per_sm == p.blocks_per_sm * p.warps_per_block
        assert h.max_warps_per_sm == 64                # V100 and A100: 64 warps per SM
        assert h.bound_text == bound_words(p.bound)


def test_terminal_report_starts_with_the_headlines(transpose_report):
    text = str(transpose_report)
    lines = text.splitlines()
    heads = [h.text() for h in transpose_report.headlines()]
    assert lines[2:2 + len(heads)] == heads
    assert transpose_report.summary() == "\n".join(heads)
    assert all(" us predicted; " in h and "GB/s (" in h for h in heads)


def test_models_below_the_dram_floor_are_marked_in_every_report(transpose_report):
    """GPUMech's round-robin time for the transpose on the V100 is below the DRAM floor (the launch's
    2 MiB at the 900 GB/s vendor peak): text, HTML, CSV and JSON mark it; the Pipeline's is physical."""
    import csv

    from pipeperf.report.ncu_csv import analysis_csv

    v100 = next(p for p in transpose_report.predictions if p.gpu == "volta_v100")
    f = v100.floors
    assert f.dram_seconds == pytest.approx(f.dram_bytes / 900e9) and f.issue_seconds > 0
    why = v100.not_physical["gpumech_rr"]
    assert why.startswith("below the DRAM floor ")
    assert v100.predictions["gpumech_rr"]["seconds"] < f.dram_seconds
    assert "pipeline" not in v100.not_physical and headline(v100).not_physical is None
    assert all(a.seconds_after >= f.issue_seconds for a in v100.advice)
    js = next(k for k in transpose_report.to_dict()["kernels"] if k["gpu"] == "volta_v100")
    assert js["floors"]["dram_seconds"] == f.dram_seconds and js["not_physical"]["gpumech_rr"] == why
    text = str(transpose_report)
    assert f"* gpumech_rr on volta_v100: not physical, {why}; not used for advice" in text
    assert "  floors: DRAM " in text and "why the roofline-like rows differ: " in text
    assert f"volta_v100, gpumech_rr: {why}" in transpose_report.html()
    rows = {(r["Device"], r["Metric Name"]): r["Metric Value"]
            for r in csv.DictReader(analysis_csv(transpose_report.analysis).splitlines())}
    assert any(name == "pipeperf__time_duration_gpumech_rr.not_physical" and v == why
               for (_, name), v in rows.items())
    assert any(name == "pipeperf__floor_dram.time_duration" for _, name in rows)


def test_shares_shown_are_at_most_one(transpose_report):
    for p in transpose_report.predictions:
        assert all(0 <= v <= 1 for v in p.bound.subsystem_busy.values())
        assert p.bound.issue_share is None or 0 <= p.bound.issue_share <= 1


def test_a_tensor_core_kernel_counts_its_mma_operations():
    """A WMMA kernel's FP operations are its MMAs' (2 m n k per warp instruction: 8192 for a
    16x16x16), not the 0 FP32 instructions it has; with no tensor-core peak in the peaks table the
    headline gives no share of the FP32 one."""
    from pathlib import Path

    from pipeperf.analysis import analyze
    from pipeperf.emulate.profile import tensor_flops

    assert tensor_flops(("sync", "aligned", "m16n16k16", "row", "col")) == 8192
    assert tensor_flops(("sync", "aligned", "m16n8k16", "row", "col")) == 4096 and tensor_flops(()) == 0
    ptx = Path(__file__).parents[1] / "analyze" / "fixtures" / "wmma_shared_sm80.ptx"
    a = analyze(ptx, [3], [64], ["zeros:f16:4096", "zeros:f32:4096"], ["ampere_a100"], what_if=False)
    h = headline(a.predictions[0])
    assert h.tensor and h.flop == 3 * 2 * 8192 and h.peak_gflops is None      # 3 CTAs of 2 warps, one MMA each
    assert "GFLOP/s (tensor cores)" in h.text() and "% of" not in h.text().split(";")[1]
