"""`pipeperf profile`: JSON keys, CSV rows, errors as one line; roofline integration."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from kernel_corpus import CORPUS_DIR as KERNELS

from pipeperf.emulate import CSV_COLUMNS, profile
from pipeperf.emulate.launch import dim3, parse_arg_value
from pipeperf.errors import PipeperfError

SAXPY = str(KERNELS / "ptx" / "saxpy.sm_80.ptx")
ARGS = ["--arg", "1000", "--arg", "2.5", "--arg", "rand:f32:1000", "--arg", "zeros:f32:1000"]

KEYS = ["inst_executed_warp", "inst_executed_thread", "flop_count_sp", "flop_count_dp",
        "flop_count_hp", "branches", "divergent_branches", "branch_efficiency",
        "global_load_requests", "global_store_requests", "global_sectors", "shared_requests",
        "shared_bank_conflicts", "fraction_emulated", "seconds", "inst_fp_32", "inst_fp_64",
        "inst_fp_16", "inst_integer", "inst_compute_ld_st", "flop_count_sp_fma",
        "flop_count_dp_fma", "global_load_sectors", "global_store_sectors"]


@pytest.mark.parametrize("mode", ["full", "hybrid"])
def test_json_has_required_keys(cli, mode):
    rc, out, err = cli("profile", SAXPY, "--grid", "4", "--block", "256", *ARGS, "--mode", mode,
                       "--json")
    assert rc == 0, err
    d = json.loads(out)
    for k in KEYS:
        assert k in d, k
    assert d["branches"] == 32 and d["divergent_branches"] == 1
    assert d["mode"] == mode


def test_text_output_and_csv(cli, tmp_path):
    f = tmp_path / "out.csv"
    for mode in ("full", "hybrid"):
        rc, out, err = cli("profile", SAXPY, "--grid", "4", "--block", "256", *ARGS,
                           "--mode", mode, "--csv", str(f))
        assert rc == 0, err
        assert "branch efficiency" in out
    rows = list(csv.DictReader(f.open()))
    assert len(rows) == 2 and list(rows[0]) == CSV_COLUMNS
    assert rows[0]["kernel"] == "saxpy" and rows[0]["ctas"] == "4"
    assert rows[0]["dynamic_instructions"] == rows[1]["dynamic_instructions"]
    assert int(rows[1]["executed_instructions"]) < int(rows[0]["executed_instructions"])
    assert rows[0]["target"] == "sm_80" and rows[0]["address_size"] == "64"


def test_npy_argument(cli, tmp_path):
    x = tmp_path / "x.npy"
    np.save(x, np.arange(64, dtype=np.float32))
    rc, out, err = cli("profile", SAXPY, "--grid", "1", "--block", "64", "--arg", "64",
                       "--arg", "1", "--arg", str(x), "--arg", "zeros:f32:64", "--json")
    assert rc == 0, err
    assert json.loads(out)["inst_fp_32"] == 64
    rc, out, err = cli("profile", str(KERNELS / "saxpy.cu"), "--grid", "1", "--block", "64",
                       "--arg", "n=64", "--arg", "a=1", "--arg", f"x={x}",
                       "--arg", "y=zeros:f32:64", "--json")
    assert rc == 0, err
    assert json.loads(out)["inst_fp_32"] == 64


def test_errors_are_one_line(cli):
    rc, out, err = cli("profile", SAXPY, "--grid", "4", "--block", "256", "--arg", "1000",
                       "--arg", "2.5", "--arg", "rand:f32:10", "--arg", "zeros:f32:1000")
    assert rc == 2 and err.startswith("pipeperf: error: ") and err.count("\n") == 1
    assert "out-of-bounds" in err
    rc, _, err = cli("profile", SAXPY, "--grid", "4", "--block", "256", "--arg", "x=1")
    assert rc == 2 and "no parameter 'x'" in err
    rc, _, err = cli("profile", "missing.ptx", "--grid", "1", "--block", "1")
    assert rc == 2 and "no such file" in err


def test_launch_parsing():
    assert dim3("64,64", "grid") == (64, 64, 1)
    assert dim3(256, "block") == (256, 1, 1)
    assert dim3((2, 3, 4), "grid") == (2, 3, 4)
    with pytest.raises(PipeperfError):
        dim3("0", "grid")
    with pytest.raises(PipeperfError):
        dim3("a,b", "grid")
    assert parse_arg_value("zeros:f32:8").dtype == np.float32
    assert parse_arg_value("arange:i32:4").tolist() == [0, 1, 2, 3]
    assert parse_arg_value("0x10") == 16 and parse_arg_value("2.5") == 2.5
    with pytest.raises(PipeperfError):
        parse_arg_value("zeros:q7:8")
    with pytest.raises(PipeperfError):
        parse_arg_value("bogus")


def test_profile_api_for_roofline():
    p = profile(SAXPY, grid="4", block="256", args=["1000", "2.5", "rand:f32:1000",
                                                    "zeros:f32:1000"])
    d = p.to_dict()
    from pipeperf.models.quantitative import metrics_from_profile
    km = metrics_from_profile(d, "saxpy", SAXPY)
    assert km is not None
    assert d["flop_count_sp_fma"] == 1000


def test_trace_file(cli, tmp_path):
    f = tmp_path / "t.json"
    rc, out, err = cli("profile", SAXPY, "--grid", "4", "--block", "256", *ARGS,
                       "--trace", str(f), "--trace-warps", "2")
    assert rc == 0, err
    doc = json.loads(f.read_text())
    assert sorted(doc["warps"]) == ["0", "1"]
    w0 = doc["warps"]["0"]
    ld = [e for e in w0 if e["opcode"] == "ld.global.f32"]
    assert len(ld) == 2 and len(ld[0]["addresses"]) == 32 and ld[0]["active"] == 0xFFFFFFFF


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_profile_half2_compare_by_hand(cli, tmp_path, arch):
    """`pipeperf profile` of the corpus kernel of packed-half comparisons and warpSize: per thread
    i < n2 = 250, ten f16x2 instructions after the bounds check (8 set, max, min.NaN); 10 warps
    branch once, the one holding i = 224..255 divergently. Outputs: test_emulate_corpus."""
    from kernel_corpus import make_case
    case = make_case("half2_compare")
    args = []
    for p, a in zip(case.spec.params, case.args):
        if p.pointer:
            np.save(tmp_path / f"{p.name}.npy", a)
            args += ["--arg", str(tmp_path / f"{p.name}.npy")]
        else:
            args += ["--arg", str(a)]
    ptx = str(KERNELS / "ptx" / f"half2_compare.{arch}.ptx")
    rc, out, err = cli("profile", ptx, "--grid", "2", "--block", "160", *args, "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["inst_fp_16"] == 10 * 250
    assert d["flop_count_hp"] == 0                      # comparisons and min/max are no FLOPs
    assert d["branches"] == 10 and d["divergent_branches"] == 1


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_profile_passes_includes_and_defines_to_nvcc(tmp_path, capsys):
    """Application code with a header and a size macro: -I and -D reach nvcc (issue 17)."""
    from pipeperf.cli.main import main

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#define SCALE 3.0f\n")
    src = tmp_path / "m.cu"
    src.write_text('#include "scale.h"\n'
                   'extern "C" __global__ void k(float* a) { for (int i = 0; i < REPS; i++) a[threadIdx.x] *= SCALE; }\n')
    base = ["profile", str(src), "--grid", "1", "--block", "32", "--arg", "a=ones:f32:32", "--json"]
    assert main(base + ["-I", str(tmp_path / "inc"), "-D", "REPS=5"]) == 0
    five = json.loads(capsys.readouterr().out)
    assert main(base + ["-I", str(tmp_path / "inc"), "-D", "REPS=9"]) == 0
    nine = json.loads(capsys.readouterr().out)
    assert nine["inst_executed_warp"] > five["inst_executed_warp"]
    assert main(base) == 2                                     # without -I: nvcc's error, one line
    assert "scale.h" in capsys.readouterr().err
