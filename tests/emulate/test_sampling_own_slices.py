"""CTA sampling accepts kernels that read what they write when every CTA only touches its own
slice (affine addresses in the thread and block indices, disjoint across CTAs), refuses the
ones where a neighbour's write can reach a read, and a sampled run predicts what the full run
predicts."""

from __future__ import annotations


import numpy as np
import pytest

from pipeperf.emulate import load_module, select_kernel
from pipeperf.emulate.launch import Launch
from pipeperf.emulate.sampling import sampling_safe
from pipeperf.ptx.affine import Affine, cta_disjoint


CU = r"""
extern "C" __global__ void guard(int seed, int* g)            // mixbench's impossible-value guard
{
    int i = blockIdx.x * 2048 + threadIdx.x;
    for (int j = 0; j < 4; j++) {
        int idx = j * gridDim.x * 2048 + i;
        int v[8];
        for (int k = 0; k < 8; k++) v[k] = g[idx + 256 * k];
        int s = 0;
        for (int k = 0; k < 8; k++) s += v[k] * v[k] + seed;
        if (s == -1) g[idx] = s;
    }
}
extern "C" __global__ void in_place(float* a, int n)          // a[i] = f(a[i]) with a branch on it
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] > 0.5f) a[i] = a[i] * 0.5f;
}
extern "C" __global__ void grid_stride(float* a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        if (a[i] > 0.5f) a[i] = 0.0f;
}
extern "C" __global__ void rows(float* a, int w)              // 2-D tiles of a row-major matrix
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (a[y * w + x] > 0.5f) a[y * w + x] = 1.0f;
}
extern "C" __global__ void neighbours(float* a, int n)        // reads the next CTA's first element
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n && a[i + 1] > 0.5f) a[i] = 0.0f;
}
extern "C" __global__ void shared_cell(float* a)              // every CTA writes a[0]
{
    if (a[threadIdx.x] > 0.5f) a[0] = 1.0f;
}
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    p = tmp_path_factory.mktemp("own") / "own.cu"
    p.write_text(CU)
    return load_module(p, arch="sm_80")


def _safe(mod, name, grid, block, args):
    f = select_kernel(mod, name)
    return sampling_safe(f, mod, launch=Launch(grid, block, list(args), [p.name for p in f.params]))


@pytest.mark.parametrize("name,grid,block,args", [
    ("guard", (4096, 1, 1), (256, 1, 1), [1, 0]),
    ("in_place", (1000, 1, 1), (256, 1, 1), [0, 256000]),
    ("grid_stride", (120, 1, 1), (256, 1, 1), [0, 1 << 22]),
    ("rows", (16, 32, 1), (32, 8, 1), [0, 512]),
])
def test_own_slices_are_safe_to_sample(mod, name, grid, block, args):
    assert not sampling_safe(select_kernel(mod, name), mod)[0]       # without the launch: refused
    ok, why = _safe(mod, name, grid, block, args)
    assert ok and "own slice" in why, why


@pytest.mark.parametrize("name,args", [("neighbours", [0, 256000]), ("shared_cell", [0])])
def test_a_neighbours_write_keeps_it_unsafe(mod, name, args):
    ok, why = _safe(mod, name, (1000, 1, 1), (256, 1, 1), args)
    assert not ok and "writes" in why


def test_rows_wider_than_the_grid_overlap(mod):
    """w smaller than the grid's width: row y of one CTA is row y+1's start of another."""
    assert not _safe(mod, "rows", (16, 32, 1), (32, 8, 1), [0, 256])[0]


def test_mixed_radix_rule_by_hand():
    r = {"%tid.x": 256, "%ctaid.x": 4096}.get
    a = Affine.of({"base:g": 1, "%tid.x": 4, "%ctaid.x": 8192, "loop:j": 8192 * 4096})
    assert cta_disjoint(a, a.plus(Affine.of({}, 7168)), 4, r)       # the 8th element of the slice
    assert not cta_disjoint(a, a.plus(Affine.of({}, 8192)), 4, r)   # the next CTA's first element
    b = Affine.of({"base:g": 1, "%tid.x": 4, "%ctaid.x": 8192, "loop:j": 8192, "loop:k": 4})
    assert not cta_disjoint(b, b, 4, r)                             # two unbounded atoms
    assert not cta_disjoint(Affine.of({"base:g": 1, "%tid.x": 4}), Affine.of({"base:g": 1, "%tid.x": 4}), 4, r)


def test_sampled_prediction_equals_the_full_run(mod, tmp_path):
    """The guard kernel, analysed from 32 sampled CTAs and from every CTA, predicts the same."""
    from pipeperf.analysis import analyze

    src = tmp_path / "guard.cu"
    src.write_text(CU)
    kw = dict(kernel="guard", arch="sm_80", what_if=False)
    args = ["1", f"zeros:i32:{4 * 64 * 2048}"]
    sampled = analyze(src, [64], [256], args, ["ampere_a100"], **kw)
    assert sampled.ctas_emulated < 64
    full = analyze(src, [64], [256], args, ["ampere_a100"], all_ctas=True, **kw)
    assert full.ctas_emulated == 64
    assert sampled.predictions[0].seconds == pytest.approx(full.predictions[0].seconds, rel=0.01)
    np.testing.assert_equal(sampled.predictions[0].blocks_per_sm, full.predictions[0].blocks_per_sm)
