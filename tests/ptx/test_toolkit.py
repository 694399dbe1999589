"""Finding nvcc and ptxas with no CUDA install on PATH (issue 17): NVIDIA's pip wheels
(``pip install "pipeperf[cuda]"``) are found in this Python's site folders and compile for real;
an incomplete or mixed-version wheel tree, or no tool anywhere, is a one-line error saying what to
install. (The whole extra in a fresh venv: ``scripts/check_cuda_extra.sh``, not run here.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.ptx import parse_ptx, toolkit
from pipeperf.ptx.compile import compile_cu, ptxas_resources

ROOT = Path(__file__).resolve().parents[2]
SAXPY = ROOT / "tests" / "kernels" / "saxpy.cu"

#: bin/nvcc.profile of the nvidia-cuda-nvcc 13.2.86 wheel, verbatim: paths relative to nvcc itself
WHEEL_PROFILE = """
TOP              = $(_HERE_)/..

CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(CICC_PATH):$(_HERE_):

INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/include/cccl" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib/stubs" "-L$(TOP)/lib"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
"""


def _installed_wheel_site() -> Path | None:
    for p in sys.path:
        if Path(p or ".", "nvidia", "cu13", "bin", "nvcc").is_file():
            return Path(p or ".")
    return None


def _mirror_wheels(site: Path) -> Path:
    """``site/nvidia/cu13`` laid out as NVIDIA's CUDA 13 wheels unpack, made of links to the toolkit
    of the nvcc pipeperf finds (found from ``nvcc --dryrun``), with the wheel's own nvcc.profile."""
    nvcc = toolkit.find_tool("nvcc")
    dry = subprocess.run([nvcc, "--dryrun", "-ptx", str(SAXPY)], capture_output=True, text=True).stderr
    here = Path(re.search(r"^#\$ _HERE_=(.+)$", dry, re.M).group(1))
    target_dir = re.findall(r"^#\$ _TARGET_DIR_=(.*)$", dry, re.M)[-1]
    real = here.parent
    top = site / "nvidia" / "cu13"
    (top / "bin").mkdir(parents=True)
    for f in here.iterdir():
        if f.name != "nvcc.profile":
            (top / "bin" / f.name).symlink_to(f)
    (top / "bin" / "nvcc.profile").write_text(WHEEL_PROFILE)
    (top / "nvvm").symlink_to(real / "nvvm")
    (top / "include").symlink_to(real / target_dir / "include")
    return site


@pytest.fixture(scope="module")
def wheel_site(tmp_path_factory) -> Path:
    """A site folder holding the CUDA wheels: this Python's, when installed, else a mirror (the
    tests using it are marked ``requires_nvcc``: one or the other is there)."""
    return _installed_wheel_site() or _mirror_wheels(tmp_path_factory.mktemp("site"))


@pytest.fixture
def wheel_layout(tmp_path) -> Path:
    """A site folder with the files the lookup checks for in a wheel tree (empty: nothing runs them)."""
    top = tmp_path / "layout" / "nvidia" / "cu13"
    for part in ("bin/nvcc", "bin/ptxas", *toolkit._WHEEL_PARTS):
        (top / part).parent.mkdir(parents=True, exist_ok=True)
        (top / part).write_text("")
    return tmp_path / "layout"


@pytest.mark.requires_nvcc
def test_wheels_found_and_compile_when_nothing_on_path(wheel_site, no_cuda, monkeypatch, tmp_path):
    with pytest.raises(PipeperfError, match="nvcc not found"):
        toolkit.find_tool("nvcc")
    monkeypatch.syspath_prepend(str(wheel_site))
    bin_dir = wheel_site / "nvidia" / "cu13" / "bin"
    assert toolkit.find_tool("nvcc") == str(bin_dir / "nvcc")
    assert toolkit.find_tool("ptxas") == str(bin_dir / "ptxas")
    ptx = compile_cu(SAXPY, "sm_80")                       # a real compile, from the wheel tree alone
    m = parse_ptx(ptx)
    assert m.target == ("sm_80",) and m.kernels
    (tmp_path / "saxpy.ptx").write_text(ptx)
    assert ptxas_resources(tmp_path / "saxpy.ptx")[m.kernels[0].name]["registers"] > 0


def test_path_comes_first(no_cuda, monkeypatch):
    """An nvcc on PATH wins over the wheels' (both stand-ins here: the lookup only looks for files)."""
    on_path, wheel_bin = no_cuda / "bin", no_cuda / "site" / "nvidia" / "cu13" / "bin"
    for d in (on_path, wheel_bin):
        d.mkdir(parents=True)
        (d / "nvcc").write_text("#!/bin/sh\n")
        (d / "nvcc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{on_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.syspath_prepend(str(no_cuda / "site"))
    assert toolkit.find_tool("nvcc") == shutil.which("nvcc") == str(on_path / "nvcc")


def test_incomplete_wheel_tree_names_the_missing_wheel(wheel_layout, no_cuda, monkeypatch, tmp_path):
    bare = tmp_path / "site" / "nvidia" / "cu13" / "bin"
    bare.mkdir(parents=True)
    (bare / "nvcc").symlink_to(wheel_layout / "nvidia" / "cu13" / "bin" / "nvcc")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with pytest.raises(PipeperfError) as e:
        toolkit.find_tool("nvcc")
    msg = str(e.value)
    assert "nvvm/bin/cicc" in msg and "nvidia-nvvm" in msg and toolkit.INSTALL_HINT in msg and "\n" not in msg


def test_mixed_wheel_versions_refused(wheel_layout, no_cuda, monkeypatch, tmp_path):
    site = tmp_path / "site"
    top = site / "nvidia" / "cu13"
    top.mkdir(parents=True)
    for part in ("bin", "nvvm", "include"):
        (top / part).symlink_to(wheel_layout / "nvidia" / "cu13" / part)
    for name, version in (("nvidia_cuda_nvcc", "13.2.86"), ("nvidia_nvvm", "13.5.37")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n")
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(PipeperfError, match=r"mix versions \(nvidia-cuda-nvcc 13.2.86, nvidia-nvvm 13.5.37\)"):
        toolkit.find_tool("nvcc")


def test_no_tool_anywhere_is_one_line_with_the_pip_extra(no_cuda, cli):
    cu = no_cuda / "k.cu"
    cu.write_text("__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n")
    for tool in ("nvcc", "ptxas", "nvdisasm"):
        with pytest.raises(PipeperfError, match=re.escape(f'{tool} not found') + ".*" + re.escape(toolkit.INSTALL_HINT)):
            toolkit.find_tool(tool)
    rc, out, err = cli("analyze", str(cu), "--grid", "1", "--block", "32", "--arg", "zeros:f32:32",
                       "--gpu", "hopper_h100")
    assert rc == 2 and err.count("\n") == 1 and 'pip install "pipeperf[cuda]"' in err and "Traceback" not in err


def test_cuda_extra_pins_one_version_of_every_wheel():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["cuda"]
    pins = dict(req.split("==") for req in extra)
    assert set(pins) == {"nvidia-cuda-nvcc", "nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-cuda-cccl",
                         "nvidia-nvvm", "nvidia-cuda-nvdisasm"}
    assert len(set(pins.values())) == 1
