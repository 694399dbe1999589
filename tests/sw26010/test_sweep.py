"""``pipeperf sw26010 tune --sweep active_cpes``: the best variant at each CPE count."""

from __future__ import annotations

import json

from pipeperf.cli.main import main
from pipeperf.sw26010.space import load_space
from pipeperf.sw26010.sweep import best_per_value
from pipeperf.sw26010.tuner import tune


def test_best_per_cpe_count_is_the_fastest_variant_with_that_count(examples):
    result = tune(load_space(examples / "tune_matmul.yaml"), jobs=1, progress=False)
    rows = best_per_value(result)
    counts = [r["active_cpes"] for r in rows]
    assert counts == sorted({int(c) for c in result.active_cpes})
    for r in rows:
        same = [result.row(int(i))["us"]["t_total"] for i in range(result.variants_feasible)
                if int(result.active_cpes[i]) == r["active_cpes"]]
        assert r["us"]["t_total"] == min(same)
    assert min(r["rank"] for r in rows) == 1          # the overall best is one of them


def test_cli_sweep_json_and_text(examples, capsys):
    space = str(examples / "tune_matmul.yaml")
    assert main(["sw26010", "tune", space, "--sweep", "active_cpes", "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sweep"] == "active_cpes" and [r["active_cpes"] for r in doc["rows"]] == [16, 32, 48, 64]
    assert main(["sw26010", "tune", space, "--sweep", "active_cpes", "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:2] == ["active_cpes", "T_total"] and len(out) == 5
