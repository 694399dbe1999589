"""Source locations from nvcc -lineinfo's .loc: the file its index names, the user's line where
code was inlined from a header, the PTX line beside it, never a PTX line labelled as source."""

from __future__ import annotations

import json
import re

import pytest

from pipeperf.emulate import load_module, run_kernel
from pipeperf.errors import PipeperfError
from pipeperf.ptx import parse_ptx
from pipeperf.ptx.compile import compile_cu
from pipeperf.ptx.source_map import SourceMap, at_source, is_system_header, plain_name


# the 12-line reduce.cu: a read at line 8, an atomicAdd (sm_20_atomic_functions.hpp) at 9
REDUCE = """\
// reduce.cu: sums x into out[i / 32] (one atomicAdd per thread)
#include "myhdr.cuh"

extern "C" __global__ void reduce(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        atomicAdd(out + i / 32, v);
    }
}
// end
"""

MYHDR = """\
// myhdr.cuh: a header of the user's
__device__ inline float load_scaled(const float *p, int i)
{
    return 2.0f * p[i];
}
"""

# a user-header function inlined into a kernel: its load is at myhdr.cuh:4
SCALED = """\
#include "myhdr.cuh"

extern "C" __global__ void scaled(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = load_scaled(x, i);
}
"""

# an inline header function calling another and atomicAdd: two .loc levels above the atomic
NESTED_HDR = """\
__device__ inline float square(float v)
{
    return v * v + 3.0f;
}
__device__ inline void accumulate(float *out, float v)
{
    float w = square(v);
    atomicAdd(out, w);
}
"""

NESTED = """\
#include "nested.cuh"
extern "C" __global__ void nest(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        accumulate(out, x[i]);
}
"""


@pytest.fixture(scope="module")
def src(tmp_path_factory):
    d = tmp_path_factory.mktemp("srcloc")
    for name, text in [("reduce.cu", REDUCE), ("myhdr.cuh", MYHDR), ("scaled.cu", SCALED),
                       ("nested.cuh", NESTED_HDR), ("nested.cu", NESTED)]:
        (d / name).write_text(text)
    return d


def ptx_line(cu, opcode_prefix: str) -> int:
    """The PTX line of the first instruction starting with ``opcode_prefix`` in nvcc's PTX."""
    k = parse_ptx(compile_cu(cu)).kernels[0]
    return next(x.line for x in k.instructions if x.opcode.startswith(opcode_prefix))


def launch(cu, *args: str) -> list[str]:
    return [str(cu), "--grid", "1", "--block", "64", *(a for v in args for a in ("--arg", v))]


def test_a_fault_in_the_cu_names_its_true_line_and_the_ptx_line(src, cli):
    cu = src / "reduce.cu"
    assert len(REDUCE.splitlines()) == 12
    n = ptx_line(cu, "ld.global")
    assert n > 12                                     # a PTX line is no line of this 12-line file
    for cmd in (["profile"], ["analyze", "--gpu", "volta_v100"]):   # x too short: x[i] at line 8
        rc, out, err = cli(*cmd, *launch(cu, "x=rand:f32:32", "out=zeros:f32:2", "n=64"))
        assert rc == 2 and "Traceback" not in err
        assert err.startswith(f"pipeperf: error: {cu}:8: "), err
        assert "out-of-bounds global" in err and f"(PTX line {n})" in err
        assert f"{cu}:{n}" not in err


def test_atomic_add_is_reported_at_the_users_line_not_the_headers(src, cli):
    cu = src / "reduce.cu"
    n = ptx_line(cu, "atom.global")
    rc, out, err = cli("analyze", "--gpu", "volta_v100",      # out too short: out[1] at line 9
                       *launch(cu, "x=rand:f32:64", "out=zeros:f32:1", "n=64"))
    assert rc == 2
    assert err.startswith(f"pipeperf: error: {cu}:9: "), err
    assert re.search(rf"\(atomicAdd, inlined from sm_20_atomic_functions\.hpp:\d+; PTX line {n}\)", err), err

    rc, out, err = cli("analyze", "--gpu", "volta_v100", *launch(cu, "x=rand:f32:64", "out=zeros:f32:2", "n=64"))
    assert rc == 0, err
    atom = next(ln for ln in out.splitlines() if ln.strip().startswith("atom.global"))
    assert re.search(rf"at {re.escape(str(cu))}:9 \(atomicAdd, inlined from sm_20_atomic_functions\.hpp:\d+\), "
                     rf"PTX line {n}:", atom), atom
    assert not re.search(r"source line \d", out)      # PTX lines are never labelled as source lines
    load = next(ln for ln in out.splitlines() if ln.strip().startswith("ld.global"))
    assert f"at {cu}:8, PTX line " in load


