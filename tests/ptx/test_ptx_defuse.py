"""Def-use graph from reaching definitions."""

from __future__ import annotations

from pipeperf.ptx import DefUse, parse_ptx

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def du_of(body: str) -> DefUse:
    text = HEAD + (".visible .entry k(.param .u32 k_p)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n"
                   + body + "\n}\n")
    return DefUse.of(parse_ptx(text).function("k"))


def test_loop_carried_and_diamond(branches):
    du = DefUse.of(branches)
    assert du.deps[10] == (5, 7, 9, 10)          # %r5 from init and back edge, %r3 from both arms
    assert du.reaching[10] == {"%r5": (9, 10), "%r3": (5, 7)}
    assert du.deps[19] == (10, 15, 18)           # guard %p3, address %rd2, value %r5
    assert du.deps[18] == (16, 17)
    assert du.deps[1] == ()                      # kernel parameter: from outside
    assert 12 in du.users[11] and 11 in du.users[11]
    assert (16, 18) in du.edges()


def test_guarded_definition_does_not_kill():
    du = du_of("mov.u32 %r1, 1;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 mov.u32 %r1, 2;\n"
               "add.u32 %r3, %r1, 1;\nmov.u32 %r1, 3;\nadd.u32 %r4, %r1, 1;")
    assert du.reaching[3]["%r1"] == (0, 2)
    assert du.reaching[5]["%r1"] == (4,)
    assert du.reaching[2] == {"%p1": (1,)}


def test_scoped_registers_are_distinct():
    du = du_of("{\n.reg .b32 %temp;\nmov.b32 %temp, 1;\n}\n"
               "{\n.reg .b32 %temp;\nadd.s32 %r1, %temp, 1;\n}")
    assert du.reaching[1] == {"%temp@2": ()}    # not the other block's %temp
    assert du.defs[0] == ["%temp@1"]


def test_carry_flag_chain():
    du = du_of("add.cc.u32 %r1, %r2, %r3;\naddc.cc.u32 %r4, %r5, %r6;\naddc.u32 %r7, 0, 0;")
    assert du.reaching[1]["%cc"] == (0,)
    assert du.reaching[2]["%cc"] == (1,)


def test_values_flow_through_call_parameters(features_module):
    f = features_module.function("features")
    du = DefUse.of(f)
    ins = f.instructions
    st = next(i for i in ins if i.opcode == "st.param.b32")
    call = next(i for i in ins if i.root == "call")
    ld = next(i for i in ins if i.opcode == "ld.param.b32" and i.scope)
    assert du.reaching[call.index] == {"param:param0": (st.index,)}
    assert du.reaching[ld.index] == {"param:retval0": (call.index,)}


def test_vector_and_pair_destinations(features_module):
    f = features_module.function("features")
    du = DefUse.of(f)
    ins = f.instructions
    shfl = next(i for i in ins if i.root == "shfl")
    vote = next(i for i in ins if i.root == "vote")
    assert du.defs[shfl.index] == ["%r8", "%p4"]
    assert du.reaching[vote.index]["%p4"] == (shfl.index,)
    tex = next(i for i in ins if i.root == "tex")
    assert set(du.uses[tex.index]) == {"%rd2", "%f1", "%f7"}


def test_wgmma_accumulators_are_read_and_written(fixtures_dir):
    from pipeperf.ptx import parse_file

    f = parse_file(fixtures_dir / "hopper.ptx").function("hopper")
    du = DefUse.of(f)
    wg = next(i for i in f.instructions if i.root == "wgmma.mma_async")
    movs = {i.dsts[0].name: i.index for i in f.instructions
            if i.root == "mov" and i.opcode == "mov.f32"}
    assert du.reaching[wg.index]["%f1"] == (movs["%f1"],)
    assert du.reaching[wg.index]["%f4"] == (movs["%f4"],)
