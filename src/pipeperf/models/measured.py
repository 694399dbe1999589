"""Measured occupancy curves for ``pipeperf compare``: a CSV with a ``warps`` column and
either ``warps_per_cycle`` (per core) or ``seconds`` (kernel time).

A time becomes warps per cycle per core with the kernel's total number of warps,
from a ``total_warps`` column or the caller:  WPC = total_warps / (P * seconds * f_clock),
P cores at f_clock (GPU spec). Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.util.files import read_text
from pipeperf.hardware.spec import GPUSpec


@dataclass(frozen=True)
class MeasuredCurve:
    name: str
    path: str
    warps: np.ndarray
    warps_per_cycle: np.ndarray
    source_column: str


def read_measured(path: str | Path, gpu: GPUSpec, total_warps: float | None = None) -> MeasuredCurve:
    """Read and validate a measured curve; every problem names the file and line."""
    p = Path(path)
    text = read_text(p, "measured curve")
    rows = [(n, line) for n, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        raise PipeperfError("empty file: expected a header 'warps,warps_per_cycle' or 'warps,seconds'", file=p)
    header_line, header = rows[0][0], [h.strip().lower() for h in next(csv.reader([rows[0][1]]))]
    if "warps" not in header:
        raise PipeperfError(f"no 'warps' column in header {header}", file=p, line=header_line)
    if "warps_per_cycle" in header:
        column = "warps_per_cycle"
    elif "seconds" in header:
        column = "seconds"
    else:
        raise PipeperfError("expected a 'warps_per_cycle' or a 'seconds' column", file=p, line=header_line)
    warps, values, totals = [], [], []
    for line_no, line in rows[1:]:
        cells = [c.strip() for c in next(csv.reader([line]))]
        if len(cells) != len(header):
            raise PipeperfError(f"{len(cells)} values for {len(header)} columns", file=p, line=line_no)
        rec = dict(zip(header, cells))
        w = _number(rec["warps"], "warps", p, line_no)
        v = _number(rec[column], column, p, line_no)
        if w <= 0 or v <= 0:
            raise PipeperfError(f"warps and {column} must be positive", file=p, line=line_no)
        if w != int(w):
            raise PipeperfError(f"warps must be a whole number, got {rec['warps']}", file=p, line=line_no)
        if w > gpu.max_warps_per_core:
            raise PipeperfError(f"occupancy {w:g} exceeds GPU '{gpu.name}' limit of "
                                f"{gpu.max_warps_per_core} warps per core", file=p, line=line_no)
        warps.append(w)
        values.append(v)
        if column == "seconds":
            t = _number(rec["total_warps"], "total_warps", p, line_no) if "total_warps" in rec else total_warps
            if t is None:
                raise PipeperfError("a 'seconds' column needs the kernel's total warps: add a "
                                    "'total_warps' column or pass --total-warps", file=p, line=line_no)
            totals.append(t)
    if not warps:
        raise PipeperfError("no measurements after the header", file=p)
    w_arr = np.array(warps)
    if len(set(warps)) != len(warps):
        raise PipeperfError("each occupancy (warps) may appear only once", file=p)
    vals = np.array(values)
    if column == "seconds":
        vals = np.array(totals) / (gpu.cores * vals * gpu.run_clock_ghz * 1e9)
    order = np.argsort(w_arr)
    return MeasuredCurve(p.stem, str(p), w_arr[order], vals[order], column)


def _number(text: str, what: str, path: Path, line: int) -> float:
    try:
        v = float(text)
    except ValueError:
        raise PipeperfError(f"'{what}' must be a number, got '{text}'", file=path, line=line) from None
    if not math.isfinite(v):
        raise PipeperfError(f"'{what}' must be finite, got '{text}'", file=path, line=line)
    return v
