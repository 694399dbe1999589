"""Benchmark the SW26010 static auto-tuner (run explicitly, not by pytest).

    PYTHONPATH=src python3 benchmarks/sw26010_tune.py [--jobs 1 2] [--repeat 3]

Times ``tune()`` on examples/sw26010/tune_matmul.yaml (11 760 variants) and on a
larger copy of it (more tile, unroll and CPE choices), with each worker count.
Each figure is the best of ``--repeat`` runs in a fresh process state (the
transaction-count cache is cleared between runs).
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

from pipeperf.sw26010.space import load_space
from pipeperf.sw26010.transactions import mrt
from pipeperf.sw26010.tuner import tune

ROOT = Path(__file__).resolve().parents[1]


def _large(space):
    big = copy.deepcopy(space)
    big.tiles = {"i": [1, 2, 3, 4, 6, 8, 12, 16, 24, 32],
                 "j": [8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512],
                 "k": [8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512]}
    big.unrolls = [1, 2, 4, 8, 16]
    big.active_cpes = [8, 16, 24, 32, 40, 48, 56, 64]
    return big


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    base = load_space(ROOT / "examples/sw26010/tune_matmul.yaml")
    for name, space in (("tune_matmul.yaml", base), ("tune_matmul large", _large(base))):
        for jobs in args.jobs:
            times = []
            for _ in range(args.repeat):
                mrt.cache_clear()
                start = time.perf_counter()
                result = tune(space, jobs=jobs, progress=False)
                times.append(time.perf_counter() - start)
            best = result.top(1)[0]
            print(f"{name:18s} variants={result.variants_total:7d} distinct-feasible="
                  f"{result.variants_feasible:7d} jobs={jobs} best-of-{args.repeat}={min(times):.3f} s "
                  f"({result.variants_total / min(times):,.0f} variants/s)  best: tiles={best['tiles']} "
                  f"unroll={best['unroll']} cpes={best['active_cpes']} db={best['double_buffer']} "
                  f"T_total={best['us']['t_total']:.1f} us")


if __name__ == "__main__":
    main()
