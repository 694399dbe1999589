"""Entry point of the ``pipeperf`` command.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``; adding a command means adding its module name to
``COMMANDS``. User errors (:class:`PipeperfError`) become one line on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from pipeperf import __version__
from pipeperf.errors import PipeperfError

# Module names under pipeperf.cli, each with register(subparsers).
COMMANDS: list[str] = [
    "ptx",
    "simulate",
    "roofline",
    "gpu",
    "sw26010",
    "models",
    "compare",
    "profile",
    "calibrate",
    "measure",
    "validate",
    "analyze",
]


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given ``argv`` that names a command, only that command's module
    is imported (the others get bare placeholders: their help is never printed then), so a
    command does not pay for the imports of all the others."""
    wanted = _command_of(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="pipeperf",
        description="Predict and explain GPU kernel performance without running it.",
    )
    parser.add_argument("--version", action="version", version=f"pipeperf {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        if wanted is None or name == wanted:
            importlib.import_module(f"pipeperf.cli.{name}").register(sub)
        else:
            sub.add_parser(name)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option), if it is one of ours and
    no option before it asks for the top-level help."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in COMMANDS else None
        if a not in ("--",):
            return None                 # -h, --help, --version or a mistake: the whole parser
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        rc = args.func(args)
    except PipeperfError as exc:
        print(f"pipeperf: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pipeperf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:             # output piped into head & co.: not an error
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
