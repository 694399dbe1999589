"""The generic launcher of ``pipeperf measure``: argument specs, kernel names, the C++ program."""

import shutil
import subprocess

import numpy as np
import pytest

from pipeperf.cli.main import main
from pipeperf.errors import PipeperfError
from pipeperf.measure import harness, launcher

no_gpu = pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU may be present")

SPECS = ["n=1048576", "x=rand:f32:1048576", "y=zeros:f32:1048576", "a=f32:2.5", "k=-3", "s=0.5",
         "idx=rand:i32:100:0:10", "w=ones:f64:7", "i=iota:u32:16", "u64:12"]


def test_specs_parse():
    n, x, y, a, k, s, idx, w, i, bare = (launcher.parse_arg(t) for t in SPECS)
    assert (n.kind, n.type, n.value, n.label) == ("scalar", "", "1048576", "n")
    assert (x.kind, x.fill, x.type, x.count) == ("buffer", "rand", "f32", 1048576)
    assert (y.fill, y.count) == ("zeros", 1048576)
    assert (a.type, a.value) == ("f32", "2.5")
    assert (idx.lo, idx.hi) == (0, 10)
    assert (bare.label, bare.type, bare.value) == ("", "u64", "12")


def test_npy_spec_needs_the_file(tmp_path):
    p = tmp_path / "a.npy"
    np.save(p, np.arange(10, dtype=np.float32))
    spec = launcher.parse_arg(f"a={p}")
    assert (spec.kind, spec.fill, spec.value) == ("buffer", "npy", str(p))
    with pytest.raises(PipeperfError, match="no such file"):
        launcher.parse_arg(f"a={tmp_path / 'missing.npy'}")


@pytest.mark.parametrize("text,message", [
    ("x=", "no value"), ("x=abc", "not a number"), ("x=q32:1", "unknown type"),
    ("x=rand:q32:5", "unknown buffer type"), ("x=fill:f32:5", "unknown buffer fill"),
    ("x=rand:f32:0", "positive integer"), ("x=rand:f32:-4", "positive integer"),
    ("x=rand:f32:8:5:1", "LO < HI"), ("x=zeros:f32:8:1", "FILL:TYPE:COUNT")])
def test_bad_specs_are_named(text, message):
    with pytest.raises(PipeperfError, match=message):
        launcher.parse_arg(text)


def test_dims():
    from pipeperf.util.launch_args import dim3        # the one parser of --grid/--block, as in profile

    assert dim3("1024", "grid") == (1024, 1, 1)
    assert dim3("32,8", "block") == (32, 8, 1)
    for bad in ("0", "1,2,3,4", "a", "-1", ""):
        with pytest.raises(PipeperfError, match="--grid"):
            dim3(bad, "grid")


def test_kernel_names_resolve_through_mangling():
    ptx = (".visible .entry _Z5saxpyifPfS_(\n\t.param .u32 p0\n)\n{ ret; }\n"
           ".visible .entry plain(\n)\n{ ret; }\n.entry _Z4workPi(\n)\n{ ret; }\n"
           ".visible .entry _Z4workPf(\n)\n{ ret; }\n")
    entries = launcher.ptx_entries(ptx)
    assert entries == ["_Z5saxpyifPfS_", "plain", "_Z4workPi", "_Z4workPf"]
    assert launcher.resolve_kernel(entries, "saxpy") == "_Z5saxpyifPfS_"
    assert launcher.resolve_kernel(entries, "plain") == "plain"
    assert launcher.resolve_kernel(entries, "_Z4workPi") == "_Z4workPi"
    with pytest.raises(PipeperfError, match="overloaded"):
        launcher.resolve_kernel(entries, "work")
    with pytest.raises(PipeperfError, match="no kernel 'sax'"):
        launcher.resolve_kernel(entries, "sax")


@pytest.fixture(scope="module")
def launch_exe(tmp_path_factory):
    return launcher.build(tmp_path_factory.mktemp("launcher"))


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_cpp_parser_agrees_with_python(launch_exe):
    cmd = [str(launch_exe), "--parse-only", "--grid", "64,2", "--block", "256"]
    for s in SPECS:
        cmd += ["--arg", s]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["grid 64 2 1", "block 256 1 1"]
    assert lines[2:] == [launcher.parse_arg(s).describe() for s in SPECS]


