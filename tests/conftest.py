"""Shared fixtures: run the CLI in-process and capture its output and exit code. The suite's
on-disk cache (compiled PTX, ptxas reports) is a temporary folder, never the user's home."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from pipeperf.cli.main import main

_CACHE = tempfile.mkdtemp(prefix="pipeperf-test-cache-")
os.environ["PIPEPERF_CACHE_DIR"] = _CACHE       # set before any test, and inherited by subprocesses


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)


@pytest.fixture
def cli(capsys):
    def run(*argv: str) -> tuple[int, str, str]:
        try:
            rc = main(list(argv))
        except SystemExit as exc:       # argparse usage errors
            rc = exc.code
        out, err = capsys.readouterr()
        return rc, out, err
    return run


@pytest.fixture
def no_cuda(monkeypatch, tmp_path):
    """No CUDA tool anywhere pipeperf looks: PATH is the host compiler's folders only, no
    $CUDA_HOME, no NVIDIA wheels on sys.path, no /usr/local/cuda."""
    from pipeperf.ptx import toolkit

    monkeypatch.setenv("PATH", os.pathsep.join(d for d in ("/usr/bin", "/bin") if not Path(d, "nvcc").exists()))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not Path(p or ".", "nvidia").is_dir()])
    monkeypatch.setattr(toolkit, "FALLBACK_ROOTS", ())
    return tmp_path
