"""``pipeperf reproduce``: run the source papers' experiments (pipeperf.experiments) end to end."""

from __future__ import annotations

import argparse
from pathlib import Path

#: where the committed results live (relative to the repository root, the usual working directory)
DEFAULT_OUT = Path("validation/results/reproduce")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "reproduce", description="Run the papers' experiments and write each one's tables (CSV, Markdown) "
                                 "and figures with the paper's printed numbers beside ours.")
    p.add_argument("names", nargs="*", metavar="NAME", help="experiments to run (default: all; see --list)")
    p.add_argument("--list", action="store_true", help="name every experiment and what it reproduces")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                   help=f"output folder, one subfolder per experiment (default: {DEFAULT_OUT})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipeperf.experiments import EXPERIMENTS, module
    from pipeperf.experiments import run as run_one

    names = args.names or list(EXPERIMENTS)
    mods = [module(n) for n in names]            # every name checked before anything runs
    if args.list:
        for n, m in zip(names, mods):
            print(f"{n:28s} {m.TITLE}\n{'':28s} ({m.SOURCE})")
        return 0
    for n in names:
        print(f"{n}: running ...", flush=True)
        print(f"{n}: wrote {run_one(n, args.out)}", flush=True)
    return 0
