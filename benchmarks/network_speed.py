"""Speed of `pipeperf network` (issue 37: ResNet-50 at batch 1 < 2 minutes, MobileNetV2 < 1 minute
on a 2-core machine, on three GPUs).

Run: PYTHONPATH=src python3 benchmarks/network_speed.py [--net resnet50 --net mobilenetv2] [--gpu ...]
Times the whole process (`python3 -m pipeperf network --builtin NAME --gpu ... --json`: start-up,
graph, lowering, nvcc compiles, every analysis, report) with the results cache off, twice: once
with an empty compile cache (a first run: every kernel file compiled for each GPU's target) and
once with the compiles of the first run in the cache (what a user's later runs pay). Prints one
line per run with the wall time, the machine's load average when it started (the CPUs may be
shared) and the predicted times, so a regression shows in either.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMITS = {"resnet50": 120.0, "mobilenetv2": 60.0}
GPUS = ("hopper_h100", "ampere_a100", "volta_v100")


def run(net: str, gpus: list[str], cache: str) -> tuple[float, dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PIPEPERF_CACHE_DIR": cache}
    cmd = [sys.executable, "-m", "pipeperf", "network", "--builtin", net, "--json", "--no-cache", "-q"]
    for g in gpus:
        cmd += ["--gpu", g]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t0, json.loads(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", action="append", help="built-in network (repeat; default resnet50 and mobilenetv2)")
    ap.add_argument("--gpu", action="append", help=f"GPU (repeat; default {', '.join(GPUS)})")
    args = ap.parse_args()
    nets, gpus = args.net or list(LIMITS), args.gpu or list(GPUS)
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="pipeperf-network-speed-") as cache:
        for net in nets:
            for label in ("cold compile cache", "warm compile cache"):
                load = os.getloadavg()[0]
                seconds, d = run(net, gpus, cache)
                limit = LIMITS.get(net)
                times = ", ".join(f"{g} {d['totals'][g]['seconds'] * 1e3:.3g} ms" for g in gpus)
                verdict = "" if limit is None else f" (limit {limit:.0f} s: {'ok' if seconds < limit else 'OVER'})"
                print(f"{net}: {seconds:.1f} s whole process, {label}, load average {load:.1f} on {os.cpu_count()} "
                      f"cores{verdict}; {d['analysis']['distinct_launches']} distinct launches; predicted {times}",
                      flush=True)
                if limit is not None:
                    worst = max(worst, seconds / limit)
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
