"""Progress bars on stderr for the long stages (emulation batches, GPUs, occupancy sweeps).

A bar shows only where a person can see it: stderr is a terminal, the ``pipeperf`` logger is not
quieted (``-q``), and the stage has run for more than a second (tqdm's ``delay``); elsewhere the
iterable is returned as it is, so scripts, tests and notebooks' captured output stay clean."""

from __future__ import annotations

import logging
import sys
from typing import TypeVar
from collections.abc import Iterable

T = TypeVar("T")


def watching() -> bool:
    """Someone can see progress: stderr is a terminal and the ``pipeperf`` logger is not quieted."""
    return sys.stderr.isatty() and logging.getLogger("pipeperf").getEffectiveLevel() <= logging.WARNING


def progress(items: Iterable[T], desc: str, unit: str, total: int | None = None) -> Iterable[T]:
    """``items``, with a progress bar when someone is watching (module docstring)."""
    n = total if total is not None else (len(items) if hasattr(items, "__len__") else None)  # type: ignore[arg-type]
    if (n is not None and n < 2) or not watching():
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit=unit, total=n, delay=1.0, leave=False, file=sys.stderr)
