"""-D, -I and --nvcc-flag on every command that compiles a .cu (analyze, profile and measure are
tested with the grammar; here the others: roofline and ptx)."""

from __future__ import annotations


import pytest

pytestmark = pytest.mark.requires_nvcc

KERNEL = """#include "scale.cuh"
#ifndef N
#error "compile with -DN=..."
#endif
extern "C" __global__ void scale(float* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) x[i] = x[i] * FACTOR;
}
"""


@pytest.fixture
def app(tmp_path):
    inc = tmp_path / "include"
    inc.mkdir()
    (inc / "scale.cuh").write_text("#define FACTOR 3.0f\n")
    src = tmp_path / "scale.cu"
    src.write_text(KERNEL)
    return src, inc


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["roofline", "{src}", "--grid", "4", "--block", "256", "--arg", "zeros:f32:1024", "--gpu", "a100"],
    ["ptx", "{src}"],
])
def test_flags_reach_nvcc(cli, app, command):
    src, inc = app
    argv = [a.format(src=src) for a in command]
    rc, out, err = cli(*argv)
    assert rc == 2 and ("scale.cuh" in err or "-DN" in err), err        # without them nvcc fails
    rc, out, err = cli(*argv, "-I", str(inc), "-D", "N=1024", "--nvcc-flag=-std=c++17")
    assert rc == 0, err
    assert "scale" in out
