"""``pipeperf compare``: MAPE and MAPE_shape of every model against measured occupancy curves."""

from __future__ import annotations

import argparse
import json

from pipeperf.cli.models import add_kernel_arguments, load_kernel_arg, resolve_gpu
from pipeperf.errors import PipeperfError
from pipeperf.models.compare import ALL_MODELS, accuracy, evaluate, parse_models
from pipeperf.models.curve import jsonable
from pipeperf.models.measured import read_measured

DESCRIPTION = """\
Accuracy of the occupancy models against measured curves, as in Tables 10-12 of Lemeire et al.:
MAPE and MAPE_shape (the MAPE left after subtracting the best linear fit of the differences).
A measured CSV has a 'warps' column and 'warps_per_cycle' (per core) or 'seconds' (then the
kernel's total warps: a 'total_warps' column or --total-warps). Models: """ + ", ".join(ALL_MODELS)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("compare", description=DESCRIPTION)
    p.add_argument("measured", nargs="+", metavar="MEASURED.csv", help="measured occupancy curve(s)")
    add_kernel_arguments(p, "kernels", "IDG", many=True)
    p.add_argument("--models", metavar="LIST", help="comma-separated subset of the models (default: all)")
    p.add_argument("--total-warps", type=float, metavar="N", help="warps of the whole kernel launch "
                   "(converts a 'seconds' column to warps per cycle per core)")
    p.add_argument("--json", action="store_true", help="print a JSON document instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if len(args.kernels) not in (1, len(args.measured)):
        raise PipeperfError(f"{len(args.measured)} measured files need one --kernel each (or one for all), "
                            f"got {len(args.kernels)}")
    if args.total_warps is not None and args.total_warps <= 0:
        raise PipeperfError("--total-warps must be positive")
    models = parse_models(args.models)
    kernels = args.kernels * len(args.measured) if len(args.kernels) == 1 else args.kernels
    results, docs = [], []
    for csv_path, kernel_arg in zip(args.measured, kernels):
        kernel, default_gpu = load_kernel_arg(kernel_arg, args.param)
        gpu = resolve_gpu(args.gpu, default_gpu)
        meas = read_measured(csv_path, gpu, args.total_warps)
        ev = evaluate(kernel, gpu, meas.warps, models, args.scheduler, args.runs)
        acc = accuracy(meas.name, ev, meas.warps_per_cycle)
        results.append(acc)
        docs.append({"name": meas.name, "measured": meas.path, "kernel": kernel.name, "gpu": gpu.name,
                     "warps": meas.warps, "measured_wpc": meas.warps_per_cycle, "mape": acc.mape,
                     "mape_shape": acc.mape_shape, "unsupported": acc.reasons,
                     "predicted": {n: c.warps_per_cycle_list() for n, c in ev.curves.items()}})
    if args.json:
        print(json.dumps(jsonable({"models": models, "kernels": docs}), indent=1))
    else:
        from pipeperf.report.models_text import format_accuracy_table

        print(format_accuracy_table(results, models))
    return 0
