"""Roofline and quadrant-split charts of quantitative-roofline predictions (seed 002, Fig. 2).

* :func:`plot_roofline`: log-log roofline per GPU (raw peak and bandwidth), each kernel's adjusted
  ceiling T'_op (Eq. 18) dashed, and the kernel's predicted point (O_krn, T_predicted).
* :func:`plot_quadrant_split`: Konstantinidis' alternative view. Devices are points (B_mem, T_op),
  kernels are half-lines from the origin of slope O_krn; a device above a kernel's line is memory
  bound for it, below compute bound. In the quantitative model the comparison uses the adjusted
  peak T'_op (Eq. 18), drawn as a short bar in the kernel's colour below the device; a dashed
  arrow leads from it to the estimate on the kernel's line (Eq. 19): straight down when memory
  bound, left at height T'_op when compute bound.
"""

from __future__ import annotations

import math
from pathlib import Path
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from pipeperf.models.quantitative import QuantitativePrediction
from pipeperf.report.names import short_name

KERNEL_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                 "#17becf", "#bcbd22", "#7f7f7f"]
_GPU_MARKERS = ["o", "s", "D", "^", "v", "P", "X", "*", "h", "<"]
_UNIT = {"fp32": "GFLOP/s", "fp64": "GFLOP/s", "int": "GIOP/s"}


def unique_in_order(items: Sequence[str]) -> list[str]:
    """``items`` without repeats, in first-seen order (the order colours and markers are given in)."""
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _type_label(preds: Sequence[QuantitativePrediction]) -> str:
    types = unique_in_order([p.params.k_type for p in preds])
    units = unique_in_order([_UNIT[t] for t in types])
    return f"{' / '.join(units)} ({', '.join(types)} operations)"


def plot_roofline(preds: Sequence[QuantitativePrediction], path: str | Path,
                  title: str | None = None) -> Path:
    """Roofline chart with every kernel's predicted point; returns the written path."""
    fig = roofline_figure(preds, title)
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out


def roofline_figure(preds: Sequence[QuantitativePrediction], title: str | None = None) -> plt.Figure:
    """The roofline chart of :func:`plot_roofline` as a figure (the caller saves and closes it;
    the HTML report adds the Pipeline model's point to its axes)."""
    if not preds:
        raise ValueError("nothing to plot")
    gpus = unique_in_order([p.gpu for p in preds])
    kernels = unique_in_order([p.kernel for p in preds])
    finite = [p.params.o_krn for p in preds if math.isfinite(p.params.o_krn) and p.params.o_krn > 0]
    ridges = [p.t_op / p.b_mem for p in preds] + [p.o_dev for p in preds if p.o_dev > 0]
    x_lo = 10 ** math.floor(math.log10(min(finite + ridges)) - 0.5)
    x_hi = 10 ** math.ceil(math.log10(max(finite + ridges)) + 0.5)
    y_hi = 10 ** math.ceil(math.log10(max(p.t_op for p in preds)) + 0.2)
    y_lo = 10 ** math.floor(math.log10(min(min(p.t_predicted for p in preds if p.t_predicted > 0),
                                           x_lo * min(p.b_mem for p in preds))))
    fig, ax = plt.subplots(figsize=(8.5, 6.0), dpi=120)
    gpu_color = {g: KERNEL_COLORS[i % len(KERNEL_COLORS)] for i, g in enumerate(gpus)}
    kernel_marker = {k: _GPU_MARKERS[i % len(_GPU_MARKERS)] for i, k in enumerate(kernels)}
    drawn_roofs: set[tuple[str, float]] = set()
    for p in preds:
        color = gpu_color[p.gpu]
        if (p.gpu, p.t_op) not in drawn_roofs:
            drawn_roofs.add((p.gpu, p.t_op))
            ridge = p.t_op / p.b_mem
            ax.plot([x_lo, ridge, x_hi], [x_lo * p.b_mem, p.t_op, p.t_op], color=color, lw=2)
        x = p.params.o_krn if math.isfinite(p.params.o_krn) else x_hi
        # The kernel's adjusted ceiling, drawn from its knee to just past the kernel's point.
        ridge_adj = p.t_op_adjusted / p.b_mem
        x_end = min(x_hi, 2.5 * max(x, ridge_adj))
        ax.plot([ridge_adj, x_end], [p.t_op_adjusted, p.t_op_adjusted], color=color, lw=1.2,
                ls="--", alpha=0.8)
        ax.plot([x_end], [p.t_op_adjusted], marker=kernel_marker[p.kernel], ms=5, mfc="white",
                mec=color, ls="none")
        ax.plot([x], [p.t_predicted], marker=kernel_marker[p.kernel], ms=9, color=color,
                markeredgecolor="black", ls="none", zorder=5)
        ax.annotate(f"{_format_seconds(p.predicted_seconds)}", (x, p.t_predicted), xytext=(7, -10),
                    textcoords="offset points", fontsize=7.5, color="#333333")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlabel("operational intensity O = W_comp / W_traf  [operations / DRAM byte]")
    ax.set_ylabel(f"throughput  [{_type_label(preds)}]")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    handles = [Line2D([], [], color=gpu_color[g], lw=2, label=_gpu_label(g, preds)) for g in gpus]
    handles.append(Line2D([], [], color="gray", lw=1.2, ls="--", marker="o", ms=5, mfc="white",
                          markevery=[1], label="kernel's adjusted peak T'_op (Eq. 18)"))
    handles += [Line2D([], [], marker=kernel_marker[k], color="white", markeredgecolor="black",
                       markerfacecolor="lightgray", ms=8, ls="none", label=short_name(k))
                for k in kernels]
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)
    ax.set_title(title or "Quantitative roofline: kernel throughput (labels: predicted time)",
                 fontsize=11)
    fig.tight_layout()
    return fig


