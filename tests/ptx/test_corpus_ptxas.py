"""A sample of the committed corpus PTX assembles with ptxas for its target (the files are valid
PTX, not just text that looks like it)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pipeperf.ptx.toolkit import find_tool  # the ptxas pipeperf runs: on PATH or not

PTX_DIR = Path(__file__).resolve().parents[2] / "tests" / "kernels" / "ptx"
SAMPLE = [  # one per interesting feature, across all three targets
    "saxpy.sm_75.ptx",
    "reduce_cg.sm_80.ptx",
    "async_copy.sm_80.ptx",
    "mma_sync_m16n8k16.sm_80.ptx",
    "wmma_gemm.sm_90.ptx",
    "math_fp32.sm_90.ptx",
]


@pytest.mark.requires_nvcc
@pytest.mark.parametrize("name", SAMPLE)
def test_committed_ptx_assembles(name, tmp_path):
    arch = name.split(".")[1]
    proc = subprocess.run([find_tool("ptxas"), f"-arch={arch}", "-o", str(tmp_path / "k.cubin"), str(PTX_DIR / name)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.cubin").stat().st_size > 0
