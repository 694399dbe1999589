"""``pipeperf campaign``: measure a lent GPU in one command, in time-boxed, resumable steps.

Thin: parses the options, finds the GPU (or the spec to simulate), and hands the named steps of
:mod:`pipeperf.measure.campaign.steps` the budget; ``--dry-run`` compiles every benchmark for the
target and lists the steps, without a GPU.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import time
from pathlib import Path

from pipeperf.errors import PipeperfError

DEFAULT_BUDGET = 28.0


def register(subparsers: argparse._SubParsersAction) -> None:
    from pipeperf.measure.campaign.steps import NAMES
    p = subparsers.add_parser(
        "campaign", description="One resumable measurement campaign of the NVIDIA GPU present: device facts, lambda/Lambda "
                    "of every class, DRAM/L2 bandwidth, L1/L2/DRAM latency, block-dispatch cost, same-address "
                    "atomics, occupancy sweeps of corpus kernels and every model's MAPE on them, written under "
                    "data/measurements/GPU/ with a manifest.json. Steps already done are skipped.")
    p.add_argument("--out-dir", metavar="DIR", help="where results go (default: data/measurements/GPU)")
    p.add_argument("--gpu-name", metavar="NAME", help="the GPU's short name (default: from nvidia-smi, e.g. h200)")
    p.add_argument("--reference", metavar="GPU",
                   help="published database entry the models are validated with (default: by the GPU's name)")
    p.add_argument("--step", action="append", choices=NAMES, metavar="STEP",
                   help=f"run only this step (repeatable): {', '.join(NAMES)}")
    p.add_argument("--redo", action="append", default=[], choices=NAMES, metavar="STEP",
                   help="run this step again though it is done")
    p.add_argument("--budget-minutes", type=float, default=DEFAULT_BUDGET,
                   help=f"time for the whole run; steps that do not fit are skipped (default {DEFAULT_BUDGET:g})")
    p.add_argument("--archive", metavar="FILE.tar.gz", help="the results as one archive (default: DIR-campaign.tar.gz)")
    p.add_argument("--arch", metavar="sm_XX", help="target (default: the GPU's; --dry-run: sm_90)")
    p.add_argument("--dry-run", action="store_true", help="compile every benchmark for the target, list the steps")
    p.add_argument("--simulate", metavar="GPU", help="run every step against the Pipeline model of this spec")
    p.add_argument("--quick", action="store_true",
                   help="with --simulate: small grids, 3 sweep kernels, 5 classes (the tests)")
    p.set_defaults(func=campaign)


def campaign(args: argparse.Namespace) -> int:
    from pipeperf.measure.campaign import steps as st
    if args.budget_minutes <= 0:
        raise PipeperfError("--budget-minutes must be positive")
    if args.archive and not args.archive.endswith((".tar.gz", ".tgz")):
        raise PipeperfError("the archive must be a .tar.gz file", file=args.archive)
    if args.dry_run:
        return _dry_run(args, st)
    return _run(args, st)


def _dry_run(args: argparse.Namespace, st) -> int:
    import tempfile

    from pipeperf.measure import harness, microbench
    from pipeperf.measure.campaign.backends import GpuBackend
    from pipeperf.measure.campaign.launches import (atomics_launches, dispatch_launches, dram_launches,
                                                    l2_launches, latency_launches, sweep_launches)
    arch = args.arch or "sm_90"
    nvcc = harness.require_nvcc()
    build = Path(tempfile.mkdtemp(prefix="pipeperf-campaign-dry-"))
    t0 = time.monotonic()
    benches = microbench.all_benchmarks()
    cubins = harness.compile_cubins(build / "calibrate", [arch], benches, units=2, jobs=2, nvcc=nvcc)
    gpu = GpuBackend(arch, build, nvcc)
    launches = [*dram_launches(), *latency_launches(), *l2_launches(), *dispatch_launches(), *atomics_launches(),
                *sweep_launches()]
    for launch in launches:
        _, entries = gpu.compile(launch)
        if launch.kernel not in entries:
            raise PipeperfError(f"no kernel '{launch.kernel}' after compiling", file=launch.cu)
    print(f"compiled for {arch} with nvcc {harness.nvcc_version(nvcc)} in {time.monotonic() - t0:.0f} s: "
          f"{len(benches)} calibrate benchmarks ({len(cubins[arch])} cubins), "
          f"{len(gpu._modules)} modules of {len(launches)} campaign launches")
    total = 0.0
    for s in st.STEPS:
        total += s.box_s
        print(f"  {s.name:<9} {s.box_s / 60:4.1f} min  {s.what}")
    print(f"{len(st.STEPS)} steps, {total / 60:.1f} min of time boxes; budget {args.budget_minutes:g} min")
    shutil.rmtree(build, ignore_errors=True)
    return 0


def _run(args: argparse.Namespace, st) -> int:
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.measure import harness
    from pipeperf.measure.campaign.backends import GpuBackend, SimBackend
    from pipeperf.measure.campaign.manifest import load_manifest
    command = shlex.join(["pipeperf", "campaign", *sys.argv[2:]]) if sys.argv[1:2] == ["campaign"] else "pipeperf campaign"
    deadline = time.monotonic() + args.budget_minutes * 60
    quick = bool(args.simulate and args.quick)
    gpu = None
    if args.simulate:
        spec = load_gpu(args.simulate)
        name = args.gpu_name or f"{spec.name}_simulated"
    elif args.gpu_name or args.out_dir:
        name = args.gpu_name or Path(args.out_dir).name
    else:
        gpu = _detect()
        name = harness.gpu_slug(gpu.name)
    folder = Path(args.out_dir or Path("data") / "measurements" / name)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PipeperfError(f"cannot make the folder: {exc.strerror}", file=folder) from None
    manifest = load_manifest(folder, name)
    c = st.Campaign(folder, None, manifest, "", 0.0, simulate=args.simulate,
                    scale=1 / 256 if quick else 1.0, sweep_factor=16 if quick else (64 if args.simulate else 4096),
                    sweep_names=("saxpy", "reduce_shared", "math_fp32") if quick else None,
                    calibrate_classes=["mul_f32", "cos_f32", "fma_f64", "add_s32", "ld_shared_f32"] if quick else None,
                    deadline=deadline, log=lambda line: print(line, flush=True),
                    archive=Path(args.archive) if args.archive else None)
    steps = st.scaled_steps(c.scale)
    only = list(args.step or [])
    todo = st.pending(c, steps, only, args.redo)
    if args.simulate:
        c.backend = SimBackend(args.simulate)
        manifest.reference = args.reference or manifest.reference or args.simulate
        manifest.clock_ghz = manifest.clock_ghz or spec.clock_ghz
        manifest.arch = manifest.arch or "simulated"
    elif any(s.needs_gpu for s in todo):
        gpu = gpu or _detect()                    # one line and exit 2 without one
        nvcc = harness.require_nvcc()
        arch = args.arch or gpu.arch
        manifest.reference = args.reference or manifest.reference or _reference_for(gpu.name)
        manifest.clock_ghz = (gpu.max_sm_clock_mhz or load_gpu(manifest.reference).clock_ghz * 1e3) / 1e3
        manifest.arch = arch
        c.backend = GpuBackend(arch, harness.cache_dir() / f"campaign-{arch}", nvcc)
        if only and "device" not in only and not manifest.done("device", folder):
            only = ["device", *only]              # the manifest's facts and clocks come from it
    else:
        manifest.reference = args.reference or manifest.reference
        if any(s.name in ("fit", "validate") for s in todo) and not manifest.reference:
            raise PipeperfError("which published entry to compare with? give --reference GPU", file=folder / "manifest.json")
    c.reference, c.clock_ghz = manifest.reference, manifest.clock_ghz
    manifest.nvcc = manifest.nvcc or st.nvcc_release()
    out = st.run_steps(c, steps, only, args.redo, command)
    print(f"{folder}/manifest.json: {len(out.ran)} ran, {len(out.skipped)} skipped, {len(out.failed)} failed"
          + (f" ({', '.join(out.failed)})" if out.failed else ""))
    return 1 if out.failed else 0


def _detect():
    from pipeperf.measure import harness
    try:
        return harness.detect_gpu("pipeperf campaign measures one; --dry-run compiles the benchmarks without it, "
                                  "--simulate GPU runs the steps on the Pipeline model")
    except PipeperfError as exc:
        raise PipeperfError(str(exc).replace("no CUDA GPU found", "no NVIDIA GPU found", 1)) from None


def _reference_for(device_name: str) -> str:
    """The database entry whose full name matches nvidia-smi's best (the validate reference)."""
    from pipeperf.hardware.spec import available_gpus, load_gpu
    words = set(device_name.lower().replace("-", " ").split()) - {"nvidia", "geforce", "tesla"}
    best, score = "hopper_h100", 0
    for n in available_gpus():
        full = set(load_gpu(n).full_name.lower().replace("-", " ").split())
        s = len(words & full)
        if s > score:
            best, score = n, s
    return best
