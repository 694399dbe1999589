"""Numbers as profilers print them: thousands separators, locale decimals, unit prefixes.

ncu writes "1,234,567" in an English locale and "27.595.520" / "9,00" in others, so a value's
meaning depends on the file's decimal separator. :func:`detect_decimal` finds it from the
unambiguous values of a file (a separator used twice is a grouping one; one followed by other
than three digits is the decimal one); :func:`parse_number` then reads each value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from pipeperf.errors import PipeperfError

_NUMERIC = re.compile(r"^[+-]?[0-9.,]*[0-9][0-9.,]*([eE][+-]?[0-9]+)?$")
NOT_AVAILABLE = {"n/a", "na", "", "-", "(!)n/a"}  # compared with spaces removed


def detect_decimal(values: Iterable[str], file: str | None = None) -> str:
    """The decimal separator ('.' or ',') implied by a file's values; '.' when none tells."""
    votes: dict[str, str] = {}
    for raw in values:
        text = raw.strip().replace("\u00a0", "").replace(" ", "")
        if not _NUMERIC.match(text):
            continue
        mantissa = re.split(r"[eE]", text)[0]
        has_dot, has_comma = "." in mantissa, "," in mantissa
        if has_dot and has_comma:
            decimal = "." if mantissa.rfind(".") > mantissa.rfind(",") else ","
        elif has_dot or has_comma:
            sep = "." if has_dot else ","
            if mantissa.count(sep) > 1:
                decimal = "," if sep == "." else "."
            elif len(mantissa) - mantissa.index(sep) - 1 != 3:
                decimal = sep
            else:
                continue  # "1,234" / "1.234": ambiguous alone
        else:
            continue
        votes.setdefault(decimal, raw)
    if len(votes) > 1:
        raise PipeperfError(
            f"mixed number formats: {votes['.']!r} uses '.' as decimal point but "
            f"{votes[',']!r} uses ','", file=file)
    return next(iter(votes), ".")


def parse_number(raw: str, decimal: str = ".", file: str | None = None,
                 line: int | None = None, what: str = "value") -> float | None:
    """A float from a profiler's text, or None for "n/a"; malformed text is a PipeperfError."""
    text = raw.strip().replace("\u00a0", "").replace(" ", "")
    if text.lower() in NOT_AVAILABLE:
        return None
    if text.lower() in ("inf", "+inf", "infinity"):
        return float("inf")
    if not _NUMERIC.match(text):
        raise PipeperfError(f"{what}: {raw!r} is not a number", file=file, line=line)
    group = "," if decimal == "." else "."
    mantissa, exponent = _split_exponent(text)
    if mantissa.count(decimal) > 1:
        raise PipeperfError(f"{what}: {raw!r} has two decimal separators", file=file, line=line)
    if group in mantissa:
        integer_part, _, fraction = mantissa.partition(decimal)
        integer_part = integer_part.lstrip("+-")
        if group in fraction:
            raise PipeperfError(f"{what}: {raw!r} has a thousands separator after the decimal one",
                                file=file, line=line)
        groups = integer_part.split(group)
        if not (1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])):
            raise PipeperfError(f"{what}: {raw!r} has misplaced thousands separators",
                                file=file, line=line)
        mantissa = mantissa.replace(group, "")
    return float(mantissa.replace(decimal, ".") + exponent)


def _split_exponent(text: str) -> tuple[str, str]:
    match = re.search(r"[eE][+-]?[0-9]+$", text)
    if match:
        return text[: match.start()], text[match.start():]
    return text, ""


def read_csv_text(path: str | Path, what: str) -> str:
    """A profiler's CSV export as text (a BOM dropped, undecodable bytes replaced), or a one-line
    error naming the file and ``what`` it should have been."""
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise PipeperfError(f"cannot read {what}: {exc.strerror}", file=file) from exc


def csv_records(text: str, file: str | None = None) -> list[tuple[int, list[str]]]:
    """(line number, fields) of each CSV line, skipping blank lines and tool chatter.

    Profilers interleave their own messages (``==PROF== ...``, ``==12345== ...``) with the
    table; those and blank lines are dropped. One record per physical line: neither ncu nor
    nvprof writes newlines inside quoted fields.
    """
    import csv

    out: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("=="):
            continue
        try:
            fields = next(csv.reader([line], strict=True))
        except csv.Error as exc:
            raise PipeperfError(f"malformed CSV line: {exc}", file=file, line=number) from exc
        out.append((number, fields))
    return out
