"""``pipeperf reproduce``: the list, one cheap experiment end to end, and a bad name's one-line error."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pipeperf.cli.main import main
from pipeperf.experiments import EXPERIMENTS, module


def test_list_names_at_least_eight_experiments_each_with_its_source(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert len(EXPERIMENTS) >= 8
    for name in EXPERIMENTS:
        mod = module(name)
        assert name in out and mod.TITLE in out and mod.SOURCE in out
        assert callable(mod.run)


def test_bad_name_is_one_line_and_exit_2_before_anything_runs(capsys, tmp_path):
    rc = main(["reproduce", "pipeline-example-kernel", "no-such-experiment", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 2
    assert err.count("\n") == 1 and "no-such-experiment" in err and "pipeline-example-kernel" in err
    assert "Traceback" not in err
    assert not any(tmp_path.iterdir())          # the good name did not run either


def test_example_kernel_end_to_end_matches_the_printed_values(capsys, tmp_path):
    assert main(["reproduce", "pipeline-example-kernel", "--out", str(tmp_path)]) == 0
    folder = tmp_path / "pipeline-example-kernel"
    for f in ("README.md", "printed_values.csv", "printed_values.md", "curves.csv", "curves.md", "models.png"):
        assert (folder / f).stat().st_size > 0, f
    rows = list(csv.DictReader((folder / "printed_values.csv").open()))
    assert len(rows) == 7
    for r in rows:                               # Sec. 2 prints these; the models reproduce them exactly
        assert float(r["ours"]) == pytest.approx(float(r["paper"])), r["quantity"]
        assert float(r["difference"]) == pytest.approx(0, abs=1e-12)
    curves = list(csv.DictReader((folder / "curves.csv").open()))
    assert [int(r["warps"]) for r in curves] == list(range(1, 13))
    volkov = [float(r["volkov"]) for r in curves]
    assert volkov[0] == pytest.approx(1 / 25) and max(volkov) == pytest.approx(0.25)
    readme = (folder / "README.md").read_text()
    assert "pipeperf reproduce pipeline-example-kernel" in readme and "| quantity | paper | ours |" in readme


def test_a_row_without_a_printed_number_says_so():
    from pipeperf.experiments.framework import compare_row

    row = compare_row("x", None, 1.5)
    assert row[1] == "not printed" and "no number to compare" in row[-1]
    assert compare_row("y", 2.0, 3.0)[3:5] == (1.0, 50.0)


def test_committed_results_exist_for_every_experiment():
    root = Path(__file__).resolve().parents[2] / "validation" / "results" / "reproduce"
    missing = [n for n in EXPERIMENTS if not (root / n / "README.md").exists()]
    assert not missing, f"run `pipeperf reproduce {' '.join(missing)}` and commit its output"


def test_unwritable_out_is_one_line(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["reproduce", "pipeline-table6-throughput", "--out", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err


def test_sw26010_double_buffering_end_to_end_reads_the_checkout_example(tmp_path):
    """An experiment that reads examples/ from the checkout (pip install -e .) runs end to end and
    puts Fig. 8's printed values beside the model's."""
    assert main(["reproduce", "sw26010-double-buffering", "--out", str(tmp_path)]) == 0
    rows = {r["quantity"]: r for r in csv.DictReader((tmp_path / "sw26010-double-buffering" / "fig8.csv").open())}
    assert float(rows["NG_DMA"]["ours"]) == 8
    assert float(rows["predicted benefit (us)"]["ours"]) == pytest.approx(43.4, abs=0.05)
