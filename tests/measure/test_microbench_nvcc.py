"""The generated benchmarks and the harness compile with the real nvcc (skipped without nvcc).

sm_75 and sm_80 are compiled to cubins (two units, two nvcc processes at a time) and sm_90 into
the harness executable. nvcc 13 has no sm_70 (Volta): it is checked to be absent, not compiled.
"""

import re
import shutil
import subprocess

import pytest

from pipeperf.measure import harness
from pipeperf.measure import microbench as mb

pytestmark = [pytest.mark.requires_nvcc, pytest.mark.slow]


@pytest.fixture(scope="module")
def cubins(tmp_path_factory):
    return harness.compile_cubins(tmp_path_factory.mktemp("cubins"), ["sm_75", "sm_80"], units=2, jobs=2)


@pytest.fixture(scope="module")
def bench_exe(tmp_path_factory):
    build = tmp_path_factory.mktemp("harness")
    return harness.build_harness(build, "sm_90", jobs=2)


def test_nvcc_13_has_no_sm_70():
    nvcc = harness.require_nvcc()
    archs = harness.supported_archs(nvcc)
    assert "sm_75" in archs and "sm_90" in archs
    if int(harness.nvcc_version(nvcc).split(".")[0]) >= 13:
        assert "sm_70" not in archs


@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])
def test_every_kernel_compiles_and_no_chain_was_folded(cubins, arch):
    """Each chain kernel holds at least its unrolled chain in machine code (16 bytes per
    instruction since Volta): had ptxas merged or dropped steps, the code would be shorter."""
    funcs = {}
    for cubin in cubins[arch]:
        funcs.update(harness.cubin_functions(cubin))
    for b in mb.all_benchmarks():
        assert b.ident in funcs, f"{b.ident} missing for {arch}"
        if b.kind != "peak":
            instructions = funcs[b.ident] // 16
            assert instructions >= b.n1_per_iter + b.n2_per_iter, (b.name, instructions)


@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])
def test_registers_allow_full_occupancy_and_nothing_spills(cubins, arch):
    res = {}
    for cubin in cubins[arch]:
        res.update(harness.ptxas_resources(cubin.with_suffix(".log").read_text()))
    assert set(res) >= {b.ident for b in mb.all_benchmarks()}
    for name, r in res.items():
        assert r["registers"] <= 32, name          # 64 warps x 32 lanes x 32 registers = 65536
        assert r["spill_stores"] == 0 and r["spill_loads"] == 0, name
        assert r["stack"] == (0 if name != "pp_ld_local_s32" else r["stack"]), name


def test_harness_links_for_sm_90_and_lists_the_benchmarks(bench_exe):
    out = subprocess.run([str(bench_exe), "--list"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    names = [line.split(",")[0] for line in out.stdout.splitlines()]
    assert names == [b.name for b in mb.all_benchmarks()]          # run order, whatever the unit split
    log = (bench_exe.parent / "build.log").read_text()
    assert re.search(r"Compiling entry function 'pp_add_f32' for 'sm_90'", log)
    assert "0 bytes spill stores" in log and not re.search(r"[1-9]\d* bytes spill stores", log)


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU may be present")
def test_harness_without_a_gpu_says_so(bench_exe, tmp_path):
    out = subprocess.run([str(bench_exe), "--out-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == harness.EXIT_NO_DEVICE
    assert "no CUDA device" in out.stderr
    assert not list(tmp_path.glob("*.csv"))


def test_bad_harness_usage_exits_2(bench_exe):
    out = subprocess.run([str(bench_exe), "--bogus"], capture_output=True, text=True, timeout=60)
    assert out.returncode == harness.EXIT_USAGE and "unknown argument" in out.stderr


@pytest.mark.parametrize("warps,blocks,quick", [(64, 32, False), (64, 32, True), (48, 16, False), (32, 16, False)])
def test_harness_occupancy_plan_is_python_s(bench_exe, warps, blocks, quick):
    """The harness computes its plan on the device; it must be the one the docs and tests use."""
    cmd = [str(bench_exe), "--plan", f"{warps},{blocks}"] + (["--quick"] if quick else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    got = [tuple(map(int, line.split(","))) for line in out.stdout.split()]
    assert got == mb.occupancy_plan(warps, blocks, quick)


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU may be present")
def test_calibrate_drives_nvidia_smi_build_and_harness(bench_exe, tmp_path, capsys, monkeypatch):
    """Everything but the GPU: a stand-in nvidia-smi reports an H100, the (cached) build is reused,
    the harness finds no device and calibrate says so in one line."""
    from pathlib import Path

    from pipeperf.cli.main import main
    fake = tmp_path / "bin"
    fake.mkdir()
    smi = fake / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, 9.0, 580.159.04, 1980'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{Path(harness.require_nvcc()).parent}:/usr/bin:/bin")
    gpu = harness.detect_gpu()
    assert (gpu.name, gpu.arch, gpu.driver, gpu.max_sm_clock_mhz) == ("NVIDIA H100 80GB HBM3", "sm_90",
                                                                      "580.159.04", 1980)
    assert harness.gpu_slug(gpu.name) == "h100"
    before = bench_exe.stat().st_mtime
    rc = main(["calibrate", "--build-dir", str(bench_exe.parent), "--raw-dir", str(tmp_path / "raw"),
               "--out", str(tmp_path / "h100.yaml"), "--jobs", "2"])
    err = capsys.readouterr().err
    assert rc == 2 and "pipeperf: error: no CUDA GPU found (the harness could not open a device)" in err
    assert bench_exe.stat().st_mtime == before                      # not rebuilt
    assert (tmp_path / "raw" / "build.log").is_file() and not (tmp_path / "h100.yaml").exists()
