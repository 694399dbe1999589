"""Occupancy curves as a table: one row per occupancy, one column per model (shared by the
experiments that sweep occupancy)."""

from __future__ import annotations

from typing import Any

from pipeperf.experiments.framework import Table


def values(ev: Any, model: str) -> list[float]:
    """A model's warps per cycle per core as floats (an error naming the model if it gave none)."""
    wpc = ev.curves[model].warps_per_cycle
    if wpc is None:
        from pipeperf.errors import PipeperfError

        raise PipeperfError(f"model {model} gave no curve: {ev.curves[model].unsupported}")
    return [float(x) for x in wpc]


def curve_table(name: str, ev: Any, caption: str = "") -> Table:
    """``ev``: a :class:`pipeperf.models.compare.Evaluation`; warps per cycle per core of every
    model that gave a curve (those that did not are named in the caption)."""
    names = [n for n, c in ev.curves.items() if c.warps_per_cycle is not None]
    missing = [f"{n} ({c.unsupported})" for n, c in ev.curves.items() if c.warps_per_cycle is None]
    rows = tuple((int(w), *(float(ev.curves[n].warps_per_cycle[i]) for n in names))
                 for i, w in enumerate(ev.warps))
    note = (" Models without a curve: " + "; ".join(missing) + ".") if missing else ""
    return Table(name, ("warps", *names), rows, (caption + note).strip())
