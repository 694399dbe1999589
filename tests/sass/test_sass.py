"""The SASS front end (sass/: nvdisasm listings, blocks, CFG, registers; the SASS class mapper)
and the SASS-aware IDGs of analyze --isa sass (analysis/sass_trace.py), on real ptxas/nvdisasm
output of small kernels (recorded in tests/fixtures/compiled for machines without CUDA)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeperf.analysis import analyze
from pipeperf.analysis.sass_trace import SassTranslator, build_view
from pipeperf.analysis.sass_walk import walk
from pipeperf.emulate import run_kernel
from pipeperf.hardware.mapper import map_instruction
from pipeperf.hardware.sass_mapper import access_bytes, sass_class_of
from pipeperf.hardware.spec import load_gpu
from pipeperf.ptx.compile import compile_cu
from pipeperf.ptx.parser import parse_ptx
from pipeperf.sass.disassemble import sass_listing
from pipeperf.sass.listing import ABSOLUTE_CALL, SassBlock, SassFunction, SassInstr, parse_listing
from pipeperf.sass.registers import registers

KERNELS = r'''
extern "C" __global__ void sum_loop(const float* x, float* out, int n)
{
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += x[i];
    out[threadIdx.x] = s;
}

extern "C" __global__ void shared_rows(const float* x, float* out, int k)
{
    __shared__ float t[64 * 64];
    for (int j = threadIdx.x; j < 64 * 64; j += blockDim.x)
        t[j] = x[j];
    __syncthreads();
    float s = 0.0f;
    float r[8];
    for (int d = 0; d < k; d++) {
#pragma unroll
        for (int i = 0; i < 8; i++)
            r[i] = t[d * 64 + (threadIdx.x / 8) * 8 + i];
#pragma unroll
        for (int i = 0; i < 8; i++)
            s += r[i] * r[(i + 1) % 8];
    }
    out[threadIdx.x] = s;
}

extern "C" __global__ void int_atomic_sum(const int* x, int* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, x[i]);
}

extern "C" __global__ void local_array(const int* idx, float* out, int n)
{
    float a[256];                       // indexed at run time: a stack array in local memory
    for (int i = 0; i < 256; i++) a[i] = i * 0.5f;
    float s = 0.0f;
    for (int k = 0; k < n; k++) s += a[(idx[k] + threadIdx.x) & 255];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void float_atomic_sum(const float* x, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, x[i]);
}

extern "C" __global__ void scaled_div(const float* x, float* out, float d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] / d;     // div.rn.f32: ptxas calls its slow-path subroutine for special operands
}

#include <assert.h>

extern "C" __global__ void asserted_copy(const float* x, float* out)
{
    assert(blockDim.x == 256);        // __assertfail: an absolute call (CALL.ABS) on the failing branch
    out[blockIdx.x * blockDim.x + threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
}

#include <cuda_fp16.h>

extern "C" __global__ void half_dot(const __half* a, const __half* b, __half* c, int n, __half alpha, __half beta)
{
    __half acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < n; ++k) {     // cuda_fp16.hpp's operator* and += here ...
        __half bk = b[k];
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[j] += a[(k * 4 + j) * 256 + threadIdx.x] * bk;
    }
#pragma unroll                        // ... and here: the same header lines, two call sites
    for (int j = 0; j < 4; ++j) c[j * 256 + threadIdx.x] = alpha * acc[j] + beta * c[j * 256 + threadIdx.x];
}

#include <mma.h>

extern "C" __global__ void wmma_shared(const half* g, float* out)
{
    __shared__ half s[512];
    for (int i = threadIdx.x; i < 512; i += 32) s[i] = g[i];
    __syncthreads();
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> fa;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::col_major> fb;
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;
    nvcuda::wmma::fill_fragment(acc, 0.0f);
    nvcuda::wmma::load_matrix_sync(fa, s, 16);
    nvcuda::wmma::load_matrix_sync(fb, s + 256, 16);
    nvcuda::wmma::mma_sync(acc, fa, fb, acc);
    nvcuda::wmma::store_matrix_sync(out, acc, 16, nvcuda::wmma::mem_row_major);
}
'''


@pytest.fixture(scope="module")
def cu(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("sass") / "sass_kernels.cu"
    p.write_text(KERNELS)
    return p


@pytest.fixture(scope="module")
def sm80(cu):
    ptx = compile_cu(cu, "sm_80")
    return parse_ptx(ptx, "sass_kernels.ptx"), parse_listing(sass_listing(ptx, "sm_80"))


def test_the_listing_has_blocks_a_loop_and_source_lines(sm80):
    _, funcs = sm80
    f = funcs["sum_loop"]
    assert not f.unsupported
    assert any(b.index in b.successors for b in f.blocks), "the loop's block branches back to itself"
    assert any(-1 in b.successors for b in f.blocks), "a block ends in EXIT"
    reached = {0} | {s for b in f.blocks for s in b.successors}
    loads = [x for x in f.instructions if x.opcode == "LDG"]
    assert loads and all(x.line == 6 and x.file.endswith("sass_kernels.cu") for x in loads)
    assert all(f.block_of[x.index] in reached for x in loads)


def test_ptxas_widens_the_quad_loads_and_aggregates_the_integer_atomic(sm80):
    _, funcs = sm80
    lds = [x for x in funcs["shared_rows"].instructions if x.opcode == "LDS"]
    assert lds and all(access_bytes(x) == 16 for x in lds)          # ld.shared.f32 x 4 -> LDS.128
    ops = [x.opcode for x in funcs["int_atomic_sum"].instructions]
    assert "REDUX" in ops and "RED" in ops
    assert "REDUX" not in [x.opcode for x in funcs["float_atomic_sum"].instructions]


def test_an_inline_listing_gives_each_instruction_its_call_sites():
    """``nvdisasm -gi``: one marker per inlining level, innermost first; the instruction keeps the
    innermost line and the call sites, and the next marker block starts a new chain."""
    text = """
