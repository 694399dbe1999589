"""Issue 38, "no silent wrong answer at the edges": a kernel that calls printf is profiled (the
calls counted, not executed, and the report says so); kernels named as people write them."""

from __future__ import annotations

import json

import pytest

PRINTF = r"""#include <cstdio>
__global__ void hello(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] *= 2.0f;
    if (i % 4 == 0) printf("x[%d] = %f\n", i, x[i]);
  }
}
"""

LAUNCH = ["--grid", "2", "--block", "64", "--arg", "x=rand:f32:100", "--arg", "n=100"]


@pytest.fixture
def printf_cu(tmp_path):
    cu = tmp_path / "hello.cu"
    cu.write_text(PRINTF)
    return str(cu)


@pytest.mark.parametrize("mode", ["full", "hybrid"])
def test_printf_is_counted_not_executed(cli, printf_cu, mode):
    """vprintf is a no-op returning 0; 25 threads (i = 0, 4, ..., 96) call it: one note says so."""
    rc, out, err = cli("profile", printf_cu, *LAUNCH, "--mode", mode)
    assert rc == 0, err
    assert "note: 25 printf calls not executed (the emulator prints nothing)" in out.splitlines()[-1]
    rc, out, err = cli("profile", printf_cu, *LAUNCH, "--json")
    assert rc == 0, err
    assert json.loads(out)["notes"] == ["25 printf calls not executed (the emulator prints nothing)"]


def test_printf_note_in_the_analysis(cli, printf_cu):
    rc, out, err = cli("analyze", printf_cu, *LAUNCH, "--gpu", "ampere_a100")
    assert rc == 0, err
    assert out.count("note: 25 printf calls not executed") == 1
