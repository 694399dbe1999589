"""``pipeperf tune`` and ``analyze --batch``: bad input is one line on stderr naming the file and
line (or the option) and what was expected, with exit code 2 and no traceback; none of these
cases compiles or analyses anything."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
KERNEL = ROOT / "examples" / "tune" / "matmul_tiled.cu"
GOOD = f"""source: {KERNEL}
sizes: {{N: 64}}
params: {{TILE: [8, 16]}}
grid: [N / TILE, N / TILE]
block: [TILE, TILE]
gpus: [hopper_h100]
"""


def _write(tmp_path, text, name="space.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _one_line_error(rc, err, *expected):
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("pipeperf: error: "), err
    assert "Traceback" not in err
    for e in expected:
        assert e in lines[0], lines[0]


@pytest.mark.parametrize("text, expected", [
    (GOOD + "params: [oops\n", [":8: invalid YAML"]),          # the stream ends unclosed
    (GOOD.replace("[TILE, TILE]", "[TILE, BX]"), [":5: 'TILE, BX': unknown name 'BX': expected a parameter or problem size (N, TILE)"]),
    (GOOD + "constraints: ['N % (TILE - 8) == 0']\n", [":7: 'N % (TILE - 8) == 0': division by zero with N=64, TILE=8"]),
    (GOOD.replace("hopper_h100", "hopper_h999"), ["unknown GPU 'hopper_h999': expected a spec file or one of"]),
    (GOOD + "shared: TILE.bit_length()\n", [":7: 'TILE.bit_length()': unknown function"]),
    (GOOD.replace("source: ", "source: missing/"), [":1: no such file"]),
    (GOOD + "analysis: {phase_check: 3}\n", [":7:", "analysis.phase_check: expected true or false, got 3"]),
])
def test_tune_space_errors(cli, tmp_path, text, expected):
    path = _write(tmp_path, text)
    rc, out, err = cli("tune", path, "--cluster", "none", "--no-cache")
    _one_line_error(rc, err, *([path] if "unknown GPU" not in expected[0] else []), *expected)


def test_tune_command_line_errors(cli, tmp_path):
    rc, _, err = cli("tune", str(KERNEL), "--size", "N=64", "-D", "TILE=8,16", "--grid", "N / TILES",
                     "--block", "TILE", "--gpu", "hopper_h100", "--cluster", "none")
    _one_line_error(rc, err, "--grid: 'N / TILES': unknown name 'TILES'")
    rc, _, err = cli("tune", str(KERNEL), "--grid", "1", "--block", "1", "--gpu", "hopper_h100", "--cluster", "nowhere")
    _one_line_error(rc, err, "--cluster 'nowhere': expected local, none or tcp://HOST:PORT")
    rc, _, err = cli("tune", str(KERNEL), "--grid", "1", "--block", "1", "--gpu", "hopper_h100",
                     "--scheduler", "tcp://head:8786")
    _one_line_error(rc, err, "--scheduler tcp://head:8786: the Dask cluster is now --cluster tcp://head:8786")
    rc, _, err = cli("analyze", "--batch", "x.yaml", "--dask-scheduler", "none")
    _one_line_error(rc, err, "--dask-scheduler none: the Dask cluster is now --cluster none")
    rc, _, err = cli("tune", _write(tmp_path, GOOD), "--out", str(tmp_path / "x.txt"))
    _one_line_error(rc, err, "expected a .csv or .parquet file")
    rc, _, err = cli("tune", str(KERNEL), "--block", "1", "--gpu", "hopper_h100")
    _one_line_error(rc, err, "no grid: give --grid EXPRESSIONS")
    rc, _, err = cli("tune", str(KERNEL), "--size", "N=64", "--param", "BY=1..0", "--grid", "1", "--block", "BY",
                     "--gpu", "hopper_h100")
    _one_line_error(rc, err, "--param BY=1..0: '1..0': empty range")


BATCH = f"""gpus: [hopper_h100]
launches:
  - file: {KERNEL}
    grid: [4, 4]
    block: [16, 16]
    args: [A=rand:f32:4096, n=64]
"""


@pytest.mark.parametrize("text, expected", [
    (BATCH + "    colour: red\n", ":7: unknown key 'colour' of a launch"),
    (BATCH.replace("n=64", "n=sixty"), ":6: --arg 'n=sixty'"),
    (BATCH.replace("    grid: [4, 4]\n", ""), ":3: a launch without 'grid'"),
    (BATCH.replace("[4, 4]", "[4, 0]"), ":4: --grid"),
    (BATCH.replace("launches:", "launches: 3\nx:"), ":3: unknown key 'x'"),
])
def test_batch_errors(cli, tmp_path, text, expected):
    path = _write(tmp_path, text, "launches.yaml")
    rc, _, err = cli("analyze", "--batch", path, "--cluster", "none", "--no-cache")
    _one_line_error(rc, err, path + expected)


def test_analyze_needs_a_launch_or_a_batch(cli, tmp_path):
    rc, _, err = cli("analyze", str(KERNEL), "--gpu", "hopper_h100")
    _one_line_error(rc, err, "analyze needs --grid, --block (or --batch LAUNCHES.yaml)")
    rc, _, err = cli("analyze", "--batch", _write(tmp_path, BATCH, "l.yaml"), "--html", "x.html")
    _one_line_error(rc, err, "--batch: --html is not for a batch")


def test_a_define_conflicting_with_the_space_is_one_line(cli, tmp_path):
    rc, _, err = cli("tune", _write(tmp_path, GOOD), "-D", "TILE=N/8", "--cluster", "none", "--no-cache")
    _one_line_error(rc, err, "-D TILE=N/8: TILE=N/8 conflicts with the space's parameter TILE", "space.yaml:3")
