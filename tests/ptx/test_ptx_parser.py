"""Parser: every syntactic form lands in the typed IR with the right fields."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.ptx import (
    Address,
    HandleRef,
    Immediate,
    Label,
    NotPred,
    ParamList,
    Register,
    Sink,
    SpecialRegister,
    Symbol,
    Vector,
    parse_file,
    parse_ptx,
)
from pipeperf.ptx.ir import BranchTargets, LabelDef, Loc, Pragma, ScopeBegin, ScopeEnd
from pipeperf.ptx.operands import BadOperand, parse_immediate, parse_operand

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def kernel(body: str, regs: str = ".reg .b32 %r<10>;\n.reg .pred %p<4>;\n.reg .b64 %rd<4>;", check: bool = True):
    text = HEAD + ".visible .entry k(.param .u64 k_p)\n{\n" + regs + "\n" + body + "\n}\n"
    return parse_ptx(text, "t.ptx", check=check).function("k")


def ins_by_opcode(func, opcode):
    return [i for i in func.instructions if i.opcode == opcode]


def test_module_directives(features_module):
    m = features_module
    assert (m.version, m.target, m.address_size) == ("8.0", ("sm_80",), 64)
    assert m.files == {1: "features.cu"}
    assert [s.name for s in m.items if type(s).__name__ == "Section"] == [".debug_str"]
    assert [f.name for f in m.functions] == ["twice", "features"]
    assert [k.name for k in m.kernels] == ["features"]


def test_globals_with_initialisers(features_module):
    g = {v.name: v for v in features_module.globals}
    assert g["table"].space == "const" and g["table"].size_bytes == 8
    assert g["table"].init_bytes() == bytes([0, 0, 128, 63, 1, 2, 3, 4])
    assert g["ptrs"].init_values[0] == "generic(table)"
    assert g["ptrs"].size_bytes == 16
    assert g["scale"].init_values[0].value == pytest.approx(3.14159265)
    assert g["quad"].vector == "v4" and g["quad"].size_bytes == 16
    assert g["quad"].linkage == ("visible",)
    assert g["dyn"].dims == (None,) and g["dyn"].size_bytes == 0
    assert g["dyn"].linkage == ("extern",) and g["dyn"].align == 16


def test_params_and_performance_directives(features_module):
    f = features_module.function("features")
    p0, p1, p2 = f.params
    assert (p0.type, p0.ptr, p0.ptr_space, p0.ptr_align) == ("u64", True, "global", 8)
    assert (p1.type, p1.align, p1.dims, p1.size_bytes) == ("b8", 8, (16,), 16)
    assert p2.type == "u64" and not p2.ptr
    assert f.directives == [("maxntid", "128, 1, 1"), ("minnctapersm", "2")]
    twice = features_module.function("twice")
    assert [r.name for r in twice.returns] == ["func_retval0"]
    assert twice.kind == "func" and not twice.is_kernel


def test_register_declarations(features_module):
    f = features_module.function("features")
    decl = {d.names[0]: d for d in f.reg_decls}
    assert decl["%r"].count == 24 and decl["%r"].type == "b32"
    assert f.register_type("%r23") == "b32"
    assert f.register_type("%fd2") == "f64"
    assert f.register_type("%r24") is None
    assert decl["lo"].names == ("lo", "hi") and decl["lo"].count is None
    assert decl["lo"].scope == 2 and decl["%temp"].scope == 1
    local = [v for v in f.variables if v.space == "local"]
    assert local[0].name == "__local_depot1" and local[0].size_bytes == 16


def test_operand_forms(features_module):
    f = features_module.function("features")
    ld4 = ins_by_opcode(f, "ld.global.nc.v4.f32")[0]
    assert ld4.dsts == (Vector(tuple(Register(f"%f{i}") for i in range(2, 6))),)
    assert ld4.srcs == (Address(Register("%rd4"), 16),)
    assert ins_by_opcode(f, "ld.local.v2.f32")[0].dsts[0].items[1] == Sink()
    assert ins_by_opcode(f, "ld.global.u64")[0].srcs == (Address(Symbol("ptrs"), 8),)
    movs = {i.dsts[0].name: i.srcs[0] for i in f.instructions
            if i.root == "mov" and type(i.dsts[0]) is Register}
    assert movs["%r3"] == SpecialRegister("%tid.x")
    assert movs["%r4"] == SpecialRegister("%laneid")
    assert movs["%rd3"] == SpecialRegister("%globaltimer")
    assert movs["%f1"] == Immediate(1.0, "0f3F800000")
    assert movs["%fd1"] == Immediate(1.0, "0d3FF0000000000000")
    assert movs["%r5"].value == 0xFFFFFFFF
    assert movs["%SPL"] == Symbol("__local_depot1")
    add = ins_by_opcode(f, "add.s32")[0]
    assert add.srcs[1] == Immediate(-16, "-16")
    setp = ins_by_opcode(f, "setp.gt.or.s32")[0]
    assert setp.dsts == (Register("%p2"), Register("%p3"))
    assert setp.srcs[-1] == NotPred(Register("%p1"))
    shfl = ins_by_opcode(f, "shfl.sync.bfly.b32")[0]
    assert shfl.dsts == (Register("%r8"), Register("%p4")) and shfl.srcs[-1].value == -1
    tex = ins_by_opcode(f, "tex.2d.v4.f32.f32")[0]
    assert tex.srcs == (HandleRef((Register("%rd2"), Vector((Register("%f1"), Register("%f7"))))),)


def test_stores_and_atomics_have_no_destination_register(features_module):
    f = features_module.function("features")
    st = ins_by_opcode(f, "st.local.v2.f32")[0]
    assert st.dsts == () and st.srcs[0] == Address(Register("%SPL"), 8)
    red = ins_by_opcode(f, "red.global.add.f32")[0]
    assert red.dsts == () and red.category == "atom.global"
    atom = ins_by_opcode(f, "atom.global.add.u32")[0]
    assert atom.dsts == (Register("%r12"),)
    bar = ins_by_opcode(f, "bar.sync")[0]
    assert bar.dsts == () and bar.srcs == (Immediate(0, "0"),)


def test_call_sequence_spanning_lines(features_module):
    f = features_module.function("features")
    call = ins_by_opcode(f, "call.uni")[0]
    assert call.dsts == (ParamList((Symbol("retval0"),)),)
    assert call.srcs == (Symbol("twice"), ParamList((Symbol("param0"),)))
    params = [v for v in f.variables if v.space == "param"]
    assert [p.name for p in params] == ["param0", "retval0"]
    assert all(p.scope == call.scope for p in params) and call.scope > 0


def test_brx_idx_table(features_module):
    f = features_module.function("features")
    brx = ins_by_opcode(f, "brx.idx")[0]
    assert brx.srcs == (Register("%r15"), Label("$L_tbl"))
    assert f.branch_tables == {"$L_tbl": ("$L_a", "$L_b", "$L_a")}
    assert "$L_tbl" not in f.labels
    assert any(type(b) is BranchTargets for b in f.body)
    assert f.labels["$L_a"] == brx.index + 1


def test_scopes_pragmas_and_bare_registers(features_module):
    f = features_module.function("features")
    kinds = [type(b) for b in f.body]
    assert kinds.count(ScopeBegin) == kinds.count(ScopeEnd) == 3
    assert Pragma("nounroll") in f.body
    unpack = next(i for i in f.instructions if i.root == "mov" and i.scope == 2)
    assert unpack.dsts == (Vector((Register("lo"), Register("hi"))),)
    assert [s.parent for s in f.scopes] == [-1, 0, 0, 0]


def test_loc_and_line_numbers(features_module, fixtures_dir):
    f = features_module.function("features")
    lines = (fixtures_dir / "features.ptx").read_text().splitlines()
    for ins in f.instructions:
        assert lines[ins.line - 1].strip().startswith((ins.opcode, "@")), ins
    assert f.instructions[0].loc == Loc(1, 10, 0)
    call = ins_by_opcode(f, "call.uni")[0]
    assert call.loc == Loc(1, 20, 3, "$L__info_string0", (1, 12, 5))
    assert lines[call.line - 1].strip().startswith("call.uni")


def test_indices_and_labels(branches):
    assert [i.index for i in branches.instructions] == list(range(21))
    assert branches.labels == {"$L_then": 7, "$L_join": 8, "$L_loop": 10}
    assert [b.name for b in branches.body if type(b) is LabelDef] == ["$L_then", "$L_join",
                                                                     "$L_loop"]


def test_guards():
    f = kernel("@%p1 add.s32 %r1, %r2, 1;\n@!%p2 bra $L;\n$L:\nret;")
    a, b, _ = f.instructions
    assert (a.guard, a.guard_neg) == (Register("%p1"), False)
    assert (b.guard, b.guard_neg) == (Register("%p2"), True)
    assert b.srcs == (Label("$L"),)


def test_statements_not_lines():
    f = kernel("mov.u32 %r1, 1; mov.u32 %r2,\n   2;\n add.s32 %r3,\n %r1, %r2;")
    assert [i.opcode for i in f.instructions] == ["mov.u32", "mov.u32", "add.s32"]
    assert [i.line for i in f.instructions] == [9, 9, 11]  # body starts on line 9


def test_comments_are_ignored_but_keep_lines():
    f = kernel("/* a\n b */ mov.u32 %r1, 1; // trailing ; comment\n// add.s32 %r1;\nret;")
    assert [(i.opcode, i.line) for i in f.instructions] == [("mov.u32", 10), ("ret", 12)]


def test_cvt_has_two_types_and_modifiers_are_ordered():
    f = kernel("cvt.rn.f32.s32 %r1, %r2;\nld.global.nc.L1::no_allocate.v2.u32 {%r3, %r4}, [%rd1];")
    cvt, ld = f.instructions
    assert cvt.root == "cvt" and cvt.modifiers == ("rn", "f32", "s32")
    assert cvt.types == ("f32", "s32") and cvt.type == "f32"
    assert ld.root == "ld" and ld.space == "global"
    assert ld.modifiers == ("global", "nc", "L1::no_allocate", "v2", "u32")


def test_opinfo_is_shared_between_instructions():
    f = kernel("add.s32 %r1, %r2, 1;\nadd.s32 %r3, %r1, 1;")
    a, b = f.instructions
    assert a.op is b.op


@pytest.mark.parametrize("text, value", [
    ("0f3F800000", 1.0), ("0fBF800000", -1.0), ("0d4000000000000000", 2.0),
    ("-7", -7), ("0x10", 16), ("0b101", 5), ("017", 15), ("42U", 42), ("1.5", 1.5),
])
def test_immediates(text, value):
    imm = parse_immediate(text)
    assert imm is not None and imm.value == value and imm.text == text
    assert isinstance(imm.value, float) == isinstance(value, float)


@pytest.mark.parametrize("text, expected", [
    ("[%rd1]", Address(Register("%rd1"), 0)),
    ("[%rd1+-4]", Address(Register("%rd1"), -4)),
    ("[%rd1-4]", Address(Register("%rd1"), -4)),
    ("[%rd1+0x10]", Address(Register("%rd1"), 16)),
    ("[sym+8]", Address(Symbol("sym"), 8)),
    ("[param0+0]", Address(Symbol("param0"), 0)),
    ("[256]", Address(None, 256)),
    ("%ctaid.y", SpecialRegister("%ctaid.y")),
    ("WARP_SZ", SpecialRegister("WARP_SZ")),     # predefined run-time constant (warpSize), not a symbol
    ("%r12", Register("%r12")),
    ("$L__BB0_2", Symbol("$L__BB0_2")),
    ("_", Sink()),
    ("!%p3", NotPred(Register("%p3"))),
    ("{%r1, 0, _}", Vector((Register("%r1"), Immediate(0, "0"), Sink()))),
])
def test_operand_parsing(text, expected):
    assert parse_operand(text) == expected


@pytest.mark.parametrize("text", ["#3", "[%rd1+]", "[%rd1*4]", "{}", "%", "!5", "[%tid.x]",
                                  "1.2.3", "%r1 %r2"])
def test_bad_operands(text):
    with pytest.raises(BadOperand):
        parse_operand(text)


def test_bare_register_scope_does_not_leak():
    # 'lo' is a register inside the block and a (function) symbol outside it (an undeclared one:
    # the parser's view, before the check refuses it)
    f = kernel("{ .reg .b16 lo;\nmov.b16 lo, 1;\n}\nmov.u64 %rd1, lo;", check=False)
    inner, outer = f.instructions
    assert inner.dsts == (Register("lo"),)
    assert outer.srcs == (Symbol("lo"),)


def test_unknown_opcode_names_it():
    with pytest.raises(PipeperfError) as e:
        kernel("frobnicate.s32 %r1, %r2;")
    assert "frobnicate.s32" in str(e.value) and e.value.line == 9


def test_duplicate_label():
    with pytest.raises(PipeperfError, match="defined twice"):
        kernel("$L:\nret;\n$L:\nret;")


def test_missing_version_and_target():
    with pytest.raises(PipeperfError, match="version"):
        parse_ptx(".target sm_80\n.entry k()\n{\nret;\n}\n")
    with pytest.raises(PipeperfError, match="target"):
        parse_ptx(".version 8.0\n.entry k()\n{\nret;\n}\n")


def test_function_declaration_without_body():
    m = parse_ptx(HEAD + ".extern .func (.param .b32 r) vprintf\n(\n.param .b64 a,\n"
                  ".param .b64 b\n)\n;\n")
    f = m.functions[0]
    assert not f.has_body and f.linkage == ("extern",) and len(f.params) == 2
    assert m.kernels == []


def test_hopper_forms(fixtures_dir):
    m = parse_file(fixtures_dir / "hopper.ptx")
    f = m.function("hopper")
    assert m.target == ("sm_90a",)
    assert f.directives == [("explicitcluster", ""), ("reqnctapercluster", "2, 1, 1")]
    by_root = {i.root: i for i in f.instructions}
    arrive = by_root["mbarrier.arrive"]
    assert arrive.dsts == (Sink(),) and arrive.modifiers == ("expect_tx", "shared::cta", "b64")
    tma = by_root["cp.async.bulk.tensor"]
    assert tma.dsts == () and tma.category == "cp.async"
    assert tma.srcs[1] == HandleRef((Register("%rd1"),
                                     Vector((Register("%r1"), Register("%r2")))))
    wg = by_root["wgmma.mma_async"]
    assert len(wg.dsts[0].items) == 4 and wg.category == "tensor"
    assert by_root["elect"].dsts == (Register("%r7"), Register("%p3"))
    assert f.instructions[0].srcs == (Symbol("hopper_param_0"),)
    assert by_root["ld"].space == "param"
    assert SpecialRegister("%cluster_ctarank") in [i.srcs[0] for i in f.instructions
                                                   if i.root == "mov"]
