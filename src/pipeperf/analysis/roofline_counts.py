"""Konstantinidis' quantitative roofline of an analysed launch.

`analyze` and `pipeperf roofline KERNEL.cu` must give one roofline time for one kernel on one GPU,
so both take Table 1's counts from here: the instruction counts of analyze's emulation, scaled
from the CTAs it emulated to the whole grid, and the DRAM traffic of mapper g's cache model of
that GPU (each global instruction's L2 misses and written sectors, launch-scaled, as the memory
rows carry them); the GPU's Table 3 rates come from its database entry (:func:`load_peaks`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping, Sequence

from pipeperf.models.quantitative import PROFILE_REQUIRED, KernelMetrics, metrics_from_profile, predict

if TYPE_CHECKING:
    from pipeperf.analysis.results import GPUPrediction, QuantitativeRoofline

NAME = "quantitative_roofline"


@dataclass(frozen=True)
class LaunchCounts:
    """Table 1's counts of a whole launch (profile keys -> values) and how they were obtained."""

    counts: dict[str, float]
    notes: tuple[str, ...]


def launch_counts(counts: Mapping[str, Any], memory_rows: Sequence[Mapping[str, Any]] | None) -> LaunchCounts:
    """Table 1's counts of the whole launch and the notes on how they were obtained: the emulated
    CTAs' counts weighted to the grid (:func:`~pipeperf.emulate.profile.launch_scaled`), DRAM bytes from ``memory_rows`` (already
    launch-scaled), or, without a memory analysis, the global sectors (an upper bound)."""
    from pipeperf.emulate.profile import launch_scaled

    total = float(counts.get("ctas_total") or counts.get("ctas") or 1)
    emulated = float(counts.get("ctas_emulated") or total)
    scale = total / emulated if emulated else 1.0
    out = launch_scaled(counts, [k for k in (*PROFILE_REQUIRED, "flop_count_tensor") if k in counts])
    notes = []
    if counts.get("launch"):
        notes.append(f"instruction counts of the {int(emulated):,} emulated CTAs weighted by the grid CTAs each "
                     f"stands for (strata of alike CTAs, bounds-checked edges apart) to all {int(total):,}")
    elif scale != 1.0:
        notes.append(f"instruction counts scaled from the {int(emulated):,} emulated CTAs to all {int(total):,}")
    if memory_rows:
        out["dram_read_bytes"] = sum(float(r.get("dram_read_bytes", 0.0)) for r in memory_rows)
        out["dram_write_bytes"] = sum(float(r.get("dram_write_bytes", 0.0)) for r in memory_rows)
        notes.append("DRAM traffic from the cache model of this GPU (L2 misses and written sectors)")
    else:
        out.update(launch_scaled(counts, ("global_load_sectors", "global_store_sectors")))
    return LaunchCounts(out, tuple(notes))


def launch_metrics(counts: Mapping[str, Any], memory_rows: Sequence[Mapping[str, Any]] | None,
                   kernel: str, file: str | None) -> KernelMetrics:
    """The launch's :class:`KernelMetrics` (see :func:`launch_counts`), its notes in ``info``."""
    scaled = launch_counts(counts, memory_rows)
    m = metrics_from_profile(scaled.counts, kernel, file)
    all_notes = list(scaled.notes) + list(m.info.get("notes", []))
    return replace(m, info={"notes": all_notes}, source=f"pipeperf analyze {file or ''}".strip())


def quantitative_roofline(counts: Mapping[str, Any], memory_rows: Sequence[Mapping[str, Any]] | None,
                          kernel: str, file: str | None, gpu: str) -> QuantitativeRoofline:
    """The launch's metrics and their quantitative-roofline prediction on database GPU ``gpu``."""
    from pipeperf.analysis.results import QuantitativeRoofline
    from pipeperf.hardware.peaks import load_peaks

    m = launch_metrics(counts, memory_rows, kernel, file)
    return QuantitativeRoofline(m, predict(m, load_peaks(gpu)))


def add_quantitative_roofline(pred: GPUPrediction, counts: Mapping[str, Any], memory_rows: list[dict[str, Any]] | None,
                              path: str, gpu: str) -> GPUPrediction:
    """``pred`` (a :class:`~pipeperf.analysis.results.GPUPrediction`) with Konstantinidis' roofline
    of this launch on ``gpu`` as a model row, from the same counts and rates as ``pipeperf
    roofline KERNEL.cu`` (:func:`quantitative_roofline`)."""
    from pipeperf.errors import PipeperfError

    try:
        roofline = quantitative_roofline(counts, memory_rows, pred.kernel, path, gpu)
    except PipeperfError as e:           # a GPU without Table 3 rates, or a kernel Table 2 refuses
        row: dict[str, Any] = {"cycles": None, "seconds": None, "unsupported": e.message}   # (a str among floats)
        return replace(pred, predictions={**pred.predictions, NAME: row})
    q = roofline.prediction
    clock = float(pred.profile.get("clock_ghz") or 0.0)
    predictions = {**pred.predictions, NAME: {"cycles": q.predicted_seconds * clock * 1e9 if clock else None,
                                              "seconds": q.predicted_seconds}}
    sweep = pred.sweep
    if sweep is not None:           # occupancy plays no part in it: a flat curve, as Eq. 1's
        sweep = {**sweep, "seconds": {**sweep["seconds"], NAME: [q.predicted_seconds] * len(sweep["warps_per_sm"])}}
    return replace(pred, predictions=predictions, quantitative=roofline, sweep=sweep)
