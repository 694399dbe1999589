"""``pipeperf models``: every analytical occupancy model and the Pipeline simulator on one kernel."""

from __future__ import annotations

import argparse
import json

from pipeperf.cli.common import load_kernel_arg, resolve_gpu
from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import GPUSpec
from pipeperf.idg import BUNDLED
from pipeperf.models.compare import ALL_MODELS, evaluate, parse_models
from pipeperf.util.ranges import parse_int_range

DESCRIPTION = """\
Warps per cycle per core at each occupancy (concurrent warps) for the analytical models of
Lemeire et al. -- Roofline, Volkov, Transit, MWP-CWP and MWP-CWP*, WFG and WFG*, GPUMech RR,
GTO and RR* -- and the Pipeline simulator's steady state, all from the same IDG and GPU spec.
Models: """ + ", ".join(ALL_MODELS)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("models", description=DESCRIPTION)
    add_kernel_arguments(p, "kernel", "IDG")
    p.add_argument("--warps", metavar="RANGE", help="occupancies, e.g. 1-64, 1,2,4-8 or 1-64:4 "
                   "(default: 1 to the GPU's warps per core)")
    p.add_argument("--models", metavar="LIST", help="comma-separated subset of the models (default: all)")
    p.add_argument("--json", action="store_true", help="print a JSON document instead of a table")
    p.add_argument("--plot", metavar="FILE.png", help="write the Fig. 2 / Fig. 14 style chart")
    p.set_defaults(func=run)


def add_kernel_arguments(p: argparse.ArgumentParser, dest: str, metavar: str, many: bool = False) -> None:
    """Kernel, GPU and simulator options shared with ``pipeperf compare``."""
    if many:
        p.add_argument("--kernel", dest=dest, action="append", default=[], metavar=metavar,
                       help=f"IDG file (YAML/JSON) or bundled kernel ({', '.join(BUNDLED)}); "
                            "one per measured file, or one for all")
    else:
        p.add_argument(dest, metavar=metavar,
                       help=f"IDG file (YAML/JSON) or bundled kernel: {', '.join(BUNDLED)}")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="parameter of a bundled kernel (repeatable)")
    p.add_argument("--gpu", metavar="NAME|FILE", help="GPU spec (default for bundled kernels: their own)")
    p.add_argument("--scheduler", choices=("rr", "gto"), default="rr", help="Pipeline simulator's scheduler")
    p.add_argument("--runs", type=int, metavar="N",
                   help="rounds of omega warps simulated per occupancy (default: 32 for short "
                        "kernels, fewer for long ones, at least 4)")


def warps_for(text: str | None, gpu: GPUSpec) -> list[int]:
    warps = parse_int_range(text or f"1-{gpu.max_warps_per_core}", "--warps")
    if warps[-1] > gpu.max_warps_per_core:
        raise PipeperfError(f"occupancy {warps[-1]} exceeds GPU '{gpu.name}' limit of "
                            f"{gpu.max_warps_per_core} warps per core")
    return warps


def run(args: argparse.Namespace) -> int:
    kernel, default_gpu = load_kernel_arg(args.kernel, args.param)
    gpu = resolve_gpu(args.gpu, default_gpu)
    ev = evaluate(kernel, gpu, warps_for(args.warps, gpu), parse_models(args.models), args.scheduler, args.runs)
    if args.plot:
        from pipeperf.report.model_plots import plot_models

        plot_models(ev, args.plot)
    if args.json:
        print(json.dumps(ev.to_dict(), indent=1))
    else:
        from pipeperf.report.models_text import format_models_table

        print(format_models_table(ev))
    return 0
