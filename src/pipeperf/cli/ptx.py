"""``pipeperf ptx FILE.ptx|FILE.cu [--json]``: static summary of a PTX module."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pipeperf.errors import PipeperfError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "ptx",
        description="Parse a PTX file, or compile a .cu file to PTX with nvcc, and print for "
                    "each kernel its parameters, registers, static instruction counts by "
                    "category, basic blocks and branches.",
    )
    p.add_argument("file", help="a .ptx file, or a .cu file compiled with nvcc -ptx")
    p.add_argument("--arch", default="sm_90", help="nvcc target for .cu files (default sm_90)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    from pipeperf.cli.nvcc_options import add_nvcc_options

    add_nvcc_options(p)
    from pipeperf.cli.check_ptxas import add_check_ptxas_option

    add_check_ptxas_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipeperf.cli.check_ptxas import check_ptxas
    from pipeperf.cli.nvcc_options import nvcc_flags
    from pipeperf.ptx.load import compiled_label, load_module
    from pipeperf.ptx.summary import format_summary, summarize_module

    path = Path(args.file)
    if not path.exists():
        raise PipeperfError("no such file", file=str(path))
    check_ptxas(args, args.file)
    module = load_module(path, args.arch, nvcc_flags(args))
    summary = summarize_module(module)
    if path.suffix == ".cu":                  # the summary is of nvcc's PTX for that target
        summary["file"] = compiled_label(path, args.arch)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_summary(summary))
    return 0
