"""Speed of `pipeperf analyze` on a 1024x1024 tiled matmul (issue 7: < 10 s for one GPU).

Run: PYTHONPATH=src python3 benchmarks/analyze_speed.py [--gpu pascal_gtx1060] [--all-ctas] [--exact]
Times the whole `analyze` call (compile, ptxas, emulation, IDGs, occupancy, simulation) per GPU
in a fresh process each (cold imports and caches count, as for a CLI user), and separately the
emulation step: 256 traced warps (32 whole CTAs spread over the grid) with lane addresses, with
CTA sampling (the default) and, with --all-ctas, emulating all 4096 CTAs; then the occupancy
sweep (issue 7: 1-64 warps < 30 s) and, with --exact, the pipeline prediction without
fast-forward (every block simulated) to report the extrapolation's error and speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
N = 1024
KERNEL = ROOT / "tests" / "kernels" / "matmul_tiled.cu"
GRID, BLOCK = f"{N // 16},{N // 16}", "16,16"
ARGS = [f"A=rand:f32:{N * N}", f"B=rand:f32:{N * N}", f"C=zeros:f32:{N * N}", f"n={N}"]

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from pipeperf.analysis import analyze
gpus, all_ctas = json.loads(sys.argv[1]), sys.argv[2] == "1"
opts = json.loads(sys.argv[7])
a = analyze(sys.argv[3], sys.argv[4], sys.argv[5], json.loads(sys.argv[6]), gpus, all_ctas=all_ctas, **opts)
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "cycles": [p.cycles for p in a.predictions], "warps_traced": a.warps_traced,
                  "sweep_warps": [p.sweep["warps_per_sm"] for p in a.predictions if p.sweep]}))
"""


def time_analyze(gpus: list[str], all_ctas: bool, **opts) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(gpus), "1" if all_ctas else "0",
                          str(KERNEL), GRID, BLOCK, json.dumps(ARGS), json.dumps(opts)],
                         env=env, capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["wall"] = time.perf_counter() - t0
    return r


def time_emulation(all_ctas: bool) -> tuple[float, dict]:
    sys.path.insert(0, str(ROOT / "src"))
    from pipeperf.emulate import load_module, run_kernel

    m = load_module(KERNEL)
    t0 = time.perf_counter()
    p = run_kernel(m, (N // 16, N // 16), (16, 16), ARGS, mode="hybrid", trace_warps=256,
                   trace_blocks="spread", ctas=None if all_ctas else "traced", memory=True)
    return time.perf_counter() - t0, p.counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="append", help="GPU(s) (default: pascal_gtx1060, hopper_h100)")
    ap.add_argument("--all-ctas", action="store_true", help="also time emulating every CTA")
    ap.add_argument("--exact", action="store_true", help="also time analyze without fast-forward")
    a = ap.parse_args()
    gpus = a.gpu or ["pascal_gtx1060", "hopper_h100"]
    for sample in ([True, False] if a.all_ctas else [True]):
        s, c = time_emulation(not sample)
        print(f"emulation (hybrid, 256 traced warps, addresses): {s:6.2f} s, "
              f"{c['ctas_emulated']} of {c['ctas_total']} CTAs ({c['sampling']})")
    for g in gpus:
        r = time_analyze([g], False)
        print(f"analyze matmul_tiled {N}x{N} on {g}: {r['wall']:6.2f} s wall "
              f"({r['seconds']:.2f} s in-process), {r['cycles'][0]:.0f} cycles predicted")
        r = time_analyze([g], False, sweep=True)
        print(f"analyze --sweep-occupancy on {g}: {r['wall']:6.2f} s wall, warps/SM {r['sweep_warps'][0]}")
        if a.exact:
            e = time_analyze([g], False, fast_forward=None)
            err = 100 * (r["cycles"][0] / e["cycles"][0] - 1)
            print(f"analyze on {g} without fast-forward: {e['wall']:6.2f} s wall, {e['cycles'][0]:.0f} cycles "
                  f"(fast-forward differs by {err:+.3f} %)")
    if a.all_ctas:
        r = time_analyze(gpus[:1], True)
        print(f"analyze --all-ctas on {gpus[0]}: {r['wall']:6.2f} s wall, {r['cycles'][0]:.0f} cycles")


if __name__ == "__main__":
    main()
