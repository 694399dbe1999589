"""`pipeperf analyze` as a user runs it (default options) on every application launch of the suite.

Run:  python3 benchmarks/analyze_app_suite.py [--match TEXT] [--timeout S] [--json FILE] [--skip-ok FILE]

Why: ``benchmarks/analyze_suite.py`` times a dozen chosen shapes; this walks every distinct launch
of ``validation/cases`` outside the microbenchmark families (GEMM ladders, attention, convolutions,
dedispersion, ...: kernels people write) and runs ``pipeperf analyze FILE --kernel K --grid ..
--block .. --arg .. --gpu G`` in a fresh process with nothing raised: the step budget, the trace
cap and the what-ifs at their defaults. It reports, per launch, the CPU time of the process (user +
system, children included: the steadier figure on a shared machine), the wall time, and whether it
ended with a prediction, a one-line error (which) or a timeout. Issue 39 asks for every analysis in
seconds and none stopping where it should not; the suite's own ``validate`` raises the budget, so it
does not show this. ``--skip-ok FILE``: skip the case ids listed in FILE (one per line), e.g. those
an earlier run found fine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the microbenchmark families of the suite (docs/validation.md): not application launches
MICRO = {"dram", "l1", "l2", "latency", "launch", "shared", "compute-fp32", "compute-fp64", "compute-int"}


def command(case) -> list[str]:
    """The `pipeperf analyze` command line of ``case``'s launch, as a user would type it."""
    launch = case.launch
    cmd = [sys.executable, "-m", "pipeperf", "analyze", str(launch.kernel_file), "--kernel", launch.kernel,
           "--grid", ",".join(map(str, launch.grid)), "--block", ",".join(map(str, launch.block)), "--gpu", case.gpu]
    for a in launch.args:
        cmd += ["--arg", a]
    if launch.shared:
        cmd += ["--shared", str(launch.shared)]
    for f in launch.nvcc_flags:
        cmd += [f"--nvcc-flag={f}"]
    if launch.max_blocks_per_sm:
        cmd += ["--max-blocks-per-sm", str(launch.max_blocks_per_sm)]
    if launch.arch:
        cmd += ["--arch", launch.arch]
    return cmd


def run_one(case, timeout: float) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
        p = subprocess.run(command(case), capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
        outcome = "ok" if p.returncode == 0 else "error"
        detail = "" if p.returncode == 0 else (p.stderr.strip().splitlines() or ["?"])[-1]
    except subprocess.TimeoutExpired:
        outcome, detail = "timeout", f"killed after {timeout:g} s"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"id": case.id, "outcome": outcome, "cpu_s": round(cpu, 2), "wall_s": round(time.perf_counter() - t0, 2),
            "detail": detail}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--match", default="", help="only case ids containing this text")
    ap.add_argument("--timeout", type=float, default=300.0, help="kill a run after this many wall seconds")
    ap.add_argument("--json", default=None, help="also write the rows as JSON to this file")
    ap.add_argument("--skip-ok", default=None, help="a file of case ids (one per line) to skip")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from pipeperf.measure.suite import load_suite

    skip = set(Path(args.skip_ok).read_text().split()) if args.skip_ok else set()
    seen: set = set()
    rows = []
    for case in load_suite(ROOT / "validation", lambda c: args.match in c.id and c.family not in MICRO):
        key = (case.launch, case.gpu)
        if key in seen or case.id in skip:
            continue
        seen.add(key)
        r = run_one(case, args.timeout)
        rows.append(r)
        print(f"{r['cpu_s']:7.1f} {r['wall_s']:7.1f}  {r['outcome']:7}  {r['id']}  {r['detail'][:160]}", flush=True)
    cpu = [r["cpu_s"] for r in rows if r["outcome"] == "ok"]
    bad = [r for r in rows if r["outcome"] != "ok"]
    if cpu:
        print(f"{len(rows)} launches: {len(cpu)} predicted, median {statistics.median(cpu):.1f} CPU s, "
              f"max {max(cpu):.1f}; over 10 CPU s: {sum(c > 10 for c in cpu)}; {len(bad)} without a prediction")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
