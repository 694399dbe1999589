"""PTX IDGs in the order ptxas issues the PTX: loads hoisted within straight-line code (issue 36)."""

import numpy as np

from pipeperf.idg.build import ir_registers, load_hoisting, warp_idg
from pipeperf.ptx.parser import parse_ptx

# the shape of siboehm's 2D block-tiling SGEMM's inner step: each ld.shared is followed by the fma
# using it (nvcc's PTX); its SASS issues every load of the step first
PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<16>;
    .shared .align 4 .b8 s[1024];
    mov.u32 %r1, s;
$L1:
    ld.shared.f32 %f1, [%r1];
    ld.shared.f32 %f2, [%r1+128];
    fma.rn.f32 %f8, %f1, %f2, %f8;
    ld.shared.f32 %f3, [%r1+4];
    fma.rn.f32 %f9, %f1, %f3, %f9;
    add.s32 %r2, %r1, 8;
    ld.shared.f32 %f4, [%r2];
    fma.rn.f32 %f10, %f1, %f4, %f10;
    st.shared.f32 [%r1], %f10;
    ld.shared.f32 %f5, [%r1+12];
    fma.rn.f32 %f11, %f5, %f1, %f11;
    ld.shared.f32 %f1, [%r1+16];
    fma.rn.f32 %f12, %f1, %f1, %f12;
    setp.ne.s32 %p1, %r2, 0;
    @%p1 bra $L1;
    ret;
}
"""


def _trace():
    f = parse_ptx(PTX).functions[0]
    return f, [{"pc": x.index, "opcode": x.opcode} for x in f.instructions]


def test_loads_move_up_to_their_producers_and_no_further_than_a_store():
    f, entries = _trace()
    order = [e["pc"] for e in load_hoisting(f, ir_registers(f), 1024)(entries)]
    text = [f.instructions[pc].opcode + " " + " ".join(map(str, f.instructions[pc].dsts)) for pc in order]
    assert sorted(order) == list(range(len(entries)))            # a permutation
    ops = [f.instructions[pc].op.root for pc in order]
    # the loads whose address is ready are issued first, then the add computing the next load's
    # address (moved up with that load, as ptxas does) and that load; the fma keep their order
    assert ops[:7] == ["mov", "ld", "ld", "ld", "add", "ld", "fma"], text
    assert ops[7:10] == ["fma", "fma", "st"], text
    # the store is a fence: the loads after it stay below it; the last load writes %f1, which
    # the fma before it reads, so it stays below that fma (a write after a read)
    st = ops.index("st")
    assert ops[st + 1] == "ld" and ops[st + 2] == "fma"
    last = order.index(max(pc for pc in order if f.instructions[pc].opcode.startswith("ld")))
    assert f.instructions[order[last - 1]].op.root == "fma"


def test_the_reordered_idg_keeps_every_dependence():
    """Every edge of the new order's IDG goes backwards, and every register a node reads comes
    from the same producer as in program order."""
    f, entries = _trace()
    regs = ir_registers(f)
    new = load_hoisting(f, regs, 1024)(entries)

    def producers(seq):
        last, out = {}, {}
        for e in seq:
            reads, writes = regs(e)
            out[e["pc"]] = {r: last.get(r) for r in reads}
            for r in writes:
                last[r] = e["pc"]
        return out

    assert producers(new) == producers(entries)
    g = warp_idg("k", new, lambda e: "x", regs)
    assert g is not None


def test_no_loads_to_move_keeps_the_trace():
    f, entries = _trace()
    plain = [e for e in entries if f.instructions[e["pc"]].op.root != "ld"]
    assert load_hoisting(f, ir_registers(f), 1024)(plain) == plain


def test_loads_in_flight_stay_within_the_bytes_ptxas_holds():
    """With room for two 4-byte loads in flight, the third load waits for the first ones' use
    (and the add computing the fourth's address stays just above the fourth); with room for one,
    every instruction stays where it was."""
    f, entries = _trace()
    order = [e["pc"] for e in load_hoisting(f, ir_registers(f), 8)(entries)]
    ops = [f.instructions[pc].op.root for pc in order]
    assert ops[:7] == ["mov", "ld", "ld", "fma", "ld", "add", "ld"], ops
    assert [e["pc"] for e in load_hoisting(f, ir_registers(f), 4)(entries)] == [e["pc"] for e in entries]


# the shape of Kernel Tuner's dedispersion channel loop (block 1x32, nvcc 13.0 -ptx, 2 of its 8
# unrolled channels): the shift's load, the delay's arithmetic, the sample's load, the sum
DEDISP = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u32 n)
{
    .reg .b16 %rs<3>;
    .reg .b32 %r<40>;
    .reg .f32 %f<40>;
    .reg .b64 %rd<30>;
    ld.global.f32 %f6, [%rd27];
    mul.f32 %f7, %f1, %f6;
    cvt.rzi.u32.f32 %r13, %f7;
    add.s32 %r14, %r13, %r37;
    cvt.u64.u32 %rd9, %r14;
    add.s64 %rd10, %rd1, %rd9;
    ld.global.u8 %rs1, [%rd10];
    cvt.rn.f32.u16 %f8, %rs1;
    add.f32 %f9, %f37, %f8;
    ld.global.f32 %f10, [%rd27+4];
    mul.f32 %f11, %f1, %f10;
    cvt.rzi.u32.f32 %r15, %f11;
    add.s32 %r16, %r15, %r37;
    cvt.u64.u32 %rd11, %r16;
    add.s64 %rd12, %rd1, %rd11;
    ld.global.u8 %rs2, [%rd12];
    cvt.rn.f32.u16 %f12, %rs2;
    add.f32 %f13, %f9, %f12;
    ret;
}
"""


def test_address_arithmetic_moves_up_with_its_load():
    """As in the dedispersion's SASS: both shift loads, then each channel's delay and sample
    load, then the sums; in the PTX's order (or moving the loads alone) each channel waits for
    its sample before the next channel's arithmetic."""
    f = parse_ptx(DEDISP).functions[0]
    entries = [{"pc": x.index, "opcode": x.opcode} for x in f.instructions]
    order = [e["pc"] for e in load_hoisting(f, ir_registers(f), 32)(entries)]
    text = [f.instructions[pc].opcode + " " + " ".join(map(str, f.instructions[pc].dsts)) for pc in order]
    loads = [i for i, pc in enumerate(order) if f.instructions[pc].op.root == "ld"]
    sums = [i for i, pc in enumerate(order) if f.instructions[pc].opcode == "add.f32"]
    assert loads[:2] == [0, 1], text                     # the shifts
    assert max(loads) < min(sums), text
    # channel 2's delay (pcs 10-14) right after channel 1's sample load, above channel 1's sum
    assert [order.index(pc) for pc in range(10, 15)] == list(range(loads[2] + 1, loads[2] + 6)), text
    assert max(order.index(pc) for pc in range(1, 6)) < loads[2], text


def test_the_bytes_in_flight_of_a_sass_listing():
    """The most load-destination bytes per thread held between a load and its first reader in a
    basic block: two LDS (8 B) then an LDS.128 (16 B more) before the FFMA reads the first."""
    from pipeperf.analysis.sass_trace import loaded_bytes_in_flight
    from pipeperf.sass.listing import parse_listing

    text = """
.text.k:
        /*0000*/                   LDS R4, [R2] ;
        /*0010*/                   LDS R5, [R2+0x20] ;
        /*0020*/                   LDS.128 R8, [R3] ;
        /*0030*/                   FFMA R0, R4, R8, R0 ;
        /*0040*/                   FFMA R0, R5, R9, R0 ;
        /*0050*/                   LDS R4, [R2+0x40] ;
        /*0060*/                   FFMA R0, R4, R10, R0 ;
        /*0070*/                   EXIT ;
"""
    f = parse_listing(text)["k"]
    assert loaded_bytes_in_flight(f) == 24


def test_a_run_of_fused_loads_shares_its_vector_loads_issue_interval():
    """Mapper g merged each run of 4 fused requests into its first pc's: every PTX load of the run
    takes that class at a quarter of its issue interval, with its latency, on the GPU and on every
    what-if GPU; loads of no fused group keep theirs."""
    from dataclasses import replace

    from pipeperf.analysis.memory_trace import MemoryMap, spread_fused_classes
    from pipeperf.hardware.spec import load_gpu

    gpu = load_gpu("hopper_h200_lent")
    wide = replace(gpu.classes["ld_shared_f32"], name="ld_shared_f32@10", cpi=4.0, latency=31.6)
    g = gpu.with_classes(**{wide.name: wide})
    mm = MemoryMap(g, {10: wide.name, 14: wide.name, 20: "st_shared"}, what_if={"no bank conflicts": g})
    out = spread_fused_classes(mm, dict.fromkeys(range(10, 18), (0, 4)))
    names = {pc: out.class_names[pc] for pc in range(10, 18)}
    assert set(names.values()) == {"ld_shared_f32@10/4"}
    c = out.gpu.classes["ld_shared_f32@10/4"]
    assert (c.cpi, c.latency, c.subsystem) == (1.0, 31.6, wide.subsystem)
    assert "ld_shared_f32@10/4" in out.what_if["no bank conflicts"].classes
    assert out.class_names[20] == "st_shared" and any(n.startswith("loads ptxas widens: 8") for n in out.notes)


def _whole_trace_order(f, regs, cap, entries):
    """Each stretch between fences ordered by a fresh pass (one that has ordered nothing before, so
    reuses no order): the reference the memoised stretches must reproduce."""
    out, cur = [], []
    for e in entries:
        if f.instructions[e["pc"]].op.root in ("bra", "st", "ret", "bar"):
            out += load_hoisting(f, regs, cap)(cur)
            out.append(e)
            cur = []
        else:
            cur.append(e)
    return out + load_hoisting(f, regs, cap)(cur)


def test_stretches_ordered_once_equal_the_whole_trace_walk():
    """Each stretch between fences is ordered once per distinct pc sequence and reused: the loop's
    trace (five iterations, the store and the branch fences inside each) in every cap comes out
    in the order of one walk over the whole trace, entry for entry."""
    f, body = _trace()
    loop = [e for e in body if e["pc"] >= 1 and f.instructions[e["pc"]].op.root != "ret"]
    entries = body[:1] + [dict(e) for _ in range(5) for e in loop] + body[-1:]
    regs = ir_registers(f)
    for cap in (4, 8, 12, 16, 1024):
        hoisted = load_hoisting(f, regs, cap)(entries)
        assert hoisted == _whole_trace_order(f, regs, cap, entries), cap
    assert load_hoisting(f, regs, 1024)(entries) != entries        # something moved


def test_the_idg_by_pc_equals_the_entry_by_entry_walk():
    """Readers marked as answering by pc (``per_pc``) build the IDG on arrays: the same classes,
    dependences, barriers, pcs and fill sources as the walk that asks them per entry, here on the
    loop's hoisted trace with a load waiting for its own pc's and another pc's fills."""
    from pipeperf.idg.build import per_pc

    f, body = _trace()
    loop = [e for e in body if e["pc"] >= 1 and f.instructions[e["pc"]].op.root != "ret"]
    regs = ir_registers(f)
    entries = load_hoisting(f, regs, 8)(body[:1] + [dict(e) for _ in range(4) for e in loop] + body[-1:])
    loads = [x.index for x in f.instructions if x.op.root == "ld"]
    fills = {loads[0]: loads[0], loads[2]: loads[1]}

    def cls(e):
        return "ld_shared" if f.instructions[e["pc"]].op.root == "ld" else f.instructions[e["pc"]].op.root

    walked = warp_idg("k", entries, lambda e: cls(e), lambda e: regs(e), fills)
    by_pc = warp_idg("k", entries, per_pc(lambda e: cls(e)), regs, fills)
    assert walked.classes == by_pc.classes and len(walked.classes) > 3
    for a in ("cls", "dep_ptr", "dep_idx", "barrier", "pcs", "fill"):
        x, y = getattr(walked, a), getattr(by_pc, a)
        assert x is not None and np.array_equal(x, y), a
    assert (walked.fill >= 0).sum() >= 6 and len(walked.dep_idx) > len(entries)