.text.k:
        //## File "/cuda/include/cuda_fp16.hpp", line 2630 inlined at "/cuda/include/cuda_fp16.hpp", line 221
        //## File "/cuda/include/cuda_fp16.hpp", line 221 inlined at "/w/k.cu", line 478
        //## File "/w/k.cu", line 478 inlined at "/w/k.cu", line 985
        //## File "/w/k.cu", line 985
        /*0000*/                   HFMA2 R0, R1, R2, R3 ;
        //## File "/w/k.cu", line 12
        /*0010*/                   EXIT ;
"""
    f = parse_listing(text)["k"]
    a, b = f.instructions
    assert (a.file, a.line) == ("/cuda/include/cuda_fp16.hpp", 2630)
    assert a.inlined == (("/cuda/include/cuda_fp16.hpp", 221), ("/w/k.cu", 478), ("/w/k.cu", 985))
    assert (b.file, b.line, b.inlined) == ("/w/k.cu", 12, ())
    from pipeperf.analysis.sass_trace import chain_key, toolkit_headers

    toolkit = toolkit_headers({1: "/w/k.cu", 2: "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/cuda_fp16.hpp"})
    assert toolkit == {"cuda_fp16.hpp"}
    assert chain_key(((a.file, a.line), *a.inlined), toolkit) == ("k.cu", 478)
    assert chain_key((("cuda_fp16.hpp", 9),), toolkit) == ("cuda_fp16.hpp", 9)   # all headers: the innermost


def test_a_call_to_ptxas_slow_path_subroutine_returns_to_the_next_block(sm80):
    _, funcs = sm80
    f = funcs["scaled_div"]
    assert not f.unsupported, f.unsupported
    ((sub, length),) = f.calls
    assert "div_rn" in sub and length > 10       # listed apart, not part of the kernel
    call = next(x for x in f.instructions if x.opcode == "CALL")
    b = f.blocks[f.block_of[call.index]]
    assert b.end == call.index + 1 and b.successors == (f.block_of[call.index + 1],)
    assert not any(x.opcode == "RET" for x in f.instructions)
    g = funcs["asserted_copy"]
    assert not g.unsupported and g.calls == ((ABSOLUTE_CALL, 0),)


def test_a_kernel_with_a_division_is_timed_from_its_sass(cu):
    args = ["x=rand:f32:16384", "out=zeros:f32:16384", "d=3.0", "n=16384"]
    common = dict(kernel="scaled_div", what_if=False)
    r = analyze(cu, [64], [256], args, ["ampere_a100"], isa="sass", **common)
    notes = " ".join(r.predictions[0].notes)
    assert "timed from the SASS" in notes and "timed from the PTX" not in notes
    assert "subroutine" in notes and "div_rn" in notes
    ptx = analyze(cu, [64], [256], args, ["ampere_a100"], isa="ptx", **common)
    s, p = r.predictions[0].seconds, ptx.predictions[0].seconds
    assert 0.5 < s / p < 2.0, (s, p)


@pytest.mark.parametrize("line, reads, writes", [
    ("/*0100*/ LDS.128 R28, [R5+0x800] ;", ("R5",), ("R28", "R29", "R30", "R31")),
    ("/*0100*/ IMAD.WIDE R26, R27, 0x4, R76 ;", ("R27", "R76", "R77"), ("R26", "R27")),
    ("/*0100*/ DFMA R2, R4, R6, R2 ;", ("R4", "R5", "R6", "R7", "R2", "R3"), ("R2", "R3")),
    ("/*0100*/ HMMA.16816.F32 R4, R8, R12, R4 ;", ("R8", "R9", "R10", "R11", "R12", "R13", "R4", "R5", "R6", "R7"),
     ("R4", "R5", "R6", "R7")),
    ("/*0100*/ @P0 STG.E.64 [R2.64], R6 ;", ("P0", "R2", "R3", "R6", "R7"), ()),
    ("/*0100*/ ISETP.GE.AND P0, PT, R2, c[0x0][0x170], PT ;", ("R2",), ("P0",)),
])
def test_registers_span_the_values_sass_names(line, reads, writes):
    x = parse_listing(".text.k:\n        " + line + "\n")["k"].instructions[0]
    r, w = registers(x)
    assert (set(r), set(w)) == (set(reads), set(writes)), (r, w)


def test_sass_opcodes_take_the_databases_classes(sm80):
    _, funcs = sm80
    classes = {x.opcode: sass_class_of(x) for f in funcs.values() for x in f.instructions}
    assert classes["LDG"] == "ld_global_s32" and classes["RED"] == "atom_global"
    assert classes["LDS"] == "ld_shared_f32" and classes["BAR"] == "bar_sync"
    assert classes["REDUX"] == "shfl" and classes["EXIT"] == "control"


def test_integer_to_float_conversions_take_their_architectures_class():
    """sm_86+ converts an integer into f32 with I2FP (cvt_i2f: the integer ALU's rate where the GPU
    defines it), sm_75/80 with I2F (the SFU-rate cvt), as the PTX mapper's cvt.rn.f32.u32 does."""
    def ins(op, *mods):
        return SassInstr(0, 0, "", op, mods, ("R0", "R1"), "", 0)

    assert sass_class_of(ins("I2FP", "F32", "U32")) == "cvt_i2f"
    assert sass_class_of(ins("I2F", "U16")) == sass_class_of(ins("F2I", "U32", "TRUNC", "NTZ")) == "cvt"
    assert sass_class_of(ins("I2F", "F64", "S64")) == "cvt_f64"


