"""Shared fixtures: run the CLI in-process and capture its output and exit code. The suite's
on-disk cache (compiled PTX, ptxas reports) is a temporary folder, never the user's home.

Without nvcc and ptxas (none installed, or ``PIPEPERF_NO_CUDA=1``) the suite compiles from its
store of recorded compiles, ``tests/fixtures/compiled`` (``$PIPEPERF_PREBUILT_DIR``; rewritten by
``scripts/refresh_test_ptx.py``), and skips only the tests marked ``requires_nvcc``: those that
run the tools themselves (compile errors, the cache, ptxas accepting a text)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from pipeperf.cli.main import main

COMPILED = Path(__file__).resolve().parent / "fixtures" / "compiled"

_CACHE = tempfile.mkdtemp(prefix="pipeperf-test-cache-")
os.environ["PIPEPERF_CACHE_DIR"] = _CACHE       # set before any test, and inherited by subprocesses
os.environ["PIPEPERF_PREBUILT_DIR"] = str(COMPILED)
os.environ["PIPEPERF_GPU_PATH"] = ""             # no user GPU folder of whoever runs the suite
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="pipeperf-test-config-")


def cuda_tools_missing() -> str | None:
    """Why nvcc or ptxas cannot be run here (as pipeperf looks for them), or None."""
    from pipeperf.errors import PipeperfError
    from pipeperf.ptx.toolkit import find_tool

    for tool in ("nvcc", "ptxas"):
        try:
            find_tool(tool)
        except PipeperfError as exc:
            return str(exc)
    return None


def pytest_collection_modifyitems(config, items):
    """``@pytest.mark.requires_nvcc`` tests are skipped, with the reason, where the tools are missing."""
    marked = [item for item in items if item.get_closest_marker("requires_nvcc")]
    why = cuda_tools_missing() if marked else None
    if why:
        skip = pytest.mark.skip(reason=f"requires_nvcc: {why.split(':')[0]}")
        for item in marked:
            item.add_marker(skip)


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
    $CUDA_HOME, none of the NVIDIA wheels installed here, no /usr/local/cuda; and no stored compiles
    ($PIPEPERF_PREBUILT_DIR), nor $PIPEPERF_NO_CUDA (the tests add tools back one way or another)."""
    from pipeperf.ptx import toolkit

    monkeypatch.delenv("PIPEPERF_PREBUILT_DIR", raising=False)
    monkeypatch.delenv("PIPEPERF_NO_CUDA", raising=False)
    monkeypatch.setenv("PATH", os.pathsep.join(d for d in ("/usr/bin", "/bin") if not Path(d, "nvcc").exists()))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    # the wheels installed here (nvdisasm, by the test extra) are hidden from the look-up, not
    # from sys.path: the same site-packages holds numpy; wheels a test prepends are still found
    installed = set(toolkit.wheel_bin_dirs())
    original = toolkit.wheel_bin_dirs
    monkeypatch.setattr(toolkit, "wheel_bin_dirs", lambda: [d for d in original() if d not in installed])
    monkeypatch.setattr(toolkit, "FALLBACK_ROOTS", ())
    return tmp_path
