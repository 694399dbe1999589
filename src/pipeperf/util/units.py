"""Quantities as the reports print them; here, below every layer that words a result (the
analysis' floor notes as well as the reports)."""

from __future__ import annotations


def format_seconds(seconds: float | None) -> str:
    """A time with the unit that keeps it readable: ``812 ns``, ``53.1 us``, ``4.2 ms``."""
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"
