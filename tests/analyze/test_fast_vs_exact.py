"""Issue 16: the fast path (periodic loops skipped by the emulator and extrapolated, IDGs cut to
a node budget, block rounds fast-forwarded) predicts within 1 % of the exact path (``exact=True``:
every iteration emulated and simulated, whole traces, every block), and says what it did."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.analysis import analyze


ROOT = Path(__file__).resolve().parents[2]
T, V, B = ROOT / "tests" / "kernels", ROOT / "validation" / "kernels", ROOT / "benchmarks" / "kernels"

CU = r"""
extern "C" __global__ void countdown(const float* x, float* y, int n, float b)
{   // a count-down loop (its exit compare is `!= 0`) over strided loads
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int j = n; j != 0; --j) acc = acc * b + x[(j * 512 + i) & 65535];
    y[i] = acc;
}
extern "C" __global__ void ptr_walk(const double* x, double* y, int n)
{   // a 64-bit pointer stepping through a column
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const double* p = x + i;
    double s = 0.0;
    for (int j = 0; j < n; j++, p += 1024) s += *p * 0.5;
    y[i] = s;
}
extern "C" __global__ void fma_loop(int n, float* out)
{   // no memory in the loop: its schedule repeats exactly
    float a = threadIdx.x, b = 1.0001f;
    for (int j = 0; j < n; j++) { a = a * b + 0.5f; b = b * a - 0.25f; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}
extern "C" __global__ void collatz(const unsigned* x, unsigned* y)
{   // a data-dependent trip count: never skipped
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = x[i] + 1u, k = 0;
    while (v != 1u && k < 2000u) { v = (v & 1u) ? 3u * v + 1u : v >> 1; k++; }
    y[i] = k;
}
"""

MIX = ["-D", "COMPUTE_ITERATIONS=64"]
CASES = {   # name -> (file or None for CU, kernel, grid, block, args, nvcc flags)
    "nbody_soa": (B / "nbody_soa.cu", "nbody_soa", [8], [128],
                  ["n=2000"] + [f"{a}=rand:f32:2000" for a in ["x", "y", "z", "mass"]]
                  + [f"{a}=zeros:f32:2000" for a in ("ax", "ay", "az")], []),
    "covariance": (B / "covariance_style.cu", "covar_kernel", [1], [96],
                   ["m=96", "n=96", "data=rand:f32:9216", "symmat=zeros:f32:9216"], []),
    "covariance_2cta": (B / "covariance_style.cu", "covar_kernel", [2], [64],   # nested loops, two CTAs
                        ["m=128", "n=128", "data=rand:f32:16384", "symmat=zeros:f32:16384"], []),
    "matmul_naive": (T / "matmul_naive.cu", "matmul_naive", [4, 4], [16, 16],
                     ["A=rand:f32:4096", "B=rand:f32:4096", "C=zeros:f32:4096", "n=64"], []),
    "matmul_tiled": (T / "matmul_tiled.cu", "matmul_tiled", [4, 4], [16, 16],
                     ["A=rand:f32:4096", "B=rand:f32:4096", "C=zeros:f32:4096", "n=64"], []),
    "fma_chain": (T / "fma_chain.cu", "fma_chain", [4], [128],
                  ["in=rand:f32:153600", "out=zeros:f32:512", "n=512", "iters=300"], []),
    "mix_alu_sfu": (T / "mix_alu_sfu.cu", "mix_alu_sfu", [4], [128], ["data=rand:f32:512", "reps=300"], []),
    "loop_unroll1": (T / "unroll.cu", "loop_unroll1", [4], [128],
                     ["x=rand:f32:512", "y=zeros:f32:512", "n=512", "iters=600"], []),
    "mixbench_float": (V / "mixbench.cu", "mixbench_v003_float", [64], [256],
                       ["seed=1.0", "g_data=zeros:f32:524288"], MIX),
    "mixbench_int": (V / "mixbench.cu", "mixbench_v003_int", [64], [256],
                     ["seed=1", "g_data=zeros:i32:524288"], MIX),
    # a `!=` exit whose loop has no period left to skip once detected (12 iterations): a probe
    # one iteration past an overshot `!=` bound still loops, so only the solved count may be used
    "mixbench_int_48": (V / "mixbench.cu", "mixbench_v003_int", [64], [256],
                        ["seed=1", "g_data=zeros:i32:524288"], ["-D", "COMPUTE_ITERATIONS=48"]),
    # a long IMAD loop between loads: the kept IDGs are load-heavy, the whole traces ALU-bound
    "mixbench_int_256": (V / "mixbench.cu", "mixbench_v003_int", [512], [256],
                         ["seed=1", "g_data=zeros:i32:4194304"], ["-D", "COMPUTE_ITERATIONS=256"]),
    # issue 39: K loops with shared-memory stores between __syncthreads (skipped), a register-tiled
    # SGEMM (its 8-iteration inner loop emulated whole, the K loop around it skipped)
    "matmul_tiled_2048": (T / "matmul_tiled.cu", "matmul_tiled", [2, 2], [16, 16],
                          ["A=rand:f32:4194304", "B=rand:f32:4194304", "C=zeros:f32:4194304", "n=2048"], []),
    "sgemm_vectorize": (V / "sgemm_ladders_siboehm.cu", "sgemm_vectorize", [2, 2], [256],
                        ["M=256", "N=256", "K=1024", "alpha=0.5", "A=rand:f32:262144", "B=rand:f32:262144",
                         "beta=3.0", "C=rand:f32:65536"], ["-D", "NDEBUG"]),
    "countdown": (None, "countdown", [8], [128],
                  ["x=rand:f32:65536", "y=zeros:f32:1024", "n=700", "b=0.5"], []),
    "ptr_walk": (None, "ptr_walk", [4], [128], ["x=rand:f64:1048576", "y=zeros:f64:512", "n=900"], []),
    "collatz": (None, "collatz", [4], [128], ["x=rand:u32:512:1:10000", "y=zeros:u32:512"], []),
    # ping-pong loops (a period of two iterations): the toy, and wangzyon's double-buffered SGEMM (v7)
    "pingpong": (B / "pingpong.cu", "pingpong", [4], [128], ["x=rand:f32:307712", "y=zeros:f32:512", "n=600"], []),
    "sgemm_double_buffer": (V / "sgemm_ladders_wangzyon.cu", "mysgemm_v7", [2, 2], [256],
                            ["M=256", "N=256", "K=1024", "alpha=1.0", "A=rand:f32:262144", "B=rand:f32:262144",
                             "beta=0.0", "C=zeros:f32:65536"], []),
}


@pytest.fixture(scope="module")
def cu(tmp_path_factory):
    p = tmp_path_factory.mktemp("loops") / "loops.cu"
    p.write_text(CU)
    return p


def _both(cu, name):
    f, kernel, grid, block, args, flags = CASES[name]
    kw = dict(kernel=kernel, arch="sm_80", what_if=False, trace_warps=64, nvcc_flags=flags)
    fast = analyze(f or cu, grid, block, args, ["ampere_a100"], **kw)
    exact = analyze(f or cu, grid, block, args, ["ampere_a100"], exact=True, **kw)
    return fast, exact


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_path_within_one_percent_of_exact(cu, name):
    fast, exact = _both(cu, name)
    p, q = fast.predictions[0], exact.predictions[0]
    assert p.seconds == pytest.approx(q.seconds, rel=0.01)
    assert p.profile["instructions_on_core"] == pytest.approx(q.profile["instructions_on_core"], rel=0.01)
    qr = "quantitative_roofline"               # from the emulator's counts: added exactly over skips
    assert p.predictions[qr]["seconds"] == pytest.approx(q.predictions[qr]["seconds"], rel=1e-9)
    skipped = [n for n in p.notes if n.startswith("periodic loops")]
    if name == "collatz":
        assert not skipped                       # a data-dependent trip count is emulated in full
    if name in ("nbody_soa", "covariance", "covariance_2cta", "countdown", "ptr_walk", "fma_loop",
                "matmul_tiled_2048", "sgemm_vectorize", "pingpong", "sgemm_double_buffer"):
        assert skipped and "extrapolated" in skipped[0]
    assert not any(n.startswith("periodic loops") for n in q.notes)


def test_a_periodic_schedule_extrapolates_exactly(cu):
    """No memory in the loop and identical warps: each skipped period costs exactly what the
    simulated ones did, so the extrapolation matches the whole simulation to rounding."""
    kw = dict(kernel="fma_loop", arch="sm_80", what_if=False, trace_warps=32)
    args = ["n=2000", "out=zeros:f32:2048"]
    fast = analyze(cu, [8], [256], args, ["ampere_a100"], **kw)
    exact = analyze(cu, [8], [256], args, ["ampere_a100"], exact=True, **kw)
    assert any(n.startswith("periodic loops") for n in fast.predictions[0].notes)
    assert fast.predictions[0].seconds == pytest.approx(exact.predictions[0].seconds, rel=1e-6)


@pytest.mark.slow
def test_memory_statistics_from_a_prefix_are_stated(cu, monkeypatch):
    """When the budget for synthesising skipped iterations' accesses runs out, mapper g sees a
    prefix of each warp only (its hit rates can be too low): the notes say which share."""
    import pipeperf.emulate.loops as loops

    f, kernel, grid, block, args, flags = CASES["covariance"]
    kw = dict(kernel=kernel, arch="sm_80", what_if=False, trace_warps=64, nvcc_flags=flags)
    full = analyze(f, grid, block, args, ["ampere_a100"], **kw).predictions[0].notes
    assert not any(n.startswith("mapper g's memory statistics come from") for n in full)
    monkeypatch.setattr(loops, "SYNTH_ADDRESSES", 20_000)
    notes = analyze(f, grid, block, args, ["ampere_a100"], **kw).predictions[0].notes
    cover = [n for n in notes if n.startswith("mapper g's memory statistics come from the first")]
    assert cover and "synthesised for skipped loop iterations" in cover[0]
