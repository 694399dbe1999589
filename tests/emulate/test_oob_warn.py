"""--oob: an out-of-bounds global read stops the emulation by default; with ``warn`` it goes on
(loads read zeros, stores are dropped) and is counted per source line (issue 38: Rodinia srad)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeperf.emulate import run_kernel

KERNEL = """extern "C" __global__ void shift(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i + 1024];
        y[i] = v + 1.0f;
        y[i + 2048] = v;
    }
}
"""
LAUNCH = ["--grid", "8", "--block", "256", "--arg", "rand:f32:2048", "--arg", "zeros:f32:2048", "--arg", "2048"]


@pytest.fixture
def shift(tmp_path):
    src = tmp_path / "shift.cu"
    src.write_text(KERNEL)
    return src


def test_out_of_bounds_is_an_error_by_default(cli, shift):
    rc, out, err = cli("profile", str(shift), *LAUNCH)
    assert rc != 0 and "shift.cu:4" in err and "out-of-bounds" in err and "--oob warn" in err
    assert len(err.strip().splitlines()) == 1


def test_warn_reads_zeros_drops_stores(shift):
    x, y = np.full(2048, 2, np.float32), np.zeros(2048, np.float32)
    prof = run_kernel(shift, 8, 256, [x, y, 2048], oob="warn")
    assert (y[:1024] == 3).all() and (y[1024:] == 1).all()           # zeros read past x's end
    rows = {r["source"].rsplit(":", 1)[1]: r for r in prof.out_of_bounds}
    assert rows["4"]["loads"] == 1024 and rows["4"]["stores"] == 0
    assert rows["6"]["stores"] == 2048 and rows["6"]["loads"] == 0
    assert any("--oob warn" in n for n in prof.notes)


def test_analyze_with_warn_counts_by_line(cli, shift):
    rc, out, err = cli("analyze", str(shift), *LAUNCH, "--gpu", "a100", "--oob", "warn")
    assert rc == 0, err
    assert "shift.cu:4: 1,024 thread loads, 0 thread stores" in out
    rc, out, err = cli("analyze", str(shift), *LAUNCH, "--gpu", "a100", "--oob", "warn", "--json")
    assert rc == 0, err
    rows = json.loads(out)["launch"]["out_of_bounds"]
    assert {r["source"].rsplit(":", 1)[1]: (r["loads"], r["stores"]) for r in rows} == {"4": (1024, 0), "6": (0, 2048)}


def test_bad_oob_value(cli, shift):
    rc, out, err = cli("analyze", str(shift), *LAUNCH, "--gpu", "a100", "--oob", "ignore")
    assert rc == 2 and "--oob" in err
