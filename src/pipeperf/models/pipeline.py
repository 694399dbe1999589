"""The Pipeline model's occupancy curve, from the simulator, for comparison with the
analytical models (Fig. 14 of analytical-models-and-pipeline-model.txt).

At occupancy omega the simulator keeps M = omega groups of one warp resident on a
core. The analytical models give a steady-state throughput, so the warps per cycle
here is the steady-state one: the extra warps per extra cycle between a run of
``runs/2`` and one of ``runs`` rounds of omega warps, which cancels the pipeline
fill and drain. Against the limit of very long runs (rounds 128 -> 256) this is off
by 0.09 % on average and 1.1 % at most over 200 random kernels with runs = 32
(``benchmarks/models_steady_state.py``), where the whole-run warps per cycle of 32
rounds is off by 0.7 % (3.9 % at most), always below. Long kernels reach their
steady state within a round, so by default the number of rounds shrinks with the
kernel length (:func:`auto_runs`: about 4096 instructions per warp slot, between 4
and 32 rounds). All numbers are per core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.models.curve import ModelCurve
from pipeperf.models.params import KernelParams

if TYPE_CHECKING:                       # the simulator loads only when a curve is made
    from pipeperf.simulate import PreparedKernel

NAME, LABEL = "pipeline", "Pipeline"
MAX_RUNS, MIN_RUNS = 32, 4


def auto_runs(n_instr: float) -> int:
    """Rounds to simulate: 32 for short kernels, down to 4 for ones of 1000+ instructions."""
    return int(min(MAX_RUNS, max(MIN_RUNS, 2 * np.ceil(2048 / max(n_instr, 1.0)))))


def steady_state_warps_per_cycle(prep: PreparedKernel, warps: int, runs: int, scheduler: str) -> tuple[float, float]:
    """(steady-state WPC, WPC of the whole ``runs``-round simulation) at ``warps`` resident warps."""
    half = max(1, runs // 2)
    p = prep.gpu.cores
    short = prep.run(1, warps, warps * p * half, scheduler, check_limits=False)
    full = prep.run(1, warps, warps * p * runs, scheduler, check_limits=False)
    extra = full.cycles - short.cycles
    steady = warps * (runs - half) / extra if runs > half and extra > 0 else full.warps_per_cycle
    return steady, full.warps_per_cycle


def predict(kp: KernelParams, warps: np.ndarray, scheduler: str = "rr", runs: int | None = None) -> ModelCurve:
    if runs is None:
        runs = auto_runs(kp.n_instr)
    if runs < 2:
        raise PipeperfError(f"--runs must be >= 2 to measure a steady state, got {runs}")
    if np.any(warps != np.round(warps)):
        raise PipeperfError("the Pipeline simulator needs whole numbers of warps")
    from pipeperf.simulate import PreparedKernel

    prep = PreparedKernel(kp.kernel, kp.gpu)
    steady, whole = zip(*(steady_state_warps_per_cycle(prep, int(w), runs, scheduler) for w in warps))
    details = {"scheduler": scheduler, "runs": runs, "group_size": 1,
               "WPC_whole_simulation": np.array(whole)}
    return ModelCurve(NAME, LABEL, warps, np.array(steady), details)
