"""``pipeperf calibrate``: measure lambda/Lambda of every instruction class on this GPU, fit a spec.

Runs the generated micro-benchmarks (pipeperf.measure.microbench) with the host harness, writes
the raw CSVs and fits a GPU spec YAML (pipeperf.measure.fit). ``--from-raw DIR`` fits CSVs
measured elsewhere; ``--simulate GPU`` fits what the Pipeline-model simulator would measure
(a check of the method without a GPU); ``--list`` shows the benchmarks.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from pipeperf.errors import PipeperfError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "calibrate", description="Measure lambda (CPI) and Lambda (latency) of every instruction class over occupancies "
                    "1..max warps per SM (boat-hull curves, Eq. 1), the instruction mix and the peaks, and "
                    "write a GPU spec YAML citing the measurements. Needs a CUDA GPU and nvcc, unless "
                    "--from-raw or --simulate is given.")
    p.add_argument("--out", metavar="FILE.yaml", help="the fitted GPU spec (required unless --list)")
    p.add_argument("--gpu-name", metavar="NAME", help="spec name (default: from the device, e.g. h100)")
    p.add_argument("--raw-dir", metavar="DIR", help="where the raw CSVs go (default: data/measurements/NAME)")
    p.add_argument("--peaks-out", metavar="FILE.yaml",
                   help="peaks YAML for 'pipeperf roofline --gpu' (default: OUT with _peaks before .yaml)")
    p.add_argument("--from-raw", metavar="DIR",
                   help="fit the CSVs in DIR (a calibrate raw folder, or a campaign folder with manifest.json); run nothing")
    p.add_argument("--simulate", metavar="GPU",
                   help="measure the Pipeline-model simulator with this spec instead of a GPU")
    p.add_argument("--reps", type=int, default=5, help="timed repetitions per point (default 5)")
    p.add_argument("--quick", action="store_true", help="about 12 occupancies instead of all")
    p.add_argument("--only", metavar="NAMES", help="comma-separated benchmark names (see --list)")
    p.add_argument("--kinds", metavar="KINDS", help="comma-separated: chain, mix, barrier, peak")
    p.add_argument("--build-dir", metavar="DIR", help="where the harness is built (default: a cache)")
    p.add_argument("--jobs", type=int, help="parallel nvcc processes (default: CPUs, at most 8)")
    p.add_argument("--max-seconds", type=float, default=420,
                   help="stop starting benchmarks after this long (default 420)")
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    p.set_defaults(func=calibrate)


def _command(args: argparse.Namespace) -> str:
    parts = ["pipeperf", "calibrate"]
    for flag in ("gpu_name", "raw_dir", "out", "from_raw", "simulate", "only", "kinds"):
        value = getattr(args, flag)
        if value:
            parts += ["--" + flag.replace("_", "-"), str(value)]
    if args.reps != 5:
        parts += ["--reps", str(args.reps)]
    if args.quick:
        parts.append("--quick")
    return shlex.join(parts)


def calibrate(args: argparse.Namespace) -> int:
    from pipeperf.measure import fit, harness     # nvcc discovery and the fit: only when run
    if args.list:
        return _list(args)
    if not args.out:
        raise PipeperfError("--out FILE.yaml is required")
    if args.reps < 1:
        raise PipeperfError("--reps must be >= 1")
    if args.from_raw and args.simulate:
        raise PipeperfError("give --from-raw or --simulate, not both")
    command = _command(args)
    name = args.gpu_name
    if args.from_raw and (Path(args.from_raw) / "manifest.json").is_file():
        return _from_campaign(Path(args.from_raw), name, command, Path(args.out))
    if args.from_raw:
        raw = Path(args.from_raw)
    elif args.simulate:
        from pipeperf.hardware.spec import load_gpu
        gpu = load_gpu(args.simulate)
        name = name or f"{gpu.name}_simulated"
        raw = Path(args.raw_dir) if args.raw_dir else Path(tempfile.mkdtemp(prefix="pipeperf-sim-"))
        files = harness.simulate_raw(gpu, raw)
        print(f"simulated {gpu.name}: wrote {', '.join(str(f) for f in files)}")
    else:
        raw = _measure(args, command)
    cal = fit.calibrate_directory(raw, name)
    for w in cal.warnings:
        print(f"pipeperf: warning: {w}", file=sys.stderr)
    out = Path(args.out)
    _write(out, fit.spec_yaml(cal, command))
    print("\n".join(fit.summary(cal)))
    print(f"wrote {out} ({len(cal.fits)} classes)")
    peaks = fit.peaks_yaml(cal)
    if peaks is not None:
        pout = Path(args.peaks_out) if args.peaks_out else out.with_name(out.stem + "_peaks" + out.suffix)
        _write(pout, peaks)
        print(f"wrote {pout}")
    return 0


def _from_campaign(folder: Path, name: str | None, command: str, out: Path) -> int:
    """A campaign folder (pipeperf campaign): its calibrate CSVs fitted, with the memory, dispatch
    and atomics numbers of its other steps, each citing its measurement file."""
    from pipeperf.measure import fit
    from pipeperf.measure.campaign.fitted import fitted_yaml
    text, cal = fitted_yaml(folder, name or f"{folder.name}_measured", command)
    for w in cal.warnings:
        print(f"pipeperf: warning: {w}", file=sys.stderr)
    _write(out, text)
    print("\n".join(fit.summary(cal)))
    print(f"wrote {out} ({len(cal.fits)} classes, with the campaign's memory, launch and atomics numbers)")
    return 0


def _measure(args: argparse.Namespace, command: str) -> Path:
    from pipeperf.measure import harness, microbench
    benches = microbench.select(microbench.all_benchmarks(), args.only, args.kinds)
    gpu = harness.detect_gpu("run it on a machine with an NVIDIA GPU, or fit CSVs measured elsewhere "
                             "with --from-raw DIR")             # a clear one-line error without a GPU
    nvcc = harness.require_nvcc()
    name = args.gpu_name or harness.gpu_slug(gpu.name)
    raw = Path(args.raw_dir or Path("data") / "measurements" / name)
    raw.mkdir(parents=True, exist_ok=True)
    print(f"{gpu.name} (CC {gpu.compute_capability}, driver {gpu.driver}): building {len(benches)} benchmarks "
          f"for {gpu.arch}", file=sys.stderr)
    build = Path(args.build_dir) if args.build_dir else harness.cache_dir() / f"bench-{gpu.arch}"
    exe = harness.build_harness(build, gpu.arch, benches, args.jobs, nvcc)
    shutil.copyfile(build / "build.log", raw / "build.log")
    only = ",".join(b.name for b in benches) if (args.only or args.kinds) else None
    harness.run_harness(exe, raw, args.reps, only=only, quick=args.quick, max_seconds=args.max_seconds,
                        label=command)
    return raw


def _list(args: argparse.Namespace) -> int:
    from pipeperf.measure import microbench
    benches = microbench.select(microbench.all_benchmarks(), args.only, args.kinds)
    rows = [("name", "kind", "class", "subsystem", "N/warp", "PTX")]
    for d in microbench.describe(benches):
        rows.append((str(d["name"]), str(d["kind"]), str(d["class"]), str(d["subsystem"]), str(d["n_per_warp"]),
                     str(d["ptx"])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5])
    n = microbench.estimated_launches(benches, reps=args.reps, quick=args.quick)
    print(f"{len(benches)} benchmarks, about {n:,} launches on a GPU with 64 warps and 32 blocks per SM")
    return 0


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise PipeperfError(f"cannot write: {exc.strerror}", file=path) from None
