"""Without --arch, each GPU is analysed with the registers of a build for its own target (issue
17: V100 and A100 got Hopper's register count, so the wrong occupancy)."""

from __future__ import annotations

import shutil

import pytest

from pipeperf.analyze import analyze
from pipeperf.ptx.compile import ptxas_resources, compile_cu

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

ARGS = ["A=rand:f32:16384", "B=rand:f32:16384", "C=zeros:f32:16384", "n=128"]


def test_each_gpu_gets_its_own_targets_registers(tmp_path):
    src = "tests/kernels/matmul_tiled.cu"
    a = analyze(src, [8, 8], [16, 16], ARGS, ["volta_v100", "ampere_a100", "hopper_h100"], what_if=False)
    by = {p.gpu: p for p in a.predictions}
    for gpu, target in (("volta_v100", "sm_75"), ("ampere_a100", "sm_80")):
        ptx = tmp_path / f"{target}.ptx"
        ptx.write_text(compile_cu(src, arch=target))
        regs = ptxas_resources(ptx, target)["matmul_tiled"]["registers"]
        assert f"{regs} registers/thread from a build for {target}" in by[gpu].occupancy_source
    assert "from a build for" not in by["hopper_h100"].occupancy_source      # the default build's own
    fixed = analyze(src, [8, 8], [16, 16], ARGS, ["volta_v100"], what_if=False, arch="sm_90")
    assert "from a build for" not in fixed.predictions[0].occupancy_source   # --arch: one build for all
