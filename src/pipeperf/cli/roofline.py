"""``pipeperf roofline``: Konstantinidis' quantitative roofline for kernels x GPUs."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from collections.abc import Mapping
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import load_peaks
from pipeperf.measure.ncu_csv import NCU_COMMAND, read_ncu_csv
from pipeperf.measure.nvprof_csv import read_nvprof_csv
from pipeperf.models.quantitative import (
    KERNEL_TYPES,
    KernelMetrics,
    metrics_from_profile,
    predict,
    read_profile_json,
)
from pipeperf.report.quantitative_text import format_predictions, predictions_document

DESCRIPTION = """\
Predict kernel time on target GPUs with Konstantinidis' quantitative roofline (Eqs. 2-19):
kernel counts from a reference-GPU profile (Nsight Compute or nvprof CSV) or from pipeperf's
emulator, GPU peaks from the database or a YAML written by 'pipeperf gpu import-mixbench'.

Collect the ncu CSV with:
  """ + NCU_COMMAND


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("roofline", description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    source = p.add_mutually_exclusive_group()
    source.add_argument("--ncu", metavar="FILE.csv", help="Nsight Compute CSV (long or raw page)")
    source.add_argument("--nvprof", metavar="FILE.csv", help="nvprof --csv --metrics output")
    source.add_argument("--profile", metavar="FILE.json", help="pipeperf emulator profile JSON")
    p.add_argument("kernel_source", nargs="?", metavar="KERNEL.cu",
                   help="profile this CUDA source with pipeperf's emulator")
    p.add_argument("--grid", help="grid size for KERNEL.cu, e.g. 1024 or 64,64")
    p.add_argument("--block", help="block size for KERNEL.cu, e.g. 256 or 16,16")
    p.add_argument("--arg", action="append", default=[], metavar="[NAME=]VALUE",
                   help="kernel argument for KERNEL.cu (repeat), as for profile: README.md, 'Kernel arguments'")
    from pipeperf.cli.nvcc_options import add_nvcc_options

    add_nvcc_options(p)
    p.add_argument("--gpu", action="append", required=True, metavar="NAME|FILE.yaml",
                   help="target GPU: database name or peaks YAML (repeatable)")
    p.add_argument("--kernel", metavar="REGEX", help="keep only kernels whose name matches")
    p.add_argument("--type", choices=KERNEL_TYPES, help="force K_type instead of the paper's rule")
    p.add_argument("--json", action="store_true", help="print the JSON document instead of a table")
    p.add_argument("--plot", metavar="FILE.png", help="write the roofline chart")
    p.add_argument("--quadrant", metavar="FILE.png", help="write the quadrant-split chart")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    gpus = [load_peaks(spec) for spec in args.gpu]
    if args.kernel_source and not (args.ncu or args.nvprof or args.profile):
        kernels, preds = _analyze_source(args, gpus)
    else:
        kernels = _select(_load_kernels(args), args.kernel)
        preds = [predict(k, g, args.type) for k in kernels for g in gpus]
    if args.plot or args.quadrant:
        from pipeperf.report.roofline_plots import plot_quadrant_split, plot_roofline

        if args.plot:
            plot_roofline(preds, args.plot)
        if args.quadrant:
            plot_quadrant_split(preds, args.quadrant)
    if args.json:
        print(json.dumps(predictions_document(kernels, gpus, preds), indent=2))
    else:
        print(format_predictions(preds))
    return 0


def _load_kernels(args: argparse.Namespace) -> list[KernelMetrics]:
    chosen = [flag for flag in ("ncu", "nvprof", "profile") if getattr(args, flag)]
    if args.kernel_source and chosen:
        raise PipeperfError(f"give either KERNEL.cu or --{chosen[0]}, not both")
    if args.ncu:
        return read_ncu_csv(args.ncu)
    if args.nvprof:
        return read_nvprof_csv(args.nvprof)
    if args.profile:
        return read_profile_json(args.profile)
    if args.kernel_source:
        return _profile_source(args)
    raise PipeperfError("no kernel given: use --ncu FILE.csv, --nvprof FILE.csv, "
                        "--profile FILE.json or KERNEL.cu --grid ... --block ...")


def _analyze_source(args: argparse.Namespace, gpus: list) -> tuple[list[KernelMetrics], list]:
    """KERNEL.cu on each GPU: for a GPU of the database, the counts of ``analyze``'s emulation and
    the DRAM traffic of that GPU's cache model (:mod:`pipeperf.analysis.roofline_counts`), so this
    command and ``analyze``'s quantitative_roofline row are one number (a user's GPU file or
    folder GPU alike); for a GPU with only Table 3
    peaks (no caches to model), the emulator's whole-launch profile with its global sectors as
    the DRAM traffic (an upper bound, said in the notes)."""
    from pipeperf.analysis import analyze
    from pipeperf.hardware.peaks import has_spec

    if not args.grid or not args.block:
        raise PipeperfError("KERNEL.cu needs --grid and --block")
    refs = {g.name: arg for arg, g in zip(args.gpu, gpus) if has_spec(arg)}   # what analyze loads
    in_db = [g for g in gpus if g.name in refs]
    metrics: dict[str, KernelMetrics] = {}
    if in_db:
        from pipeperf.cli.nvcc_options import nvcc_flags

        a = analyze(args.kernel_source, args.grid, args.block, args.arg, [refs[g.name] for g in in_db],
                    kernel=args.kernel, what_if=False, nvcc_flags=nvcc_flags(args))
        for p in a.predictions:
            if not p.quantitative:
                raise PipeperfError(f"{p.gpu}: {p.predictions['quantitative_roofline'].get('unsupported')}",
                                    file=args.kernel_source)
            m = p.quantitative.metrics
            metrics[p.gpu] = replace(m, info={**m.info, "gpu": p.gpu})
    others = [g for g in gpus if g.name not in metrics]
    if others:
        whole = _profile_source(args)[0]
        for g in others:
            metrics[g.name] = replace(whole, info={**whole.info, "gpu": g.name})
    kernels = [metrics[g.name] for g in gpus]
    return kernels, [predict(metrics[g.name], g, args.type) for g in gpus]


def _profile_source(args: argparse.Namespace) -> list[KernelMetrics]:
    """Counts of a CUDA source from pipeperf's emulator (``pipeperf.emulate.profile``)."""
    import pipeperf.emulate as emulate

    profile = getattr(emulate, "profile", None)
    if profile is None:
        raise PipeperfError("profiling CUDA source needs the emulator (pipeperf.emulate), "
                            "not yet available")
    if not args.grid or not args.block:
        raise PipeperfError("KERNEL.cu needs --grid and --block")
    from pipeperf.cli.nvcc_options import nvcc_flags

    result: Any = profile(args.kernel_source, grid=args.grid, block=args.block, args=args.arg,
                          nvcc_flags=nvcc_flags(args))
    if hasattr(result, "to_dict"):
        result = result.to_dict()
    if isinstance(result, Mapping) and isinstance(result.get("kernels"), list):
        return [metrics_from_profile(k["counts"], str(k.get("name", "kernel")), args.kernel_source)
                for k in result["kernels"]]
    if isinstance(result, Mapping):
        return [metrics_from_profile(result, str(result.get("name", args.kernel_source)),
                                     args.kernel_source)]
    raise PipeperfError("pipeperf.emulate.profile returned no counts", file=args.kernel_source)


def _select(kernels: list[KernelMetrics], pattern: str | None) -> list[KernelMetrics]:
    if not pattern:
        return kernels
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise PipeperfError(f"--kernel: invalid regular expression: {exc}") from exc
    kept = [k for k in kernels if regex.search(k.name)]
    if not kept:
        names = ", ".join(k.name for k in kernels)
        raise PipeperfError(f"--kernel {pattern!r} matches none of: {names}")
    return kept
