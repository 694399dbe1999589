"""WMMA forms beyond f16 x f16 -> f32 at m16n16k16 (issue 36): f16 accumulators (f16 -> f16,
f32 C -> f16 D, f16 C -> f32 D), the m32n8k16 and m8n32k16 shapes, s8/u8 -> s32 (wrapping and
``.satfinite``), bf16 -> f32, tf32 -> f32 at m16n16k8 with ``wmma::__float_to_tf32``
(``cvt.rna.tf32.f32``) and f64 at m8n8k4. Each kernel runs two warps, one tile each, through
``load_matrix_sync`` / ``mma_sync`` / ``store_matrix_sync`` on random inputs, in row- and
column-major memory layouts; the output is compared with NumPy within the format's tolerance."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.emulate import run_kernel
from pipeperf.emulate.errors import EmulationError
from pipeperf.ptx import parse_ptx

CU = r'''
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;
typedef wmma::row_major R;
typedef wmma::col_major C;

// warp w: D_w = A_w B_w + C_w; A/B in layouts LA/LB, C and D in memory layout lc (tight strides)
template <int M, int N, int K, typename AT, typename CT, typename DT, typename LA, typename LB>
__device__ void tile(const AT* a, const AT* b, const CT* c, DT* d, wmma::layout_t lc)
{
    int w = threadIdx.x / 32;
    a += w * M * K; b += w * K * N; c += w * M * N; d += w * M * N;
    wmma::fragment<wmma::matrix_a, M, N, K, AT, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, AT, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, CT> fc;
    wmma::fragment<wmma::accumulator, M, N, K, DT> fd;
    wmma::load_matrix_sync(fa, a, __is_same(LA, R) ? K : M);
    wmma::load_matrix_sync(fb, b, __is_same(LB, R) ? N : K);
    wmma::load_matrix_sync(fc, c, lc == wmma::mem_row_major ? N : M, lc);
    wmma::mma_sync(fd, fa, fb, fc);
    wmma::store_matrix_sync(d, fd, lc == wmma::mem_row_major ? N : M, lc);
}
#define ROW wmma::mem_row_major
#define COL wmma::mem_col_major
#define KERNEL(name, M, N, K, AT, CT, DT, LA, LB, LC) \
    extern "C" __global__ void name(const AT* a, const AT* b, const CT* c, DT* d) \
    { tile<M, N, K, AT, CT, DT, LA, LB>(a, b, c, d, LC); }

KERNEL(f16_f16_m16n16k16, 16, 16, 16, half, half, half, R, C, ROW)
KERNEL(f16_f32c_f16d_m16n16k16, 16, 16, 16, half, float, half, R, R, COL)
KERNEL(f16_f16c_f32d_m16n16k16, 16, 16, 16, half, half, float, C, C, ROW)
KERNEL(f16_f32_m32n8k16, 32, 8, 16, half, float, float, R, C, ROW)
KERNEL(f16_f16_m32n8k16, 32, 8, 16, half, half, half, C, R, COL)
KERNEL(f16_f32_m8n32k16, 8, 32, 16, half, float, float, C, R, COL)
KERNEL(f16_f16_m8n32k16, 8, 32, 16, half, half, half, R, C, ROW)
KERNEL(s8_s32_m16n16k16, 16, 16, 16, signed char, int, int, R, C, ROW)
KERNEL(u8_s32_m16n16k16, 16, 16, 16, unsigned char, int, int, C, R, COL)
KERNEL(s8_s32_m8n32k16, 8, 32, 16, signed char, int, int, R, R, ROW)
KERNEL(bf16_f32_m16n16k16, 16, 16, 16, __nv_bfloat16, float, float, R, C, ROW)
KERNEL(bf16_f32_m32n8k16, 32, 8, 16, __nv_bfloat16, float, float, C, R, COL)
KERNEL(f64_f64_m8n8k4, 8, 8, 4, double, double, double, R, C, ROW)
KERNEL(f64_f64_m8n8k4_col, 8, 8, 4, double, double, double, C, R, COL)

// integer saturation: mma_sync(..., satf = true) -> .satfinite
extern "C" __global__ void s8_s32_sat_m32n8k16(const signed char* a, const signed char* b, const int* c,
                                               int* d)
{
    int w = threadIdx.x / 32;
    a += w * 32 * 16; b += w * 16 * 8; c += w * 32 * 8; d += w * 32 * 8;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, R> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, C> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 8, ROW);
    wmma::mma_sync(fc, fa, fb, fc, true);
    wmma::store_matrix_sync(d, fc, 8, ROW);
}

// tf32 as cuda-samples tf32TensorCoreGemm: f32 in memory, fragments rounded by __float_to_tf32
extern "C" __global__ void tf32_f32_m16n16k8(const float* a, const float* b, const float* c, float* d)
{
    int w = threadIdx.x / 32;
    a += w * 16 * 8; b += w * 8 * 16; c += w * 16 * 16; d += w * 16 * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, R> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, C> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::load_matrix_sync(fc, c, 16, ROW);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, ROW);
}

// f32 accumulator converted element by element into an f16 one (element i: the same matrix entry)
extern "C" __global__ void f32_acc_to_f16(const half* a, const half* b, half* d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, R> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, C> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> out;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < out.num_elements; i++) out.x[i] = __float2half(2.0f * acc.x[i]);
    wmma::store_matrix_sync(d, out, 16, ROW);
}

extern "C" __global__ void to_tf32(const float* x, float* y)
{
    y[threadIdx.x] = wmma::__float_to_tf32(x[threadIdx.x]);
}
'''

WARPS = 2


def tf32(x: np.ndarray) -> np.ndarray:
    """cvt.rna.tf32.f32 of finite values: nearest, ties away from zero, to 10 mantissa bits."""
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def bf16_value(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << np.uint32(16)).view(np.float32)


def in_memory(x: np.ndarray, layout: str) -> np.ndarray:
    """Each warp's matrix x[w] stored row- or column-major, the warps' tiles one after the other."""
    return np.ascontiguousarray(x if layout == "row" else x.transpose(0, 2, 1)).reshape(-1)


def from_memory(flat: np.ndarray, rows: int, cols: int, layout: str) -> np.ndarray:
    return flat.reshape(WARPS, rows, cols) if layout == "row" else flat.reshape(WARPS, cols, rows).transpose(0, 2, 1)


@pytest.fixture(scope="module")
def cu(tmp_path_factory):
    p = tmp_path_factory.mktemp("wmma") / "wmma_forms.cu"
    p.write_text(CU)
    return p


def random_inputs(rng, a_t: str, c_t: str, shape):
    """(A, B, C as stored, A, B, C as the numbers multiplied, float64 or int64)."""
    m, n, k = shape
    if a_t in ("s8", "u8"):
        lo, hi = (-128, 128) if a_t == "s8" else (0, 256)
        dt = np.int8 if a_t == "s8" else np.uint8
        a, b = (rng.integers(lo, hi, s).astype(dt) for s in ((WARPS, m, k), (WARPS, k, n)))
        c = rng.integers(-2**20, 2**20, (WARPS, m, n)).astype(np.int32)
        return a, b, c, a.astype(np.int64), b.astype(np.int64), c.astype(np.int64)
    a = rng.standard_normal((WARPS, m, k))
    b = rng.standard_normal((WARPS, k, n))
    c = rng.standard_normal((WARPS, m, n))
    if a_t == "f16":
        a, b = a.astype(np.float16), b.astype(np.float16)
        av, bv = a.astype(np.float64), b.astype(np.float64)
    elif a_t == "bf16":
        a, b = bf16_bits(a), bf16_bits(b)
        av, bv = bf16_value(a).astype(np.float64), bf16_value(b).astype(np.float64)
    else:
        av, bv = a, b
    c = c.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[c_t])
    return a, b, c, av, bv, c.astype(np.float64)


# kernel, (m, n, k), A/B type, C type, D type, A layout, B layout, C/D layout
FORMS = [
    ("f16_f16_m16n16k16", (16, 16, 16), "f16", "f16", "f16", "row", "col", "row"),
    ("f16_f32c_f16d_m16n16k16", (16, 16, 16), "f16", "f32", "f16", "row", "row", "col"),
    ("f16_f16c_f32d_m16n16k16", (16, 16, 16), "f16", "f16", "f32", "col", "col", "row"),
    ("f16_f32_m32n8k16", (32, 8, 16), "f16", "f32", "f32", "row", "col", "row"),
    ("f16_f16_m32n8k16", (32, 8, 16), "f16", "f16", "f16", "col", "row", "col"),
    ("f16_f32_m8n32k16", (8, 32, 16), "f16", "f32", "f32", "col", "row", "col"),
    ("f16_f16_m8n32k16", (8, 32, 16), "f16", "f16", "f16", "row", "col", "row"),
    ("s8_s32_m16n16k16", (16, 16, 16), "s8", "s32", "s32", "row", "col", "row"),
    ("u8_s32_m16n16k16", (16, 16, 16), "u8", "s32", "s32", "col", "row", "col"),
    ("s8_s32_m8n32k16", (8, 32, 16), "s8", "s32", "s32", "row", "row", "row"),
    ("bf16_f32_m16n16k16", (16, 16, 16), "bf16", "f32", "f32", "row", "col", "row"),
    ("bf16_f32_m32n8k16", (32, 8, 16), "bf16", "f32", "f32", "col", "row", "col"),
    ("f64_f64_m8n8k4", (8, 8, 4), "f64", "f64", "f64", "row", "col", "row"),
    ("f64_f64_m8n8k4_col", (8, 8, 4), "f64", "f64", "f64", "col", "row", "col"),
]
OUT = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "s32": np.int32}


@pytest.mark.parametrize("kernel,shape,a_t,c_t,d_t,la,lb,lc", FORMS, ids=[f[0] for f in FORMS])
def test_wmma_form_matches_numpy(cu, kernel, shape, a_t, c_t, d_t, la, lb, lc):
    m, n, k = shape
    rng = np.random.default_rng([ord(ch) for ch in kernel])
    a, b, c, av, bv, cv = random_inputs(rng, a_t, c_t, shape)
    d = np.zeros(WARPS * m * n, OUT[d_t])
    prof = run_kernel(cu, 1, 32 * WARPS, [in_memory(a, la), in_memory(b, lb), in_memory(c, lc), d],
                      kernel=kernel)
    # the rows of A lie ldm x its element size apart (mapper g's bank conflicts start from it)
    ldm_a = k if la == "row" else m
    assert ldm_a * a.itemsize in set(prof.wmma_row_bytes.values())
    got = from_memory(d, m, n, lc)
    want = av @ bv + cv
    if d_t == "s32":
        assert np.array_equal(got, want)
    elif d_t == "f16":       # one rounding of the f32 result per mma: within an f16 half-ulp (+ f32 sums)
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2**-10, atol=2**-14)
    elif d_t == "f32":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)


def test_integer_wmma_wraps_and_satfinite_clamps(cu):
    m, n, k = 32, 8, 16
    rng = np.random.default_rng(8)
    a = rng.integers(-128, 128, (WARPS, m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (WARPS, k, n)).astype(np.int8)
    c = rng.integers(-2**31, 2**31, (WARPS, m, n), dtype=np.int64).astype(np.int32)
    c[:, ::2] = np.int32(2**31 - 5)        # near the edges: some sums overflow either way
    c[:, 1::4] = np.int32(-2**31 + 5)
    exact = a.astype(np.int64) @ b.astype(np.int64) + c
    assert np.any(exact > 2**31 - 1) and np.any(exact < -2**31)
    d = np.zeros(WARPS * m * n, np.int32)
    run_kernel(cu, 1, 32 * WARPS, [in_memory(a, "row"), in_memory(b, "col"), in_memory(c, "row"), d],
               kernel="s8_s32_sat_m32n8k16")
    assert np.array_equal(from_memory(d, m, n, "row"), np.clip(exact, -2**31, 2**31 - 1))
    # the same form without .satfinite wraps (s8_s32_m8n32k16's A/B are small; C decides)
    a8, b8 = a[:, :8, :], rng.integers(-128, 128, (WARPS, k, 32)).astype(np.int8)
    c8 = np.full((WARPS, 8, 32), 2**31 - 1, np.int32)
    d8 = np.zeros(WARPS * 8 * 32, np.int32)
    run_kernel(cu, 1, 32 * WARPS, [in_memory(a8, "row"), in_memory(b8, "row"), in_memory(c8, "row"), d8],
               kernel="s8_s32_m8n32k16")
    want = (a8.astype(np.int64) @ b8.astype(np.int64) + c8).astype(np.int32)      # two's complement
    assert np.array_equal(from_memory(d8, 8, 32, "row"), want)


def test_tf32_wmma_rounds_its_inputs_with_float_to_tf32(cu):
    m, n, k = 16, 16, 8
    rng = np.random.default_rng(32)
    a = rng.standard_normal((WARPS, m, k)).astype(np.float32)
    b = rng.standard_normal((WARPS, k, n)).astype(np.float32)
    c = rng.standard_normal((WARPS, m, n)).astype(np.float32)
    d = np.zeros(WARPS * m * n, np.float32)
    run_kernel(cu, 1, 32 * WARPS, [in_memory(a, "row"), in_memory(b, "col"), in_memory(c, "row"), d],
               kernel="tf32_f32_m16n16k8")
    got = from_memory(d, m, n, "row")
    want = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64) + c
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    assert np.abs(got - exact).max() > 1e-4          # tf32 inputs, not f32 ones


def test_float_to_tf32_is_cvt_rna(cu):
    x = np.array([1 + 2**-11, -(1 + 2**-11), 1 + 2**-12, 1 + 3 * 2**-11, 1 + 2**-10, 0.1, -3.0e-39,
                  np.finfo(np.float32).max, np.inf, -np.inf, np.nan, 0.0], np.float32)
    y = np.zeros_like(x)
    run_kernel(cu, 1, len(x), [x, y], kernel="to_tf32")
    assert y[:5].tolist() == [1 + 2**-10, -(1 + 2**-10), 1.0, 1 + 2**-9, 1 + 2**-10]   # ties away from 0
    assert y[5] == tf32(x[5:6])[0] and y[6] == tf32(x[6:7])[0]
    assert np.isposinf(y[7]) and np.isposinf(y[8]) and np.isneginf(y[9])   # FLT_MAX rounds up to inf
    assert np.isnan(y[10]) and y[11] == 0
    assert not np.any(y[np.isfinite(y)].view(np.uint32) & 0x1FFF)


def test_f32_and_f16_accumulators_agree_element_by_element(cu):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    d = np.zeros(256, np.float16)
    run_kernel(cu, 1, 32, [a.reshape(-1), np.ascontiguousarray(b.T).reshape(-1), d], kernel="f32_acc_to_f16")
    want = (2 * (a.astype(np.float32) @ b.astype(np.float32))).astype(np.float16)
    np.testing.assert_allclose(d.reshape(16, 16).astype(np.float64), want.astype(np.float64),
                               rtol=2**-10, atol=2**-14)


SUBBYTE = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry s4(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1], %r2;
    ret;
}
"""


def test_sub_byte_wmma_is_refused_where_reached():
    with pytest.raises(EmulationError, match=r"unsupported instruction wmma\.load.*m8n8k32 is not emulated"):
        run_kernel(parse_ptx(SUBBYTE), 1, 32, [np.zeros(64, np.uint8)])