def test_the_walk_spreads_inner_iterations_over_the_outer_loop():
    """Entry -> outer header -> inner loop (self) -> latch (-> header or exit): 4 outer and 12 inner
    runs go 3 inner runs per outer one."""
    blocks = (SassBlock(0, 0, 1, (1,)), SassBlock(1, 1, 2, (2,)), SassBlock(2, 2, 3, (2, 3)),
              SassBlock(3, 3, 4, (1, -1)))
    f = SassFunction("k", (), blocks)
    # edges (cfg_edges order): 0->1, 1->2, 2->2, 2->3, 3->1, 3->exit
    order = walk(f, np.array([1, 4, 12, 4]), np.array([1, 4, 8, 4, 3, 1]))
    assert order == [0] + [1, 2, 2, 2, 3] * 4
    # 10 iterations over 4 entries: 2 or 3 a time, 10 in all
    order = walk(f, np.array([1, 4, 10, 4]), np.array([1, 4, 6, 4, 3, 1]))
    runs = [r.count("2") for r in "".join(map(str, order)).split("3")[:-1]]
    assert sorted(runs) == [2, 2, 3, 3]


def _trace(cu, name, n_threads, args):
    from pipeperf.ptx.load import compile_module

    module, _ = compile_module(cu, "sm_80")
    prof = run_kernel(module, [max(1, n_threads // 256)], [256], args, kernel=name, mode="hybrid",
                      trace_warps=8, trace_blocks="spread", ctas="traced", memory=True)
    func = next(f for f in module.functions if f.name == name)
    return module, func, prof


def _translate(view, func, prof, gpu_name="ampere_a100"):
    """The translator of ``view`` on an A100 and its SASS entries for the first traced warp."""
    gpu = load_gpu(gpu_name)
    avail = set(gpu.classes)
    tr = SassTranslator(view, avail, gpu.name, lambda pc: map_instruction(func.instructions[pc], avail, gpu.name))
    w = min(prof.traces)
    ptx = prof.traces.head(w, prof.traces.length(w), func.name)
    return tr, ptx, tr.translate(ptx)


def test_a_warps_sass_does_the_work_of_its_ptx(cu):
    """The sum loop over 4096 floats by 256 threads: each warp's SASS entries hold as many global
    loads and FP32 adds as its PTX trace (ptxas unrolls the loop: fewer branches, the same work)."""
    module, func, prof = _trace(cu, "sum_loop", 256, ["x=rand:f32:4096", "out=zeros:f32:256", "n=4096"])
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))["sum_loop"]
    tr, ptx, out = _translate(build_view(sass, func, module.files), func, prof)
    ptx_ops = [func.instructions[e["pc"]].op for e in ptx]
    assert sum(op.root == "ld" and op.space == "global" for op in ptx_ops) == \
        sum(e["opcode"].startswith("LDG") for e in out) == 16
    assert sum(op.root == "add" and op.types[-1:] == ("f32",) for op in ptx_ops) == \
        sum(e["opcode"] == "FADD" for e in out)
    assert all(tr.class_of(e) for e in out)
    assert len(out) < len(ptx)          # the address arithmetic folds into the SASS addressing


