"""Every model's prediction of one launch on one GPU, and what bounds it.

The analytical models give warps per cycle per core (WPC) at an occupancy of omega resident
warps; a launch puts ``N`` warps on each core (ceil(blocks / cores) blocks of ``wpb`` warps,
the Pipeline model's N = ceil(N_total / P)), so a model's time is N / WPC(omega) cycles. The
Pipeline model is the simulation of the whole launch on one core (tail effects included).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pipeperf.hardware.spec import GPUSpec
from pipeperf.idg.kernel import KernelGraph
from pipeperf.models.compare import ANALYTICAL, evaluate
from pipeperf.simulate.simulator import PreparedKernel, SimResult

PIPELINE = "pipeline"


@dataclass
class Bound:
    """What limits the simulated run: per-subsystem busy fraction, share of the issue slots used,
    share of cycles in which no warp issued."""

    by: str
    subsystem_busy: dict[str, float]
    issue_share: float | None
    idle_share: float

    def to_dict(self) -> dict:
        return {"by": self.by, "subsystem_busy": self.subsystem_busy, "issue_share": self.issue_share,
                "idle_share": self.idle_share}


def bound_of(r: SimResult, issue_limit: float) -> Bound:
    """The busiest subsystem (>= 90 % busy), else the issue limit (>= 90 % of slots), else latency."""
    issue_share = None
    if math.isfinite(issue_limit) and r.cycles > 0:
        issue_share = r.instructions_on_core / (r.cycles * issue_limit)
    idle = 0.0
    if r.cycles > 0:
        idle = max(0.0, 1.0 - r.issue_cycles / math.ceil(r.cycles))
    busy = {k: round(v, 4) for k, v in r.subsystem_busy.items()}
    name, frac = max(busy.items(), key=lambda kv: kv[1]) if busy else ("latency", 0.0)
    if frac >= 0.9:
        by = name
    elif issue_share is not None and issue_share >= 0.9:
        by = "issue limit"
    else:
        by = "latency"
    return Bound(by, busy, None if issue_share is None else round(issue_share, 4), round(idle, 4))


def warps_per_core(n_blocks: int, warps_per_block: int, cores: int) -> int:
    return math.ceil(n_blocks / cores) * warps_per_block


def analytical_predictions(kg: KernelGraph, gpu: GPUSpec, warps: list[int], n_warps_core: int,
                           clock_ghz: float | None = None) -> dict[str, dict[str, list]]:
    """{model: {"cycles": [...], "seconds": [...], "unsupported": reason?}} at each occupancy
    (seconds at ``clock_ghz``: the Pipeline run's clock under its load, else the sustained clock)."""
    clock = clock_ghz or gpu.run_clock_ghz
    ev = evaluate(kg, gpu, warps, list(ANALYTICAL))
    out: dict[str, dict[str, list]] = {}
    for name, curve in ev.curves.items():
        if curve.wpc is None:
            out[name] = {"cycles": [None] * len(warps), "seconds": [None] * len(warps),
                         "unsupported": curve.unsupported}
            continue
        cyc = [n_warps_core / w if w and np.isfinite(w) and w > 0 else None for w in curve.wpc]
        out[name] = {"cycles": cyc, "seconds": [c / (clock * 1e9) if c else None for c in cyc]}
    return out


def pipeline_runs(prep: PreparedKernel, wpb: int, groups: list[int], n_blocks: int,
                  scheduler: str = "rr", fast_forward: int | None = None,
                  attribute: bool = False) -> list[SimResult]:
    """Simulations of the launch with each number of resident groups (blocks) per core
    (``attribute``: with every slot cycle charged to an instruction, :mod:`pipeperf.analyze.stalls`)."""
    from pipeperf.util.progress import progress

    return [prep.run(wpb, g, n_blocks, scheduler, check_limits=False, fast_forward=fast_forward,
                     attribute=attribute) for g in progress(groups, "simulate", "occupancy")]
