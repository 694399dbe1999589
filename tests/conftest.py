"""Shared fixtures: run the CLI in-process and capture its output and exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pipeperf.cli.main import main


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
