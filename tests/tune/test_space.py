"""Tuning spaces from YAML and the command line: values, constraints, variants as launches, and
one-line errors naming the file and line (or the option) and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.tune.space import parse_values
from pipeperf.tune.spacefile import CliSpace, load_space
from pipeperf.tune.variants import Launch, Refused, resolve
from pipeperf.tune.expr import Where

HERE = Path(__file__).parent
KERNEL = HERE.parents[1] / "examples" / "tune" / "matmul_tiled.cu"


def test_values():
    w = Where(option="--param")
    assert parse_values("8,16,32", w) == (8, 16, 32)
    assert parse_values("1..64*2", w) == (1, 2, 4, 8, 16, 32, 64)
    assert parse_values("0..64+16", w) == (0, 16, 32, 48, 64)
    assert parse_values("1..3", w) == (1, 2, 3)
    assert parse_values([0.5, "float", 3], w) == (0.5, "float", 3)
    with pytest.raises(PipeperfError, match="listed twice"):
        parse_values("8,8", w)
    with pytest.raises(PipeperfError, match="empty range"):
        parse_values("8..4", w)


def test_bundled_space_enumerates_and_resolves():
    space = load_space(str(HERE.parents[1] / "examples" / "tune" / "matmul.yaml"), CliSpace())
    variants = list(space.variants())
    assert len(variants) == 36 and sum(bool(v.excluded) for v in variants) == 6
    assert variants[-1].params == {"TILE": 32, "BY": 32, "PAD": 1} and not variants[-1].excluded
    excluded = next(v for v in variants if v.params == {"TILE": 8, "BY": 16, "PAD": 0})
    assert excluded.excluded == "constraint BY <= TILE is false"
    la = resolve(space, variants[-1])
    assert isinstance(la, Launch)
    assert la.defines == ("-DTILE=32",) and la.grid == (8, 8, 1) and la.block == (32, 32, 1)
    assert la.shared == 2 * 32 * 33 * 4 and la.args[-1] == "pitch=33" and la.args[0] == "A=rand:f32:65536"


def test_command_line_space_and_cuda_limits(tmp_path):
    cli = CliSpace(str(KERNEL), "matmul_tiled", sizes=["N=64"], defines=["TILE=16,32", "UNROLL=TILE // 2", "FAST"],
                   params=["BY=32,64"], grid="cdiv(N, TILE), cdiv(N, TILE)", block="TILE, BY",
                   args=["A=rand:f32:{N*N}", "n={N}"], constraints=["BY <= 2 * TILE"], gpus=["hopper_h100"])
    space = load_space(None, cli)
    got = {tuple(v.params.values()): v for v in space.variants()}
    assert set(got) == {(16, 32), (16, 64), (32, 32), (32, 64)} and got[(16, 64)].excluded
    la = resolve(space, got[(16, 32)])
    assert la.defines == ("-DTILE=16", "-DUNROLL=8", "-DFAST") and la.grid == (4, 4, 1)
    refused = resolve(space, got[(32, 64)])                 # 2048 threads
    assert isinstance(refused, Refused) and "exceeds CUDA's limit of 1024 threads" in refused.reason


def _space(tmp_path, text: str) -> Path:
    p = tmp_path / "space.yaml"
    p.write_text(f"source: {KERNEL}\n" + text)
    return p


BASE = "sizes: {N: 64}\nparams: {TILE: [8, 16]}\ngrid: [N / TILE]\nblock: [TILE]\ngpus: [hopper_h100]\n"


@pytest.mark.parametrize("text, line, expected", [
    (BASE + "grid: [N / TILLE]\n", None, "duplicate key"),
    (BASE.replace("grid: [N / TILE]", "grid: [N / TILLE]"), 4, "unknown name 'TILLE': expected a parameter or problem size (N, TILE)"),
    (BASE + "constraints: [N / (TILE - 8) > 1]\n", 7, "division by zero with N=64, TILE=8: expected a nonzero divisor"),
    (BASE + "colour: red\n", 7, "unknown key 'colour': expected one of source, kernel"),
    (BASE + "params: {TILE: [8, 16]\n", None, "invalid YAML"),
    (BASE.replace("[N / TILE]", "[N / 3]"), 4, "grid 'N / 3' = 21.33"),
    (BASE + "args: ['A=rand:f32:{N*N']\n", 7, "unbalanced braces"),
    (BASE + "analysis: {trace_warps: many}\n", 7, "analysis.trace_warps: expected a whole number"),
])
def test_space_file_errors_name_the_line(tmp_path, text, line, expected):
    p = _space(tmp_path, text)
    with pytest.raises(PipeperfError) as err:
        space = load_space(str(p), CliSpace())
        for v in space.variants():
            resolve(space, v)
    assert expected in str(err.value)
    assert err.value.file == str(p)
    if line is not None:
        assert err.value.line == line


def test_a_define_of_a_swept_parameter_fixes_it_for_the_launch_too(tmp_path):
    """``-D TILE=8`` on a space sweeping TILE: grid, block, shared and args use TILE=8 as the macro
    does, and the variants that differed only in TILE collapse into one (no inconsistent variant)."""
    space = load_space(str(HERE / "matmul_small.yaml"), CliSpace(defines=["TILE=8"]))
    variants = [v for v in space.variants() if not v.excluded]
    assert {v.params["TILE"] for v in variants} == {8}
    assert len({tuple(v.params.items()) for v in variants}) == len(variants) == 8    # BY 1..8*2 x PAD
    for v in variants:
        la = resolve(space, v)
        assert la.defines == ("-DTILE=8",) and la.grid == (4, 4, 1) and la.block[0] == 8
        assert la.shared == 2 * 8 * (8 + v.params["PAD"]) * 4
    sized = load_space(str(HERE / "matmul_small.yaml"), CliSpace(defines=["N=64"]))      # a size alike
    assert resolve(sized, next(v for v in sized.variants() if not v.excluded)).grid == (32, 32, 1)
    filed = _space(tmp_path, BASE + "defines: {TILE: 16}\n")
    assert {v.params["TILE"] for v in load_space(str(filed), CliSpace()).variants()} == {16}


def test_a_define_that_would_disagree_with_the_space_is_refused():
    with pytest.raises(PipeperfError, match=r"-D TILE=BY\*2: TILE=BY\*2 conflicts with the space's parameter TILE "
                                            r"\(.*matmul_small.yaml:\d+\)"):
        load_space(str(HERE / "matmul_small.yaml"), CliSpace(defines=["TILE=BY*2"]))
