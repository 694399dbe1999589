"""One roofline for one kernel: `pipeperf roofline KERNEL.cu` and `analyze`'s quantitative_roofline
row take the same counts (analyze's emulation, that GPU's cache model) and the same GPU database,
so they agree to 1 % on the same GPU under any of its names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]
CASES = {
    "matmul": (str(ROOT / "examples/analyze/matmul_tiled.cu"), "32,32", "16,16",
               ["A=rand:f32:262144", "B=rand:f32:262144", "C=zeros:f32:262144", "n=512"]),
    "daxpy": (str(ROOT / "tests/kernels/daxpy.cu"), "4096", "256",
              ["n=1048576", "a=2.0", "x=rand:f64:1048576", "y=rand:f64:1048576"]),
}


def _run(cli, command, case, gpus, *extra):
    """``pipeperf COMMAND`` on a case for ``gpus``, its JSON document."""
    path, grid, block, args = CASES[case]
    argv = [command, path, "--grid", grid, "--block", block, "--json", *extra]
    argv += [x for a in args for x in ("--arg", a)] + [x for g in gpus for x in ("--gpu", g)]
    rc, out, err = cli(*argv)
    assert rc == 0, err
    return json.loads(out)


def _roofline(cli, case, gpus):
    return {p["gpu"]: p for p in _run(cli, "roofline", case, gpus)["predictions"]}


def _analyze(cli, case, gpus):
    return {k["gpu"]: k for k in _run(cli, "analyze", case, gpus, "--no-what-if")["kernels"]}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_roofline_and_analyze_agree_to_one_percent(cli, case):
    roof = _roofline(cli, case, ["h100", "volta_v100"])           # an alias and a full name
    ana = _analyze(cli, case, ["hopper_h100", "v100"])
    assert set(roof) == set(ana) == {"hopper_h100", "volta_v100"}  # one namespace: one name per GPU
    for gpu in roof:
        r = roof[gpu]["predicted_seconds"]
        a = ana[gpu]["predictions"]["quantitative_roofline"]["seconds"]
        assert a == pytest.approx(r, rel=0.01), gpu
        assert ana[gpu]["quantitative_roofline"]["prediction"]["bound"] == roof[gpu]["bound"]


@pytest.mark.slow
def test_dram_traffic_comes_from_the_gpus_cache_model(cli):
    """The tiled matmul re-reads A and B from L2: its DRAM traffic is far below its global
    sectors (the old upper bound), and the streaming daxpy's equals the sectors it reads (nothing
    reused): its in-place y fits in the H100's 50 MB L2 with x (2 x 8 MB), so the dirty y stays
    there to the kernel's end, written back after it (write-back L2)."""
    roof = _roofline(cli, "matmul", ["hopper_h100"])["hopper_h100"]
    sectors_bytes = (2 * 512 * 512 * 512 / 16 + 512 * 512) * 4     # every tile load's sectors + C
    assert roof["w_traf"] < 0.2 * sectors_bytes
    d = _roofline(cli, "daxpy", ["hopper_h100"])["hopper_h100"]
    assert d["w_traf"] == pytest.approx(2 * 8 * 1048576, rel=0.02)   # x, y read; y's write stays in L2
