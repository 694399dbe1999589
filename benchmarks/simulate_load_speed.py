"""Whole-process ``pipeperf simulate`` on a large IDG file: load time, wall time, throughput.

The issue's target (16, "Fast analyze"): a 10 000-instruction IDG file simulated with 64
warps on the Pascal spec at >= 5 M simulated warp-instructions per second for the whole
process, start-up and file load included. The IDG is a realistic mix (FP32 arithmetic,
integer, SFU, shared and global loads, each depending on one to three of the eight
instructions before it), written as JSON and as hand-style YAML (one flow mapping per
instruction) into a temporary directory; each file is then

* loaded in a fresh ``python3`` (``load_kernel``, the import of the loader timed apart), and
* simulated by a fresh ``python3 -m pipeperf simulate FILE --gpu pascal_gtx1060
  --group-size 2 --groups-per-core 32`` (64 warps: Pascal allows 32 resident groups, so 64
  warps are 32 groups of 2),

best of ``--repeat`` runs each (the machine may be busy), as wall time and as the child's CPU time
(user + system, from ``getrusage(RUSAGE_CHILDREN)``: on a shared machine the steadier figure, though it still grows with
the load). ``python3 -c pass`` is timed the same way: the floor no command can go under. The first simulate (not counted) fills the user cache with
the GPU spec as JSON, as a user's first command does; from then on the JSON path imports neither
NumPy nor PyYAML. pipeperf's modules are compiled to ``.pyc`` files first, as an installed
package has them (a source checkout under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile
them on every start: ``--no-compile`` measures that)::

    PYTHONPATH=src python3 benchmarks/simulate_load_speed.py [--n 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
GPU = "pascal_gtx1060"
#: class -> relative frequency: a compute kernel's mix on the Pascal spec's classes
MIX = {"fma_f32": 30, "add_f32": 12, "mul_f32": 12, "mul_s32": 10, "ld_global_s32": 10,
       "ld_shared_f32": 10, "cos_f32": 4, "div_approx_f32": 2, "mul_f64": 2}

_LOAD = """
import sys, time
t0 = time.perf_counter()
from pipeperf.idg.io import load_kernel
t1 = time.perf_counter()
k = load_kernel(sys.argv[1])
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, sum(len(w.idg) for w in k.warp_classes))
"""


def instructions(n: int, seed: int = 16) -> list[dict]:
    """``n`` instructions of the MIX, each depending on 1-3 of the 8 before it."""
    rng = random.Random(seed)
    names, weights = list(MIX), list(MIX.values())
    out = []
    for i in range(n):
        node: dict = {"id": f"i{i}", "class": rng.choices(names, weights)[0]}
        if i:
            back = rng.sample(range(max(0, i - 8), i), min(i, rng.randint(1, 3)))
            node["deps"] = [f"i{j}" for j in sorted(back)]
        out.append(node)
    return out


def write_files(n: int, where: Path) -> dict[str, Path]:
    instrs = instructions(n)
    name = f"mix{n}"
    js = where / f"{name}.json"
    js.write_text(json.dumps({"name": name, "instructions": instrs}, indent=1))
    ym = where / f"{name}.yaml"
    rows = []
    for node in instrs:
        deps = f", deps: [{', '.join(node['deps'])}]" if "deps" in node else ""
        rows.append(f"  - {{id: {node['id']}, class: {node['class']}{deps}}}")
    ym.write_text(f"name: {name}\ninstructions:\n" + "\n".join(rows) + "\n")
    return {"json": js, "yaml": ym}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def time_load(path: Path) -> tuple[float, float, int]:
    out = subprocess.run([sys.executable, "-c", _LOAD, str(path)], env=_env(), check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def _run(cmd: list[str]) -> tuple[float, int, str, str]:
    """(wall s, return code, stdout, stderr) of one fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=_env(), capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, proc.returncode, proc.stdout, proc.stderr


def _children_cpu() -> float:
    import resource
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one fresh process; exits naming the command if it fails. The CPU
    time is the growth of this process's reaped-children totals (user + system) across the run."""
    c0 = _children_cpu() if os.name == "posix" else float("nan")
    wall, rc, out, err = _run(cmd)
    cpu = _children_cpu() - c0 if os.name == "posix" else float("nan")
    if rc:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    return wall, cpu, out


def time_simulate(path: Path) -> tuple[float, float, int]:
    cmd = [sys.executable, "-m", "pipeperf", "simulate", str(path), "--gpu", GPU,
           "--group-size", "2", "--groups-per-core", "32", "--json"]
    wall, cpu, out = _timed(cmd)
    return wall, cpu, int(json.loads(out)["instructions_on_core"])


def time_floor() -> tuple[float, float]:
    """Wall and CPU time of a fresh ``python3 -c pass``: interpreter start-up and ``site``."""
    return _timed([sys.executable, "-c", "pass"])[:2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="instructions in the IDG (default 10000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, best kept (default 3)")
    ap.add_argument("--keep", metavar="DIR", help="write the IDG files here instead of a temporary directory")
    ap.add_argument("--no-compile", action="store_true",
                    help="do not compile pipeperf's modules to .pyc first (measure compiling them on each start)")
    args = ap.parse_args()
    if not args.no_compile:
        import compileall
        compileall.compile_dir(str(SRC / "pipeperf"), quiet=2)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.keep) if args.keep else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        files = write_files(args.n, where)
        time_simulate(files["json"])                                   # the OS file cache warm
        floors = [time_floor() for _ in range(args.repeat)]
        print(f"{args.n} instructions, 64 warps on {GPU}; best of {args.repeat} fresh processes "
              f"(python3 -c pass: {min(f[0] for f in floors):.3f} s wall, {min(f[1] for f in floors):.3f} s cpu); "
              + ("modules compiled on each start" if args.no_compile else "pipeperf's .pyc files compiled first"))
        print(f"{'file':<6} {'size':>9} {'import s':>9} {'load s':>8} {'wall s':>8} {'cpu s':>7} "
              f"{'warp-instr':>11} {'M warp-instr/s':>15}")
        for fmt, path in files.items():
            loads = [time_load(path) for _ in range(args.repeat)]
            imp, load = min(x[0] for x in loads), min(x[1] for x in loads)
            runs = [time_simulate(path) for _ in range(args.repeat)]
            wall, cpu, issued = min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]
            print(f"{fmt:<6} {path.stat().st_size / 1e6:>7.2f}MB {imp:>9.3f} {load:>8.3f} {wall:>8.3f} {cpu:>7.3f} "
                  f"{issued:>11} {issued / wall / 1e6:>15.2f}")
        print("warp-instr: warp instructions issued on the simulated core (64 warps x the IDG);\n"
              "M warp-instr/s: those over the whole process's wall time (start-up and load included)")


if __name__ == "__main__":
    main()
