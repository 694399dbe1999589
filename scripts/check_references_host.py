#!/usr/bin/env python3
"""Cross-check the corpus references (tests/kernels/kernel_references.py) by running the real kernel
sources on the CPU through tests/kernels/host/cuda_host_shim.h (g++, one OS thread per CUDA thread).

Why: no GPU is needed, yet every reference is compared with what its kernel's source computes, so a
wrong manifest/reference is caught before an emulator or a measurement trusts it. Kernels that need
device-only features are reported as skipped. Takes about a minute (two compilers at a time).

Usage: python3 scripts/check_references_host.py [kernel ...] [--seed N]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "kernels"))

from host_check import HOST_UNSUPPORTED, have_compiler, run_on_host  # noqa: E402
from kernel_corpus import load_manifest  # noqa: E402


def check(name: str, seed: int) -> tuple[str, list[str]]:
    try:
        case, results = run_on_host(name, seed)
    except subprocess.CalledProcessError as e:
        return name, [f"host build/run failed: {(e.stderr or '').strip()[:400]}"]
    return name, case.check(results)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not have_compiler():
        print("check_references_host: error: needs g++ and the CUDA headers", file=sys.stderr)
        return 2
    names = args.kernels or [s.name for s in load_manifest()]
    runnable = [n for n in names if n not in HOST_UNSUPPORTED]
    for n in names:
        if n in HOST_UNSUPPORTED:
            print(f"skip  {n}: {HOST_UNSUPPORTED[n]}")
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for name, problems in pool.map(lambda n: check(n, args.seed), runnable):
            bad += bool(problems)
            print(f"{'FAIL' if problems else 'ok  '}  {name}" + "".join(f"\n      {p}" for p in problems))
    print(f"{len(runnable) - bad} of {len(runnable)} host-runnable kernels match their reference")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
