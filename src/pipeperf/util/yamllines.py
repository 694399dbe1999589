"""Parsed YAML that remembers where it came from: a dict and a list carrying the line of
themselves and of each key or item, so a bad value is reported at its line. Built by
:mod:`pipeperf.util.yamlparse`, read through :mod:`pipeperf.util.yamlio`."""

from __future__ import annotations

from typing import Any


class LineMap(dict):
    """A dict that remembers the YAML line of itself and of each key."""

    line: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_lines: dict[Any, int] = {}


class LineList(list):
    """A list that remembers the YAML line of itself and of each item."""

    line: int | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.item_lines: list[int] = []
