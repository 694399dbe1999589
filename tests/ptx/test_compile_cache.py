"""The on-disk compile cache (issue 17): nvcc's PTX and ptxas' reports are kept under a hash of
what they depend on (tool and version, source path and bytes, target, flags; nvcc's output also
checked against every header it included), so a second analysis compiles nothing; a changed flag
or header compiles again, and a damaged entry is recompiled, never trusted."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pipeperf.analysis import analyze
from pipeperf.ptx import toolkit
from pipeperf.ptx.compile import compile_cu, ptxas_resources
from pipeperf.util import cache


KERNEL = """#include "scale.h"
extern "C" __global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= SCALE * OFFSET;
}
"""
HEADER = "#ifndef SCALE\n#define SCALE 3.0f\n#endif\n#define OFFSET 1.0f\n"


@pytest.fixture
def runs(monkeypatch, tmp_path):
    """Every command pipeperf runs, with an empty cache of its own (the commands still run)."""
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[list[str]] = []
    real = subprocess.run

    def spy(cmd, *args, **kwargs):
        calls.append([str(c) for c in cmd])
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    return calls


def _compiles(calls: list[list[str]]) -> list[list[str]]:
    """The nvcc and ptxas runs that compile or assemble (not ``--version``-style queries)."""
    return [c for c in calls if Path(c[0]).name in ("nvcc", "ptxas") and not c[1].startswith("--")]


def _new_process():
    """Forget what a process remembers of its tools, as a second ``pipeperf`` run would."""
    toolkit.tool_version.cache_clear()
    toolkit.supported_archs.cache_clear()


@pytest.fixture
def kernel(tmp_path) -> Path:
    (tmp_path / "scale.h").write_text(HEADER)
    cu = tmp_path / "scale.cu"
    cu.write_text(KERNEL)
    return cu


@pytest.mark.requires_nvcc
def test_second_analysis_compiles_nothing(runs, kernel):
    args = ["x=ones:f32:256", "n=256"]
    first = analyze(kernel, 2, 128, args, ["ampere_a100", "hopper_h100"], what_if=False)
    made = _compiles(runs)
    # sm_80, sm_90: ptxas -v for the registers, and ptxas -lineinfo for the SASS whose load widths and
    # order the PTX IDGs take (issue 36)
    assert sorted(Path(c[0]).name for c in made) == ["nvcc", "nvcc", "ptxas", "ptxas", "ptxas", "ptxas"]
    runs.clear()
    _new_process()
    second = analyze(kernel, 2, 128, args, ["ampere_a100", "hopper_h100"], what_if=False)
    assert _compiles(runs) == []
    assert all(Path(c[0]).name in ("nvcc", "ptxas", "nvdisasm") and c[1] in ("--version", "--list-gpu-code")
               for c in runs), runs
    assert [p.cycles for p in second.predictions] == [p.cycles for p in first.predictions]


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_changed_define_or_header_recompiles(runs, kernel):
    assert "0f40400000" in compile_cu(kernel, "sm_80")                            # 3.0f
    assert "0f40A00000" in compile_cu(kernel, "sm_80", extra_args=("-DSCALE=5.0f",))
    assert len(_compiles(runs)) == 2
    assert "0f40A00000" in compile_cu(kernel, "sm_80", extra_args=("-DSCALE=5.0f",))
    assert len(_compiles(runs)) == 2                                               # same flags: cached
    assert "0f40E00000" in compile_cu(kernel, "sm_80", extra_args=("-DSCALE=7.0f",))
    assert len(_compiles(runs)) == 3
    assert "0f40400000" in compile_cu(kernel, "sm_80")                            # cached still
    assert len(_compiles(runs)) == 3
    (kernel.parent / "scale.h").write_text(HEADER.replace("OFFSET 1.0f", "OFFSET 0.5f"))
    assert "0f3FC00000" in compile_cu(kernel, "sm_80")                            # 3.0f * 0.5f
    assert len(_compiles(runs)) == 4


@pytest.mark.slow
@pytest.mark.requires_nvcc
@pytest.mark.parametrize("damage", ["edit", "truncate"])
def test_damaged_entries_are_recompiled_not_trusted(runs, kernel, tmp_path, damage):
    ptx = compile_cu(kernel, "sm_80")
    (tmp_path / "k.ptx").write_text(ptx)
    regs = ptxas_resources(tmp_path / "k.ptx")["scale"]["registers"]
    entries = sorted((tmp_path / "cache").glob("*/*.json"))
    assert [e.parent.name for e in entries] == ["ptx", "ptxas"]
    for e in entries:
        if damage == "edit":                       # still JSON, still the right key: payload altered
            doc = json.loads(e.read_text())
            for k in doc["payload"]:
                if isinstance(doc["payload"][k], str):
                    doc["payload"][k] = doc["payload"][k].replace("scale", "other").replace("Used", "Was")
            e.write_text(json.dumps(doc))
        else:
            e.write_text(e.read_text()[: e.stat().st_size // 2])
    runs.clear()
    assert compile_cu(kernel, "sm_80") == ptx
    assert ptxas_resources(tmp_path / "k.ptx")["scale"]["registers"] == regs
    assert sorted(Path(c[0]).name for c in _compiles(runs)) == ["nvcc", "ptxas"]
    for e in entries:                              # written again, intact
        assert cache.load(e.parent.name, e.stem) is not None


def test_cache_folder(monkeypatch, tmp_path):
    assert not cache.cache_dir().resolve().is_relative_to(Path.home().resolve())   # the suite's own (conftest)
    monkeypatch.delenv("PIPEPERF_CACHE_DIR")
    monkeypatch.delenv("PIPEPERF_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "pipeperf"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "pipeperf"
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine"
