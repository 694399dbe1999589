"""Where many launches run and what they reuse, shared by ``tune``, ``analyze --batch`` and
``network``: ``--cluster`` (the Dask cluster: ``--scheduler`` is the warp scheduler everywhere),
``--workers``, the results cache; and the check that an output file can be written."""

from __future__ import annotations

import argparse
from typing import Any

from pipeperf.errors import PipeperfError

#: the Dask option's old spellings: given, they fail in one line naming --cluster
OLD_FLAGS = ("--scheduler", "--dask-scheduler")


def add_execution_options(p: argparse.ArgumentParser, group: Any = None, old: tuple[str, ...] = OLD_FLAGS,
                          auto: bool = False) -> None:
    """``--cluster``, ``--workers``, ``--cache-dir``, ``--no-cache`` (in ``group``, else an
    "execution" group of ``p``); ``old``: the former spellings of ``--cluster`` this command still
    recognises, only to say so (a command whose ``--scheduler`` is the warp scheduler leaves it
    out); ``auto``: the cluster may be ``auto`` (``network``: local only when the work is large)."""
    e = group or p.add_argument_group("execution")
    choices = "auto|local|none|tcp://HOST:PORT" if auto else "local|none|tcp://HOST:PORT"
    e.add_argument("--cluster", default="local", metavar=choices,
                   help="local: a Dask cluster of this machine's cores (default); none: a plain loop in this "
                        "process; tcp://HOST:PORT: an existing Dask scheduler's address")
    for flag in old:
        e.add_argument(flag, dest=f"old_{flag.lstrip('-').replace('-', '_')}", help=argparse.SUPPRESS)
    e.add_argument("--workers", type=int, metavar="N", help="worker processes of the local cluster (default: cores)")
    e.add_argument("--cache-dir", metavar="DIR",
                   help="the results cache's folder (default: the pipeperf cache folder's tune/)")
    e.add_argument("--no-cache", action="store_true", help="neither read nor write the results cache")


def check_execution(args: argparse.Namespace, auto: bool = False) -> None:
    """Refuse, in one line, an old spelling of ``--cluster``, a cluster that is not one, or
    ``--workers`` that cannot apply."""
    for flag in OLD_FLAGS:
        value = getattr(args, f"old_{flag.lstrip('-').replace('-', '_')}", None)
        if value is not None:
            raise PipeperfError(f"{flag} {value}: the Dask cluster is now --cluster {value} "
                                "(--scheduler names the warp scheduler, rr or gto)")
    s = args.cluster
    if s not in (("auto", "local", "none") if auto else ("local", "none")) and "://" not in s:
        raise PipeperfError(f"--cluster {s!r}: expected {'auto, ' if auto else ''}local, none or tcp://HOST:PORT")
    if args.workers is not None and args.workers < 1:
        raise PipeperfError(f"--workers {args.workers}: expected a number of processes >= 1")
    if args.workers is not None and s == "none":
        raise PipeperfError("--workers sets the local cluster's size: not with --cluster none")


def open_cache(args: argparse.Namespace):
    """The results cache ``--cache-dir``/``--no-cache`` name (:class:`pipeperf.tune.cache.ResultCache`)."""
    from pipeperf.tune.cache import ResultCache
    from pipeperf.util.cache import cache_dir

    if args.no_cache:
        return ResultCache(None)
    return ResultCache(args.cache_dir or cache_dir() / "tune")


def check_output(option: str, path: str | None) -> None:
    """Refuse an output file in a folder that does not exist before the analysis, not after it."""
    from pathlib import Path

    if path is None:
        return
    parent = Path(path).parent
    if not parent.is_dir():
        raise PipeperfError(f"{option}: no such folder {str(parent)!r} for {path}")
    if Path(path).is_dir():
        raise PipeperfError(f"{option}: {path} is a folder, not a file")
