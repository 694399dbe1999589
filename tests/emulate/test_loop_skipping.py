"""The emulator's periodic-loop skipping (issue 16): counts and trace lengths equal those of
emulating every iteration; loops whose stores matter (a load in the slice) are emulated in full,
loops with barriers or only-counted stores and cp.async copies (issue 39) and outer loops around short inner loops
are skipped; per-thread trip counts
(loaded before the loop) are skipped each by its own; the skip is recorded in the trace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeperf.emulate import run_kernel
from pipeperf.emulate.tracelog import SynthBlock, block_head


CU = r"""
extern "C" __global__ void strided(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += x[(j * 256 + i) & 65535];
    y[i] = s;
}
extern "C" __global__ void writes(float* y, int n)
{   // a store in the loop, its data outside the slice and no load executed: only counted, so skipped
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < n; j++) y[j * 512 + i] = j;
}
extern "C" __global__ void writes_read(float* y, int n)
{   // the same stores, but a load steers a branch afterwards: what they write matters, never skipped
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < n; j++) y[j * 512 + i] = j;
    if ((int)y[i ^ 1] > 3) y[i] = 0.0f;
}
extern "C" __global__ void tiles(const float* x, float* y, int n)
{   // stores to shared memory between two __syncthreads in the loop (a tiled kernel's K loop)
    __shared__ float t[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        t[threadIdx.x] = x[j * 512 + i];
        __syncthreads();
        s += t[127 - threadIdx.x];
        __syncthreads();
    }
    y[i] = s;
}
extern "C" __global__ void nested(const float* x, float* y, int n)
{   // a short inner loop (emulated whole) in a long outer one (skipped)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        #pragma unroll 1
        for (int q = 0; q < 6; q++) s += x[(j * 6 + q) * 512 + i];
    }
    y[i] = s;
}
extern "C" __global__ void by_data(const int* x, int* y)
{   // per-thread trip counts loaded before the loop: constant in it, so skipped (each its own)
    int i = blockIdx.x * blockDim.x + threadIdx.x, s = 0;
    for (int j = 0; j < x[i]; j++) s += j;
    y[i] = s;
}
"""

#: cp.async in its own file: <cuda_pipeline.h> in CU changes the PTX nvcc emits for the other kernels
CU_COPIES = r"""
#include <cuda_pipeline.h>
extern "C" __global__ void copies(const float* x, float* y, int n)
{   // the tiles copied by cp.async (a persistent GEMM's K loop): not executed, only counted, so skipped
    __shared__ float t[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        __pipeline_memcpy_async(&t[threadIdx.x], &x[j * 512 + i], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
        s += t[127 - threadIdx.x];
        __syncthreads();
    }
    y[i] = s;
}
"""

COUNTS = ("branches", "divergent_branches", "global_load_requests", "global_load_sectors",
          "global_store_requests", "global_store_sectors")


@pytest.fixture(scope="module")
def cu(tmp_path_factory):
    p = tmp_path_factory.mktemp("skip") / "skip.cu"
    p.write_text(CU)
    return p


@pytest.fixture(scope="module")
def cu_copies(tmp_path_factory):
    p = tmp_path_factory.mktemp("skip") / "copies.cu"
    p.write_text(CU_COPIES)
    return p


def _run(cu, kernel, args, fast):
    return run_kernel(cu, [4], [128], args, kernel=kernel, mode="hybrid", trace_warps=8, trace_blocks="spread",
                      ctas="traced", fast_loops=fast, arch="sm_80")


@pytest.mark.parametrize("kernel,args,skips", [
    ("strided", ["x=rand:f32:65536", "y=zeros:f32:512", "n=700"], True),
    ("writes", ["y=zeros:f32:153600", "n=300"], True),
    ("writes_read", ["y=zeros:f32:153600", "n=300"], False),
    ("tiles", ["x=rand:f32:153600", "y=zeros:f32:512", "n=300"], True),
    ("copies", ["x=rand:f32:153600", "y=zeros:f32:512", "n=300"], True),
    ("nested", ["x=rand:f32:307200", "y=zeros:f32:512", "n=100"], True),
    ("by_data", ["x=rand:i32:512:200:300", "y=zeros:i32:512"], True),
])
def test_skipping_keeps_every_count(cu, cu_copies, kernel, args, skips):
    cu = cu_copies if kernel == "copies" else cu
    fast, slow = _run(cu, kernel, args, True), _run(cu, kernel, args, False)
    assert (fast.counts["loops_skipped"] > 0) == skips
    for k in COUNTS:
        assert fast.counts[k] == slow.counts[k], k
    assert fast.by_opcode == slow.by_opcode
    assert np.array_equal(fast.traces.lengths, slow.traces.lengths)     # executed entries per warp
    if skips:
        w = sorted(fast.traces)[0]
        assert fast.traces.length(w) < fast.traces.executed(w) == slow.traces.length(w)
        pos, period, recorded, count, expand = fast.traces.skips_of(w)[0]
        assert not expand and recorded >= 2 and count > 10 and period > 0 and pos >= recorded * period
        # the synthesised accesses of the skipped periods: as many logged requests as emulating them all
        n_fast = sum(block_head(b)[2] for b in fast.memory_log)
        n_slow = sum(block_head(b)[2] for b in slow.memory_log)
        assert n_fast == n_slow
        # ... and the same accesses: (pc, warp, position, address) sets equal
        def accesses(log):
            rows = set()
            for _fn, pc, ws, pos, lanes, addr in log:
                first = np.cumsum(lanes) - lanes
                rows.update(zip([pc] * len(ws), ws.tolist(), pos.tolist(), addr[first].tolist()))
            return rows
        assert accesses(fast.memory_log) == accesses(slow.memory_log)
        if kernel == "copies":      # the cp.async copies' global sources are logged, skipped periods synthesised
            ops = {e["pc"]: e["opcode"] for e in fast.traces[w]}
            copy = {pc for pc, op in ops.items() if op.startswith("cp.async.") and "group" not in op}
            assert copy
            n_copy = sum(block_head(b)[2] for b in slow.memory_log if block_head(b)[1] in copy)
            assert n_copy == 300 * sum(1 for _ in slow.traces)     # one per iteration (unrolled by 4) and warp
            assert any(type(b) is SynthBlock and b.pc in copy for b in fast.memory_log)


def test_a_ping_pong_loop_is_skipped_two_iterations_a_period():
    """Double buffering (benchmarks/kernels/pingpong.cu): iteration j uses half j & 1 of the tile, so
    consecutive iterations differ and every second one repeats; the skipper watches every second
    back-edge and jumps whole pairs, every count and trace length as emulating every iteration."""
    src = Path(__file__).resolve().parents[2] / "benchmarks" / "kernels" / "pingpong.cu"
    args = ["x=rand:f32:154112", "y=zeros:f32:512", "n=300"]
    fast, slow = _run(src, "pingpong", args, True), _run(src, "pingpong", args, False)
    for k in COUNTS + ("shared_requests",):
        assert fast.counts[k] == slow.counts[k], k
    assert fast.by_opcode == slow.by_opcode
    assert np.array_equal(fast.traces.lengths, slow.traces.lengths)
    skips = fast.traces.skips
    assert skips and all(k.iterations == 2 for k in skips)
    w = sorted(fast.traces)[0]
    assert fast.traces.executed(w) > 5 * fast.traces.length(w)        # most of the 300 iterations jumped
