"""CUDA's vector and 16-bit float types passed by value (``__half``, ``__nv_bfloat16``, ``half2``,
``float2/4``, ``int2/4``, ``double2``: PTX ``.param .align N .b8 name[SIZE]``) take numbers and
tuples as scalars do, typed by their C++ type from the mangled kernel name or, for an
``extern "C"`` kernel, the ``.cu`` declaration (issue 36); the GEMM templated on ``__half`` that
was refused ("alpha ... is a 2-byte struct") analyses and computes the right product."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeperf.emulate import run_kernel
from pipeperf.errors import PipeperfError

STORE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void store(__half h, __nv_bfloat16 b, half2 h2, __nv_bfloat162 b2, float2 f2, float4 f4, int4 i4,
                      int2 i2, double2 d2, uint4 u4, int n,
                      __half* oh, __nv_bfloat16* ob, half2* oh2, __nv_bfloat162* ob2, float2* of2, float4* of4,
                      int4* oi4, int2* oi2, double2* od2, uint4* ou4)
{
    *oh = h; *ob = b; *oh2 = h2; *ob2 = b2; *of2 = f2; *of4 = f4; *oi4 = i4; *oi2 = i2; *od2 = d2; *ou4 = u4;
}
extern "C" __global__ void store_c(const __half h, nv_bfloat16 const b, float4 v, half2 h2, int* out,
                                   __half* oh, __nv_bfloat16* ob, float4* ov, half2* oh2)
{
    *oh = h; *ob = b; *ov = v; *oh2 = h2;
}
"""

GEMM = r"""
#include <cuda_fp16.h>
template <typename T>
__global__ void gemm(size_t m, size_t n, size_t k, T alpha, T const* A, size_t lda, T const* B, size_t ldb,
                     T beta, T* C, size_t ldc)
{
    size_t i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m && j < n) {
        float acc = 0.0f;
        for (size_t l = 0; l < k; ++l)
            acc += static_cast<float>(A[i * lda + l]) * static_cast<float>(B[l * ldb + j]);
        C[i * ldc + j] = static_cast<T>(static_cast<float>(alpha) * acc
                                        + static_cast<float>(beta) * static_cast<float>(C[i * ldc + j]));
    }
}
template __global__ void gemm<__half>(size_t, size_t, size_t, __half, __half const*, size_t, __half const*,
                                      size_t, __half, __half*, size_t);
"""
N = 32

#: (argument, output dtype, expected output): bf16 is float32's top 16 bits rounded to nearest
#: even (1 + 2^-8 is a tie, kept even at 0x3F80; 1 + 3 * 2^-8 rounds up to 0x3F82)
CASES = [("h=2.5", np.float16, [2.5]), ("b=-2.5", np.uint16, [0xC020]),
         ("h2=1.5,-2", np.float16, [1.5, -2.0]), ("b2=1.00390625,1.01171875", np.uint16, [0x3F80, 0x3F82]),
         ("f2=0.1,0.2", np.float32, np.float32([0.1, 0.2])), ("f4=1,2.5,-3,4e10", np.float32, [1, 2.5, -3, 4e10]),
         ("i4=1,-2,3,0x7fffffff", np.int32, [1, -2, 3, 2**31 - 1]), ("i2=5,-6", np.int32, [5, -6]),
         ("d2=0.1,1e300", np.float64, [0.1, 1e300]), ("u4=0,1,4294967295,-1", np.uint32, [0, 1, 2**32 - 1, 2**32 - 1])]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("vec")
    (d / "store.cu").write_text(STORE)
    (d / "gemm.cu").write_text(GEMM)
    return d


def _outputs():
    return [np.zeros(len(expected), dtype) for _, dtype, expected in CASES]


def test_vector_parameters_take_numbers_and_tuples(files):
    """Each parameter's numbers reach the kernel as their type's bytes (the kernel stores them)."""
    outs = _outputs()
    run_kernel(files / "store.cu", 1, 1, [c[0] for c in CASES] + ["n=3"] + outs, kernel="store", mode="full")
    for (spec, _, expected), out in zip(CASES, outs):
        np.testing.assert_array_equal(out, np.asarray(expected, out.dtype), err_msg=spec)


def test_the_python_api_takes_numbers_and_tuples(files):
    """run_kernel's sequences and dicts take Python numbers and tuples (or lists) for them too."""
    outs = _outputs()
    values = [2.5, -2.5, (1.5, -2), [1.00390625, 1.01171875], (0.1, 0.2), (1, 2.5, -3, 4e10),
              (1, -2, 3, 0x7FFFFFFF), (5, -6), (0.1, 1e300), (0, 1, 2**32 - 1, -1), 3]
    run_kernel(files / "store.cu", 1, 1, values + outs, kernel="store", mode="full")
    for (spec, _, expected), out in zip(CASES, outs):
        np.testing.assert_array_equal(out, np.asarray(expected, out.dtype), err_msg=spec)
    named: dict = {c[0].split("=")[0]: c[0].split("=")[1] for c in CASES}
    named.update({f"o{k}": o for k, o in zip(list(named), _outputs())}, h2=(0.25, 8.0), n=1)
    run_kernel(files / "store.cu", 1, 1, named, kernel="store", mode="full")
    np.testing.assert_array_equal(named["oh2"], np.float16([0.25, 8.0]))