@pytest.mark.requires_nvcc
def test_the_command_line_asks_for_buffer_resets_and_the_launcher_takes_it(launch_exe, tmp_path):
    cmd = launcher.command_line(launch_exe, tmp_path / "k.cubin", "k", (1, 1, 1), (32, 1, 1),
                                [launcher.parse_arg("x=zeros:u32:4")], tmp_path / "o.csv", False, 3, 0, 1, "t",
                                reset=True)
    assert cmd[-1] == "--reset-buffers"
    out = subprocess.run([str(launch_exe), "--parse-only", "--reset-buffers", "--arg", "x=zeros:u32:4"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


@pytest.mark.requires_nvcc
@pytest.mark.parametrize("spec", ["x=rand:q32:5", "x=abc", "x=rand:f32:0", "x=rand:f32:8:5:1"])
def test_cpp_parser_rejects_what_python_rejects(launch_exe, spec):
    out = subprocess.run([str(launch_exe), "--parse-only", "--arg", spec], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith("pipeperf-launch: --arg")
    with pytest.raises(PipeperfError):
        launcher.parse_arg(spec)


@pytest.mark.requires_nvcc
@no_gpu
def test_launcher_without_a_gpu_exits_4(launch_exe):
    out = subprocess.run([str(launch_exe), "--info"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 4 and "no CUDA device" in out.stderr


@pytest.mark.requires_nvcc
def test_compile_kernel_finds_the_mangled_entry(tmp_path):
    cu = tmp_path / "saxpy.cu"
    cu.write_text("__global__ void saxpy(int n, float a, const float* x, float* y) {\n"
                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}\n"
                  'extern "C" __global__ void scale(float* y) { y[threadIdx.x] *= 2.0f; }\n')
    cubin, entries = launcher.compile_kernel(cu, "sm_90", tmp_path / "build")
    assert cubin.is_file() and harness.cubin_functions(cubin).keys() >= {"_Z5saxpyifPKfPf", "scale"}
    assert launcher.resolve_kernel(entries, "saxpy") == "_Z5saxpyifPKfPf"
    assert launcher.resolve_kernel(entries, "scale") == "scale"


@pytest.mark.requires_nvcc
def test_a_half_passed_by_value_becomes_a_typed_scalar_and_a_float2_is_refused(tmp_path):
    # a __half alpha is a 2-byte .b8 array in PTX: the launcher passes its bytes as an f16 scalar
    cu = tmp_path / "axpy.cu"
    cu.write_text("#include <cuda_fp16.h>\n"
                  "__global__ void haxpy(__half a, const __half* x, __half* y) { y[threadIdx.x] += a * x[threadIdx.x]; }\n"
                  "__global__ void f2(float2 a, float* y) { y[threadIdx.x] = a.x + a.y; }\n")
    cubin, entries = launcher.compile_kernel(cu, "sm_90", tmp_path / "build")
    ptx = launcher.ptx_path(cu, tmp_path / "build").read_text()
    entry = launcher.resolve_kernel(entries, "haxpy")
    bound = launcher.bind(cu, ptx, entry, [launcher.parse_arg(a) for a in ("a=1.5", "x=ones:f16:32", "y=zeros:f16:32")])
    assert bound[0].canonical() == "a=f16:1.5"
    with pytest.raises(PipeperfError, match="struct or array passed by value"):
        launcher.bind(cu, ptx, launcher.resolve_kernel(entries, "f2"),
                      [launcher.parse_arg(a) for a in ("a=f32:1,2", "y=zeros:f32:32")])


@pytest.mark.requires_nvcc
def test_compile_errors_are_one_line(tmp_path):
    cu = tmp_path / "bad.cu"
    cu.write_text("__global__ void k() { undefined_thing(); }\n")
    with pytest.raises(PipeperfError, match="error"):
        launcher.compile_kernel(cu, "sm_90", tmp_path / "build")


# ---------------------------------------------------------------- pipeperf measure

def test_measure_checks_its_arguments_before_looking_for_a_gpu(tmp_path, capsys):
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float* y) {}\n")
    assert main(["measure", str(cu), "--kernel", "k", "--grid", "0", "--block", "32"]) == 2
    assert "--grid '0'" in capsys.readouterr().err
    assert main(["measure", str(cu), "--kernel", "k", "--grid", "4", "--block", "32",
                 "--arg", "y=rand:f99:4"]) == 2
    assert "unknown buffer type 'f99'" in capsys.readouterr().err
    assert main(["measure", str(tmp_path / "none.cu"), "--kernel", "k", "--grid", "4", "--block", "32"]) == 2
    assert "none.cu: no such file" in capsys.readouterr().err


def test_measure_without_a_gpu_is_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))           # no nvidia-smi (nor anything else) on PATH
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float* y) {}\n")
    rc = main(["measure", str(cu), "--kernel", "k", "--grid", "4", "--block", "32", "--arg", "y=zeros:f32:128",
               "--sweep-occupancy", "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert err[0].startswith("pipeperf: error: no CUDA GPU found")
    assert not (tmp_path / "o.csv").exists()
