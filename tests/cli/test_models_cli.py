"""``pipeperf models`` and ``pipeperf compare`` end to end on the example kernel."""

from __future__ import annotations

import json

import pytest

from pipeperf.cli.main import main

KEYS = ["roofline", "volkov", "transit", "mwp_cwp", "mwp_cwp_corr", "wfg", "wfg_corr",
        "gpumech_rr", "gpumech_gto", "gpumech_rr_corr", "pipeline"]

EXAMPLE_YAML = """\
name: fig1
instructions:
  - {id: c1, class: comp}
  - {id: c2, class: comp, deps: [c1]}
  - {id: m1, class: mem, deps: [c2]}
  - {id: c3, class: comp, deps: [m1]}
  - {id: c4, class: comp, deps: [m1]}
  - {id: m2, class: mem, deps: [c3, c4]}
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_json_document_has_every_model_and_the_paper_quantities(capsys):
    rc, out, _ = run(capsys, "models", "example", "--warps", "1-8", "--json")
    doc = json.loads(out)
    assert rc == 0 and list(doc["models"]) == KEYS
    assert doc["warps"] == list(range(1, 9))
    assert all(len(v) == 8 for v in doc["models"].values())
    assert doc["models"]["volkov"][6] == 0.25 and doc["models"]["volkov"][0] == 0.04
    d = doc["details"]
    assert d["params"]["Lambda_app"] == 25 and d["volkov"]["roof_reached_at"] == 7
    assert (d["mwp_cwp"]["MWP"], d["mwp_cwp"]["CWP"]) == (3, 4)
    assert d["mwp_cwp"]["case"][3] == "memory"
    assert "Lambda_exposed" in d["wfg"] and "intervals" in d["gpumech_rr"]


def test_table_and_plot_from_an_idg_file(capsys, tmp_path):
    idg = tmp_path / "fig1.yaml"
    idg.write_text(EXAMPLE_YAML)
    png = tmp_path / "fig.png"
    rc, out, _ = run(capsys, "models", str(idg), "--gpu", "example_table2", "--warps", "1-12",
                     "--models", "volkov,wfg,pipeline", "--plot", str(png))
    assert rc == 0
    assert "Lambda_app (Eq. 2) = 25 cycles" in out and "reached at 7 warps" in out
    assert out.splitlines()[1].split() == ["warps", "volkov", "wfg", "pipeline"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unsupported_models_are_named(capsys):
    rc, out, _ = run(capsys, "models", "chain", "--param", "n=4", "--gpu", "example_table2",
                     "--param", "cls=comp", "--warps", "1-2", "--models", "volkov,mwp_cwp")
    assert rc == 0 and "mwp_cwp: n/a -- MWP-CWP needs memory instructions" in out


@pytest.mark.parametrize("argv, message", [
    (["models", "example", "--gpu", "nosuchgpu"], "unknown GPU 'nosuchgpu'"),
    (["models", "example", "--warps", "0-3"], "bad --warps"),
    (["models", "example", "--warps", "1-65"], "exceeds GPU 'example_table2' limit of 64"),
    (["models", "example", "--models", "volkov,nosuch"], "unknown model 'nosuch'"),
    (["models", "example", "--runs", "1"], "--runs must be >= 2"),
    (["models", "nosuch.yaml", "--gpu", "example_table2"], "nosuch.yaml: no such file"),
    (["models", "notakernel"], "not a bundled kernel"),
])
def test_bad_input_is_one_line_error(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.startswith("pipeperf: error:") and message in err and len(err.strip().splitlines()) == 1


def test_plot_problems_are_user_errors(capsys, tmp_path):
    rc, _, err = run(capsys, "models", "chain", "--param", "cls=comp", "--gpu", "example_table2",
                     "--warps", "1-2", "--models", "transit", "--plot", str(tmp_path / "x.png"))
    assert rc == 2 and "nothing to plot" in err
    rc, _, err = run(capsys, "models", "example", "--warps", "1-2", "--models", "volkov",
                     "--plot", str(tmp_path / "missing" / "x.png"))
    assert rc == 2 and "cannot write the chart" in err


def test_idg_file_needs_a_gpu(capsys, tmp_path):
    idg = tmp_path / "fig1.yaml"
    idg.write_text(EXAMPLE_YAML)
    rc, _, err = run(capsys, "models", str(idg))
    assert rc == 2 and "--gpu NAME|FILE is required" in err


def _measured(capsys, tmp_path):
    """The simulator's own curve as 'measurement': Pipeline scores 0."""
    _, out, _ = run(capsys, "models", "example", "--warps", "1-12", "--json")
    doc = json.loads(out)
    path = tmp_path / "example_meas.csv"
    rows = "\n".join(f"{w},{v}" for w, v in zip(doc["warps"], doc["models"]["pipeline"]))
    path.write_text("# simulated\nwarps,warps_per_cycle\n" + rows + "\n")
    return path, doc


