"""The notebook API: ``pipeperf.analyze(...)`` gives the CLI's numbers in notebook shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pipeperf
from pipeperf.api import DATAFRAME_COLUMNS

from report_launch import cli_args

SRC = str(Path(pipeperf.__file__).parents[1])


def test_import_pipeperf_is_cheap():
    """``import pipeperf`` loads none of the analysis (nor NumPy); ``pipeperf.analyze`` does on use."""
    code = ("import sys, pipeperf; print('numpy' in sys.modules, 'pipeperf.analysis' in sys.modules); "
            "f = pipeperf.analyze; print(callable(f), 'pipeperf.api' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}).stdout.split()
    assert out == ["False", "False", "True", "True"]


def test_pipeperf_analyze_is_one_thing():
    """``pipeperf.analyze`` is the API's function whatever was imported before: the analysis
    package is :mod:`pipeperf.analysis`, so importing it rebinds nothing."""
    import pipeperf.analysis
    import pipeperf.api

    assert pipeperf.analyze is pipeperf.api.analyze
    assert not hasattr(pipeperf.analyze, "analyze")
    with pytest.raises(AttributeError):
        pipeperf.no_such_thing                           # noqa: B018


def test_to_dict_is_the_cli_json(transpose_report, cli):
    rc, out, err = cli(*cli_args("--json", "--sweep-occupancy"))
    assert rc == 0, err
    cli_json = json.loads(out)
    mine = transpose_report.to_dict()
    json.dumps(mine)                                      # JSON-ready
    assert [k["gpu"] for k in mine["kernels"]] == [k["gpu"] for k in cli_json["kernels"]]
    for a, b in zip(mine["kernels"], cli_json["kernels"]):
        assert a["predictions"] == b["predictions"] and a["occupancy"] == b["occupancy"]
        assert a["memory"] == b["memory"] and a["sweep"] == b["sweep"]


def test_to_dataframe_one_row_per_gpu_and_model(transpose_report):
    df = transpose_report.to_dataframe()
    preds = transpose_report.predictions
    assert list(df.columns) == list(DATAFRAME_COLUMNS)
    assert len(df) == sum(len(p.predictions) for p in preds)
    for p, h in zip(preds, transpose_report.headlines()):
        row = df[(df.gpu == p.gpu) & (df.model == "pipeline")].iloc[0]
        assert row.time_us == pytest.approx(p.seconds * 1e6)
        assert row.dram_gb_per_s == pytest.approx(h.dram_gbs)
        assert row.occupancy_pct == pytest.approx(100 * p.occupancy)
        assert row.bound == h.bound_text
        volkov = df[(df.gpu == p.gpu) & (df.model == "volkov")].iloc[0]
        assert volkov.time_us == pytest.approx(p.predictions["volkov"]["seconds"] * 1e6)
