"""`pipeperf analyze` on demanding kernels: wall time and peak RSS of the whole process (issue 16).

Run:  python3 benchmarks/analyze_suite.py [--gpu ampere_a100] [--only NAME ...] [--json FILE]

Each kernel is analysed by a fresh `pipeperf analyze ... --json` process (imports, nvcc/ptxas,
emulation, IDGs, mapper g, simulation and the models all count, as for a user), timed with the
wall clock and measured for peak resident memory (GNU time's %M of that process). The kernels are the
shapes that used to take minutes or gigabytes: a mixbench compute loop at 256 iterations, a
covariance-style kernel with long per-thread loops, a tensor-core (wmma) GEMM, a streaming
triad over 1 GiB buffers, an all-pairs n-body on a struct of arrays, and a tiled matmul. The
report also prints what the analysis says it approximated (sampling, truncation, extrapolation).
Targets (issue 16): every kernel < 10 s, median < 3 s, peak RSS < 1.5 GB on one GPU (issue 39: median
< 2 s). The CPU time (user + system, GNU time) is printed too: on a loaded machine it is the steadier figure.

Issue 39 added the shapes that hung: a million-cycle clock-wait (the clocks advance, the loop skipper
jumps it), a spin-wait on a flag nobody sets (expected: the clean stop on the step budget, one line
naming the loop, asserted) and a 65535 x 65535 grid of differing blocks; each < 20 s; and a persistent
tensor-core GEMM at 4096^3 (cuda-samples' cudaTensorCoreGemm: one CTA per SM, each walking the output
tiles at a stride of gridDim.x) and siboehm's register-tiled, vectorised SGEMM (kernel 6) at 4096^3. ``--timeout S``
kills a run after S seconds (for timing an older tree, on which they hang).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
V = ROOT / "validation" / "kernels"
B = ROOT / "benchmarks" / "kernels"
T = ROOT / "tests" / "kernels"

GiB_DOUBLES = 134217730
#: name -> (file, kernel, grid, block, args, extra CLI options)
KERNELS: dict[str, tuple[Path, str, str, str, list[str], list[str]]] = {
    "mixbench-int-256": (V / "mixbench.cu", "mixbench_v003_int", "4096", "256",
                         ["seed=1", "g_data=zeros:i32:33554432"], ["-D", "COMPUTE_ITERATIONS=256"]),
    "mixbench-fp32-256": (V / "mixbench.cu", "mixbench_v003_float", "4096", "256",
                          ["seed=1.0", "g_data=zeros:f32:33554432"], ["-D", "COMPUTE_ITERATIONS=256"]),
    "covariance-768": (B / "covariance_style.cu", "covar_kernel", "3", "256",
                       ["m=768", "n=768", "data=rand:f32:589824", "symmat=zeros:f32:589824"], []),
    "wmma-gemm-2048": (T / "wmma_gemm.cu", "wmma_gemm", "4096", "128",
                       ["A=rand:f16:4194304", "B=rand:f16:4194304", "C=zeros:f32:4194304",
                        "M=2048", "N=2048", "K=2048"], []),
    "stream-triad-1GiB": (V / "gpu_stream.cu", "triad_kernel", "524289", "256",
                          [f"A=zeros:f64:{GiB_DOUBLES}", f"B=rand:f64:{GiB_DOUBLES}", f"C=rand:f64:{GiB_DOUBLES}",
                           f"D=zeros:f64:{GiB_DOUBLES}", f"N={GiB_DOUBLES}", "secretlyFalse=0"],
                          ["--max-blocks-per-sm", "2"]),
    "nbody-soa-16384": (B / "nbody_soa.cu", "nbody_soa", "64", "256",
                        ["n=16384"] + [f"{a}=rand:f32:16384" for a in ("x", "y", "z", "mass")]
                        + [f"{a}=zeros:f32:16384" for a in ("ax", "ay", "az")], []),
    "matmul-tiled-1024": (T / "matmul_tiled.cu", "matmul_tiled", "64,64", "16,16",
                          ["A=rand:f32:1048576", "B=rand:f32:1048576", "C=zeros:f32:1048576", "n=1024"], []),
    "tc-gemm-persistent-4096": (V / "gemm_fp16_tc_cuda_samples.cu", "cs_compute_gemm", "108", "256",
                                ["A=rand:f16:16777216", "B=rand:f16:16777216", "C=rand:f32:16777216",
                                 "D=zeros:f32:16777216", "alpha=1.1", "beta=1.2"], ["--shared", "65536"]),
    "sgemm-vectorize-4096": (V / "sgemm_ladders_siboehm.cu", "sgemm_vectorize", "32,32", "256",
                             ["M=4096", "N=4096", "K=4096", "alpha=0.5", "A=rand:f32:16777216",
                              "B=rand:f32:16777216", "beta=3.0", "C=rand:f32:16777216"], ["-D", "NDEBUG"]),
    "clock-wait-1M": (B / "clock_wait.cu", "clock_wait", "1024", "256",
                      ["cycles=1000000", "iterations=zeros:i32:262144"], []),
    "spin-wait": (B / "spin_wait.cu", "spin_wait", "1024", "256", ["flag=zeros:i32:1", "out=zeros:f32:262144"], []),
    "grid-65535x65535": (B / "grid_hash.cu", "grid_hash", "65535,65535", "32", ["out=zeros:u32:1024", "n=1024"], []),
}
#: kernels whose expected outcome is the clean stop on the step budget: exit 2 and one line saying this
EXPECT_STOP = {"spin-wait": "still runs after the step budget"}


def run_one(name: str, gpu: str, timeout: float | None = None) -> dict:
    f, kernel, grid, block, args, extra = KERNELS[name]
    cmd = [sys.executable, "-c", "import sys; from pipeperf.cli.main import main; sys.exit(main())", "analyze", str(f), "--kernel", kernel, "--grid", grid,
           "--block", block, "--gpu", gpu, "--json", *extra]
    for a in args:
        cmd += ["--arg", a]
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t0 = time.perf_counter()
        limit = ["timeout", str(timeout)] if timeout else []
        p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", rss.name, *limit, *cmd], capture_output=True,
                           text=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        fields = ((rss.read().strip().splitlines() or ["0 0 0"])[-1].split() + ["0", "0"])[:3]
        rss_kb, user, system = int(fields[0]), float(fields[1]), float(fields[2])
    out = {"kernel": name, "wall_s": round(wall, 2), "cpu_s": round(user + system, 2), "rc": p.returncode,
           "peak_rss_mb": round(rss_kb / 1024, 1)}
    if name in EXPECT_STOP:
        err = p.stderr.strip().splitlines()
        clean = p.returncode == 2 and len(err) == 1 and EXPECT_STOP[name] in err[0] and "--max-steps" in err[0]
        out.update(rc=0 if clean else p.returncode or 1, stopped=err[-1] if err else "",
                   error="" if clean else f"expected the clean stop on the step budget, got: {err[-1] if err else p.returncode}")
        return out
    if p.returncode == 124:
        out["error"] = f"killed after --timeout {timeout} s"
        return out
    if p.returncode != 0:
        out["error"] = (p.stderr.strip().splitlines() or ["?"])[-1]
        return out
    d = json.loads(p.stdout)
    k = d["kernels"][0]
    out.update(seconds=k["predictions"]["pipeline"]["seconds"], sampling=d["launch"].get("sampling", ""),
               ctas=f"{d['launch'].get('ctas_emulated')}/{d['launch'].get('ctas_total')}",
               truncated_warps=d["launch"].get("truncated_warps", 0), notes=k.get("notes", []))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", default="ampere_a100")
    ap.add_argument("--only", nargs="*", default=None, choices=sorted(KERNELS))
    ap.add_argument("--json", default=None, help="also write the rows as JSON to this file")
    ap.add_argument("--timeout", type=float, default=None, help="kill a run after this many seconds")
    a = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    names = a.only or list(KERNELS)
    rows = []
    print(f"{'kernel':24} {'wall s':>7} {'CPU s':>7} {'RSS MB':>8} {'CTAs':>12} {'trunc':>6}  predicted / notes")
    for n in names:
        r = run_one(n, a.gpu, a.timeout)
        rows.append(r)
        if r["rc"]:
            print(f"{n:24} {r['wall_s']:7.2f} {r['cpu_s']:7.2f} {r['peak_rss_mb'] or 0:8.0f} {'':>12} {'':>6}  "
                  f"error: {r['error']}")
            continue
        if "stopped" in r:
            print(f"{n:24} {r['wall_s']:7.2f} {r['cpu_s']:7.2f} {r['peak_rss_mb'] or 0:8.0f} {'':>12} {'':>6}  "
                  "stopped (expected): "
                  f"{r['stopped'][:100]}...")
            continue
        print(f"{n:24} {r['wall_s']:7.2f} {r['cpu_s']:7.2f} {r['peak_rss_mb'] or 0:8.0f} {r['ctas']:>12} "
              f"{r['truncated_warps']:6d}"
              f"  {r['seconds'] * 1e6:.1f} us")
        for note in r["notes"]:
            print(f"{'':70}{note}")
    ok = [r["wall_s"] for r in rows if not r["rc"] and "stopped" not in r]
    cpu = [r["cpu_s"] for r in rows if not r["rc"] and "stopped" not in r]
    if ok:
        print(f"\nmedian {statistics.median(ok):.2f} s, max {max(ok):.2f} s wall (CPU: median "
              f"{statistics.median(cpu):.2f} s, max {max(cpu):.2f} s) over {len(ok)} kernels on {a.gpu} "
              f"(targets: < 10 s each, median < 2 s, RSS < 1.5 GB; on a shared machine the CPU time is the steadier figure)")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(not r["rc"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
