"""The headline record: plain-words bound, rates against the GPU's peaks, one line per GPU in
the terminal report."""

from __future__ import annotations

import pytest

from pipeperf.analyze.results import Bound
from pipeperf.report.headline import bound_words, format_seconds, headline


@pytest.mark.parametrize("bound, words", [
    (Bound("mem", {"mem": 0.912, "alu": 0.2}, 0.3, 0.05), "memory bound: global memory (L2/DRAM) 91% busy"),
    (Bound("lsu", {"lsu": 0.95}, 0.5, 0.0), "shared-memory bound: load/store unit (shared memory) 95% busy"),
    (Bound("alu", {"alu": 0.97}, 0.6, 0.0), "compute bound: FP32/INT32 ALUs 97% busy"),
    (Bound("issue limit", {"alu": 0.5}, 0.93, 0.01), "issue bound: 93% of issue slots used"),
    (Bound("latency", {"mem": 0.2, "lsu": 0.0}, 0.1, 0.38),
     "latency bound: 38% of cycles issue nothing (busiest: global memory (L2/DRAM) 20%)"),
])
def test_bound_in_plain_words(bound, words):
    assert bound_words(bound) == words


def test_seconds_keep_their_unit():
    assert [format_seconds(s) for s in (812e-9, 53.1e-6, 4.2e-3, 2.0)] == ["812 ns", "53.1 us", "4.2 ms", "2 s"]


def test_headline_rates_are_the_launch_counts_over_the_predicted_time(transpose_report):
    from pipeperf.hardware.peaks import load_peaks

    for p in transpose_report.predictions:
        h = headline(p)
        m = p.quantitative["metrics"]
        assert h.seconds == p.seconds
        assert h.dram_bytes == pytest.approx((m.m_tran_r + m.m_tran_w) * 32)
        assert h.dram_gbs == pytest.approx(h.dram_bytes / p.seconds / 1e9)
        assert h.peak_dram_gbs == load_peaks(p.gpu).b_mem
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
