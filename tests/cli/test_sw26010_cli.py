"""The ``pipeperf sw26010`` command: outputs, plots, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from pipeperf.cli.main import main

GOOD = """kernel: k
active_cpes: 64
loops:
  steps: 4
dma:
  - name: tile
    direction: in
    per: [steps]
    size: 2048
gload:
  - {name: g, size: 8, count: 3}
compute:
  blocks:
    - {name: body, per: [steps], count: 10, floating: 50, ilp: 2}
"""


@pytest.fixture
def examples() -> Path:
    """The bundled SW26010 kernel specs."""
    return Path(__file__).resolve().parents[2] / "examples" / "sw26010"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["sw26010", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_predict_json_has_every_term(capsys, examples):
    rc, out, _ = _run(capsys, "predict", str(examples / "nbody_fig8.yaml"), "--json")
    assert rc == 0
    d = json.loads(out)
    for key in ("t_total", "t_mem", "t_g", "t_dma", "t_comp", "t_overlap", "t_dma_overlap",
                "t_g_overlap"):
        assert key in d["us"]
    assert d["dma"]["ng"] == 8 and d["dma"]["mrp"] == 4 and d["scenario"] == 1
    assert d["requests"][0]["mrt"] == 59
    assert d["measured_us"] == 1142


def test_predict_text_and_plot(capsys, examples, tmp_path):
    png = tmp_path / "b.png"
    rc, out, _ = _run(capsys, "predict", str(examples / "vecadd.yaml"), str(examples / "small_dma.yaml"),
                      "--plot", str(png))
    assert rc == 0
    assert "Eq. 1" in out and "vecadd" in out and "small_dma_column" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    norm = tmp_path / "n.png"
    rc, _, _ = _run(capsys, "predict", str(examples / "nbody_fig8.yaml"), "--plot", str(norm), "--normalize")
    assert rc == 0 and norm.stat().st_size > 1000
    rc, _, err = _run(capsys, "predict", str(examples / "vecadd.yaml"), "--plot", str(tmp_path / "no/dir.png"))
    assert rc == 2 and "cannot write plot" in err


def test_analyze_text_and_json(capsys, examples):
    rc, out, _ = _run(capsys, "analyze", str(examples / "nbody_fig8.yaml"))
    assert rc == 0 and "Eq. 13" in out and "Eq. 14" in out and "Eq. 15" in out
    assert "1098.58 us" in out
    rc, out, _ = _run(capsys, "analyze", str(examples / "small_dma.yaml"), "--json", "--target-cpes", "56")
    d = json.loads(out)
    assert [a["name"] for a in d["analyses"]] == ["dma_granularity", "double_buffer", "active_cpes"]
    assert d["analyses"][2]["details"]["best_active_cpes"] == 56


def test_tune_json_top_k_emit_best_and_plot(capsys, examples, tmp_path):
    best_yaml = tmp_path / "best.yaml"
    png = tmp_path / "t.png"
    rc, out, _ = _run(capsys, "tune", str(examples / "tune_stream.yaml"), "--top", "3", "--json",
                      "--no-progress", "--emit-best", str(best_yaml), "--plot", str(png))
    assert rc == 0
    d = json.loads(out)
    assert d["variants"] == 160 and len(d["top"]) == 3
    assert d["best"] == d["top"][0]
    assert d["top"][0]["us"]["t_total"] <= d["top"][1]["us"]["t_total"] <= d["top"][2]["us"]["t_total"]
    assert png.stat().st_size > 1000
    # The emitted kernel description predicts the same time as the tuner ranked it.
    rc, out, _ = _run(capsys, "predict", str(best_yaml), "--json")
    assert json.loads(out)["us"]["t_total"] == pytest.approx(d["best"]["us"]["t_total"])


def test_tune_progress_bar_goes_to_stderr(capsys, examples):
    rc, out, err = _run(capsys, "tune", str(examples / "tune_stream.yaml"), "--top", "1")
    assert rc == 0 and "best:" in out
    assert "variant" in err and "sw26010 tune stream" in err
    assert "sw26010 tune stream" not in out


def _error(capsys, tmp_path: Path, text: str, action: str = "predict") -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    rc, out, err = _run(capsys, action, str(path))
    assert rc == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith(f"pipeperf: error: {path}:")
    return lines[0]


def test_missing_field_names_file_line_and_field(capsys, tmp_path):
    line = _error(capsys, tmp_path, GOOD.replace("active_cpes: 64\n", ""))
    assert re.search(r"bad\.yaml:1: active_cpes: missing required field", line)


def test_negative_size_names_field(capsys, tmp_path):
    line = _error(capsys, tmp_path, GOOD.replace("size: 2048", "size: -5"))
    assert re.search(r"bad\.yaml:9: dma\[0\]\.size: must be > 0, got -5", line)


def test_unknown_key_names_field(capsys, tmp_path):
    line = _error(capsys, tmp_path, GOOD.replace("    size: 2048", "    size: 2048\n    sise: 4"))
    assert re.search(r"bad\.yaml:10: dma\[0\]\.sise: unknown key", line)


@pytest.mark.parametrize("old,new,pattern", [
    ("per: [steps]\n    size", "per: [stepz]\n    size", r"dma\[0\]\.per: unknown loop 'stepz'"),
    ("size: 8,", "size: 64,", r"gload\[0\]\.size: must be <= 32"),
    ("size: 2048", "size: 70000", r"dma\[0\]: request moves 70000 bytes, more than the 65536-byte SPM"),
    ("active_cpes: 64", "active_cpes: 300", r"active_cpes: must be <= 256"),
    ("active_cpes: 64", "active_cpes: 64\nprocessor: {mem_bw: 3}", r"processor\.mem_bw: unknown key"),
    ("active_cpes: 64", "active_cpes: 64\nprocessor: {freq_ghz: 0}", r"processor\.freq_ghz: must be > 0"),
    ("ilp: 2", "ilp: 9", r"compute\.blocks\[0\]\.ilp: must be <= 8"),
    ("direction: in", "direction: sideways", r"dma\[0\]\.direction: must be one of in, out, inout"),
    ("size: 2048", "block: 64\n    stride: 32\n    blocks: 4", r"dma\[0\]\.stride: stride 32 overlaps"),
    ("kernel: k", "kernel: k\nkernel: j", r"kernel: duplicate key"),
    ("dma:", "dma: [", r"invalid YAML"),
])
def test_other_spec_mistakes_are_one_line_errors(capsys, tmp_path, old, new, pattern):
    assert old in GOOD
    line = _error(capsys, tmp_path, GOOD.replace(old, new, 1))
    assert re.search(pattern, line), line


def test_missing_file_is_a_user_error(capsys, tmp_path):
    rc, _, err = _run(capsys, "predict", str(tmp_path / "nope.yaml"))
    assert rc == 2 and "no such file" in err


@pytest.mark.parametrize("old,new,pattern", [
    ("tile: {i: [8, 16, 32, 64, 128, 256, 512, 1024]}", "tile: {i: [8, 131072]}",
     r"search\.tile\.i: must be <= 65536"),
    ("dims: [i]}\n  - {name: Y", "dims: [q]}\n  - {name: Y", r"arrays\[0\]\.dims: unknown loop 'q'"),
    ("floating: 64", "floating: -1", r"compute\.floating: must be >= 0"),
    ("unroll: [1, 2, 4, 8, 16]", "unrol: [1]", r"search\.unrol: unknown key"),
])
def test_space_mistakes_are_one_line_errors(capsys, tmp_path, examples, old, new, pattern):
    text = (examples / "tune_stream.yaml").read_text()
    assert old in text
    line = _error(capsys, tmp_path, text.replace(old, new, 1), action="tune")
    assert re.search(pattern, line), line


def test_bundled_processor_cites_table1_for_every_parameter():
    from pipeperf.sw26010.processor import BUNDLED, bundled_processor

    proc = bundled_processor()
    raw = yaml.safe_load(BUNDLED.read_text())["parameters"]
    for name in proc.parameter_names():
        assert re.search(r"Table I row \d+|Sec\. I", raw[name]["source"]), name
    table1 = {"mem_bw_gbs": 32, "freq_ghz": 1.45, "trans_size": 256, "delta_delay": 50,
              "l_base": 220, "l_floating": 9, "l_fixed": 1, "l_spm": 3, "l_div_sqrt": 34}
    for name, value in table1.items():
        assert getattr(proc, name) == value
        assert "Table I" in raw[name]["source"]


def test_processor_file_option(capsys, tmp_path, examples):
    from pipeperf.sw26010.processor import BUNDLED

    data = yaml.safe_load(BUNDLED.read_text())
    data["parameters"]["mem_bw_gbs"]["value"] = 64
    proc = tmp_path / "proc.yaml"
    proc.write_text(yaml.safe_dump(data))
    _, out, _ = _run(capsys, "predict", str(examples / "vecadd.yaml"), "--json")
    _, out2, _ = _run(capsys, "predict", str(examples / "vecadd.yaml"), "--json", "--processor", str(proc))
    assert json.loads(out2)["us"]["t_dma"] == pytest.approx(json.loads(out)["us"]["t_dma"] / 2)


def test_examples_all_load(examples):
    from pipeperf.sw26010.kernel import load_kernel
    from pipeperf.sw26010.space import load_space

    specs = sorted(examples.glob("*.yaml"))
    assert len(specs) >= 4
    for path in specs:
        (load_space if path.name.startswith("tune_") else load_kernel)(path)

