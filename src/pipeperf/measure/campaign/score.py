"""The campaign's validate report: every model's predicted sweep against the measured one.

For each swept kernel, ``analyze`` (with ``sweep``) predicts every model's time at every
blocks-per-SM count on the published GPU entry; each measured point is matched by warps per SM
and scored with its absolute percentage error; MAPE per model and kernel, and over all points.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

from pipeperf.measure.campaign.derive import read_points
from pipeperf.measure.campaign.launches import sweep_launches


def score_sweeps(c, sweeps: list[Path], box: float) -> tuple[list[Path], str]:
    from pipeperf.analysis import analyze
    by_name = {l.name: l for l in sweep_launches(c.sweep_factor)}
    rows: list[tuple[str, str, int, float]] = []
    errors: dict[str, list[float]] = {}
    start, left = time.monotonic(), []
    for path in sweeps:
        launch = by_name.get(path.stem)           # ncu_*.csv files are not sweeps
        if launch is None:
            continue
        if time.monotonic() - start > box:
            left.append(launch.kernel)
            continue
        _, points = read_points(path)
        a = analyze(launch.cu, launch.grid, launch.block, list(launch.args), [c.reference], kernel=launch.kernel,
                    what_if=False, sweep=True)
        sw = a.predictions[0].sweep or {}
        at = {w: i for i, w in enumerate(sw.get("warps_per_sm", []))}
        for model, seconds in sorted(sw.get("seconds", {}).items()):
            apes = [abs(seconds[at[p.warps_per_sm]] * 1e3 - p.ms_median) / p.ms_median * 100
                    for p in points if p.warps_per_sm in at and seconds[at[p.warps_per_sm]] is not None]
            if apes:
                rows.append((launch.kernel, model, len(apes), sum(apes) / len(apes)))
                errors.setdefault(model, []).extend(apes)
    out_csv = c.folder / "validate.csv"
    with open(out_csv, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("kernel", "model", "points", "mape_pct"))
        w.writerows((k, m, n, f"{e:.2f}") for k, m, n, e in rows)
    overall = sorted((sum(v) / len(v), m, len(v)) for m, v in errors.items())
    lines = [f"validate: every model against the measured occupancy sweeps of {c.manifest.gpu} "
             f"(predictions on the published entry {c.reference})",
             f"{'model':<24} {'points':>6} {'MAPE %':>8}"]
    lines += [f"{m:<24} {n:>6} {e:>8.1f}" for e, m, n in overall]
    if left:
        lines.append(f"out of time, not scored: {', '.join(left)}")
    out_txt = c.folder / "validate.txt"
    out_txt.write_text("\n".join(lines) + "\n", encoding="utf-8")
    best = f"best {overall[0][1]} {overall[0][0]:.1f} %" if overall else "no points matched"
    return [out_csv, out_txt], f"{len(sweeps) - len(left)} sweeps scored, {best}"
