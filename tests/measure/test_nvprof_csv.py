"""nvprof --csv --metrics import (the paper's Table 1 route)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.measure.nvprof_csv import NVPROF_COMMAND, NVPROF_METRICS, parse_nvprof_csv, read_nvprof_csv

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "quantitative"
TEXT = (FIXTURES / "nvprof_metrics.csv").read_text()


def test_reads_avg_per_invocation_and_skips_preamble_and_other_metrics():
    kernels = read_nvprof_csv(FIXTURES / "nvprof_metrics.csv")
    assert [k.name.split("(")[0] for k in kernels] == ["sgemm_tiled", "saxpy", "jacobi3d_dp"]
    sgemm, saxpy, jacobi = kernels
    assert sgemm.m_fma32 == 1_073_741_824 and sgemm.m_inst == 58_720_256
    assert saxpy.info["invocations"] == "2" and saxpy.info["device"] == "GeForce GTX 1060 6GB (0)"
    assert jacobi.m_fp64 == 117_440_512 and jacobi.m_tran_w == 4_194_304
    assert sgemm.m_fp16 is None and sgemm.measured_seconds is None


def test_command_names_table_1_metrics():
    assert all(metric in NVPROF_COMMAND for metric in NVPROF_METRICS)
    assert len(NVPROF_METRICS) == 9  # Table 1 of the paper


def test_missing_metric_is_named():
    text = "\n".join(l for l in TEXT.splitlines() if '"inst_integer"' not in l)
    with pytest.raises(PipeperfError, match="lacks nvprof metrics inst_integer"):
        parse_nvprof_csv(text, "p.csv")


def test_short_row_reports_line():
    lines = TEXT.splitlines()
    target = next(i for i, l in enumerate(lines, 1) if '"inst_fp_32"' in l)
    lines[target - 1] = lines[target - 1].rsplit(",", 2)[0]
    with pytest.raises(PipeperfError, match="6 fields, header has 8") as info:
        parse_nvprof_csv("\n".join(lines), "p.csv")
    assert info.value.line == target and info.value.file == "p.csv"


def test_non_numeric_required_value_reports_line():
    lines = TEXT.splitlines()
    target = next(i for i, l in enumerate(lines, 1) if '"dram_read_transactions"' in l)
    lines[target - 1] = lines[target - 1].rsplit(",", 1)[0] + ",12.3GB/s"
    with pytest.raises(PipeperfError, match=r"dram_read_transactions: '12.3GB/s' is not a number"):
        parse_nvprof_csv("\n".join(lines), "p.csv")


def test_not_a_metrics_csv():
    with pytest.raises(PipeperfError, match='no "Metric Name" header'):
        parse_nvprof_csv("==1== Profiling result:\n\"Type\",\"Time(%)\"\n", "p.csv")
