"""What ``pipeperf network`` and ``analyze --batch`` both report for a set of launches on each GPU:
a launch's energy from its :class:`~pipeperf.tune.work.Outcome` (:mod:`pipeperf.hardware.power`'s model) and the
GPUs ranked by total time and by total energy. One implementation for both commands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def launch_energy(o: Any) -> tuple[float | None, float | None]:
    """(activity-based joules, TDP x time joules) of one predicted launch, its overhead at idle
    power; (None, None) without a prediction or without the GPU's board power."""
    from pipeperf.hardware.power import activity, board_power, launch_joules

    bp = board_power(o.gpu)
    if bp is None or o.seconds is None:
        return None, None
    return launch_joules(bp, o.seconds, o.launch_overhead or 0.0, activity(o.gflops, o.dram_gbs, o.gpu))


def ranking(totals: Mapping[str, Mapping[str, Any]], gpus: Sequence[str]) -> tuple[dict[str, Any], ...]:
    """The GPUs by total ``seconds`` (fastest first), each with its rank by ``joules`` too (a GPU
    without energy ranks last by energy)."""
    by_time = sorted(gpus, key=lambda g: totals[g]["seconds"] if totals[g]["seconds"] else float("inf"))
    by_energy = sorted(gpus, key=lambda g: totals[g]["joules"] if totals[g]["joules"] is not None else float("inf"))
    return tuple({"gpu": g, "rank_time": by_time.index(g) + 1, "rank_energy": by_energy.index(g) + 1,
                  "seconds": totals[g]["seconds"], "joules": totals[g]["joules"],
                  "inferences_per_joule": totals[g].get("inferences_per_joule")} for g in by_time)


def ranking_lines(rank: Sequence[Mapping[str, Any]], unit: str = "ms") -> list[str]:
    """``ranking by time: 1. A (9.7 ms), ...`` and ``ranking by energy: 1. B (1.29 J), ...``."""
    by_e = sorted(rank, key=lambda x: x["rank_energy"])
    return ["ranking by time:   " + ", ".join(f"{x['rank_time']}. {x['gpu']} ({x['seconds'] * 1e3:.4g} ms)" for x in rank),
            "ranking by energy: " + ", ".join(
                f"{x['rank_energy']}. {x['gpu']} ({'-' if x['joules'] is None else format(x['joules'], '.4g')} J)"
                for x in by_e)]
