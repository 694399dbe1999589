"""Wall time of a 200-variant ``pipeperf tune`` with 1 and 2 Dask workers, and the per-variant
overhead of Dask over the plain in-process loop (``--cluster none``). Run explicitly, not by pytest:

    PYTHONPATH=src python3 benchmarks/tune_scaling.py [--workers 1 2] [--gpu hopper_h100] [--size 64]

The space: examples/tune/matmul_tiled.cu with TILE in {4, 16} (-D, two compile units), block
(TILE, BY) with BY in 1..16*2 and BY <= TILE (8 shapes) and the shared-memory pitch TILE + PAD,
PAD in 0..24: 8 x 25 = 200 variants on one GPU. The compiles are made once before the timed
runs (nvcc's own cache then serves every run), and no run reads the results cache, so each run
analyses all 200 variants. Each Dask run's time includes starting its local cluster, reported
apart ("start": the cluster's and the workers' imports of the analysis); the overhead per variant is (Dask time - start - plain time) / 200 with one
worker, i.e. what scheduling, pickling and shipping results cost beyond the analyses themselves.
The machine's load average is printed with the figures: on a shared machine it moves them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

from pipeperf.tune import tune
from pipeperf.tune.spacefile import CliSpace, load_space

ROOT = Path(__file__).resolve().parents[1]


def space(gpu: str, size: int, trace_warps: int, constraints: list[str] = ()):
    cli = CliSpace(str(ROOT / "examples/tune/matmul_tiled.cu"), "matmul_tiled", sizes=[f"N={size}"],
                   defines=["TILE=4,16"], params=["BY=1..16*2", "PAD=0..24"], grid="N / TILE, N / TILE",
                   block="TILE, BY", shared="2 * TILE * (TILE + PAD) * 4",
                   args=["A=rand:f32:{N*N}", "B=rand:f32:{N*N}", "C=zeros:f32:{N*N}", "n={N}", "pitch={TILE + PAD}"],
                   constraints=["BY <= TILE", *constraints], gpus=[gpu], analysis={"trace_warps": trace_warps})
    return load_space(None, cli)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--gpu", default="hopper_h100")
    parser.add_argument("--size", type=int, default=64, help="N of the N x N matrices (default 64)")
    parser.add_argument("--trace-warps", type=int, default=64)
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    s = space(args.gpu, args.size, args.trace_warps)
    n = sum(1 for v in s.variants() if not v.excluded)
    print(f"space: {n} variants of matmul_tiled.cu (N={args.size}) on {args.gpu}, trace_warps={args.trace_warps}; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    tune(space(args.gpu, args.size, args.trace_warps, ["BY == 1 and PAD == 0"]), "none")     # the compiles, once
    figures: dict[str, dict] = {}
    t0, c0 = time.perf_counter(), time.process_time()
    plain = tune(s, "none")
    figures["plain"] = {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}
    assert plain.result.computed == n
    print(f"plain loop (--cluster none): {figures['plain']['seconds']:.1f} s wall, "
          f"{figures['plain']['cpu_seconds']:.1f} s CPU, {figures['plain']['seconds'] / n * 1000:.0f} ms/variant")
    for w in args.workers:
        t0, cc0, c0 = time.perf_counter(), _children_cpu(), time.process_time()
        r = tune(s, "local", w)
        wall = time.perf_counter() - t0
        client_cpu = time.process_time() - c0
        assert r.result.computed == n and [x.outcome.seconds for x in r.result.rows] == \
            [x.outcome.seconds for x in plain.result.rows], "Dask and the plain loop disagree"
        start = r.result.run.startup_seconds
        figures[f"dask-{w}"] = {"seconds": wall, "startup_seconds": start, "workers": w,
                                "worker_cpu_seconds": _children_cpu() - cc0, "client_cpu_seconds": client_cpu}
        print(f"Dask, local cluster of {w} worker{'s' if w > 1 else ''}: {wall:.1f} s wall ({start:.1f} s start), "
              f"{(wall - start) / n * 1000:.0f} ms/variant after the start, speed-up over the plain loop "
              f"x{figures['plain']['seconds'] / wall:.2f} (x{figures['plain']['seconds'] / (wall - start):.2f} without the start); "
              f"CPU: workers {figures[f'dask-{w}']['worker_cpu_seconds']:.1f} s (start-up included), "
              f"this process (client, scheduler, nannies) {client_cpu:.1f} s")
    if "dask-1" in figures:
        d = figures["dask-1"]
        over = (d["seconds"] - d["startup_seconds"] - figures["plain"]["seconds"]) / n
        figures["overhead_ms_per_variant"] = over * 1000
        print(f"Dask's overhead over the plain loop (1 worker, start excluded): {over * 1000:+.1f} ms per variant")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
