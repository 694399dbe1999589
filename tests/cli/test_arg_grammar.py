"""One launch grammar for `pipeperf profile`, `analyze` and `measure` (issue 17): the same --arg
specs and --shared/--smem accepted by all three, synonyms that give identical values, one-line
errors (exit 2) that name the spec, and parameters named by their CUDA names in errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pipeperf.errors import PipeperfError

no_gpu = pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU may be present")

ROOT = Path(__file__).resolve().parents[2]
STENCIL = str(ROOT / "tests" / "fixtures" / "launch_args" / "stencil5.cu")   # mangled C++ template kernel
SAXPY_PTX = str(ROOT / "tests" / "kernels" / "ptx" / "saxpy.sm_80.ptx")     # extern "C", PTX only
ENTRY = "_Z8stencil5IfEvPKT_PS0_iiS0_PKi"
LAUNCH = ["--kernel", "stencil5", "--grid", "2,2", "--block", "16,16"]
N = 32 * 32
#: every spelling of the union of the old grammars: iota (measure's) and arange (the emulator's),
#: typed scalars (measure's), hex integers (the emulator's), rand with a range (measure's)
SPECS = [f"in=rand:f32:{N}:-1:1", f"out=zeros:f32:{N}", "nx=32", "ny=0x20", "scale=f32:0.5",
         f"offset=iota:i32:{N}"]
SYNONYMS = [f"in=rand:f32:{N}", f"out=zeros:f32:{N}", "nx=32", "ny=32", "scale=0.5", f"offset=arange:i32:{N}"]


def _args(specs):
    return [x for s in specs for x in ("--arg", s)]


# ---------------------------------------------------------------- the same specs everywhere

@pytest.mark.slow
@pytest.mark.parametrize("specs", [SPECS, SYNONYMS])
@pytest.mark.parametrize("shared", ["--shared", "--smem"])
def test_profile_and_analyze_take_every_spelling(cli, specs, shared):
    rc, out, err = cli("profile", STENCIL, *LAUNCH, *_args(specs), shared, "0", "--json")
    assert rc == 0, err
    assert json.loads(out)["inst_fp_32"] > 0
    rc, out, err = cli("analyze", STENCIL, *LAUNCH, *_args(specs), shared, "0", "--gpu", "volta_v100",
                       "--no-what-if", "--json")
    assert rc == 0, err
    assert json.loads(out)["kernels"][0]["predictions"]["pipeline"]["seconds"] > 0


@no_gpu
@pytest.mark.parametrize("specs", [SPECS, SYNONYMS])
@pytest.mark.parametrize("shared", ["--shared", "--smem"])
def test_measure_takes_every_spelling(cli, specs, shared):
    """Without a GPU, measure parses every spec and then stops at the GPU: a spec it refused would
    stop it before, with its own message."""
    rc, _, err = cli("measure", STENCIL, *LAUNCH, *_args(specs), shared, "0", "--reps", "1")
    assert rc == 2 and err.startswith("pipeperf: error: no CUDA GPU found"), err


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_measure_binds_specs_like_the_emulator(tmp_path):
    """measure binds the specs to the compiled kernel's parameters by CUDA name, types the untyped
    numbers by them, and gives the launcher the canonical spelling, which its C++ parser reads
    as the Python one does."""
    from pipeperf.measure import launcher

    _, entries = launcher.compile_kernel(STENCIL, "sm_90", tmp_path / "build")
    entry = launcher.resolve_kernel(entries, "stencil5", STENCIL)
    assert entry == ENTRY
    ptx = launcher.ptx_path(STENCIL, tmp_path / "build").read_text()
    shuffled = [SYNONYMS[3], SYNONYMS[0], "out=zeros:f32:1024", "32", "scale=1", SYNONYMS[5]]
    bound = launcher.bind(STENCIL, ptx, entry, [launcher.parse_arg(s) for s in shuffled])
    canonical = [s.canonical() for s in bound]
    assert canonical == [f"in=rand:f32:{N}", f"out=zeros:f32:{N}", "nx=u32:32", "ny=u32:32",
                         "scale=f32:1.0", f"offset=arange:i32:{N}"]
    with pytest.raises(PipeperfError, match=r"kernel stencil5: no value for parameter ny \(PTX "
                                            + ENTRY + "_param_3\\)"):
        launcher.bind(STENCIL, ptx, entry, [launcher.parse_arg(s) for s in SPECS if not s.startswith("ny=")])
    with pytest.raises(PipeperfError, match=r"parameter nx \(PTX .*\) of stencil5 is \.u32, an integer"):
        launcher.bind(STENCIL, ptx, entry, [launcher.parse_arg(s.replace("nx=32", "nx=2.5")) for s in SPECS])
    with pytest.raises(PipeperfError, match=r"parameter nx \(PTX .*\) of stencil5 is \.u32 \(4 bytes\): 'nx=f64:2' is 8"):
        launcher.bind(STENCIL, ptx, entry, [launcher.parse_arg(s.replace("nx=32", "nx=f64:2")) for s in SPECS])
    with pytest.raises(PipeperfError, match=r"parameter nx \(PTX .*\) of stencil5 is \.u32, not a pointer"):
        launcher.bind(STENCIL, ptx, entry, [launcher.parse_arg(s.replace("nx=32", "nx=zeros:i32:4")) for s in SPECS])
    cu = tmp_path / "s.cu"
    cu.write_text("struct P { float w[14]; };\n__global__ void by_value(P p, float* y) { y[0] = p.w[3]; }\n")
    _, entries = launcher.compile_kernel(cu, "sm_90", tmp_path / "b2")
    with pytest.raises(PipeperfError, match=r"parameter p \(PTX _Z8by_value1PPf_param_0\) of by_value is a struct"):
        launcher.bind(cu, launcher.ptx_path(cu, tmp_path / "b2").read_text(), entries[0],
                      [launcher.parse_arg("p=zeros:u8:56"), launcher.parse_arg("y=zeros:f32:1")])
    exe = launcher.build(tmp_path / "launcher")
    cmd = [str(exe), "--parse-only"] + [x for s in canonical for x in ("--arg", s)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2:] == [launcher.parse_arg(s).describe() for s in canonical]


def test_synonyms_and_typed_scalars_give_identical_values():
    """`iota` is `arange`, `scale=0.5` is `scale=f32:0.5`, `ny=0x20` is `ny=32`: the kernel writes
    the same output; `rand:...:LO:HI` draws in [LO, HI)."""
    from pipeperf.emulate import run_kernel
    from pipeperf.emulate.launch import parse_arg_value

    outs = []
    for specs in (SPECS, SYNONYMS):
        out = np.zeros(N, np.float32)
        inputs = ["in=arange:f32:1024" if s.startswith("in=") else s for s in specs]
        run_kernel(STENCIL, "2,2", "16,16", [out if s.startswith("out=") else s for s in inputs],
                   kernel="stencil5")
        outs.append(out)
    assert np.array_equal(outs[0], outs[1]) and outs[0][33] == 0.5 * 5 * 33 + 33
    assert np.array_equal(parse_arg_value("iota:u16:70000"), parse_arg_value("arange:u16:70000"))
    r = parse_arg_value("rand:i32:5000:-3:3")
    assert r.min() == -3 and r.max() == 2
    f = parse_arg_value("rand:f64:5000:10:20")
    assert f.min() >= 10 and f.max() < 20


# ---------------------------------------------------------------- one-line errors, the same in every command

BAD = [("x=rand:f32", "a buffer needs FILL:TYPE:COUNT"), ("x=rand:q32:5", "unknown buffer type 'q32'"),
       ("x=fill:f32:5", "unknown buffer fill 'fill'"), ("x=rand:f32:0", "positive integer"),
       ("x=zeros:f32:8:0:1", "only rand may add :LO:HI"), ("x=rand:f32:8:5:1", "LO < HI"),
       ("a=f32:abc", "'abc' is not a number"), ("n=i8:300", "out of range for i8"),
       ("n=u32:2.5", "not an integer"), ("a=", "no value"), ("1x=5", "not a parameter name"),
       ("a=bogus", "is not a number, a buffer spec"), ("a=missing.npy", "no such file")]


@pytest.mark.parametrize("spec,message", BAD)
def test_bad_specs_are_one_line_errors_alike_in_every_command(cli, tmp_path, spec, message):
    cu = tmp_path / "k.cu"
    cu.write_text('extern "C" __global__ void k(float* y) {}\n')
    errors = []
    for argv in (["profile", SAXPY_PTX], ["analyze", SAXPY_PTX, "--gpu", "volta_v100"], ["measure", str(cu)]):
        rc, _, err = cli(*argv, "--grid", "4", "--block", "256", "--arg", spec)
        assert rc == 2 and err.startswith("pipeperf: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err and f"'{spec}'" in err and message in err, err
        errors.append(err)
    assert errors[0] == errors[1] == errors[2]


@pytest.mark.parametrize("command", ["profile", "analyze", "measure"])
def test_bad_shared_bytes_are_one_line(cli, tmp_path, command):
    cu = tmp_path / "k.cu"
    cu.write_text('extern "C" __global__ void k(float* y) {}\n')
    src = str(cu) if command == "measure" else SAXPY_PTX
    extra = ["--gpu", "volta_v100"] if command == "analyze" else []
    for flag in ("--shared", "--smem"):
        rc, _, err = cli(command, src, "--grid", "4", "--block", "256", *extra, flag, "-4")
        assert rc == 2 and err == "pipeperf: error: --shared '-4': expected a number of bytes >= 0\n"


def test_an_integer_parameter_refuses_a_fraction(cli):
    """The emulator used to truncate n=1000.5 to 1000 silently; the GPU launcher refused it."""
    rc, _, err = cli("profile", SAXPY_PTX, "--grid", "4", "--block", "256", "--arg", "1000.5",
                     "--arg", "2.5", "--arg", "rand:f32:1000", "--arg", "zeros:f32:1000")
    assert rc == 2 and "parameter saxpy_param_0 of saxpy is .u32, an integer: '1000.5' is not a whole number" in err


def test_a_parameter_given_twice_is_an_error(cli):
    rc, _, err = cli("profile", SAXPY_PTX, "--grid", "4", "--block", "256", "--arg", "1000",
                     "--arg", "saxpy_param_0=1000", "--arg", "2.5", "--arg", "rand:f32:1000",
                     "--arg", "zeros:f32:1000")
    assert rc == 2 and "kernel saxpy: parameter saxpy_param_0 is given twice" in err


# ---------------------------------------------------------------- CUDA names in errors and options

@pytest.mark.parametrize("command", ["profile", "analyze"])
def test_a_missing_argument_is_named_by_its_cuda_name(cli, command):
    extra = ["--gpu", "volta_v100"] if command == "analyze" else []
    rc, _, err = cli(command, STENCIL, *LAUNCH, *_args(s for s in SPECS if not s.startswith("ny=")), *extra)
    assert rc == 2 and err.count("\n") == 1
    assert f"kernel stencil5: no value for parameter ny (PTX {ENTRY}_param_3)" in err


def test_unknown_names_list_the_cuda_names(cli):
    rc, _, err = cli("profile", STENCIL, *LAUNCH, *_args(SPECS), "--arg", "width=3")
    assert rc == 2 and "kernel stencil5 has no parameter 'width' (parameters: in, out, nx, ny, scale, offset)" in err


def test_out_of_bounds_names_the_cuda_buffer(cli):
    small = ["out=zeros:f32:100" if s.startswith("out=") else s for s in SPECS]
    rc, _, err = cli("profile", STENCIL, *LAUNCH, *_args(small))
    assert rc == 2 and err.count("\n") == 1 and "out-of-bounds" in err
    # the access is affine in its own buffer: the bounds check names it (CUDA name, then PTX name)
    assert f"`out` ({ENTRY}_param_1) has 400 bytes" in err


def test_reports_name_the_kernel_by_its_cuda_name(cli):
    rc, out, err = cli("profile", STENCIL, "--grid", "2,2", "--block", "16,16", *_args(SPECS))
    assert rc == 0, err
    assert out.startswith(f"kernel stencil5 ({ENTRY})")


@pytest.mark.parametrize("command", ["profile", "analyze", "measure"])
def test_help_points_to_the_one_grammar(cli, command):
    from pipeperf.cli.launch_options import ARG_HELP

    rc, out, _ = cli(command, "--help")
    assert rc == 0
    flat = " ".join(out.split())
    assert " ".join(ARG_HELP.split()) in flat
    assert 'README.md, "Kernel arguments"' in flat and "--shared BYTES, --smem BYTES" in flat
    assert "zeros|ones|arange:TYPE:N" in flat and "(iota is arange)" in flat


def test_readme_documents_the_grammar_once():
    from pipeperf.util.launch_args import FILLS, SYNONYMS, TYPES

    readme = (ROOT / "README.md").read_text()
    assert readme.count("## Kernel arguments") == 1
    table = readme.split("## Kernel arguments", 1)[1].split("\n## ", 1)[0]
    for word in [*TYPES, *FILLS, *SYNONYMS, "--smem", "--shared", ".npy"]:
        assert word in table, word
