"""``--csv``: the ncu ``--csv --page details`` layout, read back by pipeperf's own ncu importer."""

from __future__ import annotations

import csv

import pytest

from pipeperf.hardware.spec import load_gpu
from pipeperf.measure.ncu_csv import read_ncu_csv
from pipeperf.report.ncu_csv import COLUMNS, NCU_SECTION, analysis_csv

from report_launch import cli_args

NCU_HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
              "Metric Value"]


def test_layout_is_ncu_details_page(transpose_report, tmp_path):
    text = analysis_csv(transpose_report.analysis)
    assert text.splitlines()[0] == ",".join(f'"{c}"' for c in NCU_HEADER)     # ncu quotes every field
    rows = list(csv.DictReader(text.splitlines()))
    assert list(COLUMNS) == NCU_HEADER
    seen = set()
    for r in rows:
        key = (r["ID"], r["Metric Name"])
        assert key not in seen                     # one row per kernel x GPU x metric
        seen.add(key)
        name = r["Metric Name"]
        assert name.startswith("pipeperf__") == (r["Section Name"] != NCU_SECTION)
    by = {(r["Device"], r["Metric Name"]): r for r in rows}
    for p in transpose_report.predictions:
        t = by[(p.gpu, "gpu__time_duration.sum")]
        assert t["Metric Unit"] == "nsecond" and float(t["Metric Value"]) == pytest.approx(p.seconds * 1e9)
        assert by[(p.gpu, "dram__bytes_read.sum")]["Metric Unit"] == "byte"
        occ = by[(p.gpu, "sm__maxwarps_per_active_cycle_pct")]
        assert occ["Metric Unit"] == "%" and float(occ["Metric Value"]) == pytest.approx(100 * p.occupancy)
        assert by[(p.gpu, "pipeperf__bound")]["Metric Value"] == p.bound.by
        assert by[(p.gpu, "launch__block_size")]["Block Size"] == "(32, 8, 1)"
        # the compute capability comes with the prediction (the report reloads no GPU file)
        assert t["CC"] == load_gpu(p.gpu).compute_capability and t["CC"]


def test_round_trip_through_the_ncu_importer(transpose_report, tmp_path):
    path = tmp_path / "pred.csv"
    transpose_report.write_csv(path)
    back = {m.info["device"]: m for m in read_ncu_csv(path)}
    assert set(back) == {p.gpu for p in transpose_report.predictions}
    for p in transpose_report.predictions:
        mine, read = p.quantitative.metrics, back[p.gpu]
        assert read.measured_seconds == pytest.approx(p.seconds, rel=1e-9)
        for attr in ("m_fma32", "m_fma64", "m_ldst", "m_inst", "m_fp32", "m_fp64", "m_int",
                     "m_tran_r", "m_tran_w"):
            assert abs(getattr(read, attr) - getattr(mine, attr)) <= 0.5, attr
        assert read.m_tran_r > 0 and read.m_ldst > 0


def test_cli_writes_csv_that_roofline_reads(cli, tmp_path):
    path = tmp_path / "pred.csv"
    rc, out, err = cli(*cli_args("--csv", str(path)))
    assert rc == 0, err
    assert f"csv: {path}" in out
    rc, out, err = cli("roofline", "--ncu", str(path), "--gpu", "volta_v100")
    assert rc == 0, err
    assert "transpose_shared" in out


def test_cli_refuses_an_output_folder_that_does_not_exist(cli, tmp_path):
    for option in ("--csv", "--html"):
        rc, out, err = cli(*cli_args(option, str(tmp_path / "nope" / "x.out")))
        assert rc == 2
        assert err.count("\n") == 1 and "no such folder" in err and "Traceback" not in err
