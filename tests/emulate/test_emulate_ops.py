"""Opcode semantics not covered by the corpus references: prmt, brx.idx, special registers."""

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
    ("setp.eq.and.s32 %p1, %r1, %r1, %p2;", "combining predicate"),
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
