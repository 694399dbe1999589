"""Stored compiles (issue 21): without nvcc and ptxas the suite compiles from tests/fixtures/compiled.
An entry must serve the same source in any folder (its ``.file`` paths follow the source), never a
source whose local header changed, and a miss must stay the one-line "nvcc not found" error."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.ptx import prebuilt
from pipeperf.ptx.compile import compile_cu, ptxas_resources
from pipeperf.ptx.source_map import is_system_header
from pipeperf.util import cache

COMPILED = Path(__file__).resolve().parents[1] / "fixtures" / "compiled"
KERNEL = '#include "k.h"\nextern "C" __global__ void k(float *x) { x[threadIdx.x] = SCALE; }\n'
HEADER = "#define SCALE 2.0f\n"
#: what nvcc -lineinfo writes for KERNEL compiled in FOLDER (shortened)
PTX = """.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
\tret;
}
\t.file\t1 "FOLDER/k.cu"
\t.file\t2 "FOLDER/k.h"
\t.file\t3 "/opt/cuda/include/cuda_runtime.h"
"""
REPORT = ("ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
          "ptxas info    : Used 7 registers, used 0 barriers, 356 bytes cmem[0]\n"
          "ptxas info    : Compile time = 1.234 ms\n")


def _sources(folder):
    folder.mkdir()
    (folder / "k.cu").write_text(KERNEL)
    (folder / "k.h").write_text(HEADER)
    return (folder / "k.cu").resolve()


@pytest.fixture
def recorded(no_cuda, monkeypatch):
    """A store holding KERNEL's PTX and its ptxas report as recorded in folder ``a``; the tools
    hidden, the store the only way to compile."""
    store = no_cuda / "store"
    cu = _sources(no_cuda / "a")
    ptx = PTX.replace("FOLDER", str(cu.parent))
    monkeypatch.setenv("PIPEPERF_PREBUILT_RECORD", str(store))
    deps = {str(cu): "(the source: its bytes are in the key)", "/opt/cuda/include/cuda_runtime.h": "(not checked)",
            str(cu.parent / "k.h"): hashlib.sha256(HEADER.encode()).hexdigest()}
    prebuilt.record_ptx(cu, "sm_80", True, (), ptx, deps)
    prebuilt.record_ptxas(ptx.encode(), "sm_80", ("-v",), REPORT)
    monkeypatch.delenv("PIPEPERF_PREBUILT_RECORD")
    monkeypatch.setenv("PIPEPERF_PREBUILT_DIR", str(store))
    monkeypatch.setenv("PIPEPERF_NO_CUDA", "1")
    return no_cuda


def test_store_serves_the_source_in_another_folder(recorded):
    cu = _sources(recorded / "b")
    text = compile_cu(cu, "sm_80")
    files = re.findall(r'\.file\s+\d+\s+"([^"]*)"', text)
    assert files == [str(cu), str(cu.parent / "k.h"), "/opt/cuda/include/cuda_runtime.h"]
    (recorded / "b" / "k.ptx").write_text(text)
    assert ptxas_resources(recorded / "b" / "k.ptx", "sm_80") == {
        "k": {"registers": 7, "shared_bytes": 0, "local_bytes": 0, "const_bytes": 356, "barriers": 0, "cmem0": 356}}
    with pytest.raises(PipeperfError, match="nvcc not found"):      # another target was never recorded
        compile_cu(cu, "sm_90")


def test_a_changed_header_or_source_is_a_miss_with_the_usual_error(recorded):
    header_changed, source_changed = _sources(recorded / "b"), _sources(recorded / "c")
    (header_changed.parent / "k.h").write_text("#define SCALE 3.0f\n")
    source_changed.write_text(KERNEL + "\n")
    for cu in (header_changed, source_changed):
        with pytest.raises(PipeperfError) as e:
            compile_cu(cu, "sm_80")
        assert str(e.value).startswith("nvcc not found") and "\n" not in str(e.value)


def test_stored_report_drops_compile_times_and_ignores_file_paths(recorded):
    key = prebuilt._ptxas_key(PTX.replace("FOLDER", "/somewhere/else").encode(), "sm_80", ("-v",))
    hit = cache.load("ptxas", key, recorded / "store")
    assert hit is not None and "Compile time" not in hit["output"] and "Used 7 registers" in hit["output"]


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_stored_ptx_is_what_nvcc_makes_in_the_new_folder(monkeypatch, tmp_path):
    """The round trip with the real nvcc: recorded in one folder, served in another (tools hidden),
    equal to a fresh compile there."""
    store = tmp_path / "store"
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PIPEPERF_PREBUILT_RECORD", str(store))
    compile_cu(_sources(tmp_path / "a"), "sm_80")
    fresh = compile_cu(_sources(tmp_path / "b"), "sm_80")
    monkeypatch.delenv("PIPEPERF_PREBUILT_RECORD")
    monkeypatch.setenv("PIPEPERF_PREBUILT_DIR", str(store))
    monkeypatch.setenv("PIPEPERF_NO_CUDA", "1")
    assert compile_cu(tmp_path / "b" / "k.cu", "sm_80") == fresh


def test_committed_store_is_intact_and_small():
    """Every entry of tests/fixtures/compiled loads under its own key (a damaged one would be a
    silent miss without nvcc); the whole store stays small."""
    entries = sorted(COMPILED.glob("*/*.json"))
    assert entries, f"no stored compiles in {COMPILED}: python3 scripts/refresh_test_ptx.py"
    for f in entries:
        assert cache.load(f.parent.name, f.stem, COMPILED) is not None, f
        assert f.parent.name in ("ptx", "ptxas", "sass"), f
    assert sum(f.stat().st_size for f in entries) < 5_000_000
    for f in (f for f in entries if f.parent.name == "sass"):      # source files by base name only
        listing = json.loads(f.read_text())["payload"]["listing"]
        assert not re.search(r'//## File "[^"]*/', listing), f
    for f in (f for f in entries if f.parent.name == "ptx"):       # nothing of the recording checkout
        files = re.findall(r'\.file\s+\d+\s+"([^"]*)"', json.loads(f.read_text())["payload"]["ptx"])
        assert all(p.startswith(prebuilt.SRC_DIR + "/") or is_system_header(p) for p in files), (f, files)