def test_an_extern_c_kernel_is_typed_by_its_declaration(files):
    """``extern "C"``: no mangled name; the .cu declaration (cv-qualifiers, typedef names) says."""
    oh, ob, ov, oh2 = np.zeros(1, np.float16), np.zeros(1, np.uint16), np.zeros(4, np.float32), np.zeros(2, np.float16)
    run_kernel(files / "store.cu", 1, 1, ["h=-0.5", "b=1", "v=1,2,3,4", "h2=3,4", "out=zeros:i32:1", oh, ob, ov, oh2],
               kernel="store_c", mode="full")
    assert oh[0] == -0.5 and ob[0] == 0x3F80 and list(ov) == [1, 2, 3, 4] and list(oh2) == [3, 4]


def test_without_the_cpp_type_typed_values_say_it(files, tmp_path):
    """From a .ptx file an extern "C" kernel's 2-byte parameter may be a __half or a
    __nv_bfloat16: a number is refused in one line naming both and how to pass bytes; typed values
    (or the bytes) are taken."""
    from pipeperf.ptx.compile import compile_cu

    ptx = tmp_path / "store.ptx"
    ptx.write_text(compile_cu(files / "store.cu"))
    oh, ob, ov, oh2 = np.zeros(1, np.float16), np.zeros(1, np.uint16), np.zeros(4, np.float32), np.zeros(2, np.float16)
    rest = ["zeros:i32:1", oh, ob, ov, oh2]
    with pytest.raises(PipeperfError) as e:
        run_kernel(ptx, 1, 1, ["2.0", "u16:0x3f80", "f32:1,2,3,4", "f16:3,4", *rest], kernel="store_c")
    msg = e.value.message
    assert "\n" not in msg and "store_c_param_0 of store_c is a 2-byte value passed by value" in msg
    assert "__half or __nv_bfloat16?" in msg and "f16:2.0 for __half" in msg and "zeros:u8:2" in msg
    run_kernel(ptx, 1, 1, ["f16:-0.5", "u16:0x3f80", "f32:1,2,3,4", "f16:3,4", *rest], kernel="store_c", mode="full")
    assert oh[0] == -0.5 and ob[0] == 0x3F80 and list(ov) == [1, 2, 3, 4] and list(oh2) == [3, 4]
    with pytest.raises(PipeperfError, match=r"float4 or int4 or uint4\? Give typed values \(e\.g\. f32:1,2,3,4"):
        run_kernel(ptx, 1, 1, ["f16:-0.5", "u16:0x3f80", "1,2,3,4", "f16:3,4", *rest], kernel="store_c")


BAD = [("f4=1,2,3", "parameter f4 (PTX _Z5store*_param_5) of store is a 16-byte float4 passed by value: it takes "
                    "4 numbers, got 3 ('f4=1,2,3')"),
       ("h=1,2", "parameter h (PTX *_param_0) of store is a 2-byte __half passed by value: it takes 1 number, got 2"),
       ("n=1,2", "parameter n (PTX *_param_10) of store is .u32, not a vector: 'n=1,2' gives 2 values"),
       ("oh=1.0,2.0", "parameter oh (PTX *_param_11) of store is .u64, not a vector"),
       ("i2=1.5,2", "parameter i2 (PTX *_param_7) of store is an 8-byte int2: --arg 'i2=1.5,2': 1.5 is not an integer"),
       ("h=70000", "parameter h (PTX *_param_0) of store is a 2-byte __half: --arg 'h=70000': 70000 overflows f16"),
       ("b=f16:1", "parameter b (PTX *_param_1) of store is a 2-byte __nv_bfloat16 (bf16 elements): 'b=f16:1' is f16"),
       ("f2=1,x", "--arg 'f2=1,x': 'x' in '1,x' is not a number"),
       ("f2=two", "--arg 'f2=two': 'two' is not a number")]


@pytest.mark.parametrize("spec,message", BAD)
def test_ill_fitting_values_are_one_line_errors_naming_the_cuda_parameter(cli, files, spec, message):
    import fnmatch

    args = {c[0].split("=")[0]: c[0] for c in CASES}
    args.update(n="n=3", **{f"o{k}": f"o{k}=zeros:u8:32" for k in list(args)})
    args[spec.split("=")[0]] = spec
    rc, _, err = cli("profile", str(files / "store.cu"), "--kernel", "store", "--grid", "1", "--block", "1",
                     *[x for a in args.values() for x in ("--arg", a)])
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert fnmatch.fnmatchcase(err, f"*{message}*"), err


