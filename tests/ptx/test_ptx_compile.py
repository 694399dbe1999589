"""nvcc/ptxas helpers: CUDA -> PTX, compile errors, ptxas -v resources."""

from __future__ import annotations

import json

import pytest

from pipeperf.cli.main import main
from pipeperf.errors import PipeperfError
from pipeperf.ptx import parse_ptx
from pipeperf.ptx.compile import compile_cu, parse_ptxas_verbose, ptxas_resources


CU = """
__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
"""


def test_compile_cu_and_cli(tmp_path, capsys):
    cu = tmp_path / "scale.cu"
    cu.write_text(CU)
    ptx = compile_cu(cu, "sm_80")
    m = parse_ptx(ptx)
    assert m.target == ("sm_80",)
    k = m.kernels[0]
    assert k.name == "_Z5scalePffi"
    assert all(i.loc is not None for i in k.instructions)     # -lineinfo
    assert main(["ptx", str(cu), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == ["sm_90"]
    assert out["functions"][0]["branches"]["conditional"] == 1


@pytest.mark.requires_nvcc
def test_nvcc_failure_is_one_line(tmp_path, capsys):
    cu = tmp_path / "broken.cu"
    cu.write_text("__global__ void k() { undeclared_thing = 1; }\n")
    with pytest.raises(PipeperfError) as e:
        compile_cu(cu)
    msg = str(e.value)
    assert "nvcc failed" in msg and "undeclared_thing" in msg and "\n" not in msg
    assert main(["ptx", str(cu)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "undeclared_thing" in err


def test_compiler_message_not_utf8_is_one_line(no_cuda, tmp_path, monkeypatch, capsys):
    """A compiler message in another encoding (Latin-1 file names, a localised nvcc) is decoded
    with replacement characters: the usual one-line error, not a UnicodeDecodeError traceback."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_bytes(b"#!/bin/sh\n[ \"$1\" = --version ] && { echo 'release 12.0'; exit 0; }\n"
                     b"printf 'k.cu(1): error: identificador no v\\341lido\\n' >&2\nexit 1\n")
    nvcc.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path / "cache"))
    cu = tmp_path / "k.cu"
    cu.write_text(CU)
    with pytest.raises(PipeperfError) as e:
        compile_cu(cu, "sm_80")
    assert "nvcc failed" in str(e.value) and "no v\ufffdlido" in str(e.value)
    assert main(["ptx", str(cu), "--arch", "sm_80"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\ufffd" in err


def test_missing_nvcc(tmp_path, no_cuda):
    cu = tmp_path / "k.cu"
    cu.write_text(CU)
    with pytest.raises(PipeperfError, match="nvcc not found"):
        compile_cu(cu)


def test_bad_arch(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text(CU)
    with pytest.raises(PipeperfError, match="bad GPU architecture"):
        compile_cu(cu, "volta")


def test_ptxas_resources_on_fixture(fixtures_dir):
    res = ptxas_resources(fixtures_dir / "memslice.ptx")
    r = res["memslice"]
    assert r["shared_bytes"] == 256             # buf[128] + other[128]
    assert 1 <= r["registers"] <= 255
    assert r["local_bytes"] == 0


LOCAL_CU = """
__global__ void loc(float *o, int k) {
  float a[256];
  for (int i = 0; i < 256; i++) a[i] = o[i] * k;
  o[threadIdx.x] = a[(threadIdx.x * k) % 256];
}
"""


def test_ptxas_resources_local_memory(tmp_path):
    cu = tmp_path / "loc.cu"
    cu.write_text(LOCAL_CU)
    ptx = tmp_path / "loc.ptx"
    ptx.write_text(compile_cu(cu, "sm_80", lineinfo=False))
    (k,) = parse_ptx(ptx.read_text()).kernels
    depot = [v for v in k.variables if v.space == "local"]
    assert depot and depot[0].size_bytes == 1024
    r = ptxas_resources(ptx, "sm_80")[k.name]
    assert r["local_bytes"] == 1024              # the dynamically indexed array stays local


# Captured from ptxas 13.0 (-v, sm_80 and sm_90 of the same module).
PTXAS_SM80 = """ptxas info    : 52 bytes gmem, 16 bytes cmem[3], 24 bytes cmem[4]
ptxas info    : Compiling entry function '_Z2swPii' for 'sm_80'
ptxas info    : Function properties for _Z2swPii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 11 registers, used 0 barriers, 364 bytes cmem[0], 28 bytes cmem[2]
ptxas info    : Compiling entry function '_Z3cpaPK6float4PS_' for 'sm_80'
ptxas info    : Function properties for _Z3cpaPK6float4PS_
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 2048 bytes smem, 368 bytes cmem[0]
"""
PTXAS_SM90 = """ptxas info    : 52 bytes gmem
ptxas info    : Compiling entry function '_Z4miscPdP6__halfPiPyf' for 'sm_90'
ptxas info    : Function properties for _Z4miscPdP6__halfPiPyf
    112 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 30 registers, used 0 barriers, 112 bytes cumulative stack size
ptxas info    : Compile time = 36.278 ms
ptxas info    : Function properties for _Z6helperffPi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""


def test_parse_ptxas_verbose():
    r = parse_ptxas_verbose(PTXAS_SM80)
    assert r["_Z2swPii"] == {"registers": 11, "shared_bytes": 0, "local_bytes": 0,
                             "const_bytes": 392, "barriers": 0, "cmem0": 364, "cmem2": 28,
                             "spill_stores": 0, "spill_loads": 0}
    assert r["_Z3cpaPK6float4PS_"]["shared_bytes"] == 2048
    assert r["_Z3cpaPK6float4PS_"]["barriers"] == 1
    r = parse_ptxas_verbose(PTXAS_SM90)
    misc = r["_Z4miscPdP6__halfPiPyf"]
    assert (misc["registers"], misc["local_bytes"], misc["spill_stores"]) == (30, 112, 8)
    assert r["_Z6helperffPi"]["registers"] == 0
