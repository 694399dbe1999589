"""Progress bars appear only for a person at a terminal, never in pipes, tests or with -q."""

from __future__ import annotations

import io
import logging
import sys

from pipeperf.util.progress import progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_without_a_terminal():
    items = [1, 2, 3]
    assert progress(items, "x", "y") is items            # pytest's stderr is not a terminal


def test_a_bar_at_a_terminal_unless_quiet(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Tty())
    bar = progress(range(5), "emulate", "batch")
    assert list(bar) == list(range(5)) and type(bar).__name__ == "tqdm"
    logger = logging.getLogger("pipeperf")
    monkeypatch.setattr(logger, "level", logging.ERROR)  # -q
    items = [1, 2]
    assert progress(items, "x", "y") is items
    assert progress([1], "x", "y") == [1]                # one step: nothing to show
