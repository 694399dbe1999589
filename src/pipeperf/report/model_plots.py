"""Occupancy curves of the analytical models next to the Pipeline simulator, as in
Figs. 2 and 14 of analytical-models-and-pipeline-model.txt.

Left panel (Fig. 2): the models as published (Sec. 2). Right panel (Fig. 14): the
corrected models, which take the same aspects into account, with the Pipeline
simulator. Panels without any available curve are left out. And a measured sweep beside every
model's curve (``pipeperf validate --plot``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pipeperf.errors import PipeperfError
from pipeperf.measure.validate import Validation
from pipeperf.models.compare import Evaluation

FIG2 = ("roofline", "volkov", "transit", "mwp_cwp", "wfg", "gpumech_rr", "gpumech_gto")
FIG14 = ("roofline", "volkov", "mwp_cwp_corr", "wfg_corr", "gpumech_rr_corr", "gpumech_gto", "pipeline")

STYLE: dict[str, dict[str, Any]] = {
    "roofline": dict(color="0.55", ls="--", lw=1.2),
    "volkov": dict(color="black", lw=2.0),
    "transit": dict(color="#8c564b", ls=":", lw=1.6),
    "mwp_cwp": dict(color="#1f77b4", marker="o", ms=3.5, lw=1.3),
    "mwp_cwp_corr": dict(color="#1f77b4", marker="o", ms=3.5, lw=1.3),
    "wfg": dict(color="#2ca02c", marker="s", ms=3.5, lw=1.3),
    "wfg_corr": dict(color="#2ca02c", marker="s", ms=3.5, lw=1.3),
    "gpumech_rr": dict(color="#d62728", marker="^", ms=4, lw=1.3),
    "gpumech_rr_corr": dict(color="#d62728", marker="^", ms=4, lw=1.3),
    "gpumech_gto": dict(color="#ff7f0e", marker="v", ms=4, lw=1.3),
    "pipeline": dict(color="#9467bd", marker="D", ms=4, lw=2.2),
}


def plot_models(ev: Evaluation, path: str | Path, title: str | None = None) -> Path:
    """Write the Fig. 2 / Fig. 14 style chart of ``ev`` to ``path`` (PNG, PDF or SVG)."""
    panels = [(t, [n for n in names if n in ev.curves and ev.curves[n].warps_per_cycle is not None])
              for t, names in (("models as published (Fig. 2)", FIG2),
                               ("corrected models and Pipeline simulator (Fig. 14)", FIG14))]
    panels = [(t, names) for t, names in panels if names]
    if not panels:
        raise PipeperfError("nothing to plot: none of the chosen models gave a curve for this kernel")
    fig, axes = plt.subplots(1, len(panels), figsize=(6.4 * len(panels), 4.6), sharey=True, squeeze=False)
    top = _y_top(ev)
    for ax, (panel_title, names) in zip(axes[0], panels):
        for n in names:
            c = ev.curves[n]
            wpc = c.warps_per_cycle
            assert wpc is not None                  # panels hold only the models with a curve
            ax.plot(ev.warps, wpc, label=c.label, **STYLE.get(n, {}))
            if wpc.max() > top:
                k = int(np.sum(wpc <= top)) - 1
                ax.annotate(f"{c.label} \u2192 {wpc.max():.3g}", xy=(ev.warps[max(k, 0)], top),
                            xytext=(8, -14), textcoords="offset points", fontsize=8,
                            color=STYLE.get(n, {}).get("color", "black"))
        ax.set_title(panel_title, fontsize=10)
        ax.set_xlabel("occupancy \u03c9 (concurrent warps per core)")
        ax.set_ylim(0, top)
        ax.set_xlim(0, ev.warps.max() + 0.5)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0][0].set_ylabel("warps per cycle per core (WPC)")
    fig.suptitle(title or f"{ev.kernel} on {ev.gpu}: Lambda_app = {ev.params.lambda_app:g} cycles", fontsize=11)
    fig.tight_layout()
    out = Path(path)
    try:
        fig.savefig(out, dpi=130)
    except (OSError, ValueError) as exc:
        raise PipeperfError(f"cannot write the chart: {exc}", file=out) from None
    finally:
        plt.close(fig)
    return out


def _y_top(ev: Evaluation) -> float:
    """Room above the roof, so a curve that goes through it shows, without squashing the rest."""
    roof = None
    for n in ("roofline", "volkov"):
        c = ev.curves.get(n)
        if c is not None and c.warps_per_cycle is not None and math.isfinite(c.warps_per_cycle.max()):
            roof = float(c.warps_per_cycle.max())
            break
    finite = [float(c.warps_per_cycle.max()) for c in ev.curves.values()
              if c.warps_per_cycle is not None and math.isfinite(c.warps_per_cycle.max())]
    highest = max(finite) if finite else 1.0
    return 1.6 * roof if roof and highest > 1.6 * roof else 1.08 * highest


def plot_validation(v: Validation, path: str | Path) -> None:
    """Measured points and every model's curve on one chart."""
    fig, ax = plt.subplots(figsize=(7, 4.4), dpi=120)
    top = 1.3 * float(np.max(v.measured.warps_per_cycle))
    for name, curve in v.evaluation.curves.items():
        if curve.warps_per_cycle is None:
            continue
        mape = v.accuracy.mape.get(name)
        label = f"{curve.label} (MAPE {mape:.1f}%)" if mape is not None else curve.label
        ax.plot(v.evaluation.warps, np.minimum(curve.warps_per_cycle, top * 1.5), label=label, **STYLE.get(name, {}))
    ax.plot(v.measured.warps, v.measured.warps_per_cycle, "ko", ms=5, label="measured", zorder=5)
    ax.set_ylim(0, top)
    ax.set_xlabel("occupancy (warps per core)")
    ax.set_ylabel("warps per cycle per core")
    ax.set_title(f"{v.measured.name}: {v.evaluation.kernel} on {v.evaluation.gpu}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right", ncol=2)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise PipeperfError(f"cannot write the chart: {exc}", file=path) from None
    finally:
        plt.close(fig)
