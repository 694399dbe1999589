"""Stacked-bar time breakdown in the style of the paper's Fig. 6.

Positive stack: T_gload, T_DMA, T_comp (bottom to top); negative bar:
T_overlap, so the visible net height is T_total (Eq. 1), drawn as a line with
markers; measured times, where known, as a second line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pipeperf.errors import PipeperfError


@dataclass
class Bar:
    label: str
    t_comp: float
    t_dma: float
    t_g: float
    t_overlap: float
    t_total: float
    measured: float | None = None


def plot_breakdown(bars: list[Bar], path: str | Path, title: str = "", normalize: bool = False) -> Path:
    """Write the breakdown of ``bars`` (times in µs) to a PNG file.

    ``normalize`` divides each bar by its measured time (else its predicted
    T_total), as Fig. 6 normalizes to the actual run time, so kernels of very
    different lengths share one axis.
    """
    path = Path(path)
    x = np.arange(len(bars))
    scale = np.array([(b.measured or b.t_total or 1.0) if normalize else 1.0 for b in bars])
    comp = np.array([b.t_comp for b in bars]) / scale
    dma = np.array([b.t_dma for b in bars]) / scale
    g = np.array([b.t_g for b in bars]) / scale
    ov = np.array([b.t_overlap for b in bars]) / scale
    total = np.array([b.t_total for b in bars]) / scale
    width = max(6.0, 1.1 * len(bars) + 2.5)
    fig, ax = plt.subplots(figsize=(width, 4.8))
    ax.bar(x, g, 0.6, label="T_gload", color="#8c564b")
    ax.bar(x, dma, 0.6, bottom=g, label="T_DMA", color="#1f77b4")
    ax.bar(x, comp, 0.6, bottom=g + dma, label="T_comp", color="#ff7f0e")
    ax.bar(x, -ov, 0.6, label="-T_overlap", color="#2ca02c")
    ax.plot(x, total, "ko", markersize=8, label="predicted T_total (Eq. 1)", zorder=3)
    measured = [b.measured for b in bars]
    if any(m is not None for m in measured):
        y = np.array([np.nan if m is None else m for m in measured]) / scale
        ax.plot(x, y, "rs", markersize=8, label="measured", zorder=3)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([b.label for b in bars], rotation=20 if len(bars) > 3 else 0, ha="right"
                       if len(bars) > 3 else "center", fontsize=8)
    ax.set_ylabel("time / measured (or predicted) T_total" if normalize else "time (µs)")
    ax.set_title(title or "SW26010 predicted time breakdown (cf. Fig. 6)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise PipeperfError(f"cannot write plot: {exc.strerror or exc}", file=path) from None
    finally:
        plt.close(fig)
    return path
