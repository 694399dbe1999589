"""``pipeperf validate``: MAPE tables from a stored sweep in the 'pipeperf measure' CSV format."""

import json
from pathlib import Path

import numpy as np
import pytest

from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.paper_kernels import example_kernel
from pipeperf.measure.validate import read_measurement, validate

SWEEP = Path(__file__).resolve().parents[1] / "fixtures" / "validate" / "example_sweep.csv"
# 31250 blocks of 32 warps = 10^6 warps on 1 core at 1 GHz: WPC = 10^6 / (t_ms * 10^6) = 1 / t_ms
MEASURED = np.array([0.04, 0.08, 0.125, 0.16, 0.2, 0.2, 0.25, 0.25])


def test_launcher_csv_becomes_warps_per_cycle():
    m = read_measurement(SWEEP, load_gpu("example_table2"))
    assert list(m.warps) == list(range(1, 9))
    assert np.allclose(m.warps_per_cycle, MEASURED)


def test_mape_by_hand():
    v = validate(SWEEP, example_kernel(), load_gpu("example_table2"), ["roofline", "volkov", "pipeline"])
    # roofline: 0.25 everywhere -> |0.25 - m| / m = 5.25, 2.125, 1, 0.5625, .25, .25, 0, 0
    assert v.accuracy.mape["roofline"] == pytest.approx(100 * 9.4375 / 8)
    # Volkov min(1/4, w/25) = .04 .08 .12 .16 .2 .24 .25 .25 -> errors only at w = 3 (4 %) and 6 (20 %)
    assert v.accuracy.mape["volkov"] == pytest.approx(100 * (0.04 + 0.2) / 8)
    assert 0 <= v.accuracy.mape["pipeline"] < v.accuracy.mape["roofline"]


def test_cli_table_json_and_plot(cli, tmp_path):
    rc, out, _ = cli("validate", str(SWEEP), "--kernel", "example", "--models", "roofline,volkov",
                     "--plot", str(tmp_path / "v.png"))
    assert rc == 0 and "example_sweep" in out and "118 /" in out and "3.0 /" in out
    assert (tmp_path / "v.png").stat().st_size > 10_000
    rc, out, _ = cli("validate", str(SWEEP), "--kernel", "example", "--models", "volkov", "--json")
    doc = json.loads(out)
    assert doc["kernels"][0]["mape"]["volkov"] == pytest.approx(3.0)


def test_missing_grid_comment_is_one_line(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(l for l in SWEEP.read_text().splitlines() if not l.startswith("# grid")))
    rc, _, err = cli("validate", str(bad), "--kernel", "example")
    assert rc == 2 and "# grid: X,Y,Z" in err and len(err.strip().splitlines()) == 1
