"""Same-address atomics serialise at their L2 slice's atomic unit, beside the DRAM stream: a
reduction whose one atomicAdd per block takes less time than the reads it follows costs about
what storing the block sums would (hardware/memory_classes.ATOMIC_SUBSYSTEM)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.analysis import analyze

KERNELS = r'''
__device__ float block_sum(const float* x, int per_block)
{
    __shared__ float s[256];
    const float* b = x + (size_t)blockIdx.x * per_block;
    float v = 0.0f;
    for (int i = threadIdx.x; i < per_block; i += 256) v += b[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    return s[0];
}

extern "C" __global__ void sum_atomic(const float* x, float* total, int per_block)
{
    float v = block_sum(x, per_block);
    if (threadIdx.x == 0) atomicAdd(total, v);
}

extern "C" __global__ void sum_store(const float* x, float* partial, int per_block)
{
    float v = block_sum(x, per_block);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}
'''


@pytest.fixture(scope="module")
def cu(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("overlap") / "overlap.cu"
    p.write_text(KERNELS)
    return p


@pytest.mark.slow
def test_one_atomic_per_block_overlaps_the_stream_it_follows(cu):
    """2^14 blocks of 4096 floats on an H100: 268 MB read (~80 us at its DRAM rate) against 2^14
    atomics on one word (~13 us at 0.651 per clock): the atomics hide behind the reads."""
    blocks, per = 1 << 14, 4096
    t = {}
    for name, out in (("sum_atomic", "zeros:f32:1"), ("sum_store", f"zeros:f32:{blocks}")):
        args = [f"x=zeros:f32:{blocks * per}", f"{'total' if name == 'sum_atomic' else 'partial'}={out}",
                f"per_block={per}"]
        t[name] = analyze(cu, [blocks], [256], args, ["hopper_h100"], kernel=name, what_if=False).predictions[0]
    assert t["sum_atomic"].seconds == pytest.approx(t["sum_store"].seconds, rel=0.05)
    assert t["sum_atomic"].bound.subsystem_busy.get("atomic", 0.0) > 0.0
