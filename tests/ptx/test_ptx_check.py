"""The PTX check (issue 38): what ptxas refuses is refused in one line ``FILE:LINE:COLUMN: ...``,
and what nvcc emits is never refused (the whole real corpus)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeperf.cli.main import main
from pipeperf.errors import PipeperfError
from pipeperf.ptx import parse_ptx
from pipeperf.ptx.forms import FORMS
from pipeperf.ptx.opcodes import KNOWN, TYPES

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
REGS = (".reg .pred %p<4>;\n.reg .b16 %rs<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n"
        ".reg .f64 %fd<4>;\n")


def kernel_text(body: str, params: str = ".param .u64 k_p0, .param .u32 k_p1") -> str:
    """A kernel whose body starts on line 11 (after the registers of REGS)."""
    return HEAD + f".visible .entry k({params})\n{{\n" + REGS + body + "\nret;\n}\n"


def refusal(body: str, **kw) -> PipeperfError:
    with pytest.raises(PipeperfError) as e:
        parse_ptx(kernel_text(body, **kw), "k.ptx")
    return e.value


def accepts(body: str, **kw) -> None:
    parse_ptx(kernel_text(body, **kw), "k.ptx")


# ---------------------------------------------------------------- the cases of the issue
CASES = [  # (body line, expected error text, 1-based column of the culprit)
    ("add.s32 %r1, %r99999, 1;", "k.ptx:12:14: register '%r99999' is not declared", 14),
    ("add.f32 %fd1, %f2, %f3;", "k.ptx:12:9: .f64 register '%fd1' as destination 1 of 'add.f32': "
                                "expected a .b32 or .f32 register", 9),
    ("st.global.pred [%rd1], %p1;", "k.ptx:12:10: 'st.global.pred': type '.pred' is not allowed: expected", 10),
    ("add.s32 7, %r1, %r2;", "k.ptx:12:9: constant '7' as the destination of 'add.s32': expected a register", 9),
    ("shl.f64 %fd1, %fd2, 3;", "k.ptx:12:4: 'shl.f64': type '.f64' is not allowed: expected .b16, .b32, .b64", 4),
    ("$L1:\nadd.s32 %r1, %r1, 1;\n$L1:", "k.ptx:14:1: label '$L1' defined twice: expected a new name "
                                           "(first defined at line 12)", 1),
]


@pytest.mark.parametrize("body, message, column", CASES, ids=[c[0].split()[0] for c in CASES])
def test_issue_cases_are_one_line_with_column(body, message, column):
    e = refusal(body)
    assert str(e).startswith(message), str(e)
    assert "\n" not in str(e) and e.column == column


@pytest.mark.parametrize("body, message, column", CASES, ids=[c[0].split()[0] for c in CASES])
def test_cli_refuses_them_with_exit_2(tmp_path, capsys, body, message, column):
    p = tmp_path / "k.ptx"
    p.write_text(kernel_text(body))
    assert main(["ptx", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"pipeperf: error: {p}:") and message.split(":", 3)[3].strip() in err


def test_real_process_prints_one_line(tmp_path):
    p = tmp_path / "k.ptx"
    p.write_text(kernel_text("mov.u32 %r1, %r99999;"))
    env = dict(os.environ, PYTHONPATH=str(SRC))
    r = subprocess.run([sys.executable, "-m", "pipeperf.cli.main", "ptx", str(p)], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"pipeperf: error: {p}:12:14: register '%r99999' is not declared: expected a register declared by .reg "
        "before this use"]


# ---------------------------------------------------------------- more refusals (each checked against ptxas 13)
@pytest.mark.parametrize("body, needle", [
    ("add.s32 %r1, %f2, %r3;", ".f32 register '%f2' as operand 2"),
    ("add.s32 %rd1, %r2, %r3;", ".b64 register '%rd1'"),
    ("add.f32 %f1, %f2, 1;", "integer constant '1'"),
    ("add.s32 %r1, %r2, 0f3F800000;", "floating-point constant"),
    ("selp.b32 %r1, 1.5, 0, %p1;", "floating-point constant '1.5'"),
    ("shl.b32 %r1, %r2, %rd3;", "'%rd3' as operand 3"),
    ("st.global.u32 [%rd1], %rs1;", ".b16 register '%rs1'"),
    ("ld.global.f32 %fd1, [%rd1];", ".f64 register '%fd1'"),
    ("ld.global.u32 %r1, [%r2];", "32-bit register '%r2' as a global address"),
    ("ld.global.u32 %r1, [%f1];", "as an address"),
    ("ld.shared.u32 %r1, [k_p0];", "expected ld.param"),
    ("st.param.u32 [k_p1], %r1;", "writes input parameter 'k_p1'"),
    ("ld.global.u32 %r1, [nowhere];", "unknown symbol 'nowhere'"),
    ("ld.global.v2.u32 {%r1, %r2, %r3}, [%rd1];", "expected 2 items"),
    ("ld.global.nc.volatile.u32 %r1, [%rd1];", "'.volatile' cannot be combined"),
    ("ld.shared.nc.u32 %r1, [%r1];", "'.nc' needs the .global state space"),
    ("ld.relaxed.global.u32 %r1, [%rd1];", "needs a scope"),
    ("ld.global.shared.u32 %r1, [%rd1];", "two state spaces"),
    ("add.rn.s32 %r1, %r2, %r3;", "modifier '.rn' is not allowed for 'add'"),
    ("mul.s32 %r1, %r2, %r3;", "type '.s32' is not allowed"),
    ("mul.wide.wide.s32 %rd1, %r1, 8;", "written twice"),
    ("fma.f32 %f1, %f2, %f3, %f1;", "needs one of .rm, .rn, .rp, .rz"),
    ("cvt.f32.s32 %f1, %r1;", "needs a rounding modifier"),
    ("cvt.rn.f64.f32 %fd1, %f1;", "rounding '.rn' is not allowed"),
    ("cvt.rn.f16.f32 %rs1, %f1, %f1;", "takes 2 operands, got 3"),
    ("setp.lt.b32 %p1, %r2, %r3;", "comparison '.lt' does not apply to '.b32'"),
    ("setp.lt.and.s32 %p1, %r1, %r2;", "needs a predicate operand c"),
    ("setp.lt.s32 %r1, %r1, %r2;", ".b32 register '%r1' as destination 1"),
    ("mov.u32 %r1, %clock64;", "special register '%clock64'"),
    ("add.s32 %r1, %r2, %tid.x;", "only mov and cvt read special registers"),
    ("mov.b64 {%rs1, %rs2}, %rd1;", "holds 32 bits"),
    ("mov.f32 %f1, k_p1;", "address of 'k_p1'"),
    ("@%r1 bra $Lx;\n$Lx:", "guard '%r1' is a .b32 register"),
    ("bar.sync 16;", "barrier 16"),
    ("add.u16x2 %r1, %r2, %r3;", "needs .target sm_90"),
    ("fma.rn.f16x2 %f1, %f2, %f3, %f1;", ".f32 register '%f1'"),
    (".reg .b32 %r<3>;", "declared twice"),
    (".reg .b32 %q1;\n.reg .b32 %q<3>;", "declared twice"),
    (".shared .b32 k_p0;", "declared twice"),
    ("{ .reg .b32 %t; }\nadd.s32 %t, %r1, 1;", "register '%t' is not declared"),
    ("add.s32 %x1, %r1, 1;\n.reg .b32 %x<3>;", "register '%x1' is not declared"),
    ("add.s32 %r8, %r1, 1;", "register '%r8' is not declared"),
    ("add.s32 %r1, %r2, 99999999999999999999;", "does not fit in 64 bits"),
    (".local .b8 buf[2] = {1, 300};", "initial value 300 of 'buf' does not fit its type .b8"),
])
def test_refusals(body, needle):
    assert needle in str(refusal(body))


# ---------------------------------------------------------------- what ptxas takes is taken
@pytest.mark.parametrize("body", [
    "add.f32 %f1, %f2, %r3;",                   # a bit register fits any type of its size
    "add.f32 %f1, %f2, 1.0;",
    "add.f64 %fd1, %fd2, 0f3F800000;",
    "mov.b32 %r1, 0f3F800000;",
    "and.b32 %r1, %r2, 0f3F800000;",
    "st.global.u8 [%rd1], %rd1;",               # relaxed: wider registers for ld/st/cvt
    "st.global.b8 [%rd1], %f1;",
    "ld.global.u16 %r1, [%rd1];",
    "ld.global.b16 %f1, [%rd1];",
    "cvt.rn.f32.s32 %f1, %rd1;",
    "cvt.f32.f16 %f1, %r1;",
    "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
    "ld.shared.u32 %r1, [%r2];",
    "ld.global.u32 %r1, [%rs1];",
    "add.s32 %r01, %r1, %r2;",                  # ptxas reads %r01 as %r1
    "mov.u16 %rs1, %ctaid.x;",
    "mov.u64 %rd1, %clock64;",
    "cvt.u64.u32 %rd1, %tid.x;",
    "mov.u32 %r1, k;",                          # a function's address
    "add.u64 %rd1, %rd2, k;",
    "mov.u64 %rd1, k_p0;",
    "mov.b64 %rd1, {%r1, %r2};",
    "mov.b32 {%rs1, _}, %r1;",
    "mov.b64 %rd1, {%r1, 1};",
    "setp.lt.s32 %p1|%p2, %r1, %r2;",
    "setp.lt.and.s32 %p1, %r1, %r2, !%p3;",
    "setp.lt.s32 _, %r1, %r2;",
    "selp.b32 %r1, 1, 0, !%p1;",
    "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;",
    "vote.sync.ballot.b32 %r1, %p2, -1;",
    "ld.global.v2.u32 {%r1, _}, [%rd1];",
    "st.global.v2.u32 [%rd1], {%r1, 3};",
    "ld.param.u32 %r1, [k_p0+4];",
    "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
    "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
    "atom.shared.add.u32 %r1, [%r1], %r2;",
    "{ .reg .b32 %r<3>;\nadd.s32 %r1, %r1, %r2; }",   # shadowing in a nested scope
    "{ .reg .b32 %t; }\n{ .reg .b32 %t;\nadd.s32 %t, %t, 1; }",
    ".reg .f32 %r9;\nmov.f32 %r9, 0f00000000;",  # beside %r<8>, not in it
    # no row for wmma: only its registers are checked
    "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0}, [%rd1], %r1;",
])
def test_valid_ptx_is_taken(body):
    accepts(body)


@pytest.mark.parametrize("head, message", [
    (".target sm_80\n.version 8.0\n", ".target must follow .version"),
    (".version 8.0\n.global .u32 g;\n.target sm_80\n", ".target must follow .version"),
    (".version 8.0\n.target sm_80\n.version 8.0\n", ".version must be the first directive"),
    (".version 8.0\n.target sm_80\n.address_size 48\n", "expected 32 or 64 after .address_size"),
])
def test_header_directives_come_first_in_order(head, message):
    with pytest.raises(PipeperfError, match=message):
        parse_ptx(head + ".entry k()\n{\nret;\n}\n", "k.ptx")


def test_section_label_defined_twice_names_the_second_line():
    text = kernel_text("") + ".section .debug_str\n{\n$L__s0:\n.b8 65\n$L__s0:\n.b8 66\n}\n"
    with pytest.raises(PipeperfError) as e:
        parse_ptx(text, "k.ptx")
    assert e.value.line == text.split("\n").index("$L__s0:", text.split("\n").index("$L__s0:") + 1) + 1


# ---------------------------------------------------------------- the table
def test_every_row_names_known_roots_and_types():
    for root, rows in FORMS.items():
        assert root in KNOWN, root
        for r in rows:
            for types in r.types or ():
                assert types <= TYPES, (root, types - TYPES)


def _real_ptx() -> list[tuple[str, str]]:
    """Every real PTX text the project holds: the corpus, the hand-written fixtures and the stored
    nvcc compiles (tests/fixtures/compiled)."""
    out = [(str(p), p.read_text()) for p in sorted((ROOT / "tests" / "kernels" / "ptx").glob("*.ptx"))]
    out += [(str(p), p.read_text()) for p in sorted((ROOT / "tests" / "ptx" / "fixtures").glob("*.ptx"))]
    for p in sorted((ROOT / "tests" / "fixtures" / "compiled" / "ptx").glob("*.json")):
        out.append((str(p), json.loads(p.read_text())["payload"]["ptx"]))
    return out


def test_whole_real_corpus_is_accepted():
    """ptxas assembles every one of these (test_corpus_ptxas, test_printed_corpus_assembles, the
    compile store's recording): the check must take them all."""
    texts = _real_ptx()
    assert len(texts) >= 260
    refused = []
    for name, text in texts:
        try:
            parse_ptx(text, name)
        except PipeperfError as e:
            refused.append(str(e))
    assert not refused, refused[:5]
