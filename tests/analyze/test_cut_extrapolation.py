"""Traces longer than the IDG budget (``max_nodes``) are not simulated short: the time is
extrapolated from two cuts (the first half and the whole budget) to the whole traces, within
1 % of simulating the whole traces, and the report says so."""

from __future__ import annotations

import shutil

import pytest

from pipeperf.analyze import analyze

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

CU = r"""
extern "C" __global__ void nbody(int n, const float* x, const float* m, float* a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = x[i], f = 0.0f;
    for (int j = 0; j < n; j++) { float d = x[j] - xi; f += m[j] * d * rsqrtf(d * d + 1e-9f); }
    a[i] = f;
}
extern "C" __global__ void fma_loop(int n, float* out)
{
    float a = threadIdx.x, b = 1.0001f;
    for (int j = 0; j < n; j++) { a = a * b + 0.5f; b = b * a - 0.25f; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}
extern "C" __global__ void tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float sa[16][16], sb[16][16];
    int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int k = 0; k < n; k += 16) {
        sa[ty][tx] = A[row * n + k + tx];
        sb[ty][tx] = B[(k + ty) * n + col];
        __syncthreads();
        for (int q = 0; q < 16; q++) acc += sa[ty][q] * sb[q][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
extern "C" __global__ void strided_sum(const double* x, double* y, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double s = 0.0;
    for (int j = 0; j < n; j++) s += x[(i + j * stride) % (1 << 20)];
    y[i] = s;
}
"""

CASES = [
    ("nbody", [8], [128], ["n=2000", "x=rand:f32:2000", "m=rand:f32:2000", "a=zeros:f32:2000"]),
    ("fma_loop", [16], [256], ["n=3000", "out=zeros:f32:4096"]),
    ("tiled", [8, 8], [16, 16], ["A=rand:f32:262144", "B=rand:f32:262144", "C=zeros:f32:262144", "n=512"]),
    ("strided_sum", [16], [128], ["x=rand:f64:1048576", "y=zeros:f64:2048", "n=1500", "stride=4096"]),
]


@pytest.fixture(scope="module")
def cu(tmp_path_factory):
    p = tmp_path_factory.mktemp("cut") / "cut.cu"
    p.write_text(CU)
    return p


@pytest.mark.parametrize("name,grid,block,args", CASES)
def test_cut_traces_extrapolate_to_the_whole_simulation(cu, name, grid, block, args):
    kw = dict(kernel=name, arch="sm_80", what_if=False, trace_warps=32)
    whole = analyze(cu, grid, block, args, ["ampere_a100"], max_nodes=None, **kw)
    assert whole.truncated_warps == 0
    longest = whole.predictions[0].profile["instructions_on_core"] / max(1, whole.predictions[0].profile["warps_on_core"])
    cut = analyze(cu, grid, block, args, ["ampere_a100"], max_nodes=int(longest // 4), **kw)
    p, q = cut.predictions[0], whole.predictions[0]
    assert cut.truncated_warps > 0
    assert any("extrapolated" in n for n in p.notes)
    assert p.seconds == pytest.approx(q.seconds, rel=0.01)
    assert p.predictions["roofline"]["seconds"] == pytest.approx(q.predictions["roofline"]["seconds"], rel=0.01)


@pytest.mark.parametrize("name,grid,block,args", [CASES[0], CASES[1]])
def test_the_emulator_keeps_a_bounded_trace_and_counts_the_rest(cu, name, grid, block, args, monkeypatch):
    """With room for 4096 entries per warp the emulator keeps that much of each trace, counts the
    rest, and the prediction is the whole traces' within 1 %; the report says what it kept."""
    import pipeperf.analyze as A

    kw = dict(kernel=name, arch="sm_80", what_if=False, trace_warps=32)
    whole = analyze(cu, grid, block, args, ["ampere_a100"], **kw)
    monkeypatch.setattr(A, "TRACE_ENTRIES", 4096 * 32)
    kept = analyze(cu, grid, block, args, ["ampere_a100"], **kw)
    assert kept.truncated_warps > 0 and whole.truncated_warps == 0
    p = kept.predictions[0]
    assert any("keep the first 4,096 instructions" in n for n in p.notes)
    assert p.profile["instructions_on_core"] == pytest.approx(whole.predictions[0].profile["instructions_on_core"], rel=0.001)
    assert p.seconds == pytest.approx(whole.predictions[0].seconds, rel=0.01)
