"""CUDA's own launch limits: a grid or block CUDA refuses is refused in one line; a legal grid of
2^31 - 1 blocks is analysed (only a sample of it is emulated)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipeperf.emulate.launch import check_cuda_limits
from pipeperf.errors import PipeperfError

CU = 'extern "C" __global__ void k(float* a) { a[(blockIdx.y * gridDim.x + blockIdx.x) % 1024] = 1.0f; }\n'


@pytest.mark.parametrize("grid,block,msg", [
    ((1, 70000, 1), (32, 1, 1), "grid dimension y = 70000 exceeds CUDA's limit of 65535"),
    ((1, 1, 65536), (32, 1, 1), "grid dimension z = 65536"),
    ((2**31, 1, 1), (32, 1, 1), "grid dimension x = 2147483648"),
    ((1, 1, 1), (1, 1, 65), "block dimension z = 65 exceeds CUDA's limit of 64"),
    ((1, 1, 1), (64, 32, 1), "block of 2048 threads"),
])
def test_launches_cuda_refuses_are_refused(grid, block, msg):
    with pytest.raises(PipeperfError, match=msg):
        check_cuda_limits(grid, block)


def test_legal_limits_pass():
    check_cuda_limits((2**31 - 1, 65535, 65535), (1024, 1, 1))
    check_cuda_limits((1, 1, 1), (8, 8, 16))


@pytest.mark.slow
def test_cli_one_line_error_and_a_huge_legal_grid(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(CU)
    run = lambda grid: subprocess.run(
        [sys.executable, "-c", "import sys; from pipeperf.cli.main import main; sys.exit(main())", "analyze",
         str(src), "--grid", grid, "--block", "32", "--arg", "a=zeros:f32:1024", "--gpu", "ampere_a100"],
        capture_output=True, text=True, timeout=300)
    bad = run("4,70000")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "grid dimension y = 70000 exceeds CUDA's limit of 65535" in bad.stderr.strip().splitlines()[-1]
    huge = run(str(2**31 - 1))
    assert huge.returncode == 0, huge.stderr
    assert "ampere_a100" in huge.stdout
