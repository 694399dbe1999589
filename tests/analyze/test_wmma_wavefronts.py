"""A shared-memory wmma.load/store costs its fragment's wavefronts, its A/B rows' bank conflicts
included (analysis/memory_trace.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.analysis.memory_trace import _wmma_space_classes
from pipeperf.hardware.banks import fragment_wavefronts
from pipeperf.emulate.wmma import fragment_bytes
from pipeperf.hardware.spec import load_gpu
from pipeperf.ptx.parser import parse_ptx

PTX = Path(__file__).parent / "fixtures" / "wmma_shared_sm80.ptx"


def test_fragments_take_128_bytes_per_bank_cycle():
    func = next(f for f in parse_ptx(PTX.read_text(), str(PTX)).functions if f.name == "k")
    gpu = load_gpu("ampere_a100")
    base = gpu.classes["ld_shared_f32"]
    wmma = {x.op.root + "." + x.modifiers[0]: pc for pc, x in enumerate(func.instructions)
            if x.op.root in ("wmma.load", "wmma.store")}
    assert [fragment_bytes(func.instructions[pc]) for pc in wmma.values()] == [512, 512, 1024]
    classes = _wmma_space_classes(func, gpu, {}, {})
    a, d = classes[wmma["wmma.load.a"]], classes[wmma["wmma.store.d"]]
    assert a.cpi == pytest.approx(4 * base.cpi) and a.latency == pytest.approx(base.latency + 3 * base.cpi)
    assert d.cpi == pytest.approx(8 * gpu.classes["st_shared"].cpi) and "8 shared-memory wavefronts" in d.source


@pytest.mark.parametrize("frag, element, row_bytes, waves, degree", [
    ("a", 2, 64, 16, 4),      # 32 f16 a row: rows 0, 2, 4, 6 on the same four banks
    ("b", 2, 256, 32, 8),     # 128 f16 a row: all eight rows of a phase on the same banks
    ("a", 2, 80, 4, 1),       # padded to 40 f16: conflict-free
    ("b", 2, 48, 4, 1),       # 24 f16: rows 3 bank groups apart, all eight distinct
    ("a", 2, 32, 8, 2),       # 16 f16 (a 16x16 tile stored densely): 2-way
    ("c", 4, 64, 8, 1),       # an f32 accumulator keeps its 8 wavefronts (per-lane LDS)
    ("a", 4, 64, 4, 1),       # tf32 elements are not LDSM
    ("a", 2, None, 4, 1),     # row distance unknown: conflict-free
])
def test_fragment_rows_bank_conflicts(frag, element, row_bytes, waves, degree):
    size = 1024 if frag == "c" else 512
    assert fragment_wavefronts(size, frag, element, row_bytes) == (waves, degree)


def test_the_emulated_row_distance_reaches_the_class():
    """The row distance the emulator saw (ldm x element size, Profile.wmma_row_bytes) makes a
    conflicted A load 4x the conflict-free one on an A100 (LDSM), and changes nothing on a V100
    (no ldmatrix: the conflict-free count stays)."""
    func = next(f for f in parse_ptx(PTX.read_text(), str(PTX)).functions if f.name == "k")
    pc = next(pc for pc, x in enumerate(func.instructions) if x.op.root == "wmma.load" and x.modifiers[0] == "a")
    line = func.instructions[pc].line
    a100, v100 = load_gpu("ampere_a100"), load_gpu("volta_v100")
    free = _wmma_space_classes(func, a100, {}, {})[pc]
    conflicted = _wmma_space_classes(func, a100, {}, {line: 64})[pc]
    assert conflicted.cpi == pytest.approx(4 * free.cpi) and "4-way bank conflicts" in conflicted.source
    assert _wmma_space_classes(func, v100, {}, {line: 64})[pc].cpi == pytest.approx(
        _wmma_space_classes(func, v100, {}, {})[pc].cpi)


PADDING = r'''
#include <mma.h>
using namespace nvcuda;

// each warp multiplies a 16x16 tile of A by B PASSES times out of shared memory rows LD halves long
template <int LD>
__device__ void passes(const half* g, float* out, int n)
{
    __shared__ half a[16 * LD], b[16 * LD];
    for (int i = threadIdx.x; i < 16 * LD; i += blockDim.x) { a[i] = g[i % 256]; b[i] = g[(i + 7) % 256]; }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k++) {
        wmma::load_matrix_sync(fa, a + (k & 1) * 16, LD);
        wmma::load_matrix_sync(fb, b + (k & 1) * 16, LD);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();               // keeps the loads in the loop (no hoisting across it)
    }
    wmma::store_matrix_sync(out + blockIdx.x * 256, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void rows_64(const half* g, float* out, int n) { passes<64>(g, out, n); }   // 128 B: 8-way
extern "C" __global__ void rows_72(const half* g, float* out, int n) { passes<72>(g, out, n); }   // 144 B: none
'''


def test_padding_the_rows_removes_the_conflicts_the_what_if_names(tmp_path):
    """Rows of 64 f16 (128 B) put a fragment's eight rows on the same four banks: the loads take
    8x the wavefronts, the kernel is predicted slower than with rows padded to 72 f16, and the
    'no bank conflicts' what-if of the conflicted one comes back to about the padded one's time."""
    from pipeperf.analysis import analyze

    cu = tmp_path / "wmma_padding.cu"
    cu.write_text(PADDING)
    args = ["g=rand:f16:256", "out=zeros:f32:67584", "n=64"]
    t = {k: analyze(cu, [264], [128], args, ["ampere_a100"], kernel=k).predictions[0] for k in ("rows_64", "rows_72")}
    assert t["rows_64"].seconds > 1.5 * t["rows_72"].seconds
    free = t["rows_64"].what_if["no bank conflicts"]["seconds"]
    assert free == pytest.approx(t["rows_72"].seconds, rel=0.15)


