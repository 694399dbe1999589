"""A command imports its own module only; the top-level help still lists every command."""

import os
import subprocess
import sys
from pathlib import Path

import pipeperf
from pipeperf.cli.main import COMMANDS, _command_of

_ENV = {**os.environ, "PYTHONPATH": str(Path(pipeperf.__file__).parents[1])}


def _modules_after(argv):
    code = ("import sys; from pipeperf.cli.main import build_parser; build_parser(%r); "
            "print(sorted(m for m in sys.modules if m.startswith('pipeperf.cli.')))" % (argv,))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_ENV).stdout


def test_a_command_imports_only_its_module():
    out = _modules_after(["ptx", "x.ptx"])
    assert "pipeperf.cli.ptx" in out and "pipeperf.cli.models" not in out and "pipeperf.cli.simulate" not in out


def test_help_and_unknown_words_build_the_whole_parser():
    assert _command_of(["--help"]) is None and _command_of(["-h", "simulate"]) is None
    assert _command_of(["bogus"]) is None and _command_of([]) is None
    assert _command_of(["simulate", "--help"]) == "simulate"
    out = subprocess.run([sys.executable, "-m", "pipeperf", "--help"], capture_output=True, text=True, env=_ENV).stdout
    assert all(name in out for name in COMMANDS)
