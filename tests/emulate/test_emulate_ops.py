"""Opcode semantics not covered by the corpus references: prmt, brx.idx, special registers, set/setp
(combining predicates, f16x2 lanes, ftz), f16x2 min/max/sat/relu, WARP_SZ."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.emulate import run_kernel
from pipeperf.errors import PipeperfError
from pipeperf.ptx import parse_ptx

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

PRMT = HEAD + """
.visible .entry perm(.param .u64 out, .param .u32 a, .param .u32 b, .param .u32 c)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r1, [a];
    ld.param.u32 %r2, [b];
    ld.param.u32 %r3, [c];
    prmt.b32 %r4, %r1, %r2, %r3;
    st.global.u32 [%rd2], %r4;
    ret;
}
"""


@pytest.mark.parametrize("a,b,c,want", [
    (0x33221100, 0x77665544, 0x3210, 0x33221100),
    (0x33221100, 0x77665544, 0x7654, 0x77665544),
    (0x33221100, 0x77665544, 0x0123, 0x00112233),
    (0x00000080, 0, 0x0008, 0x808080FF),   # msb of a selector: replicate the sign bit
])
def test_prmt(a, b, c, want):
    out = np.zeros(1, np.uint32)
    run_kernel(parse_ptx(PRMT), 1, 1, [out, a, b, c])
    assert int(out[0]) == want


BRX = HEAD + """
.visible .entry jump(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    ts: .branchtargets L0, L1, L2, L3;
    brx.idx %r2, ts;
L0:
    mov.u32 %r3, 10;
    bra.uni DONE;
L1:
    mov.u32 %r3, 11;
    bra.uni DONE;
L2:
    mov.u32 %r3, 12;
    bra.uni DONE;
L3:
    mov.u32 %r3, 13;
DONE:
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r3;
    ret;
}
"""


@pytest.mark.parametrize("mode", ["full", "hybrid"])
def test_brx_idx_diverges_and_reconverges(mode):
    out = np.zeros(64, np.uint32)
    p = run_kernel(parse_ptx(BRX), 1, 64, [out], mode=mode)
    if mode == "full":
        assert out.tolist() == [10 + (i & 3) for i in range(64)]
    c = p.counts
    # per warp: brx (divergent, 4 targets) + 3 bra.uni on three of the paths
    assert c["branches"] == 2 * (1 + 3)
    assert c["divergent_branches"] == 2
    assert p.by_opcode["warp"]["st.global.u32"] == 2   # once per warp: reconverged


SPECIAL = HEAD + """
.visible .entry ids(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ctaid.y;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %ntid.y;
    mov.u32 %r7, %nctaid.x;
    mad.lo.s32 %r8, %r4, %r7, %r3;
    mul.lo.s32 %r9, %r5, %r6;
    mad.lo.s32 %r10, %r2, %r5, %r1;
    mad.lo.s32 %r11, %r8, %r9, %r10;
    mov.u32 %r1, %laneid;
    mul.wide.u32 %rd3, %r11, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r1;
    ret;
}
"""


def test_two_dimensional_launch_and_lane_ids():
    out = np.full(2 * 3 * 8 * 6, 99, np.uint32)
    p = run_kernel(parse_ptx(SPECIAL), (2, 3), (8, 6), [out])
    # block of 48 threads: lanes 0..31 then 0..15
    per_block = np.concatenate([np.arange(32), np.arange(16)])
    assert out.tolist() == np.tile(per_block, 6).tolist()
    assert p.counts["warps"] == 12 and p.counts["ctas"] == 6


def test_named_arguments_by_ptx_name_and_position():
    out = np.zeros(1, np.uint32)
    run_kernel(parse_ptx(PRMT), 1, 1, {"out": out, "a": 0x33221100, "b": 0, "c": 0x0123})
    assert int(out[0]) == 0x00112233
    with pytest.raises(PipeperfError, match="no parameter 'zz'"):
        run_kernel(parse_ptx(PRMT), 1, 1, {"zz": 1})


@pytest.mark.parametrize("line,what", [
    ("add.sat.s32 %r2, %r1, %r1;", "integer saturation"),
    ("add.cc.u32 %r2, %r1, %r1;", "carry chains"),
    ("set.eq.u32.bf16x2 %r2, %r1, %r1;", "bf16 comparisons"),
    ("min.xorsign.abs.f16x2 %r2, %r1, %r1;", "xorsign"),
    ("set.eq.s32 %r2, %r1, %r1;", "expected 2 types, got 1"),      # the PTX check's refusal (and ptxas')
    ("add.bf16x2 %r2, %r1, %r1;", r"instruction add\.bf16x2 \(type \.bf16x2\)"),
    ("cvt.rn.satfinite.f16x2.f32 %r2, %r1, %r1;", "only cvt.rn"),
])
def test_semantics_we_do_not_model_are_refused(line, what):
    ptx = HEAD + """
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .pred %p<3>;
    mov.u32 %r1, 7;
    """ + line + """
    ret;
}
"""
    with pytest.raises(PipeperfError, match=what):
        run_kernel(parse_ptx(ptx), 1, 32, [np.zeros(1, np.uint32)])


SYNCWARP = HEAD + """
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b8 s[256];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.lo.s32 %r2, %r1, 3;
    mov.u64 %rd3, s;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.shared.u32 [%rd5], %r2;
    bar.warp.sync -1;
    xor.b32 %r3, %r1, 1;
    mul.wide.u32 %rd4, %r3, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.shared.u32 %r4, [%rd5];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd2, %rd4;
    st.global.u32 [%rd5], %r4;
    ret;
}
"""


def test_bar_warp_sync_is_emulated():
    """``__syncwarp()`` (bar.warp.sync): the lanes exchange through shared memory after it."""
    out = np.zeros(64, np.uint32)
    run_kernel(parse_ptx(SYNCWARP), 1, 64, [out])
    assert out.tolist() == [3 * (i ^ 1) for i in range(64)]


RED = HEAD + """
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    red.global.add.u32 [%rd2], %r1;
    mov.f32 %f1, 0f3F800000;
    atom.global.add.f32 %f2, [%rd2+4], %f1;
    ret;
}
"""


def test_red_and_float_atomics_with_conflicts():
    out = np.zeros(2, np.uint32)
    p = run_kernel(parse_ptx(RED), 2, 64, [out])
    assert int(out[0]) == 2 * sum(range(64))
    assert out[1:].view(np.float32)[0] == 128.0
    assert p.counts["atomic_requests"] == 2 * 2 * 2   # 2 instructions x 2 blocks x 2 warps


# One thread computes %r3 from the u32 arguments a (%r1) and b (%r2) with the given lines.
BINARY = HEAD + """
.visible .entry k(.param .u64 out, .param .u32 a, .param .u32 b)
{
    .reg .b32 %r<8>;
    .reg .b16 %rs<4>;
    .reg .f32 %f<4>;
    .reg .pred %p<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r1, [a];
    ld.param.u32 %r2, [b];
    mov.u32 %r3, 0;
    LINES
    st.global.u32 [%rd2], %r3;
    ret;
}
"""


def h2(lo: float, hi: float) -> int:
    """f16x2 word of two halves (lo in bits 0-15)."""
    return int(np.array([lo, hi], np.float16).view(np.uint32)[0])


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def run_binary(lines: str, a: int, b: int) -> int:
    out = np.zeros(1, np.uint32)
    run_kernel(parse_ptx(BINARY.replace("LINES", lines)), 1, 1, [out, a, b])
    return int(out[0])


PRED_TO_R3 = "selp.u32 %r4, 1, 0, %p1; selp.u32 %r5, 2, 0, %p2; or.b32 %r3, %r4, %r5;"
NAN16 = float("nan")


@pytest.mark.parametrize("lines,a,b,want", [
    # set on f16x2: per 16-bit lane, 1.0 (0x3C00) into an f16x2 destination, 0xFFFF into u32/s32
    ("set.lt.f16x2.f16x2 %r3, %r1, %r2;", h2(1, 3), h2(2, 2), 0x00003C00),
    ("set.lt.u32.f16x2 %r3, %r1, %r2;", h2(1, 3), h2(2, 2), 0x0000FFFF),
    ("set.ge.s32.f16x2 %r3, %r1, %r2;", h2(1, 3), h2(2, 2), 0xFFFF0000),
    ("set.eq.f16x2.f16x2 %r3, %r1, %r2;", h2(0.0, NAN16), h2(-0.0, NAN16), 0x00003C00),
    ("set.neu.u32.f16x2 %r3, %r1, %r2;", h2(0.0, NAN16), h2(-0.0, NAN16), 0xFFFF0000),
    ("set.nan.f16x2.f16x2 %r3, %r1, %r1;", h2(NAN16, 1), 0, 0x00003C00),
    # ... combined with a predicate, per lane
    ("setp.ne.u32 %p3, %r2, 0; set.lt.or.u32.f16x2 %r3, %r1, %r1, %p3;", h2(1, 3), 1, 0xFFFFFFFF),
    ("setp.ne.u32 %p3, %r2, 0; set.le.and.u32.f16x2 %r3, %r1, %r1, !%p3;", h2(1, 3), 1, 0),
    # setp on f16x2: p is the low lane's result, q the high lane's (not the complement)
    ("setp.gt.f16x2 %p1|%p2, %r1, %r2; " + PRED_TO_R3, h2(3, 1), h2(2, 2), 1),
    ("setp.gt.f16x2 %p1|%p2, %r1, %r2; " + PRED_TO_R3, h2(1, 3), h2(2, 2), 2),
    ("setp.ne.u32 %p3, %r2, 0; setp.gt.and.f16x2 %p1|%p2, %r1, %r1, %p3; " + PRED_TO_R3, h2(1, 3), 0, 0),
    # scalar set: all ones / 1.0f / f16 1.0
    ("set.lt.u32.s32 %r3, %r1, %r2;", 0xFFFFFFFF, 0, 0xFFFFFFFF),
    ("set.lo.u32.u32 %r3, %r1, %r2;", 0xFFFFFFFF, 0, 0),
    ("set.gt.f32.f32 %r3, %r1, %r2;", f32(2.0), f32(1.0), f32(1.0)),
    ("mov.b32 {%rs1, %rs2}, %r1; set.nan.f16.f16 %rs3, %rs1, %rs1; cvt.u32.u16 %r3, %rs3;",
     h2(NAN16, 0), 0, 0x3C00),
    # setp with a combining predicate: p = t op c, q = !t op c
    ("setp.ne.u32 %p3, %r2, 0; setp.lt.xor.s32 %p1|%p2, %r1, 5, %p3; " + PRED_TO_R3, 1, 1, 2),
    ("setp.ne.u32 %p3, %r2, 0; setp.lt.and.s32 %p1|%p2, %r1, 5, !%p3; " + PRED_TO_R3, 1, 0, 1),
    # .ftz: subnormal inputs compare as zero
    ("set.eq.ftz.u32.f32 %r3, %r1, %r2;", 1, 0, 0xFFFFFFFF),
    ("set.eq.u32.f32 %r3, %r1, %r2;", 1, 0, 0),
    # f16x2 min/max: NaN ignored or (.NaN) propagated as canonical 0x7FFF; -0 < +0
    ("max.f16x2 %r3, %r1, %r2;", h2(NAN16, -0.0), h2(1, 0.0), h2(1, 0.0)),
    ("min.f16x2 %r3, %r1, %r2;", h2(NAN16, 0.0), h2(NAN16, -0.0), 0x80007FFF),
    ("min.NaN.f16x2 %r3, %r1, %r2;", h2(NAN16, 2), h2(1, 3), (h2(0, 2) & 0xFFFF0000) | 0x7FFF),
    ("max.NaN.f32 %r3, %r1, %r2;", f32(float("nan")), f32(1.0), 0x7FFFFFFF),
    ("max.f32 %r3, %r1, %r2;", f32(float("nan")), f32(1.0), f32(1.0)),
    # f16x2 neg/abs, .sat and .relu
    ("neg.f16x2 %r3, %r1;", h2(1, -2), 0, h2(-1, 2)),
    ("abs.f16x2 %r3, %r1;", h2(-1, 2), 0, h2(1, 2)),
    ("add.sat.f16x2 %r3, %r1, %r2;", h2(0.75, -3), h2(0.5, 1), h2(1, 0)),
    ("fma.rn.relu.f16x2 %r3, %r1, %r2, %r2;", h2(-2, 2), h2(1, 1), h2(0, 3)),
    # cvt.rn.f16x2.f32 d, a, b: a into the upper lane, b into the lower; ex2 on each lane
    ("cvt.rn.f16x2.f32 %r3, %r1, %r2;", f32(1.0), f32(-2.0), h2(-2, 1)),
    ("cvt.rn.relu.f16x2.f32 %r3, %r1, %r2;", f32(-1.0), f32(3.0), h2(3, 0)),
    ("ex2.approx.f16x2 %r3, %r1;", h2(1, 3), 0, h2(2, 8)),
    # WARP_SZ: the warp size as a run-time constant
    ("mov.u32 %r4, WARP_SZ; add.s32 %r3, %r4, %r1;", 10, 0, 42),
])
def test_comparisons_packed_halves_and_warp_size(lines, a, b, want):
    assert run_binary(lines, a, b) == want
