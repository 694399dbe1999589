"""Malformed PTX: one line ``pipeperf: error: FILE:LINE: ...`` on stderr, exit 2, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeperf.cli.main import main

SRC = Path(__file__).resolve().parents[2] / "src"


def _variant(fixtures_dir: Path, tmp_path: Path, old: str, new: str) -> Path:
    text = (fixtures_dir / "branches.ptx").read_text()
    assert old in text
    p = tmp_path / "bad.ptx"
    p.write_text(text.replace(old, new, 1))
    return p


def _run(capsys, path: Path) -> str:
    rc = main(["ptx", str(path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"pipeperf: error: {path}:")
    return err


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


def test_truncated_mid_instruction(fixtures_dir, tmp_path, capsys):
    text = (fixtures_dir / "branches.ptx").read_text()
    cut = text.index("mov.u32 \t%r5, 0;") + len("mov.u32 \t%r5, 0")
    p = tmp_path / "trunc.ptx"
    p.write_text(text[:cut])
    err = _run(capsys, p)
    line = _line_of(p, "%r5, 0")
    assert f":{line}: expected ';' after instruction 'mov.u32 %r5, 0'" in err


def test_truncated_function(fixtures_dir, tmp_path, capsys):
    text = (fixtures_dir / "branches.ptx").read_text()
    p = tmp_path / "trunc.ptx"
    p.write_text(text[:text.index("$L_loop:")])
    err = _run(capsys, p)
    assert "expected '}' to close function 'branches' opened at line" in err


def test_unknown_directive(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, ".address_size 64", ".address_size 64\n.frobnicate 3;")
    err = _run(capsys, p)
    assert f":{_line_of(p, '.frobnicate')}: unknown directive '.frobnicate'" in err


def test_bad_operand(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, "add.s32 \t%r3, %r2, 7;", "add.s32 \t%r3, %r2, #7;")
    err = _run(capsys, p)
    assert f":{_line_of(p, '#7')}: bad operand '#7'" in err


def test_bad_address(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, "[%rd2]", "[%rd2+]")
    err = _run(capsys, p)
    assert "bad operand '[%rd2+]'" in err


def test_unknown_opcode_is_named(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, "mul.lo.s32", "mulx.lo.s32")
    err = _run(capsys, p)
    assert f":{_line_of(p, 'mulx')}: unknown PTX opcode 'mulx.lo.s32'" in err


def test_missing_semicolon_after_directive(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, ".reg .b32 \t%r<10>;", ".reg .b32 \t%r<10>")
    err = _run(capsys, p)
    assert f":{_line_of(p, '%r<10>')}: expected ';' after '.reg' directive" in err


def test_missing_semicolon_between_instructions(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, "and.b32 \t%r6, %r5, 1;", "and.b32 \t%r6, %r5, 1")
    err = _run(capsys, p)
    assert f":{_line_of(p, 'and.b32')}: expected ';' after instruction" in err


def test_undefined_label(fixtures_dir, tmp_path, capsys):
    p = _variant(fixtures_dir, tmp_path, "bra.uni \t$L_join", "bra.uni \t$L_nowhere")
    err = _run(capsys, p)
    assert "branch to undefined label '$L_nowhere'" in err


def test_missing_file(tmp_path, capsys):
    rc = main(["ptx", str(tmp_path / "nope.ptx")])
    assert rc == 2 and "no such file" in capsys.readouterr().err


def test_real_process_prints_no_traceback(fixtures_dir, tmp_path):
    p = _variant(fixtures_dir, tmp_path, "mul.lo.s32", "mulx.lo.s32")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    r = subprocess.run([sys.executable, "-m", "pipeperf.cli.main", "ptx", str(p)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"pipeperf: error: {p}:{_line_of(p, 'mulx')}: unknown PTX opcode 'mulx.lo.s32'"]


@pytest.mark.parametrize("snippet, message", [
    ("ret;\n}\n}", "unexpected '}' outside a function"),
    ("@%tid.x bra $L;", "bad guard predicate"),
    ("bra.uni;", "branch without a target"),
    ("ld.global.u32 %r1, [%rd1];\n$X: .branchtargets $Y;", "undefined label '$Y'"),
])
def test_more_malformed_bodies(tmp_path, capsys, snippet, message):
    p = tmp_path / "m.ptx"
    p.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n"
                 ".reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n" + snippet + "\n}\n")
    err = _run(capsys, p)
    assert message in err
