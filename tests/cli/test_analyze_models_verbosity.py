"""analyze's report shows the Pipeline, roofline and Volkov rows unless --models asks for others
('all': every model), and -v / -q set the level of the stage messages on stderr (issue 18)."""

from __future__ import annotations

from pathlib import Path

KERNEL = Path(__file__).resolve().parents[1] / "kernels" / "matmul_tiled.cu"
LAUNCH = ["analyze", str(KERNEL), "--grid", "4,4", "--block", "16,16", "--arg", "A=rand:f32:4096",
          "--arg", "B=rand:f32:4096", "--arg", "C=zeros:f32:4096", "--arg", "n=64", "--gpu", "volta_v100",
          "--no-what-if"]


def _table_rows(out: str) -> list[str]:
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("predicted time (us)"))
    rows = []
    for line in lines[i + 1:]:
        if not line.strip():
            break
        rows.append(line.split()[0])
    return rows


def test_default_models_then_all(cli):
    rc, out, err = cli(*LAUNCH)
    assert rc == 0, err
    assert _table_rows(out) == ["pipeline", "roofline", "volkov"]
    rc, out, _ = cli(*LAUNCH, "--models", "all")
    assert {"pipeline", "wfg_corr", "gpumech_rr", "quantitative_roofline"} <= set(_table_rows(out))
    rc, out, _ = cli(*LAUNCH, "--models", "mwp_cwp,pipeline")
    assert _table_rows(out) == ["mwp_cwp", "pipeline"]


def test_unknown_model_is_one_line(cli):
    rc, out, err = cli(*LAUNCH, "--models", "pipline")
    assert rc == 2 and err.count("\n") == 1 and "unknown model 'pipline'" in err


def test_verbose_says_the_stages_and_quiet_says_nothing(cli):
    rc, _, err = cli(*LAUNCH, "-v")
    assert rc == 0 and "pipeperf: emulating matmul_tiled" in err and "emulated in" in err
    rc, _, err = cli("-q", *LAUNCH)
    assert rc == 0 and err == ""