def test_compare_scores_models_against_a_measured_curve(capsys, tmp_path):
    path, doc = _measured(capsys, tmp_path)
    rc, out, _ = run(capsys, "compare", str(path), "--kernel", "example", "--json")
    res = json.loads(out)["kernels"][0]
    assert rc == 0 and res["mape"]["pipeline"] == pytest.approx(0, abs=1e-9)
    assert res["mape"]["volkov"] > 0 and res["mape_shape"]["volkov"] > 0
    rc, out, _ = run(capsys, "compare", str(path), str(path), "--kernel", "example",
                     "--models", "volkov,pipeline,mwp_cwp_corr")
    lines = out.splitlines()
    assert rc == 0 and lines[1].split() == ["kernel", "volkov", "pipeline", "mwp_cwp_corr"]
    assert lines[-1].startswith("average") and "0.0 / 0.0" in lines[-1]


def test_compare_converts_seconds_with_total_warps(capsys, tmp_path):
    path = tmp_path / "t.csv"
    # 1 core at 1 GHz: 1000 warps in 4 us is 0.25 warps per cycle
    path.write_text("warps,seconds\n8,4e-6\n16,4e-6\n")
    rc, out, _ = run(capsys, "compare", str(path), "--kernel", "example", "--models", "volkov",
                     "--total-warps", "1000", "--json")
    res = json.loads(out)["kernels"][0]
    assert rc == 0 and res["measured_wpc"] == pytest.approx([0.25, 0.25])
    assert res["mape"]["volkov"] == pytest.approx(0)


@pytest.mark.parametrize("content, message", [
    ("warps,seconds\n8,4e-6\n", "t.csv:2: a 'seconds' column needs the kernel's total warps"),
    ("occupancy,warps_per_cycle\n1,0.1\n", "t.csv:1: no 'warps' column"),
    ("warps,warps_per_cycle\n1,abc\n", "t.csv:2: 'warps_per_cycle' must be a number"),
    ("warps,warps_per_cycle\n1,0.1,3\n", "t.csv:2: 3 values for 2 columns"),
    ("warps,warps_per_cycle\n", "no measurements after the header"),
    ("warps,warps_per_cycle\n1.5,0.1\n", "t.csv:2: warps must be a whole number"),
    ("warps,warps_per_cycle\n80,0.1\n", "t.csv:2: occupancy 80 exceeds GPU 'example_table2' limit of 64"),
])
def test_compare_bad_measured_files(capsys, tmp_path, content, message):
    path = tmp_path / "t.csv"
    path.write_text(content)
    rc, _, err = run(capsys, "compare", str(path), "--kernel", "example", "--models", "volkov")
    assert rc == 2 and message in err


def test_compare_needs_one_kernel_per_file(capsys, tmp_path):
    path, _ = _measured(capsys, tmp_path)
    rc, _, err = run(capsys, "compare", str(path), str(path), str(path), "--kernel", "example",
                     "--kernel", "example")
    assert rc == 2 and "need one --kernel each" in err
