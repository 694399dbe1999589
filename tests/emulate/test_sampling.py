"""Representative traces (whole CTAs spread over the grid) and CTA sampling (emulate a few CTAs
only when their traces provably equal the full launch's)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_corpus import make_case

from pipeperf.emulate import load_module, run_kernel, select_kernel
from pipeperf.emulate.sampling import sampling_safe, spread_ctas, warps_of
from pipeperf.errors import PipeperfError

ARCH = "sm_80"


def _module(name: str):
    return load_module(make_case(name).spec.ptx_path(ARCH))


def _key(entries):
    """What a trace must reproduce: pcs, active masks, lane addresses."""
    return [(e["pc"], e["active"],
             None if e["addresses"] is None else tuple(int(a) for a in e["addresses"]))
            for e in entries]


def test_spread_includes_first_last_and_is_sorted():
    for n, k in [(4096, 32), (7, 3), (10, 10), (10, 50), (1, 5), (100, 2)]:
        c = spread_ctas(n, k)
        assert c[0] == 0 and c[-1] == (n - 1 if k > 1 else 0)
        assert len(c) == min(n, k) and np.all(np.diff(c) > 0)
    # 32 CTAs of a big grid: 4 clusters of 8 consecutive CTAs (neighbours run together on a GPU:
    # the cache model sees their reuse), evenly spaced
    c = spread_ctas(4096, 32).reshape(4, 8)
    assert np.all(np.diff(c, axis=1) == 1)
    gaps = np.diff(c[:, 0])
    assert c[0, 0] == 0 and c[-1, -1] == 4095 and gaps.max() - gaps.min() <= 1
    for n in range(1, 120):                       # exact count, ends included, for any grid
        for k in range(1, 40):
            c = spread_ctas(n, k)
            assert len(c) == min(n, k) and c[0] == 0 and np.all(np.diff(c) > 0)
            assert c[-1] == (n - 1 if min(n, k) > 1 else 0)
    assert spread_ctas(50, 1).tolist() == [0]
    assert warps_of(np.array([0, 5]), 3).tolist() == [0, 1, 2, 15, 16, 17]


def test_spread_traces_whole_ctas():
    case = make_case("matmul_tiled")            # grid 2x2 of 16x16 threads: 8 warps per CTA
    p = run_kernel(case.spec.ptx_path(ARCH), (4, 4), (16, 16),
                   [np.ones(64 * 64, np.float32), np.ones(64 * 64, np.float32),
                    np.zeros(64 * 64, np.float32), 64], trace_warps=24, trace_blocks="spread",
                   mode="hybrid")
    ctas = sorted({w // 8 for w in p.traces})
    assert ctas == [0, 8, 15]                   # 24 warps = 3 whole CTAs: first, middle, last
    assert sorted(p.traces) == warps_of(np.array(ctas), 8).tolist()
    assert not p.counts["partial"] and p.counts["ctas_emulated"] == 16


@pytest.mark.parametrize("mode", ["full", "hybrid"])
@pytest.mark.parametrize("name,grid,block,args", [
    # n = 1000 over 8 x 128 threads: the last CTA is partly out of bounds (ctaid-dependent path)
    ("saxpy", 8, 128, lambda: [1000, np.float32(2.0), np.arange(1000, dtype=np.float32),
                               np.ones(1000, np.float32)]),
    ("matmul_tiled", (4, 4), (16, 16), lambda: [np.arange(4096, dtype=np.float32),
                                                 np.ones(4096, np.float32),
                                                 np.zeros(4096, np.float32), 64]),
    # data-dependent paths (loaded values decide the loop count / the switch arm), 4 CTAs
    ("collatz_steps", 4, 256, lambda: make_case("collatz_steps").fresh_args()),
    ("switch_case", 4, 256, lambda: make_case("switch_case").fresh_args()),
])
def test_sampled_traces_equal_full_run(name, grid, block, args, mode):
    path = make_case(name).spec.ptx_path(ARCH)
    full = run_kernel(path, grid, block, args(), mode=mode, trace_warps=1 << 20)
    n_blocks = int(np.prod(grid))
    wpc = -(-int(np.prod(block)) // 32)
    samp = run_kernel(path, grid, block, args(), mode=mode, trace_warps=3 * wpc,
                      trace_blocks="spread", ctas="traced")
    assert samp.counts["partial"] and samp.counts["ctas_emulated"] == 3
    assert samp.traces and set(samp.traces) < set(full.traces)
    assert 0 in samp.traces and (n_blocks - 1) * wpc in samp.traces   # first and last CTA
    for w, entries in samp.traces.items():
        assert _key(entries) == _key(full.traces[w]), w
    assert any(e["addresses"] is not None for t in samp.traces.values() for e in t)


def test_sampled_counts_are_marked_partial_and_outputs_untouched():
    case = make_case("saxpy")
    spec = case.spec
    args = case.fresh_args()
    y0 = args[3].copy()
    p = run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, args, trace_warps=8,
                   trace_blocks="spread", ctas=[1], mode="full")
    c = p.counts
    assert c["partial"] is True and c["ctas_total"] == 4
    assert c["ctas_emulated"] == 2 and c["ctas"] == 2     # CTA 1 plus the traced CTA 0
    assert c["threads"] == 2 * 256
    full = run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, case.fresh_args())
    assert c["inst_executed_warp"] < full.counts["inst_executed_warp"]
    assert not full.counts["partial"] and full.counts["ctas_emulated"] == 4
    assert np.array_equal(args[3], y0)          # a partial launch writes no output back


def test_threadfence_reduction_is_unsafe_and_falls_back():
    m = _module("reduce_threadfence")
    ok, why = sampling_safe(select_kernel(m, "reduce_threadfence"), m)
    assert not ok and "global memory" in why
    case = make_case("reduce_threadfence")
    spec = case.spec
    args = case.fresh_args()
    p = run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, args, trace_warps=8,
                   trace_blocks="spread", ctas="traced", mode="full")
    assert p.counts["ctas_emulated"] == p.counts["ctas_total"] == 4
    assert not p.counts["partial"] and p.counts["sampling"].startswith("emulated every CTA")
    names = [q.name for q in spec.params]
    assert case.check({o: args[names.index(o)] for o in spec.outputs}) == []


def test_safety_verdicts_on_corpus():
    for name in ("saxpy", "matmul_tiled", "reduce_shared", "stencil2d", "divergent"):
        m = _module(name)
        assert sampling_safe(select_kernel(m, name), m)[0], name
    m = _module("noinline_call")     # calls: whole-module rule, one pointer may alias another
    ok, why = sampling_safe(select_kernel(m, "noinline_call"), m)
    assert not ok and "device functions" in why


CU = r"""
extern "C" __global__ void via_shared(int* buf, int from_memory)
{   // the branch reads shared memory filled from the next CTA's part of buf, which it writes
    __shared__ int s[64];
    int next = (blockIdx.x + 1) % gridDim.x;
    s[threadIdx.x] = from_memory ? buf[next * 64 + threadIdx.x] : (int)threadIdx.x;
    __syncthreads();
    if (s[63 - threadIdx.x] > 3) buf[blockIdx.x * 64 + threadIdx.x] = 1;
}
extern "C" __global__ void other_buffer(const int* in, int* out)
{   // the same, but the data comes from a buffer the kernel never writes
    __shared__ int s[64];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (s[63 - threadIdx.x] > 3) out[blockIdx.x * 64 + threadIdx.x] = 1;
}
extern "C" __global__ void tid_only(int* buf)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x * 2;
    __syncthreads();
    if (s[63 - threadIdx.x] > 3) buf[blockIdx.x * 64 + threadIdx.x] = buf[threadIdx.x];
}
"""


CALLS = r"""
#include <cassert>
#include <cstdio>
__device__ __noinline__ void bump(float* p, int i) { p[i] += 1.0f; }
extern "C" __global__ void other_kernel(float* x, float* y)
{   // calls a device function that may write what it reads: not launched below
    bump(x, threadIdx.x);
    y[threadIdx.x] = x[threadIdx.x + 1];
}
extern "C" __global__ void checked_scale(const float* in, float* out, int n)
{   // assert and printf call bodiless system functions that write nothing the kernel reads
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(n > 0);
    if (i == 0) printf("n=%d\\n", n);
    if (i < n) out[i] = 2.0f * in[i];
}
extern "C" __global__ void calls_writer(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (x[i] > 0.0f) bump(x, (i + 1) % n);
}
"""


def test_system_calls_and_other_kernels_keep_sampling(tmp_path):
    """``assert``/``printf`` alone (``__assertfail``, ``vprintf``) keep the slice rule exact, and the
    whole-module rule for real calls looks only at what the kernel reaches, not at other kernels."""
    src = tmp_path / "calls.cu"
    src.write_text(CALLS)
    m = load_module(src)
    ok, why = sampling_safe(select_kernel(m, "checked_scale"), m)
    assert ok, why
    ok, why = sampling_safe(select_kernel(m, "calls_writer"), m)
    assert not ok and "device functions" in why
    assert "calls.cu:20" in why and "calls.cu:4" in why   # its load and the callee's store,
    assert "calls.cu:8" not in why                         # not other_kernel's accesses


def test_shared_memory_is_followed_to_global_loads(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(CU)
    m = load_module(src)
    ok, why = sampling_safe(select_kernel(m, "via_shared"), m)
    assert not ok and "ld.global" in why and "st.global" in why
    assert sampling_safe(select_kernel(m, "other_buffer"), m)[0]     # in, out: distinct buffers
    assert sampling_safe(select_kernel(m, "tid_only"), m)[0]


ASYNC = r"""
#include <cuda_pipeline.h>
extern "C" __global__ void async_branch(float* buf, const float* in, int from_buf)
{   // the branch reads a tile copied asynchronously from buf (which the kernel writes) or in
    __shared__ float tile[64];
    int t = threadIdx.x, next = ((blockIdx.x + 1) % gridDim.x) * 64;
    __pipeline_memcpy_async(&tile[t], from_buf ? &buf[next + t] : &in[t], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (tile[63 - t] > 0.0f) buf[blockIdx.x * 64 + t] = 0.0f;
}
extern "C" __global__ void async_in(float* out, const float* in)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&tile[t], &in[t], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (tile[63 - t] > 0.0f) out[blockIdx.x * 64 + t] = 0.0f;
}
"""


def test_async_copies_into_shared_are_followed_to_their_source(tmp_path):
    src = tmp_path / "a.cu"
    src.write_text(ASYNC)
    m = load_module(src, arch="sm_80")
    assert any(x.root == "cp.async" for x in select_kernel(m, "async_in").instructions)
    ok, why = sampling_safe(select_kernel(m, "async_branch"), m)
    assert not ok and "cp.async" in why
    assert sampling_safe(select_kernel(m, "async_in"), m)[0]


def test_pointer_provenance_separates_buffers():
    for name in ("collatz_steps", "switch_case", "histogram_global", "local_array"):
        m = _module(name)
        assert sampling_safe(select_kernel(m, name), m)[0], name
    m = _module("atomics_mix")      # an atomicCAS retry loop on a shared counter: truly unsafe
    assert not sampling_safe(select_kernel(m, "atomics_mix"), m)[0]


def test_bad_samples_are_user_errors():
    case = make_case("saxpy")
    spec = case.spec
    with pytest.raises(PipeperfError, match="outside the grid"):
        run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, case.fresh_args(), ctas=[4])
    with pytest.raises(PipeperfError, match="unknown trace selection"):
        run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, case.fresh_args(),
                   trace_warps=4, trace_blocks="random")
    with pytest.raises(PipeperfError, match="needs traced warps"):
        run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, case.fresh_args(), ctas="traced")


def test_active_mask_uses_lane_for_partial_warps():
    case = make_case("saxpy")           # 48-thread blocks: warp 1 of each CTA has 16 lanes
    p = run_kernel(case.spec.ptx_path(ARCH), 4, 48, [192, np.float32(1), np.ones(192, np.float32),
                                                      np.ones(192, np.float32)], trace_warps=4)
    assert p.traces[1][0]["active"] == 0xFFFF and p.traces[3][0]["active"] == 0xFFFF
    assert p.traces[2][0]["active"] == 0xFFFFFFFF


def test_atomics_and_loads_record_addresses_in_hybrid():
    case = make_case("histogram_global")
    spec = case.spec
    p = run_kernel(spec.ptx_path(ARCH), spec.grid, spec.block, case.fresh_args(), mode="hybrid",
                   memory=True, trace_warps=2)
    atoms = [e for e in p.traces[0] if e["opcode"].startswith("atom")]
    loads = [e for e in p.traces[0] if e["opcode"].startswith("ld.global")]
    assert atoms and loads
    for e in atoms + loads:
        a = e["addresses"]
        assert len(a) == bin(e["active"]).count("1") and not a.flags.writeable
    assert len({int(x) for x in atoms[0]["addresses"]}) <= 64    # 64 bins
