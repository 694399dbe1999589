"""``pipeperf tune``: predict every variant of a kernel's parameter space on one or more GPUs and
rank them, with no GPU; ``pipeperf analyze --batch``: many launches of an application's kernels.

Stages, one module each: :mod:`~pipeperf.tune.expr` (safe expressions), :mod:`~pipeperf.tune.space`
and :mod:`~pipeperf.tune.spacefile` (the space, from YAML and the command line),
:mod:`~pipeperf.tune.variants` (a variant as a launch), :mod:`~pipeperf.tune.sources` (the source
as data for workers), :mod:`~pipeperf.tune.work` (the compile and analysis tasks),
:mod:`~pipeperf.tune.execute` (in-process loop or Dask), :mod:`~pipeperf.tune.cache` (SQLite results
cache), :mod:`~pipeperf.tune.engine` (cache lookups, grouping, storing),
:mod:`~pipeperf.tune.report` (table, CSV/Parquet, plot) and :mod:`~pipeperf.tune.batch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeperf.tune.engine import EngineResult, Item, Row, run_items
from pipeperf.tune.space import Space, Variant
from pipeperf.tune.variants import Launch
from pipeperf.tune.work import OK


@dataclass
class TuneResult:
    """Every variant of ``space`` on every GPU (``result.rows``: variant-major, GPUs in order)."""

    space: Space
    variants: list[Variant]
    result: EngineResult

    @property
    def gpus(self) -> tuple[str, ...]:
        return self.space.gpus

    def ranked(self, gpu: str) -> list[Row]:
        """The variants analysed on ``gpu``, fastest first (ties: in enumeration order)."""
        ok = [r for r in self.result.rows if r.gpu == gpu and r.outcome.status == OK]
        return sorted(ok, key=lambda r: (r.outcome.seconds, r.item.index))

    def failures(self) -> list[Row]:
        """Variants that did not compile, cannot launch or failed, per GPU (not the excluded)."""
        return [r for r in self.result.rows if r.outcome.status not in (OK, "excluded")]

    def excluded(self) -> list[Variant]:
        return [v for v in self.variants if v.excluded]

    def records(self) -> list[dict[str, Any]]:
        """One flat record per variant x GPU (the CSV/Parquet rows), with its rank on its GPU."""
        ranks = {(r.item.index, g): i + 1 for g in self.gpus for i, r in enumerate(self.ranked(g))}
        names = [p.name for p in self.space.params]
        out = []
        for r in self.result.rows:
            o, la = r.outcome, r.item.launch
            rec: dict[str, Any] = {"variant": r.item.index}
            rec.update({n: _plain(r.item.label.get(n)) for n in names})
            rec.update({"gpu": r.gpu, "rank": ranks.get((r.item.index, r.gpu)), "status": o.status,
                        "reason": o.reason, "time_us": None if o.seconds is None else o.seconds * 1e6,
                        "cycles": o.cycles, "bound": o.bound, "bound_text": o.bound_text,
                        "occupancy_pct": None if o.occupancy is None else 100 * o.occupancy,
                        "warps_per_sm": o.warps_per_sm, "blocks_per_sm": o.blocks_per_sm,
                        "limited_by": o.limited_by, "registers": o.registers,
                        "static_shared_bytes": o.static_shared, "gflop_per_s": o.gflops,
                        "dram_gb_per_s": o.dram_gbs, "cached": r.cached})
            launch = la if isinstance(la, Launch) else None
            rec.update({"grid": "x".join(map(str, launch.grid)) if launch else None,
                        "block": "x".join(map(str, launch.block)) if launch else None,
                        "shared_bytes": launch.shared if launch else None,
                        "defines": " ".join(launch.defines) if launch else None,
                        "template": ", ".join(launch.template) if launch else None})
            out.append(rec)
        return out


def _plain(v: Any) -> Any:
    return v if isinstance(v, (int, float, str)) or v is None else str(v)


def tune(space: Space, scheduler: str = "local", workers: int | None = None, cache: Any = None) -> TuneResult:
    """Every variant of ``space`` compiled (once per distinct -D/template set and target),
    analysed on every GPU of the space (as ``analyze`` samples it) and ranked per GPU; the
    excluded by a constraint and those CUDA cannot launch are kept with their reason."""
    from pipeperf.tune.variants import resolve

    variants = list(space.variants())
    items = []
    for v in variants:
        launch = None if v.excluded else resolve(space, v)
        items.append(Item(v.index, v.params, launch, space.gpus, v.excluded))
    result = run_items(items, space.options, scheduler, workers, cache)
    return TuneResult(space, variants, result)
