"""Emulation speed: thread-instructions per second, full and hybrid mode.

Run: PYTHONPATH=src python3 benchmarks/emulate_speed.py [--quick]
Kernels: saxpy (2^24 threads), tiled matmul (1024^2, 16x16 tiles), shared-memory
reduction (2^22 elements). One process, one core (NumPy without threads).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from pipeperf.emulate import run_kernel  # noqa: E402

PTX = ROOT / "tests" / "kernels" / "ptx"


def cases(quick: bool):
    rng = np.random.default_rng(0)
    n = 1 << (20 if quick else 24)
    yield ("saxpy", PTX / "saxpy.sm_80.ptx", (n // 256,), (256,),
           lambda: [np.int32(n), np.float32(2.5), rng.random(n, np.float32),
                    rng.random(n, np.float32)])
    m = 256 if quick else 1024
    yield ("matmul_tiled", PTX / "matmul_tiled.sm_80.ptx", (m // 16, m // 16), (16, 16),
           lambda: [rng.random(m * m, np.float32), rng.random(m * m, np.float32),
                    np.zeros(m * m, np.float32), np.int32(m)])
    r = 1 << (18 if quick else 22)
    yield ("reduce_shared", PTX / "reduce_shared.sm_80.ptx", (r // 256,), (256,),
           lambda: [rng.random(r, np.float32), np.zeros(r // 256, np.float32), np.int32(r)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    a = ap.parse_args()
    print(f"{'kernel':14s} {'mode':7s} {'threads':>9s} {'thread-insts':>13s} {'seconds':>8s} "
          f"{'M thread-inst/s':>15s} {'emulated':>8s}")
    for name, path, grid, block, make in cases(a.quick):
        for mode in ("full", "hybrid"):
            args = make()
            t0 = time.perf_counter()
            # whole grids of 2^20+ threads: far past the step budget a runaway gets, on purpose
            p = run_kernel(path, grid, block, args, kernel=name, mode=mode, max_steps=1 << 40)
            dt = time.perf_counter() - t0
            c = p.counts
            ti = c["inst_executed_thread_all"]
            print(f"{name:14s} {mode:7s} {c['threads']:9d} {ti:13d} {dt:8.2f} "
                  f"{ti / dt / 1e6:15.1f} {c['fraction_emulated']:8.3f}", flush=True)


if __name__ == "__main__":
    main()
