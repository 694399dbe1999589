"""Parsing of integer range arguments such as ``1-64``, ``1,2,4-8`` or ``1-64:4``."""

from __future__ import annotations

from pipeperf.errors import PipeperfError


def parse_int_range(text: str, what: str = "range") -> list[int]:
    """Parse ``A-B[:STEP]`` and comma lists into a sorted list of distinct positive ints."""
    values: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        step = 1
        if ":" in part:
            part, step_text = part.split(":", 1)
            step = _to_int(step_text, what, text)
        if "-" in part:
            lo_text, hi_text = part.split("-", 1)
            lo, hi = _to_int(lo_text, what, text), _to_int(hi_text, what, text)
            if lo > hi or step < 1:
                raise PipeperfError(f"bad {what} '{text}': expected LOW-HIGH with LOW <= HIGH")
            values.update(range(lo, hi + 1, step))
        else:
            values.add(_to_int(part, what, text))
    if not values or min(values) < 1:
        raise PipeperfError(f"bad {what} '{text}': expected positive integers like 1-64 or 1,2,4")
    return sorted(values)


def _to_int(s: str, what: str, whole: str) -> int:
    try:
        return int(s)
    except ValueError:
        raise PipeperfError(f"bad {what} '{whole}': '{s}' is not an integer") from None
