"""The launch options of the commands that run a kernel (profile, analyze, measure): --kernel,
--grid, --block, --arg and --shared (alias --smem), defined once with one help text, so the three
take the same spellings (the grammar: :mod:`pipeperf.util.launch_args`, README "Kernel arguments")."""

from __future__ import annotations

import argparse

from pipeperf.errors import PipeperfError
from pipeperf.util.launch_args import TYPES, ArgSpec, parse_arg

ARG_HELP = ("kernel argument (repeat): [NAME=]VALUE, VALUE a number, TYPE:NUMBER, FILL:TYPE:COUNT[:LO:HI] "
            "or FILE.npy (below)")

#: the grammar in short, shown under each command's --help (the README's table is the reference)
EPILOG = f"""kernel arguments (--arg [NAME=]VALUE; the same in profile, analyze and measure;
README.md, "Kernel arguments"):
  512  -3  0x10  2.5        a number, typed by its parameter (an integer parameter takes a whole number)
  f32:2.5  u64:7            TYPE:NUMBER, a typed scalar; TYPE one of {' '.join(TYPES)}
  rand:f32:N[:LO:HI]        a buffer of N random values (floats in [0,1), integers 0..99; or in [LO,HI))
  zeros|ones|arange:TYPE:N  a buffer of zeros, ones or 0,1,2,... (iota is arange)
  FILE.npy                  a buffer holding a NumPy array (for a struct passed by value: its bytes)
  2.0  1.0,1.0  1,2,3,4     a vector or half passed by value (__half, half2, float4, int4...): its elements
NAME is the parameter's CUDA name in a .cu file (or its PTX name, or its position 0..); an unnamed
value goes to the parameter after the previous argument's. --shared BYTES (or --smem): dynamic
shared memory per block."""


def add_launch_options(p: argparse.ArgumentParser, required: bool = True) -> None:
    """``required=False``: --grid and --block are checked by the command (analyze --batch needs neither)."""
    p.add_argument("--kernel", metavar="NAME",
                   help="kernel: its CUDA name (stencil5, unique), name<args> (axpy<__half>), signature "
                        "(axpy<float>(int, float, const float*, float*)) or PTX entry (_Z8stencil5PKfPfii); "
                        "needed when the file has several")
    p.add_argument("--grid", required=required, metavar="X[,Y[,Z]]", help="grid size in blocks, e.g. 1024 or 64,64")
    p.add_argument("--block", required=required, metavar="X[,Y[,Z]]", help="block size in threads, e.g. 256 or 16,16")
    p.add_argument("--arg", action="append", default=[], metavar="[NAME=]VALUE", help=ARG_HELP)
    p.add_argument("--shared", "--smem", dest="shared", default="0", metavar="BYTES",
                   help="dynamic shared memory per block, in bytes (default 0)")
    p.add_argument("--allow-dtype-mismatch", action="store_true",
                   help="take a FILE.npy whose dtype is not its pointer parameter's element type (its "
                        "bytes as they are); by default refused, as a float64 file for a float* would be "
                        "read as pairs of floats")


def add_oob_option(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--oob, spelled once for the commands that emulate (profile, analyze)."""
    p.add_argument("--oob", choices=("error", "warn"), default="error",
                   help="an out-of-bounds global access: 'error' stops with its source line (default); "
                        "'warn' goes on (loads read zeros, stores are dropped) and counts them per line")


def add_budget_option(p: argparse.ArgumentParser | argparse._ArgumentGroup, default: int | None) -> None:
    """--max-steps, the emulation's step budget (:mod:`pipeperf.emulate.budget`), spelled and explained
    once for every command that emulates; ``default=None``: the analysis' own default."""
    shown = "the default" if default is None else f"default {default}"
    p.add_argument("--max-steps", type=int, default=default, metavar="N",
                   help=f"the emulation's step budget ({shown}: seconds of emulation): a loop still running after N steps, each "
                        "weighted by its width, stops with one line naming it (a flag nobody sets); raise it for a "
                        "launch that really runs that long")


def shared_bytes(args: argparse.Namespace) -> int:
    """--shared/--smem as a number of bytes; anything else is a one-line error."""
    try:
        n = int(str(args.shared), 0)
    except ValueError:
        n = -1
    if n < 0:
        raise PipeperfError(f"--shared '{args.shared}': expected a number of bytes >= 0")
    return n


def launch_specs(args: argparse.Namespace) -> list[ArgSpec]:
    """Every --arg parsed, so a misspelling fails before anything is compiled or run (the same
    one-line error in every command); binding them to parameters needs the kernel, later."""
    return [parse_arg(a) for a in args.arg]
