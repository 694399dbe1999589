#!/usr/bin/env python3
"""Rewrite the test suite's store of compiles, ``tests/fixtures/compiled``, from a run with nvcc.

The suite runs on machines without nvcc and ptxas from that store (``$PIPEPERF_PREBUILT_DIR``,
:mod:`pipeperf.ptx.prebuilt`): every PTX nvcc made and every ``ptxas -v`` report the tests asked
for, keyed by what they depend on (source bytes, target, flags; the PTX text), not by the machine.
This script runs the tests with nvcc and ptxas and ``$PIPEPERF_PREBUILT_RECORD`` pointing at a new
store, so the store holds exactly what the tests use; run it after changing a test's kernel or a
compile option, and commit the result.

Usage:
    python3 scripts/refresh_test_ptx.py                  # the whole default suite; replaces the store
    python3 scripts/refresh_test_ptx.py tests/analyze    # these tests only; adds to the store
    python3 scripts/refresh_test_ptx.py --check          # the suite as without CUDA (PIPEPERF_NO_CUDA=1)

The whole suite takes as long as the tests do. A failing run leaves the store as it was. A few
entries change at every refresh: kernels with internal-linkage symbols that tests write into
temporary folders, whose names carry a hash nvcc derives from the source's path.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STORE = REPO / "tests" / "fixtures" / "compiled"


def _size(folder: Path) -> tuple[int, int]:
    files = [f for f in folder.rglob("*.json")]
    return len(files), sum(f.stat().st_size for f in files)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="run the tests with every CUDA tool hidden (PIPEPERF_NO_CUDA=1), from the store")
    ap.add_argument("pytest_args", nargs="*", help="tests to run (default: the whole suite; then the store is replaced)")
    args = ap.parse_args(argv)

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest_args]
    if args.check:
        env["PIPEPERF_NO_CUDA"] = "1"
        return subprocess.run(cmd, cwd=REPO, env=env).returncode
    cmd += ["--deselect", "tests/ptx/test_prebuilt.py::test_committed_store_is_intact_and_small"]   # the old store

    sys.path.insert(0, str(REPO / "src"))
    from pipeperf.errors import PipeperfError
    from pipeperf.ptx.toolkit import find_tool

    try:
        tools = [find_tool("nvcc"), find_tool("ptxas")]
    except PipeperfError as exc:
        print(f"refresh_test_ptx: {exc}", file=sys.stderr)
        return 2
    print(f"recording with {' and '.join(tools)}")
    with tempfile.TemporaryDirectory(prefix="pipeperf-compiled-") as tmp:
        new = Path(tmp) / "compiled"
        env["PIPEPERF_PREBUILT_RECORD"] = str(new)
        rc = subprocess.run(cmd, cwd=REPO, env=env).returncode
        if rc != 0:
            print(f"refresh_test_ptx: the tests failed (exit {rc}): {STORE} left as it was", file=sys.stderr)
            return rc
        if not args.pytest_args:
            shutil.rmtree(STORE, ignore_errors=True)
        for f in new.rglob("*.json"):
            dest = STORE / f.relative_to(new)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dest)
    n, size = _size(STORE)
    print(f"{STORE.relative_to(REPO)}: {n} entries, {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
