"""Entry point of the ``pipeperf`` command.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``; adding a command means adding its name and help line to
``COMMANDS``. User errors (:class:`PipeperfError`) become one line on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from pipeperf._version import __version__
from pipeperf.errors import PipeperfError

#: every command (a module of this package with ``register(subparsers)``) and its line in the top-level
#: help, which is built from this table alone: ``pipeperf --help`` and ``--version`` import no command
COMMANDS: dict[str, str] = {
    "ptx": "parse PTX (or compile CUDA with nvcc) and summarise every kernel",
    "simulate": "simulate a kernel's IDG on a GPU (Pipeline model)",
    "roofline": "quantitative roofline prediction (Konstantinidis)",
    "gpu": "GPU database (list, show) and roofline peaks (peaks, import-mixbench)",
    "sw26010": "SW26010 static performance model (predict, analyze, tune)",
    "models": "analytical occupancy models vs the Pipeline simulator",
    "compare": "MAPE / MAPE_shape of the models on measured curves",
    "profile": "emulate a kernel launch and profile it (SIMT/HyPA)",
    "calibrate": "micro-benchmark this GPU and write its spec YAML",
    "measure": "time a CUDA kernel on this GPU (over occupancies)",
    "validate": "MAPE / MAPE_shape of every model on measured sweeps",
    "analyze": "predict a kernel's run time on GPUs from its source",
    "campaign": "measure this GPU: calibrate, memory, dispatch, atomics, sweeps, validate",
    "tune": "rank a kernel's variants (macros, templates, launch shapes) by predicted time",
    "network": "predict a whole CNN (ONNX graph) per layer on GPUs",
    "reproduce": "run the source papers' experiments; tables and figures beside the papers' numbers",
}
#: top-level options that may come before the command
_LEADING = re.compile(r"-[vq]+|--verbose|--quiet|--")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given ``argv`` that names a command, only that command's module
    is imported and only its parser is built (3 ms of argparse and the imports of all the others
    saved). Without one (``--help``, ``--version``, no or an unknown command) each command is a
    stub with its line of :data:`COMMANDS`: the top-level help and argparse's errors need no more."""
    wanted = _command_of(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="pipeperf",
        description="Predict and explain GPU kernel performance without running it.",
    )
    parser.add_argument("--version", action="version", version=f"pipeperf {__version__}")
    add_verbosity(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    if wanted is None:
        for name, line in COMMANDS.items():
            sub.add_parser(name, help=line, add_help=False)
    else:
        importlib.import_module(f"pipeperf.cli.{wanted}").register(sub)
    return parser


def add_verbosity(parser: argparse.ArgumentParser) -> None:
    """``-v``/``-q`` (before or after the command): the level of the standard ``logging`` messages
    on stderr (what each stage does and how long it took), and whether progress bars show."""
    parser.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="say what each stage does on stderr (-vv: more)")
    parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="only errors on stderr: no notes of the stages, no progress bars")


def set_verbosity(args: argparse.Namespace) -> None:
    """The ``pipeperf`` logger's level and one handler of its own that writes to whatever
    ``sys.stderr`` is when a message comes (so redirections and test captures see it)."""
    import logging

    class _Stderr(logging.StreamHandler):
        def emit(self, record: logging.LogRecord) -> None:
            self.stream = sys.stderr
            super().emit(record)

    verbose, quiet = getattr(args, "verbose", 0), getattr(args, "quiet", False)
    level = logging.ERROR if quiet else {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    logger = logging.getLogger("pipeperf")
    logger.setLevel(level)
    logger.propagate = False
    for h in [h for h in logger.handlers if getattr(h, "_pipeperf_cli", False)]:
        logger.removeHandler(h)
    handler = _Stderr()
    handler._pipeperf_cli = True          # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("pipeperf: %(message)s"))
    logger.addHandler(handler)


def _command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word after the verbosity options that may precede it),
    if it is one of ours and no option before it asks for the top-level help or version."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in COMMANDS else None
        if not _LEADING.fullmatch(a):
            return None                 # -h, --help, --version or a mistake: the top level
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "logs", True):     # a command that never logs spares logging's import
        set_verbosity(args)
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
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (stays open until exit)
        except OSError:
            pass
        return 0
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
