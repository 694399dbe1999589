"""``analyze --batch`` predicts what ``analyze`` does for each launch, caches it, and lists the
launches CUDA refuses; ``tune`` instantiates template arguments and lists variants that do not
compile with nvcc's reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeperf.tune import tune
from pipeperf.tune.cache import ResultCache
from pipeperf.tune.spacefile import CliSpace, load_space

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def test_batch_matches_analyze_and_is_cached(cli, tmp_path):
    from pipeperf.analysis import analyze

    batch = tmp_path / "launches.yaml"
    batch.write_text(f"""gpus: [ampere_a100]
analysis: {{trace_warps: 32}}
launches:
  - name: tiled-8
    file: {ROOT / 'examples/tune/matmul_tiled.cu'}
    defines: [TILE=8]
    grid: [4, 4]
    block: [8, 2]
    shared: 512
    args: [A=rand:f32:1024, B=rand:f32:1024, C=zeros:f32:1024, n=32, pitch=8]
    gpus: [ampere_a100, hopper_h100]
  - name: too-big
    file: {ROOT / 'examples/analyze/matmul_tiled.cu'}
    grid: [2, 2]
    block: [64, 32]
    args: [A=rand:f32:1024, B=rand:f32:1024, C=zeros:f32:1024, n=32]
""")
    out = tmp_path / "launches.csv"
    argv = ["analyze", "--batch", str(batch), "--cluster", "none", "--cache-dir", str(tmp_path / "c"),
            "--out", str(out)]
    rc, text, err = cli(*argv)
    assert rc == 0, err
    assert "batch: 2 launches, 3 launch x GPU: 2 computed, 0 from the cache" in text
    assert re.search(r"too-big\s+ampere_a100\s+-\s+-\s+launch: block of 2048 threads exceeds CUDA's limit", text)
    rows = out.read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("launch,file,kernel,gpu,status")
    a = analyze(ROOT / "examples/tune/matmul_tiled.cu", (4, 4), (8, 2),
                ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32", "pitch=8"],
                ["ampere_a100", "hopper_h100"], shared=512, nvcc_flags=["-DTILE=8"], trace_warps=32)
    for p in a.predictions:
        # the same engine, the same number
        assert re.search(rf"tiled-8\s+{p.gpu}\s+{re.escape(f'{p.seconds * 1e6:.4g}')}\s", text), text
    rc, text, err = cli(*argv)
    assert rc == 0 and "2 computed" not in text and "0 computed, 2 from the cache" in text


@pytest.mark.slow
@pytest.mark.requires_nvcc             # nvcc's own message for a template argument it rejects
def test_template_arguments_and_compile_failures(tmp_path):
    cli = CliSpace(str(HERE / "kernels" / "scale_template.cu"), "scale", sizes=["N=4096"],
                   template=["PER=1,4", "T=float,double,nosuchtype"], grid="cdiv(N, 128 * PER)", block="128",
                   args=["x=rand:{'f32' if T == 'float' else 'f64'}:{N}", "y=zeros:{'f32' if T == 'float' else 'f64'}:{N}",
                         "a=2", "n={N}"],
                   gpus=["hopper_h100"], analysis={"trace_warps": 8})
    space = load_space(None, cli)
    t = tune(space, "none", None, ResultCache(tmp_path))
    by = {(r.item.label["PER"], r.item.label["T"]): r.outcome for r in t.result.rows}
    assert len(by) == 6
    for per in (1, 4):
        for typ in ("float", "double"):
            assert by[(per, typ)].status == "ok", by[(per, typ)]
        bad = by[(per, "nosuchtype")]
        assert bad.status == "compile" and "nvcc failed" in bad.reason and "nosuchtype" in bad.reason
    # the template argument took effect: T=double moves twice the DRAM bytes of T=float
    for per in (1, 4):
        f, d = by[(per, "float")], by[(per, "double")]
        assert 1.8 < (d.dram_gbs * d.seconds) / (f.dram_gbs * f.seconds) < 2.2


def test_tune_json_on_the_command_line(cli, tmp_path):
    import json

    rc, out, err = cli("tune", str(HERE / "kernels" / "scale_template.cu"), "--kernel", "scale", "--template", "PER=1,2",
                       "--template", "T=float", "--size", "N=2048", "--grid", "cdiv(N, 64 * PER)", "--block", "64",
                       "--arg", "x=rand:f32:{N}", "--arg", "y=zeros:f32:{N}", "--arg", "a=2", "--arg", "n={N}",
                       "--gpu", "hopper_h100", "--trace-warps", "4", "--cluster", "none",
                       "--cache-dir", str(tmp_path), "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["computed"] == 2 and doc["cached"] == 0
    rows = sorted(doc["variants"], key=lambda r: r["rank"])
    assert [r["status"] for r in rows] == ["ok", "ok"] and [r["rank"] for r in rows] == [1, 2]
    assert rows[0]["time_us"] <= rows[1]["time_us"] and {r["template"] for r in rows} == {"1, float", "2, float"}


@pytest.mark.parametrize("grid", ["[1, x]", "[2.5]", "[1, null]"])
def test_batch_bad_grid_is_one_line_naming_the_line(tmp_path, grid):
    """A grid that is not whole numbers is the file's line and what was expected, not a traceback."""
    from pipeperf.errors import PipeperfError
    from pipeperf.tune.batch import load_batch

    f = tmp_path / "launches.yaml"
    f.write_text("gpus: [volta_v100]\nlaunches:\n  - name: x\n    file: k.cu\n"
                 f"    grid: {grid}\n    block: [32]\n")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    with pytest.raises(PipeperfError) as err:
        load_batch(str(f))
    assert str(err.value).startswith(f"{f}:5: --grid") and "positive integers" in str(err.value)
