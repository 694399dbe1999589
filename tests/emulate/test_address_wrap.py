"""PTX address arithmetic at the address's width (PTX ISA, Addresses as Operands): a 32-bit
register's ``[r+imm]`` wraps mod 2^32, and .shared/.local addresses are 32-bit. Rodinia's needle
(Needleman-Wunsch) makes nvcc keep ``temp - 64*tx`` (negative for tx > 0) in a 32-bit register
and read ``[r+68*m+...]``: ptxas accepts it and the GPU runs it; a 64-bit sum put it 4 GiB past
the CTA's shared memory."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeperf.emulate import load_module, run_kernel
from pipeperf.errors import PipeperfError


B = 16          # the tile (Rodinia's BLOCK_SIZE)
PENALTY = 10

NEEDLE = r'''
#define B 16
__device__ int maximum(int a, int b, int c) { int k = a <= b ? b : a; return k <= c ? c : k; }

// Rodinia 3.1 nw: the blocks of the i-th anti-diagonal of B x B tiles, each filled by one warp
// sweeping its tile's anti-diagonals in shared memory.
extern "C" __global__ void needle_1(const int* reference, int* matrix, int cols, int penalty, int i)
{
    int bx = blockIdx.x, tx = threadIdx.x;
    int by = i - 1 - bx;
    int index = cols * B * by + B * bx + tx + (cols + 1);
    int index_n = cols * B * by + B * bx + tx + 1;
    int index_w = cols * B * by + B * bx + cols;
    int index_nw = cols * B * by + B * bx;
    __shared__ int temp[B + 1][B + 1];
    __shared__ int ref[B][B];
    if (tx == 0) temp[tx][0] = matrix[index_nw];
    for (int ty = 0; ty < B; ty++) ref[ty][tx] = reference[index + cols * ty];
    __syncthreads();
    temp[tx + 1][0] = matrix[index_w + cols * tx];
    __syncthreads();
    temp[0][tx + 1] = matrix[index_n];
    __syncthreads();
    for (int m = 0; m < B; m++) {
        if (tx <= m) {
            int x = tx + 1, y = m - tx + 1;
            temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                                 temp[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int m = B - 2; m >= 0; m--) {
        if (tx <= m) {
            int x = tx + B - m, y = B - tx;
            temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                                 temp[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int ty = 0; ty < B; ty++) matrix[index + ty * cols] = temp[ty + 1][tx + 1];
}
'''

LEFT = r'''
extern "C" __global__ void left(float* out)
{
    __shared__ float t[64];
    t[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = t[threadIdx.x - 1];     // thread 0 reads t[2^32 - 1]: out of bounds
}
'''


@pytest.fixture(scope="module")
def needle(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("wrap") / "needle.cu"
    p.write_text(NEEDLE)
    return p


def _needleman_wunsch(reference: np.ndarray, matrix: np.ndarray, rows: int) -> np.ndarray:
    """The dynamic programme the kernel computes, over the first ``rows`` x ``rows`` corner."""
    m = matrix.copy()
    for r in range(1, rows):
        for c in range(1, rows):
            m[r, c] = max(m[r - 1, c - 1] + reference[r, c], m[r, c - 1] - PENALTY, m[r - 1, c] - PENALTY)
    return m


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_needle_wraps_its_32_bit_shared_addresses_and_computes_the_alignment(needle, arch):
    """nvcc's code holds a shared address below the tile's start in a 32-bit register and adds the
    offset in the load (``[%r+68]``); with the sum wrapped at 32 bits the kernel runs and its
    tiles equal the NumPy dynamic programme (two anti-diagonals: tile (0,0), then (0,1), (1,0))."""
    text = load_module(needle, arch=arch)
    k = text.kernels[0]
    wrapped = [x for x in k.instructions if x.root == "ld" and x.space == "shared"
               and re.search(r"\[%r\d+\+\d+\]", str(x))]
    assert wrapped, "nvcc no longer emits a 32-bit register + offset shared load"
    cols = 2 * B + 1
    rng = np.random.default_rng(3)
    reference = rng.integers(-10, 11, (cols, cols)).astype(np.int32)
    matrix = np.zeros((cols, cols), np.int32)
    matrix[0, :] = -PENALTY * np.arange(cols)
    matrix[:, 0] = -PENALTY * np.arange(cols)
    expect = _needleman_wunsch(reference, matrix, cols)
    mat = matrix.reshape(-1).copy()
    for i in (1, 2):
        run_kernel(needle, i, B, [reference.reshape(-1), mat, cols, PENALTY, i], arch=arch)
    got = mat.reshape(cols, cols)
    assert np.array_equal(got[:B + 1, :], expect[:B + 1, :])        # tiles (0,0) and (0,1)
    assert np.array_equal(got[:, :B + 1], expect[:, :B + 1])        # tile (1,0)
    assert not np.array_equal(got[B + 1:, B + 1:], expect[B + 1:, B + 1:])   # (1,1): next diagonal


def test_needle_passes_profile_and_analyze(needle, cli):
    args = ["--grid", "2", "--block", str(B), "--arg", "reference=rand:i32:1089", "--arg", "matrix=zeros:i32:1089",
            "--arg", "cols=33", "--arg", "penalty=10", "--arg", "i=2"]
    rc, out, err = cli("profile", str(needle), *args)
    assert rc == 0, err
    assert "shared requests" in out
    rc, out, err = cli("analyze", str(needle), *args, "--gpu", "ampere_a100")
    assert rc == 0, err
    assert "needle_1" in out


@pytest.mark.slow
def test_an_address_beyond_the_window_after_wrapping_is_still_an_error(tmp_path, cli):
    """nvcc reads ``t[threadIdx.x - 1]`` as ``[%r4+-4]`` with %r4 = t + 4 * tid: for thread 0 the
    32-bit sum wraps to 2^32 - 4, past the window: out of bounds in profile and analyze, in one
    line (the 64-bit sum, -4, passed the window check and read bytes outside the CTA's)."""
    src = tmp_path / "left.cu"
    src.write_text(LEFT)
    with pytest.raises(PipeperfError, match=r"out-of-bounds shared access .* at address 0xfffffffc by thread "
                                            r"\(0,0,0\)"):
        run_kernel(src, 1, 64, [np.zeros(64, np.float32)])
    for cmd in (["profile"], ["analyze", "--gpu", "ampere_a100"]):
        proc = subprocess.run([sys.executable, "-m", "pipeperf", *cmd, str(src), "--grid", "1", "--block", "64",
                               "--arg", "out=zeros:f32:64"], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "out-of-bounds shared access" in lines[0], proc.stderr


NULL = r'''
extern "C" __global__ void null_read(float** p, float* out, int flag)
{
    __shared__ float s[32];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float* q = flag ? s : p[0];              // a generic pointer: shared memory, or what p[0] holds
    out[threadIdx.x] = q[threadIdx.x];
}
'''


def test_a_generic_address_below_every_window_is_an_out_of_bounds_access(tmp_path):
    """A generic load through a null pointer is not in the global, shared, local or const window:
    a fault naming the thread, not an unsupported state space."""
    src = tmp_path / "null.cu"
    src.write_text(NULL)
    args = [np.zeros(1, np.uint64), np.zeros(32, np.float32)]
    with pytest.raises(PipeperfError, match=r"generic access outside every state space's window .* at address "
                                            r"0x0 by thread \(0,0,0\) of block \(0,0,0\) in `ld.f32"):
        run_kernel(src, 1, 32, args + [0])
    out = np.zeros(32, np.float32)
    run_kernel(src, 1, 32, [args[0], out, 1])                  # through shared memory: fine
    assert np.all(out == 1.0)


@pytest.mark.parametrize("space", ["shared", "local", "global", "generic"])
@pytest.mark.parametrize("width", [1, 2, 4, 8])
def test_register_address_getter_equals_the_width_rules(space, width):
    """The getter of ``[r+imm]`` (its narrow-register fast path: the sum made at the register's
    width) against the rules as a formula: zero-extend, add at 64 bits, keep the register's width
    and the space's address width."""
    from types import SimpleNamespace

    from pipeperf.emulate.layout import ADDRESS_MASK, Layout
    from pipeperf.emulate.state import RAW
    from pipeperf.ptx.ir import Address, Register

    rng = np.random.default_rng(width)
    vals = rng.integers(0, 1 << (8 * width), 64, dtype=np.uint64 if width == 8 else np.int64)
    vals[:4] = [0, 1, (1 << (8 * width)) - 1, (1 << (8 * width - 1))]
    r = vals.astype(RAW[width])
    st = SimpleNamespace(reg=lambda name, dt: r)
    mask = ADDRESS_MASK[32 if space in ("shared", "local") else 64]
    for off in (0, 4, -4, -68 * 15, 1 << 31, (1 << 33) + 12):
        g = Layout.address(SimpleNamespace(), Address(Register("%r1"), off), space)
        got = g(st, slice(None))
        want = [((int(v) + off) % (1 << 64)) & ADDRESS_MASK[8 * width] & mask for v in r]
        assert got.dtype == np.uint64 and got.tolist() == want, off
