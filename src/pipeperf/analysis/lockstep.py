"""Is the Pipeline time of this launch a smooth function of the memory bandwidth?

The simulation is deterministic: with constant latencies the resident warps can meet the shared
memory pipelines in lock step (docs/DESIGN.md, "lock-step warps"), and then the time depends on
the phase in which they meet, not only on the work. A kernel whose time is set by DRAM or L2
bandwidth takes at most 1 % longer when the bandwidth is 1 % lower; a lock-step run can move by
ten times that, either way (the alignedTypes copy on an A100 80 GB: 97.5, 105.2 and 93.9 us at
the DRAM figure 1 % lower, as given and 1 % higher). On a GPU, per-request latencies vary and the
warps drift apart, so such a time is one sample of a spread the model does not resolve. This
check re-simulates the launch with the bandwidth-share pipelines 1 % faster and 1 % slower and,
where the time moves by more than bandwidth alone can move it, says so in the report with the
spread, so that variants closer than it are not ranked on the Pipeline time alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pipeperf.hardware.memory_classes import L2_CLASS
from pipeperf.hardware.spec import GPUSpec

if TYPE_CHECKING:
    from pipeperf.simulate.simulator import SimResult

#: the base class whose subsystem is the DRAM bandwidth share (mapper g's DRAM-served requests)
DRAM_CLASS = "ld_global_s32"
#: relative change of the bandwidth-share pipelines' lambda in the two probes
STEP = 0.01
#: spread (of the time, relative to the launch's) above which the run is reported as phase-bound:
#: bandwidth alone moves it by at most 2 x STEP over the two probes; up to 3 x STEP is taken as
#: smooth (the block-dispatch and tail rounding of a finite launch)
SMOOTH_SPREAD = 3 * STEP


@dataclass(frozen=True)
class PhaseSensitivity:
    """The Pipeline time with the bandwidth-share pipelines ``1 - STEP`` and ``1 + STEP`` times
    as slow (``faster``, ``slower``) beside the launch's own; ``spread`` = (largest - smallest) / own."""

    seconds: float
    faster: float
    slower: float
    pipelines: tuple[str, ...]

    @property
    def spread(self) -> float:
        xs = (self.faster, self.seconds, self.slower)
        return (max(xs) - min(xs)) / self.seconds if self.seconds > 0 else 0.0

    @property
    def smooth(self) -> bool:
        return self.spread <= SMOOTH_SPREAD

    def to_dict(self) -> dict[str, Any]:
        return {"step": STEP, "pipelines": list(self.pipelines), "seconds": self.seconds,
                "seconds_faster_memory": self.faster, "seconds_slower_memory": self.slower,
                "spread": round(self.spread, 4), "smooth": self.smooth}

    def note(self) -> str:
        us = [f"{x * 1e6:.4g}" for x in (self.faster, self.seconds, self.slower)]
        return (f"the simulated warps meet the memory pipelines in lock step: the Pipeline time is "
                f"{us[0]} / {us[1]} / {us[2]} us with the {' and '.join(self.pipelines)} bandwidth "
                f"{STEP:.0%} higher / as given / {STEP:.0%} lower, a spread of {self.spread:.1%} where "
                f"bandwidth alone moves it by at most {2 * STEP:.0%}; the time depends on the phase in "
                f"which the warps meet, so variants closer than {self.spread:.0%} are not told apart "
                "here (docs/DESIGN.md, lock-step warps)")


def bandwidth_pipelines(gpu: GPUSpec) -> dict[str, str]:
    """{subsystem: what it shares}: the pipelines whose lambda is a share of a GPU-wide bandwidth."""
    out = {}
    for name, what in ((DRAM_CLASS, "DRAM"), (L2_CLASS, "L2")):
        c = gpu.classes.get(name)
        if c is not None and c.subsystem not in out:
            out[c.subsystem] = what
    return out


def scaled_pipelines(gpu: GPUSpec, subsystems: set[str], factor: float) -> GPUSpec:
    """``gpu`` with every class on ``subsystems`` issuing ``factor`` times as slowly."""
    return replace(gpu, classes={k: replace(c, cpi=c.cpi * factor) if c.subsystem in subsystems else c
                                 for k, c in gpu.classes.items()})


def phase_sensitivity(gpu: GPUSpec, busy: dict[str, float], seconds: float,
                      resimulate: Callable[..., SimResult]) -> PhaseSensitivity | None:
    """Re-simulate (``resimulate(on=GPU)`` -> a SimResult) with the bandwidth-share pipelines the
    run uses 1 % faster and 1 % slower; None when the run uses none of them."""
    pipes = {s: w for s, w in bandwidth_pipelines(gpu).items() if busy.get(s, 0.0) > 0.0}
    if not pipes or seconds <= 0:
        return None
    subs = set(pipes)
    fast = resimulate(on=scaled_pipelines(gpu, subs, 1.0 - STEP)).seconds
    slow = resimulate(on=scaled_pipelines(gpu, subs, 1.0 + STEP)).seconds
    return PhaseSensitivity(seconds, fast, slow, tuple(sorted(set(pipes.values()))))
