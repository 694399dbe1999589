"""The HTML report's charts as inline SVG text (no files, no network): the occupancy sweep of
:mod:`pipeperf.report.analyze_plots` and the quantitative roofline of
:mod:`pipeperf.report.roofline_plots` with the Pipeline model's point of each GPU added."""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis


def figure_svg(fig: plt.Figure) -> str:
    """``fig`` as an ``<svg>`` element to inline in HTML: the XML prologue dropped, no date (the
    same analysis gives the same page), and matplotlib's ``*{stroke-...}`` style scoped to the
    report's SVGs so it does not restyle a notebook's own icons; closes the figure."""
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", metadata={"Date": None})
    finally:
        plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):].replace("*{stroke-linejoin", ".pipeperf-report svg *{stroke-linejoin", 1)


def sweep_svg(analysis: Analysis) -> str | None:
    """The occupancy sweep (every model's time against resident warps per SM), None without one."""
    from pipeperf.report.analyze_plots import sweep_figure

    if not any(p.sweep for p in analysis.predictions):
        return None
    return figure_svg(sweep_figure(analysis))


def roofline_svg(analysis: Analysis) -> str | None:
    """The GPUs' rooflines with the kernel's points: the quantitative roofline's prediction (filled
    marker, as ``pipeperf roofline`` draws it) and the throughput the Pipeline model's time implies
    (W_comp / predicted time, a star); None when no GPU has the quantitative roofline's counts."""
    from pipeperf.util.units import format_seconds
    from pipeperf.report.roofline_plots import KERNEL_COLORS, roofline_figure, unique_in_order

    pairs = [(p, p.quantitative.prediction) for p in analysis.predictions if p.quantitative is not None]
    if not pairs:
        return None
    fig = roofline_figure([q for _, q in pairs], title="Roofline: the kernel's predicted throughput")
    ax = fig.axes[0]
    gpus = unique_in_order([q.gpu for _, q in pairs])      # roofline_figure's colour order
    x_hi = ax.get_xlim()[1]
    for p, q in pairs:
        if q.params.w_comp <= 0 or not p.seconds:
            continue
        x = q.params.o_krn if math.isfinite(q.params.o_krn) else x_hi
        y = q.params.w_comp / p.seconds / 1e9
        color = KERNEL_COLORS[gpus.index(q.gpu) % len(KERNEL_COLORS)]
        ax.plot([x], [y], marker="*", ms=15, color=color, markeredgecolor="black", ls="none", zorder=6,
                label=f"{p.gpu}: Pipeline model ({format_seconds(p.seconds)})")
        lo, hi = ax.get_ylim()
        ax.set_ylim(min(lo, y / 2), max(hi, y * 2))
    handles, labels = ax.get_legend_handles_labels()
    old = ax.get_legend()
    if old is not None and handles:
        ax.legend(handles=[*old.legend_handles, *handles], loc="lower right", fontsize=8, framealpha=0.9)
    return figure_svg(fig)
