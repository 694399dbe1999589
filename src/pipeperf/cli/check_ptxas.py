"""``--check-ptxas`` of the commands that read a user's PTX (ptx, profile, analyze): ptxas' verdict
before pipeperf's own (:mod:`pipeperf.ptx.ptxas_check`)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

log = logging.getLogger(__name__)


def add_check_ptxas_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check-ptxas", action="store_true",
                   help="also assemble a .ptx file with ptxas (for its .target) and report ptxas' first error; "
                        "skipped with a warning where ptxas is not installed")


def check_ptxas(args: argparse.Namespace, file: str | None) -> None:
    """Run ptxas on ``file`` when ``--check-ptxas`` was given and it is a .ptx file."""
    if not getattr(args, "check_ptxas", False) or not file or Path(file).suffix != ".ptx" or not Path(file).exists():
        return
    from pipeperf.ptx.ptxas_check import check_with_ptxas

    if not check_with_ptxas(file):
        log.warning("--check-ptxas: no ptxas found; %s is checked by pipeperf's own rules only", file)
