"""Plots of simulator output: occupancy curves and execution-profile Gantt charts (Figs. 8/9)."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.simulate.simulator import SimResult

#: Gantt charts beyond this many instructions are unreadable, and slow to draw.
MAX_GANTT_RECORDS = 20_000


def plot_occupancy(results: Sequence[SimResult], path: str | Path, title: str | None = None) -> None:
    """Warps per cycle (per core) against occupancy, with the busiest subsystem's roof."""
    warps = [r.warps for r in results]
    warps_per_cycle = [r.warps_per_cycle for r in results]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    ax.plot(warps, warps_per_cycle, "o-", ms=3, label=f"pipeline simulator ({results[0].scheduler.upper()})")
    ax.set_xlabel("occupancy (concurrent warps per core)")
    ax.set_ylabel("warps per cycle (per core)")
    ax.set_xlim(0, max(warps) + 1)
    ax.set_ylim(0, max(warps_per_cycle) * 1.15)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(title or f"{results[0].kernel} on {results[0].gpu}")
    fig.tight_layout()
    _save(fig, path)


def plot_gantt(result: SimResult, path: str | Path, title: str | None = None) -> None:
    """One row per warp; each instruction a bar from issue to completion, coloured by subsystem."""
    prof = result.profile
    if prof is None:
        raise PipeperfError("no execution profile recorded (simulate with profile=True)")
    if len(prof.issue) > MAX_GANTT_RECORDS:
        raise PipeperfError(f"execution profile has {len(prof.issue)} instructions; a Gantt chart "
                            f"is drawn for at most {MAX_GANTT_RECORDS} (use fewer warps or groups)")
    colors = plt.get_cmap("tab10")
    n_warps = int(prof.warp.max()) + 1 if len(prof.warp) else 0
    height = min(0.6 + 0.28 * n_warps, 14)
    fig, ax = plt.subplots(figsize=(9, max(2.4, height)), dpi=120)
    used: dict[int, None] = {}
    for k in range(len(prof.issue)):
        su = int(prof.subsystem[k])
        used.setdefault(su, None)
        start, end = prof.issue[k], prof.complete[k]
        if not np.isfinite(end):
            end = start
        ax.barh(int(prof.warp[k]), end - start, left=start, height=0.7, color=colors(su % 10),
                alpha=0.35, edgecolor=colors(su % 10), linewidth=0.6)
        ax.plot([start, start], [prof.warp[k] - 0.35, prof.warp[k] + 0.35], color=colors(su % 10), lw=1.4)
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=colors(su % 10), alpha=0.5, label=prof.subsystems[su]) for su in used]
    ax.set_xlabel("cycle (bar: issue to completion; tick: issue)")
    ax.set_ylabel("warp")
    ax.set_yticks(range(n_warps))
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=handles, loc="upper right", fontsize=8, ncol=len(used))
    ax.set_title(title or f"{result.kernel} on {result.gpu}: {result.warps} warps, "
                 f"{result.cycles:g} cycles")
    fig.tight_layout()
    _save(fig, path)


def _save(fig, path: str | Path) -> None:
    try:
        fig.savefig(path)
    except OSError as exc:
        raise PipeperfError(f"cannot write plot: {exc.strerror}", file=path) from None
    finally:
        plt.close(fig)
