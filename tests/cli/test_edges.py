"""Issue 38, "no silent wrong answer at the edges": a kernel that calls printf is profiled (the
calls counted, not executed, and the report says so); kernels named as people write them."""

from __future__ import annotations

import json

import pytest

PRINTF = r"""#include <cstdio>
__global__ void hello(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] *= 2.0f;
    if (i % 4 == 0) printf("x[%d] = %f\n", i, x[i]);
  }
}
"""

LAUNCH = ["--grid", "2", "--block", "64", "--arg", "x=rand:f32:100", "--arg", "n=100"]


@pytest.fixture
def printf_cu(tmp_path):
    cu = tmp_path / "hello.cu"
    cu.write_text(PRINTF)
    return str(cu)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["full", "hybrid"])
def test_printf_is_counted_not_executed(cli, printf_cu, mode):
    """vprintf is a no-op returning 0; 25 threads (i = 0, 4, ..., 96) call it: one note says so."""
    rc, out, err = cli("profile", printf_cu, *LAUNCH, "--mode", mode)
    assert rc == 0, err
    assert "note: 25 printf calls not executed (the emulator prints nothing)" in out.splitlines()[-1]
    rc, out, err = cli("profile", printf_cu, *LAUNCH, "--json")
    assert rc == 0, err
    assert json.loads(out)["notes"] == ["25 printf calls not executed (the emulator prints nothing)"]


@pytest.mark.slow
def test_printf_note_in_the_analysis(cli, printf_cu):
    rc, out, err = cli("analyze", printf_cu, *LAUNCH, "--gpu", "ampere_a100")
    assert rc == 0, err
    assert out.count("note: 25 printf calls not executed") == 1


# ---------------------------------------------------------------- .npy arguments checked like the runtime

KERNELS = r"""#include <cuda_fp16.h>
template <typename T> __global__ void axpy(int n, T a, const T *x, T *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
template __global__ void axpy<float>(int, float, const float *, float *);
template __global__ void axpy<__half>(int, __half, const __half *, __half *);
__global__ void count(const int *keys, unsigned *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[keys[i] & 15], 1u);
}
"""

SCALE = 'extern "C" __global__ void scale(float *x, int n) {\n' \
        '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= 2.0f;\n}\n'


@pytest.fixture
def files(tmp_path):
    import numpy as np

    from pipeperf.ptx.compile import compile_cu

    (tmp_path / "k.cu").write_text(KERNELS)
    (tmp_path / "scale.cu").write_text(SCALE)
    (tmp_path / "scale.ptx").write_text(compile_cu(tmp_path / "scale.cu", "sm_80"))
    for name, dtype in (("f64", "<f8"), ("f32", "<f4"), ("f16", "<f2"), ("i32", "<i4"), ("u32", "<u4"),
                        ("be32", ">f4")):
        np.save(tmp_path / f"{name}.npy", np.zeros(64, dtype))
    return tmp_path


def _profile(cli, files, file, kernel, *args, options=()):
    """``pipeperf profile`` of ``file`` in ``files``, each of ``args`` an --arg (``@`` the folder)."""
    argv = [w for a in args for w in ("--arg", a.replace("@", str(files) + "/"))]
    return cli("profile", str(files / file), *(["--kernel", kernel] if kernel else []), "--grid", "1",
               "--block", "64", *argv, *options)


