"""Traces longer than the IDG budget (``max_nodes``) are not simulated short: the time is
extrapolated from two cuts (the first half and the whole budget) to the whole traces, within
1 % of simulating the whole traces, and the report says so."""

from __future__ import annotations


import pytest

from pipeperf.analysis import analyze


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
extern "C" __global__ void warp_sums(const float* x, float* y, int n)
{   // a loop of loads and warp shuffles
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        float v = x[(j * 4096 + i) & 1048575];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        s += v;
    }
    y[i] = s;
}
extern "C" __global__ void hash_loop(unsigned* out, int n)
{   // integer arithmetic only
    unsigned h = 2166136261u ^ (blockIdx.x * blockDim.x + threadIdx.x);
    for (int j = 0; j < n; j++) { h ^= j; h *= 16777619u; h = (h << 13) | (h >> 19); }
    out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}
extern "C" __global__ void sfu_loop(float* out, int n)
{   // special functions and fp64 in one loop
    float a = threadIdx.x * 1e-3f;
    double d = 1.0;
    for (int j = 0; j < n; j++) { a = __sinf(a) + __expf(-a); d = d * 1.0000001 + a; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + (float)d;
}
extern "C" __global__ void smem_histogram(const int* x, int* h, int n)
{   // shared-memory atomics in a loop, a barrier before the flush
    __shared__ int bins[64];
    if (threadIdx.x < 64) bins[threadIdx.x] = 0;
    __syncthreads();
    for (int j = 0; j < n; j++) atomicAdd(&bins[(x[(j * 256 + threadIdx.x) & 262143] + j) & 63], 1);
    __syncthreads();
    if (threadIdx.x < 64) atomicAdd(&h[threadIdx.x], bins[threadIdx.x]);
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
    ("warp_sums", [8], [128], ["x=rand:f32:1048576", "y=zeros:f32:1024", "n=600"]),
    ("hash_loop", [16], [256], ["out=zeros:u32:4096", "n=2500"]),
    ("sfu_loop", [16], [128], ["out=zeros:f32:2048", "n=1500"]),
    ("smem_histogram", [16], [256], ["x=rand:i32:262144", "h=zeros:i32:64", "n=1200"]),
]


@pytest.fixture(scope="module")
def cu(tmp_path_factory):
    p = tmp_path_factory.mktemp("cut") / "cut.cu"
    p.write_text(CU)
    return p


@pytest.mark.slow
@pytest.mark.parametrize("name,grid,block,args", CASES)
def test_cut_traces_extrapolate_to_the_whole_simulation(cu, name, grid, block, args):
    kw = dict(kernel=name, arch="sm_80", what_if=False, trace_warps=32, skip_loops=False)
    whole = analyze(cu, grid, block, args, ["ampere_a100"], max_nodes=None, **kw)
    assert whole.truncated_warps == 0
    longest = whole.predictions[0].profile["instructions_on_core"] / max(1, whole.predictions[0].profile["warps_on_core"])
    cut = analyze(cu, grid, block, args, ["ampere_a100"], max_nodes=int(longest // 4), **kw)
    p, q = cut.predictions[0], whole.predictions[0]
    assert cut.truncated_warps > 0
    assert any("extrapolated" in n for n in p.notes)
    assert p.seconds == pytest.approx(q.seconds, rel=0.01)
    assert p.predictions["roofline"]["seconds"] == pytest.approx(q.predictions["roofline"]["seconds"], rel=0.01)


@pytest.mark.slow
@pytest.mark.parametrize("name,grid,block,args", [CASES[0], CASES[1]])
def test_the_emulator_keeps_a_bounded_trace_and_counts_the_rest(cu, name, grid, block, args, monkeypatch):
    """With room for 4096 entries per warp the emulator keeps that much of each trace, counts the
    rest, and the prediction is the whole traces' within 1 %; the report says what it kept."""
    import pipeperf.analysis as A

    kw = dict(kernel=name, arch="sm_80", what_if=False, trace_warps=32, skip_loops=False)
    whole = analyze(cu, grid, block, args, ["ampere_a100"], **kw)
    monkeypatch.setattr(A, "TRACE_ENTRIES", 4096 * 32)
    kept = analyze(cu, grid, block, args, ["ampere_a100"], **kw)
    assert kept.truncated_warps > 0 and whole.truncated_warps == 0
    p = kept.predictions[0]
    assert any(n.startswith("mapper g's memory statistics come from the first") and
               "trace cap of 4,096 instructions per warp" in n for n in p.notes)
    assert p.profile["instructions_on_core"] == pytest.approx(whole.predictions[0].profile["instructions_on_core"], rel=0.001)
    assert p.seconds == pytest.approx(whole.predictions[0].seconds, rel=0.01)
