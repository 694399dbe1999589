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
    """The ``# key: value`` header and the rows of a launcher CSV (the harness's reader, so one
    parser reads every measurement file); bad input names file and line."""
    from pipeperf.measure.harness import read_table

    def point(d: dict[str, str]) -> Point:
        pt = Point(int(d["blocks_per_sm"]), int(d["warps_per_sm"]), float(d["ms_median"]))
        if pt.ms_median <= 0:
            raise ValueError("ms_median must be positive")
        return pt

    table = read_table(path, COLUMNS, point)
    if not table.rows:
        raise PipeperfError("no measurements after the header", file=path)
    return table.meta, table.rows


def derive(launch: Launch, path: Path, clock_ghz: float) -> list[Result]:
    """What one benchmark's time means: a rate for bytes/blocks/atomics, a latency for loads."""
    meta, points = read_points(path)
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
    if launch.unit == "atomics":   # operations the L2 serialises (atomics_launches), GPU-wide
        per_ns = launch.amount / (seconds * 1e9)
        return [Result(launch.quantity.replace("_per_clk", "_per_ns"), per_ns, "atomics/ns", src),
                Result(launch.quantity, per_ns / clock_ghz, "atomics/clock", src)]
    if launch.unit == "shared-atomics":    # SM cycles per shared-memory atomic lane, on each SM
        sms = int(meta.get("sms", "0") or 0)
        if sms <= 0:
            raise PipeperfError("a shared-atomics measurement needs the SM count ('# sms:' line)", file=path)
        active = min(sms, launch.grid[0] * launch.grid[1] * launch.grid[2])     # SMs with blocks
        return [Result(launch.quantity, seconds * clock_ghz * 1e9 * active / launch.amount, "cycles", src)]
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
