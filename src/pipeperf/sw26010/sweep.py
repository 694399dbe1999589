"""A tuning result seen along one dimension (``pipeperf sw26010 tune --sweep active_cpes``): the
best variant at each value of that dimension, as Fig. 9 plots time against #active_CPEs."""

from __future__ import annotations

from typing import Any

from pipeperf.sw26010.tuner import TuneResult

#: the dimensions a sweep can follow (a key of TuneResult.row)
DIMENSIONS = ("active_cpes",)


def best_per_value(result: TuneResult, dimension: str = "active_cpes") -> list[dict[str, Any]]:
    """The best-ranked variant for each distinct value of ``dimension`` (effective CPEs: a request
    above the parallel loop's chunks counts as that many), in increasing order of the value."""
    best: dict[int, dict[str, Any]] = {}
    for rank, i in enumerate(result.order):
        row = result.row(int(i))
        best.setdefault(row[dimension], dict(rank=rank + 1, **row))
    return [best[v] for v in sorted(best)]


def format_sweep(rows: list[dict[str, Any]], dimension: str = "active_cpes") -> str:
    head = f"{dimension:>11s}  {'T_total':>10s} {'T_comp':>10s} {'T_DMA':>10s} {'T_gload':>10s} {'T_overlap':>10s}  best variant (us)"
    lines = [head]
    for r in rows:
        u = r["us"]
        tiles = ",".join(f"{k}={v}" for k, v in r["tiles"].items())
        lines.append(f"{r[dimension]:>11d}  {u['t_total']:10.1f} {u['t_comp']:10.1f} {u['t_dma']:10.1f} "
                     f"{u['t_g']:10.1f} {u['t_overlap']:10.1f}  tiles {tiles} unroll {r['unroll']}"
                     f"{' double-buffered' if r['double_buffer'] else ''} (rank {r['rank']})")
    return "\n".join(lines)
