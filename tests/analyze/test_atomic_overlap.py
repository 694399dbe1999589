"""Atomics serialise at their L2 slice's atomic unit, beside the DRAM stream: a reduction whose
one atomicAdd per block takes less time than the reads it follows costs about what storing the
block sums would (hardware/memory_classes.ATOMIC_SUBSYSTEM); a histogram's few counters share a
few L2 lines, whose slices take every update (hardware/memory_classes.atomic_class)."""
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

extern "C" __global__ void histogram(const unsigned char* x, unsigned int* bins, int stride, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[x[i] * stride], 1u);     // stride 1: 256 bins in 8 lines; 32: a line each
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


@pytest.mark.slow
def test_a_histograms_counters_serialise_on_their_few_l2_lines(cu):
    """2^24 bytes into 256 bins on an H100: the 1 KB of counters is 8 L2 lines, each taking an
    eighth of the updates at the same-address rate (0.651 per clock): ~1.6 ms; the same counters
    a line apart (256 lines) spread the updates 32 times wider: several times faster."""
    n = 1 << 24
    t = {}
    for stride in (1, 32):
        args = [f"x=rand:u8:{n}:0:256", f"bins=zeros:u32:{256 * stride}", f"stride={stride}", f"n={n}"]
        t[stride] = analyze(cu, [1056], [512], args, ["hopper_h100"], kernel="histogram",
                            what_if=False).predictions[0]
    assert t[1].bound.subsystem_busy.get("atomic", 0.0) > 0.9
    expected = n / 8 / (0.651 * 1.98e9)
    assert t[1].seconds == pytest.approx(expected, rel=0.25)
    assert t[1].seconds > 4 * t[32].seconds
