"""``pipeperf analyze --sweep-occupancy --plot``: each model's predicted time of the launch against
the resident warps per SM (the paper limits concurrent groups with extra shared memory; we limit
them in the model), one panel per GPU, the launch's own occupancy marked."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

from pipeperf.errors import PipeperfError
from pipeperf.report.model_plots import STYLE

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis, GPUPrediction

SHOWN = ("pipeline", "volkov", "roofline", "mwp_cwp_corr", "wfg_corr", "gpumech_gto", "gpumech_rr_corr")


def plot_sweep(analysis: Analysis, path: str | Path) -> Path:
    """Write the occupancy-sweep chart of an :class:`pipeperf.analysis.Analysis` (PNG, PDF, SVG)."""
    fig = sweep_figure(analysis)
    out = Path(path)
    try:
        fig.savefig(out, dpi=120)
    except (OSError, ValueError) as e:
        raise PipeperfError(f"cannot write plot: {e}", file=str(out)) from None
    finally:
        plt.close(fig)
    return out


def sweep_figure(analysis: Analysis, preds: list[GPUPrediction] | None = None) -> plt.Figure:
    """The occupancy-sweep chart of ``preds`` (default: every GPU of ``analysis`` with a sweep),
    one panel per GPU; the caller saves and closes it (the HTML report embeds it)."""
    preds = [p for p in (analysis.predictions if preds is None else preds) if p.sweep]
    if not preds:
        raise PipeperfError("--plot needs --sweep-occupancy (nothing to draw)")
    fig, axes = plt.subplots(1, len(preds), figsize=(6.0 * len(preds), 4.4), squeeze=False)
    for ax, p in zip(axes[0], preds):
        sweep = p.sweep or {}                   # (each has one: the others were left out above)
        x = sweep["warps_per_sm"]
        for name in SHOWN:
            ys = sweep["seconds"].get(name)
            if not ys or all(v is None for v in ys):
                continue
            pts = [(w, v * 1e6) for w, v in zip(x, ys) if v is not None]
            ax.plot([a for a, _ in pts], [b for _, b in pts], label=name, **STYLE.get(name, {}))
        ax.axvline(p.blocks_per_sm * p.warps_per_block, color="0.6", lw=0.8, ls=":")
        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")     # 200, not 2 x 10^2
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.set_title(f"{analysis.kernel} on {p.gpu}", fontsize=10)
        ax.set_xlabel("resident warps per SM (blocks x warps per block)")
        ax.set_ylabel("predicted time (\u00b5s, log)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
