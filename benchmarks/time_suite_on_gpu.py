"""Time every launch of the validation suite on the GPU present: our own ground truth.

The published cases each name a GPU we may not have; their launches (kernel, grid, block,
arguments, nvcc flags) do not depend on it. On a lent GPU this script compiles every distinct
launch for that GPU (in parallel), times it with the generic launcher (CUDA events, median of
``--reps`` after ``--warmup`` untimed launches, so buffers that fit in L2 run warm), and writes
one CSV row per launch with the ids of the cases that use it. Launches are started until
``--budget-s`` is spent; what was not reached is listed, never silently dropped.

    python benchmarks/time_suite_on_gpu.py --out results/ --budget-s 240 [--families app|micro|all]
    python benchmarks/time_suite_on_gpu.py --compile-only   # no GPU: check every launch compiles and binds
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import datetime
import hashlib
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pipeperf.errors import PipeperfError  # noqa: E402
from pipeperf.measure import launcher  # noqa: E402
from pipeperf.measure.suite import APPLICATION_FAMILIES, MICRO_FAMILIES, Launch, load_suite  # noqa: E402
from pipeperf.util.launch_args import parse_arg  # noqa: E402

COLUMNS = ("launch_id", "case_ids", "families", "kernel_file", "kernel", "grid", "block", "args", "shared",
           "nvcc_flags", "registers", "local_bytes", "ms_median", "ms_min", "ms_max", "reps", "seconds_wall",
           "status")


def _key(launch: Launch) -> str:
    text = repr((Path(launch.kernel_file).relative_to(ROOT), launch.kernel, launch.grid, launch.block,
                 launch.args, launch.shared, launch.nvcc_flags))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _dim3(d: tuple[int, ...]) -> tuple[int, int, int]:
    return tuple((*d, 1, 1)[:3])  # type: ignore[return-value]


def _module_key(launch: Launch) -> str:
    """One compilation per kernel file and flags: every launch of that module shares it."""
    text = repr((Path(launch.kernel_file).relative_to(ROOT), launch.nvcc_flags))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _compile(launch: Launch, arch: str, build: Path, nvcc: str) -> tuple[Path, list[str]]:
    return launcher.compile_kernel(launch.kernel_file, arch, build, list(launch.nvcc_flags), nvcc)


def _bind(launch: Launch, module: tuple[Path, list[str]]) -> tuple[Path, str, list]:
    cubin, entries = module
    entry = launcher.resolve_kernel(entries, launch.kernel, launch.kernel_file)
    ptx = launcher.ptx_path(launch.kernel_file, cubin.parent).read_text()
    bound = launcher.bind(launch.kernel_file, ptx, entry, [parse_arg(a) for a in launch.args])
    return cubin, entry, bound


def _read(out: Path) -> dict[str, str]:
    meta, rows = {}, []
    for line in out.read_text().splitlines():
        if line.startswith("# ") and ":" in line:
            k, _, v = line[2:].partition(":")
            meta[k.strip()] = v.strip()
        elif line and not line.startswith("#"):
            rows.append(line)
    head = rows[0].split(",")
    vals = dict(zip(head, rows[1].split(",")))
    return {"registers": meta.get("registers", ""), "local_bytes": meta.get("local_bytes", ""),
            "ms_median": vals["ms_median"], "ms_min": vals["ms_min"], "ms_max": vals["ms_max"], "reps": vals["reps"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=str(ROOT / "validation"))
    ap.add_argument("--families", choices=("app", "micro", "all"), default="app")
    ap.add_argument("--out", default="suite-timings")
    ap.add_argument("--arch", default=None, help="target (default: the GPU's, from nvidia-smi)")
    ap.add_argument("--budget-s", type=float, default=240.0)
    ap.add_argument("--launch-timeout-s", type=float, default=30.0)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--skip-timed", metavar="CSV", action="append", default=[],
                    help="leave out the launches this earlier output timed (status ok): a resumed run")
    a = ap.parse_args()
    t0 = time.monotonic()
    fams = {"app": APPLICATION_FAMILIES, "micro": MICRO_FAMILIES}.get(a.families)
    cases = load_suite(a.suite, None if fams is None else (lambda c: c.family in fams))
    by_launch: dict[str, list] = {}
    launches: dict[str, Launch] = {}
    for c in cases:
        k = _key(c.launch)
        launches.setdefault(k, c.launch)
        by_launch.setdefault(k, []).append(c)
    for prev in a.skip_timed:
        lines = [l for l in Path(prev).read_text().splitlines() if not l.startswith("#")]
        done = {r["launch_id"] for r in csv.DictReader(lines) if r["status"].startswith("ok")}
        launches = {k: v for k, v in launches.items() if k not in done}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    from pipeperf.measure import harness
    nvcc = harness.require_nvcc()
    arch = a.arch
    gpu_name = "none (compile only)"
    if arch is None:
        if a.compile_only:
            arch = "sm_90"
        else:
            gpu = harness.detect_gpu("timing the suite needs a GPU")
            arch, gpu_name = gpu.arch, gpu.name
    build = out / "build"
    print(f"{len(cases)} cases, {len(launches)} distinct launches; compiling for {arch} with {a.jobs} jobs",
          flush=True)
    modules: dict[str, Launch] = {}
    for ln in launches.values():
        modules.setdefault(_module_key(ln), ln)
    built: dict[str, tuple | str] = {}
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        futs = {pool.submit(_compile, ln, arch, build / m, nvcc): m for m, ln in modules.items()}
        for f in cf.as_completed(futs):
            try:
                built[futs[f]] = f.result()
            except Exception as e:
                built[futs[f]] = f"compile: {e}".splitlines()[0][:300]
    compiled: dict[str, tuple | str] = {}
    for k, ln in launches.items():
        module = built[_module_key(ln)]
        if isinstance(module, str):
            compiled[k] = module
            continue
        try:
            compiled[k] = _bind(ln, module)
        except Exception as e:
            compiled[k] = f"bind: {e}".splitlines()[0][:300]
    bad = sum(isinstance(v, str) for v in compiled.values())
    print(f"compiled {len(modules)} modules in {time.monotonic() - t0:.0f} s; {bad} launches failed", flush=True)
    exe = None if a.compile_only else launcher.build(build / "launcher", nvcc=nvcc)
    rows = []
    order = sorted(launches, key=lambda k: (by_launch[k][0].family, by_launch[k][0].id))
    for k in order:
        ln, cs = launches[k], by_launch[k]
        row = {"launch_id": k, "case_ids": " ".join(c.id for c in cs),
               "families": " ".join(sorted({c.family for c in cs})),
               "kernel_file": str(Path(ln.kernel_file).relative_to(ROOT)), "kernel": ln.kernel,
               "grid": "x".join(map(str, ln.grid)), "block": "x".join(map(str, ln.block)),
               "args": shlex.join(Path(x).name if x.endswith(".npy") else x for x in ln.args),
               "shared": ln.shared, "nvcc_flags": shlex.join(ln.nvcc_flags)}
        comp = compiled[k]
        if isinstance(comp, str):
            row["status"] = comp
        elif a.compile_only:
            row["status"] = "compiled"
        elif time.monotonic() - t0 > a.budget_s:
            row["status"] = "not run: budget spent"
        else:
            cubin, entry, bound = comp
            csv_out = out / "raw" / f"{k}.csv"
            csv_out.parent.mkdir(exist_ok=True)
            cmd = launcher.command_line(exe, cubin, entry, _dim3(ln.grid), _dim3(ln.block), bound, csv_out, False,
                                        a.reps, ln.shared, a.warmup, f"time_suite_on_gpu {cs[0].id}")
            s0 = time.monotonic()
            for reset in (False, True):      # a launch that hangs may wait on state its last run left
                try:
                    launcher.run(cmd + ["--reset-buffers"] * reset, timeout=a.launch_timeout_s)
                    row.update(_read(csv_out))
                    row["status"] = "ok, buffers reset before each launch" if reset else "ok"
                    break
                except PipeperfError as e:
                    row["status"] = f"run: {e}".splitlines()[0][:300]
                    if "longer than" not in str(e):
                        break
                except Exception as e:
                    row["status"] = f"run: {type(e).__name__}: {e}".splitlines()[0][:300]
                    break
            row["seconds_wall"] = f"{time.monotonic() - s0:.2f}"
            print(f"{cs[0].id:<50} {row.get('ms_median', '-'):>12} ms  {row['status'][:80]}", flush=True)
        rows.append(row)
    table = out / f"suite_timings_{a.families}.csv"
    with table.open("w", newline="") as f:
        f.write(f"# gpu: {gpu_name}\n# arch: {arch}\n# date: {datetime.datetime.now(datetime.UTC):%Y-%m-%dT%H:%MZ}\n"
                f"# command: python benchmarks/time_suite_on_gpu.py {shlex.join(sys.argv[1:])}\n"
                f"# timing: CUDA events per launch, median of reps after warmup launches (launcher version 1)\n")
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    ok = sum(r.get("status", "").startswith(("ok", "compiled")) for r in rows)
    print(f"wrote {table}: {ok}/{len(rows)} launches {'compiled' if a.compile_only else 'timed'} "
          f"in {time.monotonic() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
