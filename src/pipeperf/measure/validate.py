"""Validation against real measurements: a measured occupancy sweep vs every model's curve.

Reads the CSV that ``pipeperf measure --sweep-occupancy`` writes (``# grid:``/``# block:``
comments, columns ``blocks_per_sm, warps_per_sm, ..., ms_median``) or the plain
``warps,warps_per_cycle|seconds`` curve of ``pipeperf compare``, turns times into warps per cycle
per core, WPC = total_warps / (P * seconds * f_clock), and scores each model with MAPE and
MAPE_shape (Sec. 6.3 of analytical-models-and-pipeline-model.txt), as in Tables 10-12.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.util.files import read_text
from pipeperf.hardware.spec import GPUSpec
from pipeperf.idg import KernelGraph
from pipeperf.models.compare import Accuracy, Evaluation, accuracy, evaluate
from pipeperf.models.measured import MeasuredCurve, read_measured

LAUNCHER_COLUMNS = ("warps_per_sm", "ms_median")


@dataclass
class Validation:
    measured: MeasuredCurve
    evaluation: Evaluation
    accuracy: Accuracy


def read_measurement(path: str | Path, gpu: GPUSpec, total_warps: float | None = None) -> MeasuredCurve:
    """A measured curve from a ``pipeperf measure`` CSV or a ``warps,...`` curve file."""
    p = Path(path)
    text = read_text(p, "measurement")
    body = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]
    header = [h.strip() for h in next(csv.reader([body[0][1]]))] if body else []
    if not all(c in header for c in LAUNCHER_COLUMNS):
        return read_measured(p, gpu, total_warps)
    meta = {}
    for line in text.splitlines():
        if line.startswith("#") and ":" in line:
            key, _, value = line[1:].partition(":")
            meta[key.strip()] = value.strip()
    if total_warps is None:
        try:
            grid = [int(x) for x in meta["grid"].split(",")]
            block = [int(x) for x in meta["block"].split(",")]
        except (KeyError, ValueError):
            raise PipeperfError("a 'pipeperf measure' CSV needs '# grid: X,Y,Z' and '# block: X,Y,Z' "
                                "comments (or pass --total-warps)", file=p) from None
        total_warps = math.prod(grid) * math.ceil(math.prod(block) / gpu.warp_size)
    rows = list(csv.DictReader(io.StringIO("\n".join(line for _, line in body))))
    warps, seconds = [], []
    for (line_no, _), row in zip(body[1:], rows):
        try:
            w, ms = float(row["warps_per_sm"]), float(row["ms_median"])
        except (TypeError, ValueError):
            raise PipeperfError("expected numbers in warps_per_sm and ms_median", file=p, line=line_no) from None
        if w <= 0 or ms <= 0:
            raise PipeperfError("warps_per_sm and ms_median must be positive", file=p, line=line_no)
        warps.append(w)
        seconds.append(ms * 1e-3)
    if not warps:
        raise PipeperfError("no measurements after the header", file=p)
    w_arr = np.array(warps)
    warps_per_cycle = total_warps / (gpu.cores * np.array(seconds) * gpu.run_clock_ghz * 1e9)
    order = np.argsort(w_arr)
    return MeasuredCurve(p.stem, str(p), w_arr[order], warps_per_cycle[order], "ms_median")


def validate(path: str | Path, kernel: KernelGraph, gpu: GPUSpec, models: Sequence[str] | None = None,
             total_warps: float | None = None, scheduler: str = "rr", runs: int | None = None) -> Validation:
    """Score ``models`` (default: all) on one measured sweep."""
    meas = read_measurement(path, gpu, total_warps)
    ev = evaluate(kernel, gpu, meas.warps, models, scheduler, runs)
    return Validation(meas, ev, accuracy(meas.name, ev, meas.warps_per_cycle))
