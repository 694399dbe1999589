"""``--check-ptxas`` (issue 38): ptxas' first error as pipeperf's one-line error, on ptx, profile and
analyze; without ptxas, a warning and pipeperf's own check."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.cli.main import main
from pipeperf.ptx.ptxas_check import first_error

SAXPY = Path(__file__).resolve().parents[1] / "kernels" / "ptx" / "saxpy.sm_80.ptx"


def _bad(tmp_path: Path) -> tuple[Path, int]:
    """saxpy with an undeclared register read on the line after its first ld.param."""
    lines = SAXPY.read_text().split("\n")
    at = next(i for i, ln in enumerate(lines) if "ld.param.u32" in ln) + 1
    lines.insert(at, "\tadd.s32 \t%r1, %r99999, 1;")
    p = tmp_path / "bad.ptx"
    p.write_text("\n".join(lines))
    return p, at + 1


def test_first_error_takes_the_line_and_message():
    out = ("ptxas /tmp/x.ptx, line 29; error   : Arguments mismatch for instruction 'add'\n"
           "ptxas /tmp/x.ptx, line 31; error   : Unknown symbol 'q'\n"
           "ptxas fatal   : Ptx assembly aborted due to errors\n")
    e = first_error(out, "user.ptx")
    assert str(e) == "user.ptx:29: ptxas: Arguments mismatch for instruction 'add'"


def test_first_error_without_a_line():
    out = "ptxas fatal   :  32-Bit compilation is not supported\nptxas fatal   : Ptx assembly aborted due to errors\n"
    assert str(first_error(out, "u.ptx")) == "u.ptx: ptxas: 32-Bit compilation is not supported"


@pytest.mark.requires_nvcc
@pytest.mark.parametrize("command", [
    ["ptx"],
    ["profile", "--grid", "1", "--block", "32"],
    ["analyze", "--grid", "1", "--block", "32", "--gpu", "ampere_a100"],
])
def test_ptxas_error_is_reported(tmp_path, capsys, command):
    p, line = _bad(tmp_path)
    assert main([command[0], str(p), *command[1:], "--check-ptxas"]) == 2
    err = capsys.readouterr().err
    assert err == f"pipeperf: error: {p}:{line}: ptxas: Arguments mismatch for instruction 'add'\n"


@pytest.mark.requires_nvcc
def test_valid_file_passes(capsys):
    assert main(["ptx", str(SAXPY), "--check-ptxas"]) == 0
    assert "kernel saxpy" in capsys.readouterr().out


def test_without_ptxas_warns_and_checks(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PIPEPERF_NO_CUDA", "1")
    p, line = _bad(tmp_path)
    assert main(["ptx", str(p), "--check-ptxas"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "--check-ptxas: no ptxas found" in err[0]
    assert err[-1].startswith(f"pipeperf: error: {p}:{line}:") and "register '%r99999' is not declared" in err[-1]
