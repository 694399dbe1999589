"""PTX IDGs of f16 arithmetic ptxas contracts and packs: one node per k PTX instructions (issue 36)."""

from fractions import Fraction

from pipeperf.idg.build import ir_registers, packed_entries, warp_idg
from pipeperf.ptx.parser import parse_ptx

# leimao's hgemm v04 inner step in small: cuda_fp16.h's operator* and += are inline asm, so each
# acc += a * b is a mul.f16 and an add.f16 nvcc cannot contract; ptxas makes one HFMA2 of every
# two (4 PTX instructions each)
PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
    .reg .b16 %rs<32>;
    .reg .b32 %r<4>;
    .shared .align 2 .b8 s[64];
    mov.u32 %r1, s;
    ld.shared.u16 %rs1, [%r1];
    ld.shared.u16 %rs2, [%r1+2];
    ld.shared.u16 %rs3, [%r1+4];
    mul.f16 %rs10, %rs1, %rs2;
    add.f16 %rs20, %rs20, %rs10;
    mul.f16 %rs11, %rs1, %rs3;
    add.f16 %rs21, %rs21, %rs11;
    mul.f16 %rs12, %rs2, %rs3;
    add.f16 %rs20, %rs20, %rs12;
    mul.f16 %rs13, %rs3, %rs3;
    add.f16 %rs21, %rs21, %rs13;
    st.shared.u16 [%r1], %rs20;
    st.shared.u16 [%r1+2], %rs21;
    ret;
}
"""


def _trace():
    f = parse_ptx(PTX).functions[0]
    return f, [{"pc": x.index, "opcode": x.opcode} for x in f.instructions]


def _arith(f):
    return [x.index for x in f.instructions if x.op.root in ("mul", "add")]


def test_every_fourth_stays_and_carries_the_dropped_ones_dependences():
    """k = 4: of the 8 mul/add one in four stays (the second and the fourth add); each kept add
    depends on the loads its dropped mul read, and the second kept add on the first (acc %rs20 via
    the dropped add); the stores read the accumulators through the dropped adds."""
    f, entries = _trace()
    regs = ir_registers(f)
    packed = dict.fromkeys(_arith(f), (0, Fraction(4)))
    kept, deps = packed_entries(entries, packed, regs)
    ops = [f.instructions[e["pc"]].op.root for e in kept]
    assert ops == ["mov", "ld", "ld", "ld", "add", "add", "st", "st", "ret"], ops
    first, second = 4, 5
    # first kept add = add #2 (%rs21 += %rs1 * %rs3): loads 1 and 3; also the dropped add #1
    # (%rs20 += %rs1 * %rs2) is not its operand, so load 2 is not
    assert deps[first] == (1, 3)
    # second kept add = add #4 (%rs21 += %rs3 * %rs3): its acc is the first kept add's, load 3
    assert deps[second] == (3, first)
    # the store of %rs20 reads add #3 (dropped): %rs20 (add #1, dropped: loads 1, 2) + %rs2 * %rs3
    assert deps[6] == (0, 1, 2, 3)
    assert deps[7] == (0, second)
    g = warp_idg("k", entries, lambda e: "x", regs, packed=packed)
    assert len(g) == len(kept) == len(entries) - 6


def test_a_fractional_ratio_keeps_its_share():
    """k = 3/2 (ptxas' 8 instructions for 12): two of every three stay; k = 1 keeps all."""
    f, entries = _trace()
    regs = ir_registers(f)
    arith = _arith(f)
    kept, _ = packed_entries(entries, dict.fromkeys(arith, (0, Fraction(3, 2))), regs)
    # 8 executions, the 2nd, 3rd, 5th, 6th and 8th kept: floor(8 / (3/2))
    assert [i for i, e in enumerate(x for x in entries if x["pc"] in arith) if e in kept] == [1, 2, 4, 5, 7]
    kept, _ = packed_entries(entries, dict.fromkeys(arith, (0, Fraction(1))), regs)
    assert kept == entries


def test_without_packing_the_idg_is_the_traces():
    f, entries = _trace()
    regs = ir_registers(f)
    plain = warp_idg("k", entries, lambda e: "x", regs)
    same = warp_idg("k", entries, lambda e: "x", regs, packed={})
    assert len(plain) == len(same) == len(entries)


def test_the_ratio_of_a_line_ptxas_moved_its_work_off():
    """hgemm v04 for sm_90: the PTX's mul/add sit on the accumulation line, ptxas' packed HFMA2 on
    the line of the loads before it, its epilogue's one-half HMUL2/HFMA2 on the epilogue's line.
    The moved line is matched against the SASS lines with no PTX f16 work (4), not the kernel's
    mean over the epilogue too (3); the epilogue keeps its own (3/2)."""
    from types import SimpleNamespace

    from pipeperf.analysis.sass_trace import packed_half_arithmetic
    from pipeperf.sass.listing import parse_listing

    f, _ = _trace()
    loop, epi, load = ("k.cu", 10), ("k.cu", 20), ("k.cu", 9)
    arith = _arith(f)
    ptx_keys = [loop if x.index in arith[:6] else epi if x.index in arith else None for x in f.instructions]
    sass = parse_listing("""
.text.k:
        /*0000*/                   HFMA2 R0, R2, R3.H0_H0, R0 ;
        /*0010*/                   HMUL2 R4, R4.H0_H0, R5.H0_H0 ;
        /*0020*/                   HFMA2 R6, R7.H0_H0, R5.H0_H0, R6.H0_H0 ;
        /*0030*/                   HFMA2 R8, R2, R3.H0_H0, R8 ;
        /*0040*/                   EXIT ;
""")["k"]
    view = SimpleNamespace(ptx_keys=ptx_keys, sass=sass, sass_keys=[load, epi, epi, load, None])
    packed = packed_half_arithmetic(view, f)      # type: ignore[arg-type]
    assert {packed[pc][1] for pc in arith[:6]} == {Fraction(4)}
    assert {packed[pc][1] for pc in arith[6:]} == {Fraction(3, 2)}
    assert packed[arith[0]][0] != packed[arith[6]][0]