def test_header_lines_count_at_their_call_site(cu):
    """cuda_fp16.hpp's operators are one header line for every call site, and ptxas packs two
    __half FMAs of the loop into one HFMA2 on the loop's own line: keyed by the innermost line
    outside the toolkit's headers (the call site; nvdisasm -gi and the PTX's inlined_at chains),
    the loop's work is matched in the loop, so the epilogue runs once per warp (keyed by the header
    line, the loop's FP16 work was the epilogue's and ran it once per iteration)."""
    module, func, prof = _trace(cu, "half_dot", 256, ["a=rand:f16:262144", "b=rand:f16:256", "c=zeros:f16:1024",
                                                      "n=256", "alpha=1.0", "beta=0.5"])
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))["half_dot"]
    assert any(x.inlined for x in sass.instructions), "nvdisasm -gi names the call sites"
    view = build_view(sass, func, module.files)
    hpp = {k for k in view.ptx_keys if k is not None and k[0].startswith("cuda_fp16")}
    assert not hpp, f"PTX work keyed on header lines {sorted(hpp)}"
    _, ptx, out = _translate(view, func, prof)
    ptx_ops = [func.instructions[e["pc"]].op for e in ptx]
    stores = sum(op.root == "st" and op.space == "global" for op in ptx_ops)
    assert stores == 4 and sum(e["opcode"].startswith("STG") for e in out) == stores
    assert sum(e["opcode"].startswith("LDG") for e in out) >= 256     # the loop ran its 256 iterations


