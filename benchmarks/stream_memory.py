"""Peak memory and wall time of `pipeperf analyze` on gpu-stream's triad over 1 GiB buffers
(issue 16: device memory costs what is touched; target well under 1.5 GB and a few seconds).

Run: PYTHONPATH=src python3 benchmarks/stream_memory.py [--fill rand|zeros] [--src DIR]
Analyses validation/kernels/gpu_stream.cu triad_kernel as gpu-stream launches it (grid 524289,
block 256, four 134217730-element f64 buffers, 2 blocks/SM, A100 80 GB, sm_80) in a fresh
process (`/usr/bin/time -v` when present, else getrusage of the child) and prints the peak RSS,
the wall time and the predicted seconds. Before issue 16 (rand inputs made whole, then copied
into the arena): 4.4-4.5 GB and 20-26 s; after: ~0.21 GB and ~2.4 s, the same prediction.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
N = 134217730


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fill", default="rand", choices=("rand", "zeros", "ones", "arange"),
                    help="kind of the B and C inputs (A and D are zeros)")
    ap.add_argument("--src", default=str(ROOT / "src"), help="the pipeperf sources to measure")
    a = ap.parse_args()
    cmd = [sys.executable, "-m", "pipeperf.cli.main", "analyze",
           str(ROOT / "validation" / "kernels" / "gpu_stream.cu"), "--kernel", "triad_kernel",
           "--grid", "524289", "--block", "256",
           "--arg", f"A=zeros:f64:{N}", "--arg", f"B={a.fill}:f64:{N}",
           "--arg", f"C={a.fill}:f64:{N}", "--arg", f"D=zeros:f64:{N}", "--arg", f"N={N}",
           "--arg", "secretlyFalse=0", "--gpu", "ampere_a100_80gb", "--max-blocks-per-sm", "2",
           "--arch", "sm_80", "--json"]
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    if timer:
        cmd = [timer, "-v"] + cmd
    env = dict(os.environ, PYTHONPATH=a.src)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode:
        sys.stderr.write(r.stderr)
        return r.returncode
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss_kb = int(line.split(":")[1])
    pred = json.loads(r.stdout)["kernels"][0]["predictions"]["pipeline"]["seconds"]
    print(json.dumps({"fill": a.fill, "peak_rss_gb": round(rss_kb * 1024 / 1e9, 3),
                      "wall_seconds": round(wall, 2), "pipeline_seconds": pred}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
