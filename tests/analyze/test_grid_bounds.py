"""A buffer too small for what a launch's addresses reach is an error in ``analyze`` (which
emulates a sample of CTAs) as it is in ``profile`` (all of them): every affine global access must
stay in the buffer its address is computed from, and the CTAs where the affine addresses and
guards reach the grid's extremes are emulated too. Correct kernels with legal launches pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeperf.emulate import run_kernel
from pipeperf.errors import PipeperfError


KERNELS = Path(__file__).resolve().parents[1] / "kernels"

COPY = r'''
extern "C" __global__ void copy(const float* a, float* b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i]; }
'''


def _sampled(path, grid, block, args, **kw):
    """The emulation ``analyze`` runs: whole CTAs spread over the grid, only they emulated."""
    return run_kernel(path, grid, block, args, mode="hybrid", trace_warps=256, trace_blocks="spread",
                      ctas="traced", memory=True, **kw)


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeperf", *argv], capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_stencil_with_a_too_small_input_is_an_error_in_analyze_as_in_profile():
    """512 x 512 points need 262144 inputs; given 200000, the sampled last CTA's reads land in the
    output buffer that follows the input (inside *an* allocation, not inside `in`): one line,
    exit 2, naming the buffer, its size, the bytes reached and the PTX line, in both commands."""
    args = ["--grid", "32,32", "--block", "16,16", "--arg", "in=rand:f32:200000", "--arg", "out=zeros:f32:262144",
            "--arg", "width=512", "--arg", "height=512"]
    src = str(KERNELS / "stencil2d.cu")
    for cmd in (["analyze", src, *args, "--gpu", "ampere_a100"], ["profile", src, *args]):
        p = _cli(*cmd)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1, p.stderr
        assert "out-of-bounds global access of 4 bytes" in lines[0]
        if cmd[0] == "analyze":
            assert "`in` (stencil2d_param_0) has 800000 bytes and this access reaches its bytes [" in lines[0]
            assert "(PTX line " in lines[0] and "stencil2d.cu:" in lines[0]


def test_a_guarded_copy_is_checked_where_its_guard_stops_it(tmp_path):
    """n = 300000 of 4096 x 256 threads: the largest index, 299999, is reached in block 1171,
    which the spread sample (clusters at 0, 1365, 2730, 4088) skips: it is emulated as its own
    stratum (partly masked), with one CTA of each run around it (585, 2633). With `b` exactly n
    elements the launch passes; one element short, thread 223 of block 1171 writes past it."""
    src = tmp_path / "copy.cu"
    src.write_text(COPY)
    n = 300000
    ok = _sampled(src, 4096, 256, [f"a=rand:f32:{n}", f"b=zeros:f32:{n}", f"n={n}"])
    assert ok.counts["partial"] and ok.counts["ctas_emulated"] == 32 + 3
    assert "1 CTA partly masked by bounds checks (block x 1171)" in ok.counts["sampling"]
    assert ok.counts["ctas_bounds_checked"] == 0           # the extremes (0, 1171, 4095) are all sampled
    with pytest.raises(PipeperfError, match=r"`b` \(copy_param_1\) has 1199996 bytes and this access reaches its "
                                            r"bytes \[\d+, 1200000\) .* by thread \(223,0,0\) of block \(1171,0,0\)"):
        _sampled(src, 4096, 256, [f"a=rand:f32:{n}", f"b=zeros:f32:{n - 1}", f"n={n}"])
    with pytest.raises(PipeperfError, match=r"`a` \(copy_param_0\) has 1199996 bytes"):
        _sampled(src, 4096, 256, [f"a=rand:f32:{n - 1}", f"b=zeros:f32:{n}", f"n={n}"])


@pytest.mark.slow
@pytest.mark.parametrize("name,grid,block,args", [        # grids larger than the data: guards stop them
    ("saxpy", 5000, 256, ["n=1000000", "a=2", "x=rand:f32:1000000", "y=rand:f32:1000000"]),
    ("stencil1d", 5000, 256, ["in=rand:f32:1000000", "out=zeros:f32:1000000", "n=1000000"]),
    ("stencil2d", (80, 50), (16, 16), ["in=rand:f32:700000", "out=zeros:f32:700000", "width=1000", "height=700"]),
    ("transpose_shared", (40, 30), (32, 8), ["in=rand:f32:700000", "out=zeros:f32:700000", "rows=700", "cols=1000"]),
    ("transpose_naive", (32, 88), (32, 8), ["in=rand:f32:700000", "out=zeros:f32:700000", "rows=700", "cols=1000"]),
    ("strided_copy", 5000, 256, ["in=rand:f32:1000000", "out=zeros:f32:1000000", "n=1000000", "stride=33"]),
    ("histogram_global", 5000, 256, ["data=rand:u32:1000000", "bins=zeros:u32:64", "n=1000000"]),
    ("matmul_tiled", (40, 40), (16, 16), ["A=rand:f32:409600", "B=rand:f32:409600", "C=zeros:f32:409600", "n=640"]),
])
def test_corpus_kernels_with_legal_launches_pass(name, grid, block, args):
    """No false error: the grid's extreme CTAs are emulated and every access stays in its buffer."""
    p = _sampled(KERNELS / f"{name}.cu", grid, block, args)
    assert p.counts["partial"], p.counts["sampling"]
    # CTAs where guards or addresses peak, emulated: checked apart, or sampled as partly masked strata
    assert p.counts["ctas_bounds_checked"] >= 1 or "partly masked by bounds checks" in p.counts["sampling"]


def test_the_extreme_ctas_of_a_2d_guard_include_where_both_bounds_cross(tmp_path):
    """``x < width && y < height`` on an oversized grid: the largest address, out[(height-1) *
    width + width-1], is in block (width-1)/16, (height-1)/16, a combination of both guards'
    boundary blocks; the grid's corners are there too."""
    from pipeperf.emulate import load_module
    from pipeperf.emulate.bounds import extreme_ctas
    from pipeperf.emulate.launch import Launch

    m = load_module(KERNELS / "stencil2d.cu")
    k = m.kernels[0]
    grid = (80, 50, 1)
    ctas = set(extreme_ctas(k, Launch(grid, (16, 16, 1), [0, 0, 1000, 700], [p.name for p in k.params])).tolist())
    at = lambda bx, by: bx + grid[0] * by
    assert at(999 // 16, 699 // 16) in ctas
    assert {at(0, 0), at(79, 0), at(0, 49), at(79, 49)} <= ctas
    assert len(ctas) <= 32