def test_ptx_half_arithmetic_takes_ptxas_packing(cu):
    """half_dot's loop: 4 mul.f16 and 4 add.f16 per iteration (cuda_fp16.hpp's inline asm), 2
    HFMA2 of two halves in the SASS for sm_80: one PTX IDG node per 4 (the SASS's 4 f16
    operations per instruction over the PTX's 1); its epilogue's 12 scalar mul/add are 4 HMUL2
    and 4 HFMA2 of one half each: 3/2. The warps' IDGs have as many of the loop's f16 nodes as
    the SASS has HFMA2 executions."""
    from fractions import Fraction

    from pipeperf.analysis.sass_trace import packed_half_arithmetic
    from pipeperf.idg.build import kernel_graph_from_profile

    module, func, prof = _trace(cu, "half_dot", 256, ["a=rand:f16:262144", "b=rand:f16:256", "c=zeros:f16:1024",
                                                      "n=256", "alpha=1.0", "beta=0.5"])
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))["half_dot"]
    view = build_view(sass, func, module.files)
    packed = packed_half_arithmetic(view, func)
    loop = {pc for pc, (_g, k) in packed.items() if k == 4}
    assert {func.instructions[pc].op.root for pc in loop} == {"mul", "add"} and len(loop) >= 8
    assert {k for _g, k in packed.values()} == {Fraction(4), Fraction(3, 2)}
    assert all(x.index in packed for x in func.instructions if x.op.root in ("mul", "add") and x.op.types[-1:] == ("f16",))
    gpu = load_gpu("ampere_a100")
    plain = kernel_graph_from_profile(prof, func, set(gpu.classes), gpu.name, warps_per_group=8)
    merged = kernel_graph_from_profile(prof, func, set(gpu.classes), gpu.name, warps_per_group=8, packed=packed)

    def loop_nodes(kg):
        g = kg.graph.warp_classes[0].idg
        return int(np.isin(g.pcs, sorted(loop)).sum())

    assert loop_nodes(plain) == 256 * 8 and loop_nodes(merged) == 256 * 2
    assert merged.info.issued_per_traced < 1.0 == plain.info.issued_per_traced
    # analyze's PTX timing takes it and says so
    a = analyze(cu, [1], [256], ["a=rand:f16:262144", "b=rand:f16:256", "c=zeros:f16:1024", "n=256", "alpha=1.0",
                                 "beta=0.5"], ["ampere_a100"], kernel="half_dot", what_if=False, isa="ptx")
    pred = a.predictions[0]
    assert any(n.startswith("f16 arithmetic ptxas contracts and packs") and "node per 3/2, 4" in n for n in pred.notes)
    assert pred.issued_per_traced < 1.0


def test_block_counts_that_miss_the_ptx_work_are_said(cu):
    """The translator totals how far each walk's kernel-wide work is from its PTX trace's; the
    analysis notes it past 5 %: the sum loop matches (no note), a view whose FADD rows were
    emptied misses all of its FP32 work (a note with the share)."""
    from pipeperf.analysis.sass_trace import unmatched_note

    module, func, prof = _trace(cu, "sum_loop", 256, ["x=rand:f32:4096", "out=zeros:f32:256", "n=4096"])
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))["sum_loop"]
    view = build_view(sass, func, module.files)

    def translator(v):
        return _translate(v, func, prof)[0]

    good = translator(view)
    assert good.demanded > 0 and good.unmatched <= 0.05 * good.demanded
    assert unmatched_note("sum_loop", good) is None
    fp = [r for (key, kind), r in view.rows.items() if kind.startswith("f32")]
    assert fp
    work = view.block_work.copy()
    work[:, fp] = 0.0
    from dataclasses import replace

    bad = translator(replace(view, block_work=work))
    note = unmatched_note("sum_loop", bad)
    assert note is not None and "sum_loop" in note and "%" in note