def test_a_struct_of_other_types_still_takes_bytes_only(tmp_path):
    cu = tmp_path / "s.cu"
    cu.write_text("struct P { float a; short b; };\n"
                  "__global__ void k(P p, float* out) { out[0] = p.a + p.b; }\n")
    with pytest.raises(PipeperfError, match=r"parameter p \(PTX _Z1k1PPf_param_0\) of k is an 8-byte struct or "
                                            r"array passed by value \(P: \.param .*\), not a number: give its 8 bytes"):
        run_kernel(cu, 1, 1, ["p=1,2", "out=zeros:f32:1"])
    out = np.zeros(1, np.float32)
    raw = np.zeros(8, np.uint8)
    raw[:4] = np.frombuffer(np.float32(1.5).tobytes(), np.uint8)
    raw[4:6] = np.frombuffer(np.int16(2).tobytes(), np.uint8)
    run_kernel(cu, 1, 1, [raw, out], mode="full")
    assert out[0] == 3.5


def _gemm_args(alpha, beta):
    return ([f"m={N}", f"n={N}", f"k={N}", f"alpha={alpha}", f"A=rand:f16:{N * N}", f"lda={N}",
             f"B=rand:f16:{N * N}", f"ldb={N}", f"beta={beta}", f"C=zeros:f16:{N * N}", f"ldc={N}"])


@pytest.mark.slow
def test_a_gemm_templated_on_half_analyses(cli, files):
    """Issue 36's "done when": `--arg alpha=1.0 --arg beta=0.0` for a GEMM on __half."""
    rc, out, err = cli("analyze", str(files / "gemm.cu"), "--kernel", "gemm", "--grid", "2,2", "--block", "16,16",
                       *[x for a in _gemm_args("1.0", "0.0") for x in ("--arg", a)], "--gpu", "ampere_a100",
                       "--no-what-if", "--json")
    assert rc == 0, err
    k = json.loads(out)["kernels"][0]
    assert k["name"] == "_Z4gemmI6__halfEvmmmT_PKS1_mS3_mS1_PS1_m" and k["predictions"]["pipeline"]["seconds"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (2.0, 0.5)])
def test_the_half_gemm_computes_alpha_ab_plus_beta_c(files, alpha, beta):
    """Through the Python API (pipeperf.analyze, full emulation), the kernel reads alpha and beta
    as the __half values given: C = alpha A B + beta C, to fp16's rounding."""
    import pipeperf

    rng = np.random.default_rng(7)
    A, B = (rng.random((N, N)).astype(np.float16) for _ in range(2))
    C = rng.random((N, N)).astype(np.float16)
    ref = alpha * (A.astype(np.float32) @ B.astype(np.float32)) + beta * C.astype(np.float32)
    args = [N, N, N, f"alpha={alpha}", A, N, B, N, f"beta={beta}", C, N]
    report = pipeperf.analyze(files / "gemm.cu", grid=(N // 16, N // 16), block=(16, 16), args=args,
                              gpus="ampere_a100", kernel="gemm", mode="full", what_if=False, sweep=False)
    assert report.predictions
    np.testing.assert_allclose(C.astype(np.float32), ref, rtol=2e-3, atol=1e-3)


def test_the_grammar_of_tuples_and_bf16_rounding():
    from pipeperf.util.launch_args import bf16_bits, element_bytes, parse_arg

    spec = parse_arg("seed=1.0, 2")
    assert spec.kind == "scalar" and spec.numbers == (1.0, 2) and spec.values == (1.0, 2) and spec.number is None
    assert parse_arg("v=f16:1,2").numbers == (1.0, 2.0) and parse_arg("v=f16:1,2").type == "f16"
    assert parse_arg("x=2.5").values == (2.5,)
    with pytest.raises(PipeperfError, match="overflows f16"):
        parse_arg("v=f16:1,70000")
    # round to nearest even on float32's low 16 bits; NaN stays NaN, overflow rounds to infinity
    assert [bf16_bits(x) for x in (1.0, -2.5, 1.00390625, 1.01171875, 65280.0, float("inf"))] == \
        [0x3F80, 0xC020, 0x3F80, 0x3F82, 0x477F, 0x7F80]
    assert bf16_bits(float("nan")) & 0x7FC0 == 0x7FC0
    assert element_bytes((1.0, 2.0), "bf16") == bytes([0x80, 0x3F, 0x00, 0x40])
    assert element_bytes((-1, 2), "i16") == bytes([0xFF, 0xFF, 0x02, 0x00])
    assert element_bytes((1.0,), "f16") == np.float16(1.0).tobytes()