def plot_quadrant_split(preds: Sequence[QuantitativePrediction], path: str | Path,
                        title: str | None = None) -> Path:
    """Quadrant-split chart of several GPUs and kernels; returns the written path."""
    if not preds:
        raise ValueError("nothing to plot")
    gpus = unique_in_order([p.gpu for p in preds])
    kernels = unique_in_order([p.kernel for p in preds])
    types = unique_in_order([p.params.k_type for p in preds])
    x_hi = 1.18 * max(p.b_mem for p in preds)
    y_hi = 1.15 * max(p.t_op for p in preds)
    fig, ax = plt.subplots(figsize=(8.5, 6.5), dpi=120)
    kernel_color = {k: KERNEL_COLORS[i % len(KERNEL_COLORS)] for i, k in enumerate(kernels)}
    _draw_kernel_lines(ax, preds, kernels, kernel_color, x_hi, y_hi)
    for p in preds:
        _draw_adjusted_peak(ax, p, kernel_color[p.kernel])
    _draw_devices(ax, preds, gpus, types)
    ax.set_xlim(0, x_hi)
    ax.set_ylim(0, y_hi)
    ax.set_xlabel("DRAM bandwidth B_mem  [GB/s]")
    ax.set_ylabel(f"throughput  [{_type_label(preds)}]")
    ax.grid(True, alpha=0.25)
    _quadrant_legend(ax)
    ax.set_title(title or "Quadrant-split view: GPUs vs kernels", fontsize=11)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out


def _draw_kernel_lines(ax, preds: Sequence[QuantitativePrediction], kernels: list[str],
                       kernel_color: dict[str, str], x_hi: float, y_hi: float) -> None:
    """Kernels: half-lines from the origin, slope O_krn, clipped to the axes box."""
    for k in kernels:
        p = next(q for q in preds if q.kernel == k)
        slope = p.params.o_krn
        if not math.isfinite(slope):
            end = (0.0, y_hi)
        elif slope * x_hi <= y_hi:
            end = (x_hi, slope * x_hi)
        else:
            end = (y_hi / slope, y_hi)
        ax.plot([0, end[0]], [0, end[1]], color=kernel_color[k], lw=2,
                label=f"{short_name(k)}  (O = {_format_intensity(slope)} op/B)")


