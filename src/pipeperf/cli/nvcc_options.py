"""The nvcc options of the commands that compile a ``.cu`` file (analyze, profile, measure): -D, -I and
any other flag, so application code with headers or size macros is analysed as it is built."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_nvcc_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="preprocessor definition for nvcc (repeat)")
    p.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR",
                   help="include directory for nvcc (repeat)")
    p.add_argument("--nvcc-flag", action="append", default=[], metavar="FLAG",
                   help="any other nvcc flag, e.g. --nvcc-flag=-std=c++17 (repeat)")


def nvcc_flags(args: argparse.Namespace) -> list[str]:
    """-D, -I (absolute, since nvcc runs in a temporary folder) and --nvcc-flag, in that order."""
    return ([f"-D{d}" for d in args.defines] + [f"-I{Path(i).resolve()}" for i in args.includes]
            + list(args.nvcc_flag))