def test_a_widened_load_takes_the_class_mapper_g_gave_its_fused_requests(cu):
    """shared_rows' SASS loads 8 floats a thread with 2 LDS.128 where the PTX has 8 ld.shared.f32:
    mapper g merges each run of 4 fused requests into its first pc's statistics, so every LDS.128
    must take one of those pcs' classes (the absorbed members have none: they fell back to the
    plain class, and 3 in 4 wide loads of a register-tiled GEMM were charged a broadcast's single
    wavefront instead of the two a 16-byte return needs)."""
    module, func, prof = _trace(cu, "shared_rows", 256, ["x=rand:f32:4096", "out=zeros:f32:256", "k=4"])
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))["shared_rows"]
    view = build_view(sass, func, module.files)
    groups: dict[int, list[int]] = {}
    for pc, (g, _k) in sorted(view.fusion.items()):
        groups.setdefault(g, []).append(pc)
    assert groups and all(len(pcs) >= 4 for pcs in groups.values())
    measured = {pcs[0] for pcs in groups.values()}      # as mapper g's rows would name them
    gpu = load_gpu("ampere_a100")
    tr = SassTranslator(view, set(gpu.classes), gpu.name, lambda pc: f"mapper-g@{pc}" if pc in measured else "plain",
                        measured=measured)
    w = min(prof.traces)
    out = tr.translate(prof.traces.head(w, prof.traces.length(w), func.name))
    wide = [tr.class_of(e) for e in out if e["opcode"].startswith("LDS.128")]
    assert len(wide) == 2 * 4 and all(c.startswith("mapper-g@") for c in wide)


@pytest.mark.slow
def test_mapper_g_sees_the_widened_shared_loads(cu):
    """shared_rows' 8 ld.shared.f32 per thread and iteration are 2 LDS.128 in SASS (ptxas fuses
    them; the PTX has them scalar): on both paths the shared load rows count the SASS's requests,
    a quarter of the PTX's loads, each 16 bytes a lane; the PTX path times each of its 8 loads as a
    quarter of its LDS.128 (issue 36) and hoists them as ptxas does."""
    args = ["x=rand:f32:4096", "out=zeros:f32:256", "k=48"]
    rows = {}
    for isa in ("ptx", "sass"):
        a = analyze(cu, [1], [256], args, ["ampere_a100"], kernel="shared_rows", what_if=False, isa=isa)
        rows[isa] = sum(r["requests"] for r in a.predictions[0].memory
                        if r["space"] == "shared" and r["opcode"].startswith("ld"))
        if isa == "sass":
            assert any("timed from the SASS" in n for n in a.predictions[0].notes)
        p = a.predictions[0]
        # the issue floor counts the instructions the IDGs issue: the SASS's, fewer than the PTX's
        m_inst = p.quantitative.metrics.m_inst
        assert p.floors.warp_instructions == pytest.approx(m_inst * p.issued_per_traced)
        assert (p.issued_per_traced < 0.8) if isa == "sass" else (p.issued_per_traced == 1.0)
        if isa == "ptx":
            assert any(n.startswith("loads ptxas widens: ") for n in p.notes), p.notes
    assert rows["sass"] == rows["ptx"]