def _draw_adjusted_peak(ax, p: QuantitativePrediction, color: str) -> None:
    """A kernel moves a device's roof down to its adjusted peak T'_op (Eq. 18): that point,
    above the kernel's line = memory bound, below = compute bound (Eq. 19). The arrow leads to
    the estimate on the line: straight down (memory) or left at height T'_op (compute)."""
    adjusted = (p.b_mem, p.t_op_adjusted)
    if p.bound == "memory":
        target = (p.b_mem, p.t_predicted)
    else:
        target = (p.t_op_adjusted / p.params.o_krn if math.isfinite(p.params.o_krn) else 0.0,
                  p.t_op_adjusted)
    ax.plot([p.b_mem, p.b_mem], [p.t_op, p.t_op_adjusted], color="#999999", lw=0.8, ls=":",
            zorder=2)
    ax.plot([adjusted[0]], [adjusted[1]], marker="_", ms=14, mew=2.5, color=color, ls="none",
            zorder=5)
    ax.annotate("", xy=target, xytext=adjusted,
                arrowprops=dict(arrowstyle="->", color=color, lw=1.2, ls="--", shrinkA=3,
                                shrinkB=3, alpha=0.9))
    ax.plot([target[0]], [target[1]], marker="o", ms=5.5, mfc="white", mec=color, mew=1.5,
            ls="none", zorder=4)


def _draw_devices(ax, preds: Sequence[QuantitativePrediction], gpus: list[str], types: list[str]) -> None:
    """Devices: a labelled point (B_mem, T_op) per GPU and kernel type shown."""
    gpu_marker = {g: _GPU_MARKERS[i % len(_GPU_MARKERS)] for i, g in enumerate(gpus)}
    for g in gpus:
        for t in types:
            match = [p for p in preds if p.gpu == g and p.params.k_type == t]
            if not match:
                continue
            p = match[0]
            ax.plot([p.b_mem], [p.t_op], marker=gpu_marker[g], ms=10, color="black", ls="none",
                    zorder=6)
            label = g if len(types) == 1 else f"{g} ({t})"
            ax.annotate(label, (p.b_mem, p.t_op), xytext=(9, 5), textcoords="offset points",
                        fontsize=9, fontweight="bold", zorder=7,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))


def _quadrant_legend(ax) -> None:
    """The legend: the kernels' lines (their labels) plus keys to the device, peak and estimate marks."""
    handles, _ = ax.get_legend_handles_labels()
    handles += [
        Line2D([], [], marker="s", color="black", ls="none", ms=8,
               label="device: (B_mem, peak T_op)"),
        Line2D([], [], marker="_", color="gray", ls="none", ms=12, mew=2.5,
               label="adjusted peak T'_op for that kernel (Eq. 18)"),
        Line2D([], [], color="gray", ls="--", lw=1.2, marker="o", mfc="white", markevery=[1],
               label="estimate on the kernel's line (Eq. 19)"),
    ]
    ax.legend(handles=handles, loc="upper left", fontsize=8, framealpha=0.92,
              title="kernel half-lines (slope O_krn); adjusted peak above a\n"
                    "kernel's line: memory bound, below: compute bound",
              title_fontsize=8)


def _gpu_label(gpu: str, preds: Sequence[QuantitativePrediction]) -> str:
    mine = [p for p in preds if p.gpu == gpu]
    peaks = ", ".join(f"{t} {next(p.t_op for p in mine if p.params.k_type == t):,.0f}"
                      for t in unique_in_order([p.params.k_type for p in mine]))
    return f"{gpu}: {peaks} G/s, {mine[0].b_mem:,.0f} GB/s"


def _format_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.3g} \u00b5s"
    return f"{seconds * 1e9:.3g} ns"


def _format_intensity(value: float) -> str:
    return "inf" if not math.isfinite(value) else f"{value:.3g}"
