"""``pipeperf simulate``: output, JSON, sweeps, plots and one-line errors for bad input."""

import json

import pytest


def test_single_run_json(cli):
    rc, out, err = cli("simulate", "example", "--groups-per-core", "1", "--json")
    assert rc == 0
    d = json.loads(out)
    assert d["cycles"] == 25
    for key in ("cycles", "seconds", "warps_per_cycle", "ipc", "subsystem_busy"):
        assert key in d


def test_sweep_json_is_a_list(cli):
    rc, out, _ = cli("simulate", "example", "--warps", "1-8", "--json")
    assert rc == 0
    rows = json.loads(out)
    assert [r["warps"] for r in rows] == list(range(1, 9))
    warps_per_cycle = [r["warps_per_cycle"] for r in rows]
    assert warps_per_cycle == sorted(warps_per_cycle)            # more warps hide more latency here


def test_text_output_and_plots(cli, tmp_path):
    rc, out, _ = cli("simulate", "instruction_mix", "--param", "beta=4", "--param", "n=8",
                     "--gpu", "fermi_c2050", "--warps", "1,8,16", "--plot", str(tmp_path / "o.png"))
    assert rc == 0 and "warps/cycle" in out
    assert (tmp_path / "o.png").stat().st_size > 10_000
    rc, _, _ = cli("simulate", "example", "--groups-per-core", "3", "--gantt", str(tmp_path / "g.png"))
    assert rc == 0 and (tmp_path / "g.png").stat().st_size > 10_000


def test_warp_classes_file(cli):
    rc, out, _ = cli("simulate", "examples/idg/divergent.yaml", "--gpu", "pascal_gtx1060",
                     "--group-size", "4", "--groups-per-core", "2", "--json")
    # one round: 2 groups x 4 warps on a core = 6 long-path warps (7 instructions) + 2 short (3)
    assert rc == 0 and json.loads(out)["instructions_on_core"] == 6 * 7 + 2 * 3


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


CYCLE = """name: c
instructions:
  - {id: a, class: comp, deps: [b]}
  - {id: b, class: comp, deps: [a]}
"""
MISSING = """name: m
instructions:
  - {id: a, class: comp}
  - {id: b, class: mem, deps: [zz]}
"""
LACKS = """name: l
instructions:
  - {id: a, class: warp_teleport}
"""
NEG = """name: neg
cores: 1
clock_ghz: 1.0
issue_limit: 1
classes:
  comp: {subsystem: alu, cpi: 1, latency: -4}
"""


@pytest.mark.parametrize("case,expect", [
    ("unknown_gpu", "unknown GPU 'voodoo3'"),
    ("cycle", "dependence cycle: a -> b -> a"),
    ("missing", "depends on missing id 'zz'"),
    ("lacks", "'warp_teleport' that GPU 'example_table2' does not define"),
    ("negative", "latency must be >= 0, got -4"),
    ("no_file", "no such file"),
])
def test_bad_input_is_one_line_exit_2(cli, tmp_path, case, expect):
    if case == "unknown_gpu":
        args = ["simulate", "example", "--gpu", "voodoo3"]
    elif case == "negative":
        args = ["simulate", "example", "--gpu", _write(tmp_path, "neg.yaml", NEG)]
    elif case == "no_file":
        args = ["simulate", str(tmp_path / "nothere.yaml"), "--gpu", "example_table2"]
    else:
        text = {"cycle": CYCLE, "missing": MISSING, "lacks": LACKS}[case]
        args = ["simulate", _write(tmp_path, f"{case}.yaml", text), "--gpu", "example_table2"]
    rc, out, err = cli(*args)
    assert rc == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert expect in lines[0]
    if case in ("cycle", "missing", "negative"):
        assert f"{case if case != 'negative' else 'neg'}.yaml:" in lines[0]   # names the file and line
