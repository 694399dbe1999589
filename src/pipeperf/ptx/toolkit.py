"""Where the CUDA tools are (nvcc, ptxas, nvdisasm) and what the found nvcc is.

A tool is looked up on PATH, then under ``$CUDA_HOME`` / ``$CUDA_PATH``, then in NVIDIA's pip
wheels importable by this Python (``pip install "pipeperf[cuda]"``), then under /usr/local/cuda.
The wheels (nvidia-cuda-nvcc, -runtime, -crt, -cccl, -nvdisasm and nvidia-nvvm of one version)
unpack into one toolkit-shaped tree, ``site-packages/nvidia/cu13/{bin, nvvm/bin, include, lib}``,
whose ``bin/nvcc.profile`` finds cicc and the headers relative to nvcc itself: nvcc runs from
there with no flag or environment added (only the host compiler, gcc, must be on PATH). Wheels
of mixed versions are refused: nvcc then emits PTX that its own ptxas rejects.
``PIPEPERF_NO_CUDA=1`` hides every tool (as on a machine without CUDA: the test suite then runs
from its stored compiles, :mod:`pipeperf.ptx.prebuilt`).
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

from pipeperf.errors import PipeperfError

INSTALL_HINT = 'pip install "pipeperf[cuda]"'

#: toolkits looked in after the wheels
FALLBACK_ROOTS: tuple[str, ...] = ("/usr/local/cuda",)

#: what nvcc needs beside itself in a wheel tree, and the wheel that brings it
_WHEEL_PARTS = {"nvvm/bin/cicc": "nvidia-nvvm", "include/cuda_runtime.h": "nvidia-cuda-runtime",
                "include/crt/host_config.h": "nvidia-cuda-crt", "include/cccl/nv/target": "nvidia-cuda-cccl"}
#: wheels whose versions must match nvidia-cuda-nvcc's (cicc and the headers nvcc compiles with)
_SAME_VERSION = ("nvidia-nvvm", "nvidia-cuda-crt", "nvidia-cuda-runtime", "nvidia-cuda-cccl")


def wheel_bin_dirs() -> list[Path]:
    """The ``bin`` folders of NVIDIA's CUDA wheels on this Python's path (``nvidia/cu13/bin``;
    the newest CUDA major first), in ``sys.path`` order."""
    out: list[Path] = []
    for entry in sys.path:
        ns = Path(entry or ".") / "nvidia"
        if not ns.is_dir():
            continue
        cus = [d for d in ns.glob("cu[0-9]*") if d.name[2:].isdigit() and (d / "bin").is_dir()]
        out += [d / "bin" for d in sorted(cus, key=lambda d: -int(d.name[2:]))]
    return out


def find_tool(name: str) -> str:
    """The path of CUDA tool ``name`` (nvcc, ptxas, nvdisasm); a one-line PipeperfError saying how to
    get it when it is nowhere (or hidden by ``$PIPEPERF_NO_CUDA``)."""
    if _hidden():
        _not_found(name)
    found = shutil.which(name)
    if found:
        return found
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root and Path(root, "bin", name).is_file():
            return str(Path(root, "bin", name))
    for d in wheel_bin_dirs():
        if (d / name).is_file():
            if name == "nvcc":
                _check_wheel_tree(d)
            return str(d / name)
    for root in FALLBACK_ROOTS:
        if Path(root, "bin", name).is_file():
            return str(Path(root, "bin", name))
    _not_found(name)


def _hidden() -> bool:
    """``$PIPEPERF_NO_CUDA`` set (not '' or '0'): act as if no CUDA tool were installed."""
    return os.environ.get("PIPEPERF_NO_CUDA", "") not in ("", "0")


def _not_found(name: str) -> NoReturn:
    extra = " (or analyze a .ptx file)" if name == "nvcc" else ""
    raise PipeperfError(f"{name} not found on PATH, under $CUDA_HOME or in NVIDIA's CUDA wheels: "
                        f"{INSTALL_HINT} brings it{extra}")


def _check_wheel_tree(bin_dir: Path) -> None:
    """A wheel tree's nvcc works only with cicc and the headers beside it, all of one version."""
    top = bin_dir.parent
    for part, wheel in _WHEEL_PARTS.items():
        if not (top / part).exists():
            raise PipeperfError(f"nvcc in {bin_dir} lacks {part} (the {wheel} wheel): {INSTALL_HINT} "
                                "installs the whole toolkit")
    site = str(top.parent.parent)
    versions = {}
    for wheel in ("nvidia-cuda-nvcc", *_SAME_VERSION):
        dists = list(importlib.metadata.distributions(name=wheel, path=[site]))
        if dists:
            versions[wheel] = dists[0].version
    nvcc = versions.get("nvidia-cuda-nvcc")
    if nvcc is None:
        return
    release = nvcc.split(".")[:2]
    mixed = {w: v for w, v in versions.items() if v.split(".")[:2] != release}
    if mixed:
        others = ", ".join(f"{w} {v}" for w, v in mixed.items())
        raise PipeperfError(f"NVIDIA's CUDA wheels in {site} mix versions (nvidia-cuda-nvcc {nvcc}, {others}): "
                            f"nvcc would emit PTX its own ptxas rejects; {INSTALL_HINT} pins one version")


@functools.cache
def tool_version(path: str) -> str:
    """``TOOL --version``'s text (once per process and tool): part of every cache key, so a new
    toolkit never reuses an old one's output ("" if the tool does not answer)."""
    try:
        r = subprocess.run([path, "--version"], capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return r.stdout.strip()


def release_of(version_text: str) -> str:
    """'13.0.88' from nvcc's or ptxas' ``--version`` text ('unknown' if absent)."""
    m = re.search(r"release [\d.]+, V([\d.]+)", version_text)
    return m.group(1) if m else "unknown"


@functools.cache
def supported_archs(nvcc: str) -> list[str]:
    """Real architectures this nvcc builds (``nvcc --list-gpu-code``: sm_75 ...; nvcc 13 has no sm_70)."""
    try:
        out = subprocess.run([nvcc, "--list-gpu-code"], capture_output=True, text=True, errors="replace", timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return sorted(set(re.findall(r"\bsm_\d+[a-z]?\b", out)), key=lambda a: int(re.sub(r"\D", "", a)))
