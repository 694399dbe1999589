"""``pipeperf validate``: score every model on measured occupancy sweeps (Tables 10-12 style)."""

from __future__ import annotations

import argparse
import json

from pipeperf.cli.models import add_kernel_arguments, load_kernel_arg, resolve_gpu
from pipeperf.errors import PipeperfError
from pipeperf.measure.validate import validate
from pipeperf.models.compare import parse_models
from pipeperf.models.curve import jsonable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", description="Read occupancy sweeps measured with 'pipeperf measure --sweep-occupancy' "
                                   "(or warps,warps_per_cycle|seconds curves) and score every model with "
                                   "MAPE and MAPE_shape, as in Tables 10-12; or, with --suite, predict every "
                                   "published measurement of a validation suite (validation/) and report "
                                   "each model's MAPE overall, per GPU and per kernel family.")
    p.add_argument("measured", nargs="*", metavar="MEASURED.csv")
    p.add_argument("--suite", metavar="DIR", help="a validation suite folder (cases/*.yaml, kernels/)")
    p.add_argument("--only-gpu", action="append", default=[], metavar="NAME", help="suite: cases on this GPU (repeat)")
    p.add_argument("--family", action="append", default=[], help="suite: cases of this family (repeat)")
    p.add_argument("--case", action="append", default=[], metavar="GLOB", help="suite: case ids matching (repeat)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="suite: launches analysed in parallel")
    p.add_argument("--isa", choices=("ptx", "sass", "both"), default="ptx",
                   help="suite: IDGs from the PTX, from the SASS (analyze --isa), or both side by side")
    p.add_argument("--case-timeout", type=float, default=900.0, metavar="S",
                   help="suite: seconds one launch's analysis may take before it is stopped (default: %(default)s)")
    add_kernel_arguments(p, "kernels", "IDG", many=True)
    p.add_argument("--models", metavar="LIST", help="comma-separated subset (default: all)")
    p.add_argument("--total-warps", type=float, metavar="N", help="warps of the whole launch (else from the CSV)")
    p.add_argument("--plot", metavar="FILE.png", help="measured vs models chart (first file; one per file "
                   "with several: FILE-<name>.png)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.suite:
        return run_suite_cli(args)
    if not args.measured:
        raise PipeperfError("give MEASURED.csv files (with --kernel), or --suite DIR")
    if not args.kernels:
        raise PipeperfError("measured sweeps need --kernel IDG (one per file, or one for all)")
    if len(args.kernels) not in (1, len(args.measured)):
        raise PipeperfError(f"{len(args.measured)} measured files need one --kernel each (or one for all)")
    models = parse_models(args.models)
    kernels = args.kernels * len(args.measured) if len(args.kernels) == 1 else args.kernels
    results = []
    for path, karg in zip(args.measured, kernels):
        kernel, default_gpu = load_kernel_arg(karg, args.param)
        gpu = resolve_gpu(args.gpu, default_gpu)
        v = validate(path, kernel, gpu, models, args.total_warps, args.scheduler, args.runs)
        results.append(v)
        if args.plot:
            out = args.plot if len(args.measured) == 1 else args.plot.replace(".png", f"-{v.measured.name}.png")
            from pipeperf.report.model_plots import plot_validation   # matplotlib: only to plot

            plot_validation(v, out)
    if args.json:
        print(json.dumps(jsonable({"models": models, "kernels": [
            {"name": v.measured.name, "measured": v.measured.path, "kernel": v.evaluation.kernel,
             "gpu": v.evaluation.gpu, "warps": v.measured.warps, "measured_wpc": v.measured.warps_per_cycle,
             "mape": v.accuracy.mape, "mape_shape": v.accuracy.mape_shape} for v in results]}), indent=1))
        return 0
    from pipeperf.report.models_text import format_accuracy_table

    print(format_accuracy_table([v.accuracy for v in results], models))
    return 0


def run_suite_cli(args: argparse.Namespace) -> int:
    """``pipeperf validate --suite DIR``: every case predicted, MAPE tables, optional JSON and plot."""
    import sys

    from pipeperf.measure.suite import load_suite, results_json, run_suite, selector, summarise
    from pipeperf.report.suite_report import format_isa_comparison, format_summary, plot_suite

    cases = load_suite(args.suite, selector(args.only_gpu, args.family, args.case))
    if not cases:
        raise PipeperfError("no case of the suite matches --only-gpu/--family/--case", file=args.suite)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done}/{total} launches analysed", end="" if done < total else "\n", file=sys.stderr)
        elif done == total or done % max(1, total // 20) == 0:      # a log file: a line every 5 %
            print(f"{done}/{total} launches analysed", file=sys.stderr, flush=True)

    isas = ("ptx", "sass") if args.isa == "both" else (args.isa,)
    runs = {}
    for isa in isas:
        results = run_suite(cases, jobs=max(1, args.jobs), progress=progress, timeout=args.case_timeout, isa=isa)
        runs[isa] = (results, summarise(results))
    if args.plot:
        plot_suite(runs[isas[-1]][0], args.plot)
    if args.json:
        print(results_json(*runs[isas[0]]) if len(isas) == 1 else
              "{" + ", ".join(f'"{isa}": {results_json(*runs[isa])}' for isa in isas) + "}")
        return 0
    for isa in isas:
        if len(isas) > 1:
            print(f"== IDGs from the {isa.upper()}")
        print(format_summary(runs[isa][1], parse_models(args.models) if args.models else None))
    if len(isas) > 1:
        print(format_isa_comparison(runs["ptx"][1], runs["sass"][1]))
    if args.plot:
        print(f"plot: {args.plot}")
    return 0
