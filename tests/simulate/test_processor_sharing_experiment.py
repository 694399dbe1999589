"""The processor-sharing experiment (docs/DESIGN.md, lock-step warps) stays reproducible: its engine
patch applies to the engine as it is, and its driver finds the bandwidth-share pipelines it serves."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pipeperf.analysis.lockstep import bandwidth_pipelines
from pipeperf.hardware.spec import load_gpu

ROOT = Path(__file__).resolve().parents[2]
PATCH = ROOT / "benchmarks" / "experiments" / "processor_sharing.patch"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_the_patch_applies_to_the_engine():
    r = subprocess.run(["git", "apply", "--check", str(PATCH)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_driver_serves_the_dram_and_l2_pipelines():
    """On an A100 80 GB the DRAM share is the 'mem' pipeline and the L2 share the 'l2' one."""
    pipes = bandwidth_pipelines(load_gpu("ampere_a100_80gb"))
    assert pipes == {"mem": "DRAM", "l2": "L2"}
    assert "PIPEPERF_PS" in PATCH.read_text()
