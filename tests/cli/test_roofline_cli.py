"""`pipeperf roofline` and `pipeperf gpu` end to end (fixtures only, no GPU)."""

from __future__ import annotations

import json
from pathlib import Path

from pipeperf.cli.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "quantitative"
NCU = str(FIXTURES / "ncu_long.csv")


def test_json_per_kernel_and_gpu(capsys):
    assert main(["roofline", "--ncu", NCU, "--gpu", "v100", "--gpu", "gtx480", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["predictions"]) == 4 * 2
    first = doc["predictions"][0]
    assert first["gpu"] == "volta_v100" and first["bound"] in ("memory", "compute")
    assert first["predicted_seconds"] > 0 and 0 < first["e_instr"] <= 1
    assert {g["name"] for g in doc["gpus"]} == {"volta_v100", "gtx480"}
    assert doc["kernels"][0]["info"]["grid"] == "(32, 32, 1)"


def test_table_nvprof_kernel_filter_and_type(capsys):
    assert main(["roofline", "--nvprof", str(FIXTURES / "nvprof_metrics.csv"), "--gpu", "a100",
                 "--kernel", "sgemm", "--type", "fp32"]) == 0
    out = capsys.readouterr().out
    assert "sgemm_tiled" in out and "saxpy" not in out and "a100" in out


def test_plots_are_written(tmp_path, capsys):
    roof, quad = tmp_path / "roof.png", tmp_path / "quad.png"
    assert main(["roofline", "--ncu", NCU, "--gpu", "gtx660", "--gpu", "r9_nano",
                 "--plot", str(roof), "--quadrant", str(quad)]) == 0
    for path in (roof, quad):
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_import_mixbench_then_predict_with_the_yaml(tmp_path, capsys):
    out = tmp_path / "rtx.yaml"
    assert main(["gpu", "import-mixbench", str(FIXTURES / "mixbench_rtx2070_synthetic.txt"),
                 "--name", "rtx_measured", "--t-add", "3700", "--t-ldst", "1850",
                 "--out", str(out)]) == 0
    text = out.read_text()
    assert "mixbench_rtx2070_synthetic.txt" in text and "rtx_measured" in text
    capsys.readouterr()
    assert main(["roofline", "--ncu", NCU, "--gpu", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {p["gpu"] for p in doc["predictions"]} == {"rtx_measured"}
    assert doc["gpus"][0]["T_SP"]["value"] == 7116.55


def test_import_mixbench_without_t_add_is_a_one_line_error(capsys):
    rc = main(["gpu", "import-mixbench", str(FIXTURES / "mixbench_rtx2070_synthetic.txt")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "--t-add" in err


def test_user_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(Path(NCU).read_text().replace('"2,621,440"', '"2,62x"'))
    for argv, message in [
        (["roofline", "--ncu", str(bad), "--gpu", "v100"], f"{bad}:8: "),
        (["roofline", "--ncu", NCU, "--gpu", "nope"], "unknown GPU 'nope'"),
        (["roofline", "kernel.cu", "--grid", "1", "--block", "32", "--gpu", "v100"],
         "no such file"),
        (["roofline", "--gpu", "v100"], "no kernel given"),
        (["roofline", "--ncu", NCU, "--gpu", "v100", "--kernel", "zzz"], "matches none"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("pipeperf: error: ") and message in err and err.count("\n") == 1


def test_gpu_peaks_listing(capsys):
    assert main(["gpu", "peaks"]) == 0
    out = capsys.readouterr().out
    assert "h100" in out and "T_ldst" in out and "estimate" in out