@pytest.mark.slow
@pytest.mark.parametrize("file, kernel, args, message", [
    ("k.cu", "axpy<float>", ["64", "2", "x=@f64.npy", "y=@f32.npy"],
     "parameter x (PTX _Z4axpyIfEviT_PKS0_PS0__param_2) of axpy is const float*: it takes float32 elements, "
     "but the .npy holds float64; convert it (e.g. array.astype(np.float32)) or pass --allow-dtype-mismatch"),
    ("k.cu", "axpy<__half>", ["64", "2", "x=@f16.npy", "y=@f32.npy"],
     "parameter y (PTX _Z4axpyI6__halfEviT_PKS1_PS1__param_3) of axpy is __half*: it takes float16 elements, "
     "but the .npy holds float32"),
    ("k.cu", "count", ["@f32.npy", "@u32.npy", "64"], "keys (PTX _Z5countPKiPji_param_0) of count is const int*: "
     "it takes int32 or uint32 elements, but the .npy holds float32"),
    ("scale.cu", None, ["@i32.npy", "64"], "x (PTX scale_param_0) of scale is float*: it takes float32"),
    ("scale.ptx", None, ["@f64.npy", "64"],          # extern "C" and no source: how the PTX loads it
     "parameter scale_param_0 of scale is accessed as .f32 in the PTX: it takes float32 elements, but the "
     ".npy holds float64"),
    ("scale.ptx", None, ["@be32.npy", "64"], "the .npy holds float32 (big-endian)"),
])
def test_npy_of_another_dtype_is_refused_in_one_line(cli, files, file, kernel, args, message):
    rc, out, err = _profile(cli, files, file, kernel, *args)
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert message in err and ".npy: --arg '" in err                 # the file, the parameter, both types


@pytest.mark.slow
@pytest.mark.parametrize("file, kernel, args", [
    ("k.cu", "axpy<float>", ["64", "2", "x=@f32.npy", "y=@f32.npy"]),
    ("k.cu", "axpy<half>", ["64", "2", "x=@f16.npy", "y=@f16.npy"]),
    ("k.cu", "count", ["@u32.npy", "@i32.npy", "64"]),      # integers of either signedness
    ("scale.ptx", None, ["@f32.npy", "64"]),
])
def test_npy_of_the_element_type_is_taken(cli, files, file, kernel, args):
    rc, _, err = _profile(cli, files, file, kernel, *args)
    assert rc == 0, err


@pytest.mark.slow
def test_allow_dtype_mismatch_takes_the_bytes_as_they_are(cli, files):
    rc, _, err = _profile(cli, files, "scale.ptx", None, "@f64.npy", "64", options=["--allow-dtype-mismatch"])
    assert rc == 0, err
    rc, _, err = cli("analyze", str(files / "scale.cu"), "--grid", "1", "--block", "64", "--arg",
                     str(files / "f64.npy"), "--arg", "64", "--gpu", "ampere_a100")
    assert rc == 2 and "it takes float32 elements, but the .npy holds float64" in err


@pytest.mark.slow
def test_kernel_named_by_template_arguments_or_signature(cli, files):
    rc, out, err = _profile(cli, files, "k.cu", "axpy<__half>", "64", "2", "x=@f16.npy", "y=@f16.npy")
    assert rc == 0 and "_Z4axpyI6__halfEviT_PKS1_PS1_" in out.splitlines()[0], err
    rc, out, err = _profile(cli, files, "k.cu", "void axpy<float>(int, float, float const*, float*)", "64",
                            "2", "x=@f32.npy", "y=@f32.npy")
    assert rc == 0 and "_Z4axpyIfEviT_PKS0_PS0_" in out.splitlines()[0], err
    rc, _, err = _profile(cli, files, "k.cu", "axpy", "64", "2", "x=@f32.npy", "y=@f32.npy")
    assert rc == 2 and err.count("\n") == 1
    assert "ambiguous" in err and "axpy<__half>(int, __half, const __half*, __half*)" in err


# ---------------------------------------------------------------- --shared without a GPU


def test_profile_shared_over_every_gpus_limit_is_refused(cli, files):
    from pipeperf.hardware.occupancy import largest_shared_per_block

    limit, cc = largest_shared_per_block()
    assert (limit, cc) == (227 * 1024, "9.0")          # Hopper's, the most of the database
    rc, _, err = _profile(cli, files, "scale.ptx", None, "@f32.npy", "64", options=["--shared", str(limit + 1)])
    assert rc == 2 and err.count("\n") == 1
    assert f"{limit + 1} bytes of shared memory per block exceed the {limit} bytes a block may use on any GPU" in err
    rc, _, err = _profile(cli, files, "scale.ptx", None, "@f32.npy", "64", options=["--shared", str(limit)])
    assert rc == 0, err
