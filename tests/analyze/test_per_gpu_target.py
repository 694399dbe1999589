"""Without --arch, each GPU is analysed from a build for its own target: its registers (issue
17: V100 and A100 got Hopper's register count, so the wrong occupancy) and the PTX that is
emulated (V100 ran sm_90 code, with cp.async it does not have); one compile per distinct target,
one emulation per distinct code. --arch keeps one build for all."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import pipeperf.analysis as analyze_mod
from pipeperf.analysis import analyze
from pipeperf.ptx.compile import ptxas_resources, compile_cu


ARGS = ["A=rand:f32:16384", "B=rand:f32:16384", "C=zeros:f32:16384", "n=128"]


@pytest.mark.slow
def test_each_gpu_gets_its_own_targets_registers(tmp_path):
    src = "tests/kernels/matmul_tiled.cu"
    a = analyze(src, [8, 8], [16, 16], ARGS, ["volta_v100", "ampere_a100", "hopper_h100"], what_if=False)
    by = {p.gpu: p for p in a.predictions}
    for gpu, target in (("volta_v100", "sm_75"), ("ampere_a100", "sm_80")):
        ptx = tmp_path / f"{target}.ptx"
        ptx.write_text(compile_cu(src, arch=target))
        regs = ptxas_resources(ptx, target)["matmul_tiled"]["registers"]
        assert f"{regs} registers/thread from a build for {target}" in by[gpu].occupancy_source
    assert "from a build for sm_90 (its own target)" in by["hopper_h100"].occupancy_source
    assert "from a build for sm_75 (nvcc builds no sm_70: the nearest target it has)" in \
        by["volta_v100"].occupancy_source
    fixed = analyze(src, [8, 8], [16, 16], ARGS, ["volta_v100"], what_if=False, arch="sm_90")
    assert "from a build for" not in fixed.predictions[0].occupancy_source   # --arch: one build for all


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_each_gpu_emulates_the_code_built_for_it(monkeypatch, tmp_path):
    """async_copy compiles to cp.async on sm_80+ and to a load and a store on sm_75 (V100's target)."""
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path))           # compiles counted from empty
    calls, emulations = [], []
    real_run, real_emulate = subprocess.run, analyze_mod._emulate

    def run(cmd, *a, **k):                     # every command, run for real
        calls.append([str(c) for c in cmd])
        return real_run(cmd, *a, **k)

    def emulate(run_kernel, module, *a, **k):  # every emulation, run for real
        emulations.append(module.target)
        return real_emulate(run_kernel, module, *a, **k)

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(analyze_mod, "_emulate", emulate)
    gpus = ["volta_v100", "ampere_a100", "ampere_a100_80gb", "hopper_h100"]
    a = analyze("tests/kernels/async_copy.cu", 8, 256, ["in=rand:f32:2048", "out=zeros:f32:2048", "a=2", "n=2000"],
                gpus, what_if=False)
    targets = sorted(c[2] for c in calls if Path(c[0]).name == "nvcc" and "-ptx" in c)
    assert targets == ["-arch=sm_75", "-arch=sm_80", "-arch=sm_90"]            # one compile per target
    assert emulations == [("sm_75",), ("sm_80",)]      # sm_90's code is sm_80's: the A100s and H100 share it
    by = {p.gpu: p for p in a.predictions}
    assert [p.gpu for p in a.predictions] == gpus
    ops = {g: {r["opcode"] for r in p.memory} for g, p in by.items()}
    assert any(o.startswith("ld.global") for o in ops["volta_v100"])            # sm_75: no cp.async
    assert not any(o.startswith("ld.global") for o in ops["ampere_a100"])      # sm_80: cp.async instead
    assert by["volta_v100"].warp_classes != by["ampere_a100"].warp_classes
    assert by["ampere_a100"].warp_classes == by["ampere_a100_80gb"].warp_classes == by["hopper_h100"].warp_classes
    fixed = analyze("tests/kernels/async_copy.cu", 8, 256, ["in=rand:f32:2048", "out=zeros:f32:2048", "a=2",
                                                            "n=2000"], ["volta_v100"], what_if=False, arch="sm_90")
    assert fixed.predictions[0].warp_classes == by["hopper_h100"].warp_classes   # --arch: that build, for all