def test_code_inlined_from_a_user_header_is_reported_in_that_header(src, cli):
    cu, hdr = src / "scaled.cu", src / "myhdr.cuh"
    n = ptx_line(cu, "ld.global")
    rc, out, err = cli("profile", *launch(cu, "x=rand:f32:32", "out=zeros:f32:64", "n=64"))
    assert rc == 2
    # the header's line is the code that faults; where it was inlined comes with it
    assert err.startswith(f"pipeperf: error: {hdr}:4: "), err
    assert f"(in load_scaled, inlined at {cu}:7; PTX line {n})" in err
    rc, out, err = cli("analyze", "--gpu", "volta_v100", "--json",
                       *launch(cu, "x=rand:f32:64", "out=zeros:f32:64", "n=64"))
    assert rc == 0, err
    rows = json.loads(out)["kernels"][0]["memory"]
    ld = next(r for r in rows if r["opcode"].startswith("ld.global"))
    assert (ld["source_file"], ld["source_line"], ld["ptx_line"]) == (str(hdr), 4, n)
    st = next(r for r in rows if r["opcode"].startswith("st.global"))
    assert (st["source_file"], st["source_line"]) == (str(cu), 7)


def test_json_memory_rows_carry_source_file_line_and_ptx_line(src, cli):
    cu = src / "reduce.cu"
    rc, out, err = cli("analyze", "--gpu", "volta_v100", "--json",
                       *launch(cu, "x=rand:f32:64", "out=zeros:f32:2", "n=64"))
    assert rc == 0, err
    rows = {r["opcode"]: r for r in json.loads(out)["kernels"][0]["memory"]}
    atom, ld = rows["atom.global.add.f32"], rows["ld.global.f32"]
    assert (atom["source_file"], atom["source_line"], atom["ptx_line"]) == \
        (str(cu), 9, ptx_line(cu, "atom.global"))
    assert re.fullmatch(rf"{re.escape(str(cu))}:9 \(atomicAdd, inlined from sm_20_atomic_functions\.hpp:\d+\)",
                        atom["source"])
    assert (ld["source_file"], ld["source_line"], ld["ptx_line"]) == (str(cu), 8, ptx_line(cu, "ld.global"))


def test_nested_inlining_follows_the_chain_to_the_innermost_user_line(src):
    cu, hdr = src / "nested.cu", src / "nested.cuh"
    m = load_module(cu)
    k, sm = m.kernels[0], SourceMap(m)
    by_op = {x.opcode.split(".")[0]: sm.location(k, x) for x in k.instructions}
    atom, fma = by_op["atom"], by_op["fma"]
    # .loc 2 8 5 (accumulate, inlined at 1 6 9), then .loc 3 84 3 (atomicAdd, inlined at 2 8 5)
    assert (atom.file, atom.line, atom.function) == (str(hdr), 8, "accumulate")
    assert [f.function for f in atom.inlined_from] == ["atomicAdd"]
    assert atom.inlined_from[0].file == "sm_20_atomic_functions.hpp"
    assert [str(f) for f in atom.inlined_at] == [f"{cu}:6"]
    # square inlined into accumulate inlined into the kernel: both call sites, innermost first
    assert (fma.file, fma.line, fma.function) == (str(hdr), 3, "square")
    assert [str(f) for f in fma.inlined_at] == [f"{hdr}:7", f"{cu}:6"]
    assert str(fma) == f"{hdr}:3 (in square, inlined at {hdr}:7, {cu}:6)"
    assert by_op["ld"].where == f"{cu}:6" and by_op["ld"].inlined_at == ()


def test_without_a_source_line_the_ptx_line_is_named_as_ptx(src):
    cu = src / "reduce.cu"
    m = parse_ptx(compile_cu(cu, lineinfo=False))    # no .loc at all
    m.file = str(cu)
    n = next(x.line for x in m.kernels[0].instructions if x.opcode.startswith("ld.global"))
    with pytest.raises(PipeperfError) as e:
        run_kernel(m, 1, 64, ["rand:f32:32", "zeros:f32:2", "64"])
    assert e.value.file == str(cu) and e.value.line is None
    assert str(e.value).endswith(f"(PTX line {n} of reduce.cu's PTX, which gives no source line for it)")
    assert f"{cu}:{n}" not in str(e.value)


def test_a_ptx_file_keeps_its_line_and_gains_the_source_line(src, tmp_path):
    ptx = tmp_path / "reduce.ptx"
    ptx.write_text(compile_cu(src / "reduce.cu"))
    with pytest.raises(PipeperfError) as e:
        run_kernel(ptx, 1, 64, ["rand:f32:32", "zeros:f32:2", "64"])
    n = ptx_line(src / "reduce.cu", "ld.global")
    assert (e.value.file, e.value.line) == (str(ptx), n)
    assert str(e.value).endswith(f"(at {src / 'reduce.cu'}:8)")


def test_errors_elsewhere_are_left_alone(src):
    m = load_module(src / "reduce.cu")
    e = PipeperfError("bad thing", file="other.cu", line=3)
    assert at_source(e, m) is e


def test_names_and_headers():
    assert plain_name(b"_Z6scale2ff") == "scale2"
    assert plain_name("_ZN39_INTERNAL_9b71d37d_9_reduce_cu_05d7363a9atomicAddEPff") == "atomicAdd"
    assert plain_name("reduce") == "reduce"
    assert is_system_header("/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/sm_20_atomic_functions.hpp")
    assert is_system_header("cuda/include/cooperative_groups.h")
    assert not is_system_header("/home/me/project/include/myhdr.cuh")
