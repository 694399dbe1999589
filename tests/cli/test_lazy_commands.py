"""A command imports its own module only; the top-level help still lists every command."""

import os
import subprocess
import sys
from pathlib import Path

import pipeperf
from pipeperf.cli.main import COMMANDS, _command_of

_ENV = {**os.environ, "PYTHONPATH": str(Path(pipeperf.__file__).parents[1])}


def _modules_after(argv):
    code = (f"import sys; from pipeperf.cli.main import build_parser; build_parser({argv!r}); "
            "print(sorted(m for m in sys.modules if m.startswith('pipeperf.cli.')))")
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


def test_simulate_on_a_json_file_runs_without_numpy(tmp_path):
    """``pipeperf simulate FILE.json`` never imports NumPy (a tenth of a second of start-up), nor
    logging or hashlib (milliseconds each, issue 16), and gives the cycles NumPy's views of the
    same IDG give."""
    path = tmp_path / "k.json"
    path.write_text('{"name": "k", "instructions": [{"id": "a", "class": "fma_f32"}, '
                    '{"id": "b", "class": "ld_global_s32", "deps": ["a"]}, '
                    '{"id": "c", "class": "bar_sync", "deps": ["b"]}, {"id": "d", "class": "add_f32", "deps": ["c"]}]}')
    code = ("import sys; from pipeperf.cli.main import main; "
            f"rc = main(['simulate', {str(path)!r}, '--gpu', 'pascal_gtx1060', '--group-size', '2', "
            "'--groups-per-core', '3', '--json']); "
            "print(any(m in sys.modules for m in ('numpy', 'logging', 'hashlib'))); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("False")
    import json

    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.io import load_kernel
    from pipeperf.simulate import simulate

    got = json.loads(proc.stdout.rstrip()[:-len("False")])
    assert got["cycles"] == simulate(load_kernel(path), load_gpu("pascal_gtx1060"), 2, 3).cycles


def test_version_and_help_import_nothing_heavy():
    """``pipeperf --version`` and ``--help`` (issue 39) import no command module, so no NumPy, SciPy
    or PyYAML: they cost an interpreter's start-up, less than ``import numpy``."""
    for argv in (["--version"], ["--help"]):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "pipeperf", *argv], capture_output=True,
                              text=True, env=_ENV)
        assert proc.returncode == 0, proc.stderr
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
        assert "pipeperf.cli.main" in imported
        heavy = {m for m in imported if m.split(".")[0] in ("numpy", "scipy", "yaml", "matplotlib", "pandas", "dask")}
        assert not heavy, (argv, sorted(heavy))
        assert not any(m.startswith("pipeperf.cli.") and m != "pipeperf.cli.main" for m in imported - {"pipeperf.cli"})
    assert proc.stdout.count("\n    ") >= len(COMMANDS)          # every command's line in the help


def test_a_commands_help_imports_no_numpy():
    """``pipeperf analyze --help`` builds the analyze parser only: no NumPy (issue 39, start-up)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "pipeperf", "analyze", "--help"],
                          capture_output=True, text=True, env=_ENV)
    assert proc.returncode == 0, proc.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert not {m for m in imported if m.split(".")[0] in ("numpy", "scipy", "pandas", "dask")}


def test_verbosity_before_the_command_still_builds_only_it():
    assert _command_of(["-v", "simulate", "x.json"]) == "simulate" and _command_of(["-vq", "--", "ptx"]) == "ptx"
    out = _modules_after(["-v", "ptx", "x.ptx"])
    assert "pipeperf.cli.ptx" in out and "pipeperf.cli.models" not in out