GENERIC = PADDING + r'''
// the tile pointer chosen at run time from a local array: ptxas cannot prove it shared and loads
// the fragments with generic per-lane LD (as cuda-samples' and wayne's WMMA GEMMs do)
template <int LD>
__device__ void generic_passes(const half* g, float* out, int n)
{
    __shared__ half a[2 * 16 * LD], b[2 * 16 * LD];
    for (int i = threadIdx.x; i < 32 * LD; i += blockDim.x) { a[i] = g[i % 256]; b[i] = g[(i + 7) % 256]; }
    __syncthreads();
    half* as[2] = {a, a + 16 * LD};
    half* bs[2] = {b, b + 16 * LD};
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k++) {
        wmma::load_matrix_sync(fa, as[(k + n) & 1], LD);
        wmma::load_matrix_sync(fb, bs[(k + n) & 1], LD);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(out + blockIdx.x * 256, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void generic_64(const half* g, float* out, int n) { generic_passes<64>(g, out, n); }
extern "C" __global__ void generic_72(const half* g, float* out, int n) { generic_passes<72>(g, out, n); }
'''


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["rows", "generic"])
def test_sass_fragment_loads_take_the_same_rows_conflicts(tmp_path, stem):
    """From the SASS (``isa="sass"``), the fragments' loads (LDSM, or per-lane generic LD where
    ptxas cannot prove the tile shared) are shared-memory loads with their rows' bank conflicts,
    as on the PTX path: 128-byte rows slower than padded ones, the what-if back near the padded
    time, and the conflicted kernel's SASS time within 25 % of its PTX one (generic loads were
    global ones, 570-cycle DRAM latency, before)."""
    from pipeperf.analysis import analyze
    from pipeperf.ptx.compile import compile_cu
    from pipeperf.sass.disassemble import sass_listing
    from pipeperf.sass.listing import parse_listing

    cu = tmp_path / "wmma_sass.cu"
    cu.write_text(GENERIC)
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))[f"{stem}_64"]
    ops = {x.opcode for x in sass.instructions}
    assert ("LDSM" in ops) if stem == "rows" else ("LD" in ops and "LDSM" not in ops)
    args = ["g=rand:f16:256", "out=zeros:f32:67584", "n=64"]
    t = {(k, isa): analyze(cu, [264], [128], args, ["ampere_a100"], kernel=f"{stem}_{k}", isa=isa).predictions[0]
         for k in ("64", "72") for isa in ("ptx", "sass")}
    sass64, sass72 = t[("64", "sass")], t[("72", "sass")]
    assert sass64.seconds > 1.5 * sass72.seconds
    assert sass64.what_if["no bank conflicts"]["seconds"] == pytest.approx(sass72.seconds, rel=0.15)
    assert sass64.seconds == pytest.approx(t[("64", "ptx")].seconds, rel=0.25)
