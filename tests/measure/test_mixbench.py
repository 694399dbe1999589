"""mixbench / gpuroofperf import: maxima, odd fixed-width rows, missing T_add/T_ldst.

The mixbench fixtures are synthetic numbers printed with mixbench-cuda's own printf layout
(``%8.2f`` fields that run together past 9999.99, ``inf`` for unsupported half precision).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import load_peaks
from pipeperf.measure.mixbench import (
    parse_gpuroofperf_csv,
    parse_mixbench,
    peaks_from_mixbench,
    read_benchmark_file,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "quantitative"
RTX = (FIXTURES / "mixbench_rtx2070_synthetic.txt").read_text()

LEGACY = """mixbench/read-only (v0.02)
Device:              Test GPU
Memory bandwidth:    200.00 GB/sec
---------------------------------------------------------- CSV data ----------------------------------------------------------
Experiment ID, Single Precision ops,,,,              Double precision ops,,,,              Integer operations,,, 
Compute iters, Flops/byte, ex.time,  GFLOPS, GB/sec, Flops/byte, ex.time,  GFLOPS, GB/sec, Iops/byte, ex.time,   GIOPS, GB/sec
            0,      0.250,    0.90,   37.50, 150.00,      0.125,    1.80,   18.75, 150.00,     0.250,    0.90,   37.50, 150.00
            8,      4.250,    0.95,  600.00, 141.18,      2.125,    9.00,   75.00,  35.29,     4.250,    1.10,  500.00, 117.65
           64,     32.250,    6.00,  700.00,  21.71,     16.125,   70.00,   80.00,   4.96,    32.250,   14.00,  300.00,   9.30
------------------------------------------------------------------------------------------------------------------------------
"""


def test_four_group_layout_with_run_together_numbers():
    r = parse_mixbench(RTX, "rtx.txt")
    assert r.device == "NVIDIA GeForce RTX 2070"
    assert r.peaks == {"sp": 7116.55, "dp": 223.58, "hp": 14301.90, "int": 3554.72}
    assert r.b_mem == 411.38 and r.b_mem_where == "sp group, 2 compute iterations"
    assert r.rows == 12 and r.clock_mhz == 1620 and r.warnings == []


def test_legacy_three_group_layout():
    r = parse_mixbench(LEGACY, "old.log")
    assert r.peaks == {"sp": 700.0, "dp": 80.0, "int": 500.0}
    assert r.b_mem == 150.0


def test_unsupported_half_precision_and_cache_inflated_bandwidth():
    r = parse_mixbench((FIXTURES / "mixbench_nohalf_synthetic.txt").read_text(), "f.txt")
    assert "hp" not in r.peaks
    assert r.peaks["sp"] == 1413.57 and r.b_mem == 162.32
    assert len(r.warnings) == 1 and "exceeds the header's theoretical 150.00" in r.warnings[0]


def test_t_add_and_t_ldst_must_be_supplied():
    r = parse_mixbench(RTX, "rtx.txt")
    with pytest.raises(PipeperfError, match="does not measure T_add"):
        peaks_from_mixbench(r, "rtx.txt")
    given = peaks_from_mixbench(r, "rtx.txt", name="my2070", t_add=3700.0, t_ldst=1800.0)
    assert (given.name, given.t_sp, given.t_add, given.b_mem) == ("my2070", 7116.55, 3700.0, 411.38)
    assert "rtx.txt" in given.sources["T_SP"] and not given.estimates
    copied = peaks_from_mixbench(r, "rtx.txt", like=load_peaks("turing_rtx2070"))
    assert copied.name == "nvidia_geforce_rtx_2070"
    assert copied.t_ldst == load_peaks("turing_rtx2070").t_ldst
    assert set(copied.estimates) == {"T_add", "T_ldst"}


def test_malformed_row_reports_line():
    lines = RTX.splitlines()
    lines[25] = lines[25].rsplit(",", 1)[0]
    with pytest.raises(PipeperfError, match="16 fields, header has 17") as info:
        parse_mixbench("\n".join(lines), "rtx.txt")
    assert info.value.line == 26


def test_not_mixbench_output():
    with pytest.raises(PipeperfError, match="not mixbench output"):
        parse_mixbench("hello\n", "x.txt")
    bad_header = LEGACY.replace("Integer operations", "Quantum operations")
    with pytest.raises(PipeperfError, match="unknown operation group"):
        parse_mixbench(bad_header, "x.txt")


GPUROOFPERF = '''"GPU","GFLOPS - SP","GFLOPS - DP","GIOPS - MAD","GBSEC - DRAM","GBSEC - L2","GOPS - SHMEM","GIOPS - ADD"
"GeForce GTX 1060 6GB",4400.5,140.25,1450.0,160.5,400.0,540.0,2150.0
'''


def test_gpuroofperf_csv_gives_all_six_parameters(tmp_path):
    (peaks,) = parse_gpuroofperf_csv(GPUROOFPERF, "g.csv")
    assert peaks.name == "geforce_gtx_1060_6gb"
    assert (peaks.t_sp, peaks.t_dp, peaks.t_int, peaks.t_add, peaks.t_ldst, peaks.b_mem) == (
        4400.5, 140.25, 1450.0, 2150.0, 540.0, 160.5)
    path = tmp_path / "bench.csv"
    path.write_text(GPUROOFPERF)
    (renamed,), warnings = read_benchmark_file(path, name="mine")
    assert renamed.name == "mine" and warnings == []
