"""Terminal tables for ``pipeperf models`` (WPC per model and occupancy) and
``pipeperf compare`` (MAPE / MAPE_shape per kernel and model, like Tables 10-12 of
analytical-models-and-pipeline-model.txt)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pipeperf.models.compare import Accuracy, Evaluation


def _fmt_warps_per_cycle(v: float) -> str:
    return f"{v:.4g}" if math.isfinite(v) else "inf"


def format_models_table(ev: Evaluation) -> str:
    """One row per occupancy, one column per model: warps per cycle per core."""
    names = list(ev.curves)
    columns = []
    for n in names:
        c = ev.curves[n]
        cells = ["n/a"] * len(ev.warps) if c.warps_per_cycle is None else \
            [_fmt_warps_per_cycle(float(v)) for v in c.warps_per_cycle]
        width = max(len(n), *(len(x) for x in cells)) + 1
        columns.append((n.rjust(width), [x.rjust(width) for x in cells]))
    lines = [f"kernel {ev.kernel} on {ev.gpu}: warps per cycle per core",
             "warps".rjust(5) + "".join(head for head, _ in columns)]
    for k, w in enumerate(ev.warps):
        lines.append(f"{w:5g}" + "".join(cells[k] for _, cells in columns))
    lines.append("")
    lines.extend(summary_lines(ev))
    return "\n".join(lines)


def summary_lines(ev: Evaluation) -> list[str]:
    """The quantities the paper quotes for a kernel, and why a model gave no curve."""
    kp = ev.params
    out = [f"Lambda_app (Eq. 2) = {kp.lambda_app:g} cycles, alpha_comp = {kp.alpha_comp:g}, "
           f"alpha_mem = {kp.alpha_mem:g}, CI = {kp.ci:g}"]
    if "volkov" in ev.curves:
        d = ev.curves["volkov"].details
        out.append(f"Volkov: roof {d['WPC_roof']:.4g} warps/cycle ({d['bound_by']}), "
                   f"reached at {d['roof_reached_at']} warps (ridge {d['ridge_occupancy']:.3g})")
    for name in ("mwp_cwp", "mwp_cwp_corr"):
        c = ev.curves.get(name)
        if c is not None and c.warps_per_cycle is not None:
            out.append(f"{c.label}: MWP = {c.details['MWP']:.4g}, CWP = {c.details['CWP']:.4g}")
            break
    for c in ev.curves.values():
        if c.unsupported:
            out.append(f"{c.name}: n/a -- {c.unsupported}")
    out.extend(f"note: {n}" for n in kp.notes)
    if "pipeline" in ev.curves:
        d = ev.curves["pipeline"].details
        out.append(f"pipeline: steady state of the simulator ({d['scheduler']} scheduler, "
                   f"{d['runs']} rounds of omega one-warp groups)")
    return out


def format_accuracy_table(results: Sequence[Accuracy], models: Sequence[str]) -> str:
    """Rows: kernels and their average; cells: 'MAPE / MAPE_shape' in percent."""
    width = max(13, *(len(m) for m in models)) + 2
    name_w = max(8, *(len(r.name) for r in results)) + 1
    lines = ["MAPE / MAPE_shape (%) of warps per cycle over the measured occupancies (Sec. 6.3)",
             "kernel".ljust(name_w) + "".join(m.rjust(width) for m in models)]
    for r in results:
        lines.append(r.name.ljust(name_w) + "".join(_cell(r.mape[m], r.mape_shape[m]).rjust(width)
                                                    for m in models))
    if len(results) > 1:
        cells = []
        for m in models:
            a = [x for x in (r.mape[m] for r in results) if x is not None]
            s = [x for x in (r.mape_shape[m] for r in results) if x is not None]
            cells.append(_cell(sum(a) / len(a) if a else None, sum(s) / len(s) if s else None).rjust(width))
        lines.append("average".ljust(name_w) + "".join(cells))
    reasons = {f"{m}: {why}" for r in results for m, why in r.reasons.items()}
    lines.extend(f"n/a {x}" for x in sorted(reasons))
    return "\n".join(lines)


def _cell(mape: float | None, shape: float | None) -> str:
    if mape is None or shape is None:
        return "n/a"
    return f"{mape:.0f} / {shape:.1f}" if mape >= 10 else f"{mape:.1f} / {shape:.1f}"