def test_an_aggregated_integer_atomic_serialises_per_warp_not_per_lane(cu):
    """ptxas sums a warp's lanes (REDUX) before one RED of a warp-uniform address: in SASS 2^20
    integer atomicAdds into one word are 2^15 L2 operations, the float ones (not aggregated) stay
    2^20: the SASS timing says so, the PTX timing charges both per lane."""
    n = 1 << 20
    t = {}
    for isa in ("ptx", "sass"):
        for name, ty in (("int_atomic_sum", "i32"), ("float_atomic_sum", "f32")):
            a = analyze(cu, [n // 256], [256], [f"x=rand:{ty}:{n}", f"sum=zeros:{ty}:1", f"n={n}"], ["ampere_a100"],
                        kernel=name, what_if=False, isa=isa)
            t[isa, name] = a.predictions[0].seconds
    assert t["ptx", "int_atomic_sum"] == pytest.approx(t["ptx", "float_atomic_sum"], rel=0.1)
    assert t["sass", "int_atomic_sum"] < t["sass", "float_atomic_sum"] / 8
    assert t["sass", "float_atomic_sum"] == pytest.approx(t["ptx", "float_atomic_sum"], rel=0.15)


@pytest.mark.slow
def test_a_stack_array_that_outgrows_the_l1_costs_l2_and_dram_trips(cu):
    """1 KiB of local memory per thread: one warp's fits the H100's L1 (an L1 hit, as
    ld_local_s32), 2048 resident threads' (2 MiB) do not: the SASS timing charges the LDL/STL the
    caches' shares and the time per warp grows; the PTX timing has no such class."""
    args = ["idx=zeros:i32:64", "out=zeros:f32:270336", "n=64"]
    small = analyze(cu, [1], [32], args, ["hopper_h100"], kernel="local_array", what_if=False, isa="sass")
    big = analyze(cu, [132 * 8], [256], args, ["hopper_h100"], kernel="local_array", what_if=False, isa="sass")
    note_small = next(n for n in small.predictions[0].notes if n.startswith("local memory"))
    note_big = next(n for n in big.predictions[0].notes if n.startswith("local memory"))
    assert "1024 B per thread" in note_small and "L1 keeps 100%" in note_small
    assert "L1 keeps 12%" in note_big and "2048 resident threads" in note_big
    ptx = analyze(cu, [132 * 8], [256], args, ["hopper_h100"], kernel="local_array", what_if=False, isa="ptx")
    assert not any(n.startswith("local memory") for n in ptx.predictions[0].notes)
    assert big.predictions[0].seconds > 1.5 * ptx.predictions[0].seconds


def test_the_ldsm_of_a_wmma_fragment_costs_its_wavefronts(sm80):
    """ptxas loads a 16x16 f16 fragment from shared memory with LDSM (ldmatrix): mapper g has no
    addresses of it, so its class is the shared load's times its 128-byte wavefronts (x4: 4)."""
    from pipeperf.analysis.sass_trace import wide_shared_class_name, wide_shared_classes

    module, funcs = sm80
    func = next(f for f in module.functions if f.name == "wmma_shared")
    view = build_view(funcs["wmma_shared"], func, module.files)
    gpu = load_gpu("ampere_a100")
    classes = wide_shared_classes(view, gpu)
    ldsm = [x for x in funcs["wmma_shared"].instructions if x.opcode == "LDSM"]
    assert ldsm, "ptxas made no LDSM of the fragments"
    for x in ldsm:
        c = classes[wide_shared_class_name("ld_shared_f32", access_bytes(x))]
        assert c.cpi == access_bytes(x) * 32 // 128 * gpu.classes["ld_shared_f32"].cpi


def test_block_counts_past_the_time_limit_take_the_relaxation(cu, monkeypatch):
    """Where the integer program finds no solution in its time limit (a large CFG on a loaded
    machine: custom-mma-attn's kernels failed so), the counts come from its linear relaxation,
    rounded, and the analysis says so; they still reproduce the warp's work."""
    from pipeperf.analysis import sass_walk

    module, func, prof = _trace(cu, "sum_loop", 256, ["x=rand:f32:4096", "out=zeros:f32:256", "n=4096"])
    sass = parse_listing(sass_listing(compile_cu(cu, "sm_80"), "sm_80"))["sum_loop"]
    view = build_view(sass, func, module.files)
    gpu = load_gpu("ampere_a100")
    avail = set(gpu.classes)
    monkeypatch.setattr(sass_walk, "MILP_SECONDS", 1e-9)
    sass_walk.solve_block_counts.cache_clear()
    tr = SassTranslator(view, avail, gpu.name, lambda pc: map_instruction(func.instructions[pc], avail, gpu.name))
    w = min(prof.traces)
    out = tr.translate(prof.traces.head(w, prof.traces.length(w), func.name))
    sass_walk.solve_block_counts.cache_clear()
    assert sum(e["opcode"].startswith("LDG") for e in out) == 16
    assert tr.relaxed and "sum_loop's block counts" in sass_walk.relaxed_note("sum_loop")
