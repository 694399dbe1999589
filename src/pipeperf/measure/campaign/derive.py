"""Launcher CSVs -> the numbers a GPU file holds (GB/s, ns, cycles, rates), with where from.

Both backends write ``pipeperf measure``'s CSV (``# key: value`` lines, then
``blocks_per_sm,warps_per_sm,dyn_smem,reps,ms_median,ms_min,ms_max``), so the GPU's and the
simulator's runs are read by the same code, and the tests exercise it on recorded output.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure.campaign.launches import Launch

COLUMNS = ("blocks_per_sm", "warps_per_sm", "dyn_smem", "reps", "ms_median", "ms_min", "ms_max")


@dataclass(frozen=True)
class Point:
    blocks_per_sm: int
    warps_per_sm: int
    ms_median: float


@dataclass(frozen=True)
class Result:
    """One derived number and the file it was read from."""

    quantity: str
    value: float
    unit: str
    source: str


def read_points(path: Path) -> tuple[dict[str, str], list[Point]]:
    """The ``# key: value`` header and the rows of a launcher CSV; bad input names file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise PipeperfError(f"cannot read: {exc.strerror}", file=path) from None
    meta, body = {}, []
    for i, line in enumerate(lines, 1):
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
        elif line.strip():
            body.append((i, line))
    if not body or tuple(next(csv.reader([body[0][1]]))) != COLUMNS:
        raise PipeperfError(f"expected the columns {','.join(COLUMNS)}", file=path, line=body[0][0] if body else None)
    points = []
    for i, line in body[1:]:
        v = next(csv.reader([line]))
        try:
            p = Point(int(v[0]), int(v[1]), float(v[4]))
        except (ValueError, IndexError):
            raise PipeperfError("expected numbers in every column", file=path, line=i) from None
        if p.ms_median <= 0:
            raise PipeperfError("ms_median must be positive", file=path, line=i)
        points.append(p)
    if not points:
        raise PipeperfError("no measurements after the header", file=path)
    return meta, points


def derive(launch: Launch, path: Path, clock_ghz: float) -> list[Result]:
    """What one benchmark's time means: a rate for bytes/blocks/atomics, a latency for loads."""
    _, points = read_points(path)
    seconds = min(p.ms_median for p in points) * 1e-3
    src = path.name
    if launch.unit == "bytes":
        return [Result(launch.quantity, launch.amount / seconds / 1e9, "GB/s", src)]
    if launch.unit == "loads":
        ns = seconds * 1e9 / launch.amount
        return [Result(launch.quantity, ns, "ns", src),
                Result(launch.quantity.replace("_ns", "_cycles"), ns * clock_ghz, "cycles", src)]
    if launch.unit == "blocks":
        per_us = launch.amount / (seconds * 1e6)
        return [Result("blocks_per_us", per_us, "blocks/us", src),
                Result("blocks_per_clk", per_us / (clock_ghz * 1e3), "blocks/clock", src)]
    if launch.unit == "atomics":
        per_ns = launch.amount / (seconds * 1e9)
        return [Result("same_address_atomics_per_ns", per_ns, "atomics/ns", src),
                Result("global_same_address_per_clk", per_ns / clock_ghz, "atomics/clock", src)]
    raise PipeperfError(f"{launch.name}: nothing to derive from a launch of unit '{launch.unit}'")


def write_results(path: Path, results: list[Result]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("quantity", "value", "unit", "source"))
        for r in results:
            w.writerow((r.quantity, f"{r.value:.6g}", r.unit, r.source))
    return path


def read_results(path: Path) -> list[Result]:
    try:
        rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
        return [Result(r["quantity"], float(r["value"]), r["unit"], r["source"]) for r in rows]
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise PipeperfError(f"not a campaign results file ({exc})", file=path) from None
