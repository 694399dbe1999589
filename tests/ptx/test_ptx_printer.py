"""Printer: parse -> print -> parse gives the same IR, and ptxas accepts the output."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeperf.ptx import format_instruction, parse_file, parse_ptx, print_module
from pipeperf.ptx.toolkit import find_tool  # the ptxas pipeperf runs: on PATH or not

FIXTURE_NAMES = ["branches.ptx", "memslice.ptx", "features.ptx", "hopper.ptx"]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_round_trip_fixtures(fixtures_dir, name):
    m = parse_file(fixtures_dir / name)
    text = print_module(m)
    m2 = parse_ptx(text, "printed.ptx")
    assert m2 == m
    assert print_module(m2) == text              # printing is a fixed point


def test_equality_ignores_line_numbers_only(fixtures_dir):
    m = parse_file(fixtures_dir / "branches.ptx")
    m2 = parse_ptx(print_module(m))
    f, f2 = m.function("branches"), m2.function("branches")
    assert [i.line for i in f.instructions] != [i.line for i in f2.instructions]
    assert f2 == f
    f2.instructions[3].guard_neg = not f2.instructions[3].guard_neg
    assert f2 != f


def test_format_instruction(features_module):
    f = features_module.function("features")
    text = {i.root: format_instruction(i) for i in f.instructions}
    assert text["shfl"] == "shfl.sync.bfly.b32 \t%r8|%p4, %r7, 1, 31, -1;"
    assert text["tex"] == "tex.2d.v4.f32.f32 \t{%f2, %f3, %f4, %f5}, [%rd2, {%f1, %f7}];"
    assert text["call"] == "call.uni \t(retval0), twice, (param0);"
    assert text["ret"] == "ret;"
    assert str(f.instructions[-1]) == "ret;"


@pytest.mark.requires_nvcc
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_printed_fixture_assembles(fixtures_dir, tmp_path, name):
    m = parse_file(fixtures_dir / name)
    out = tmp_path / name
    out.write_text(print_module(m))
    r = subprocess.run([find_tool("ptxas"), f"-arch={m.arch}", str(out), "-o", str(tmp_path / "x.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------- property test
REG = st.integers(0, 9).map(lambda i: f"%r{i}")
PRED = st.integers(0, 3).map(lambda i: f"%p{i}")
INT_IMM = st.one_of(st.integers(-2**31, 2**31 - 1).map(str), st.integers(0, 2**32 - 1).map(lambda v: f"0x{v:X}"))
IMM = st.one_of(INT_IMM, st.integers(0, 2**32 - 1).map(lambda v: f"0f{v:08X}"))   # 0f...: bit types only
OFF = st.integers(-64, 64)


def _addr(base: str, off: int) -> str:
    return f"[{base}+{off}]" if off else f"[{base}]"


INSTR = st.one_of(
    st.tuples(REG, REG, st.one_of(REG, INT_IMM)).map(lambda t: "add.s32 {}, {}, {};".format(*t)),
    st.tuples(REG, IMM).map(lambda t: "mov.b32 {}, {};".format(*t)),
    st.tuples(REG, REG, st.sampled_from(["%rd1", "%rd2", "buf"]), OFF).map(
        lambda t: f"ld.{'shared' if t[2] == 'buf' else 'global'}.v2.u32 {{{t[0]}, {t[1]}}}, {_addr(t[2], t[3])};"),
    st.tuples(OFF, REG).map(lambda t: f"st.shared.u32 {_addr('buf', t[0])}, {t[1]};"),
    st.tuples(PRED, PRED, REG, REG, PRED, st.booleans()).map(
        lambda t: "setp.lt.and.s32 {}|{}, {}, {}, {}{};".format(*t[:4], "!" if t[5] else "",
                                                                 t[4])),
    st.tuples(REG, REG, REG, PRED).map(lambda t: "selp.b32 {}, {}, {}, {};".format(*t)),
    st.tuples(REG, REG).map(lambda t: "shfl.sync.idx.b32 {}, {}, 0, 31, -1;".format(*t)),
    st.just("bar.sync 0;"),
)
GUARD = st.one_of(st.just(""), PRED.map(lambda p: f"@{p} "), PRED.map(lambda p: f"@!{p} "))


@st.composite
def kernels(draw):
    n = draw(st.integers(1, 25))
    lines = []
    labels = 0
    for _ in range(n):
        if draw(st.integers(0, 6)) == 0:
            lines.append(f"$L{labels}:")
            labels += 1
        lines.append(draw(GUARD) + draw(INSTR))
    if labels and draw(st.booleans()):
        lines.append(draw(GUARD) + f"bra.uni $L{draw(st.integers(0, labels - 1))};")
    lines.append("ret;")
    sep = draw(st.sampled_from(["\n", "\n\t", " "]))
    return (".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry k(.param .u64 k_p)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<10>;\n"
            ".reg .b64 %rd<3>;\n.shared .align 4 .b8 buf[256];\n"
            + sep.join(lines) + "\n}\n")


@settings(max_examples=40, deadline=None)
@given(kernels())
def test_round_trip_random_kernels(text):
    m = parse_ptx(text)
    printed = print_module(m)
    m2 = parse_ptx(printed)
    assert m2 == m
    assert len(m2.function("k").instructions) == text.count(";") - 4
