"""Physical floors of a launch: no model's time may be shorter than what moving its DRAM bytes or
issuing its warp instructions takes at the GPU's best rates.

* DRAM floor: the launch's DRAM bytes (mapper g's cache model, the quantitative roofline's counts)
  / the vendor peak DRAM bandwidth (``memory.dram_peak_gbs``), or, where the database has no vendor
  peak, the achievable figure it has (``dram_read_gbs``, ``dram_copy_gbs``), said so in ``dram_source``.
* issue floor: the launch's warp instructions (the emulation's, launch-scaled; where the IDGs hold
  the SASS, times the SASS's instructions per PTX one in the traced warps: ptxas widens, folds and
  fuses, so the GPU issues fewer) / (SMs x issue limit per SM per clock) / the boost clock (the
  highest the database gives, so the floor is a lower bound).

A model's time below either floor (by more than :data:`TOLERANCE`) is "not physical": the reports
mark it and the advice never uses it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeperf.hardware.spec import GPUSpec
    from pipeperf.models.quantitative import KernelMetrics

#: a time this share below a floor is still taken as on it (the counts are launch-scaled estimates)
TOLERANCE = 0.01
#: the database's DRAM bandwidths, best first: the vendor peak, then the achievable figures
DRAM_KEYS = (("dram_peak_gbs", "vendor peak"), ("dram_read_gbs", "achievable read"),
             ("dram_copy_gbs", "achievable copy"))


@dataclass(frozen=True)
class Floors:
    """The two floors of one launch on one GPU (seconds; None where a count or rate is missing)."""

    dram_bytes: float | None          # DRAM read + write bytes of the launch
    dram_gbs: float | None            # the bandwidth the DRAM floor divides by, GB/s (10^9 B/s)
    dram_source: str                  # e.g. "vendor peak, memory.dram_peak_gbs of ampere_a100"
    dram_seconds: float | None
    warp_instructions: float | None   # warp-level instructions of the launch (inst_executed)
    sms: int
    issue_limit: float                # warp instructions issued per SM per clock
    clock_ghz: float                  # the boost clock
    issue_seconds: float | None

    @property
    def dram_is_peak(self) -> bool:
        return self.dram_source.startswith("vendor peak")

    def violation(self, seconds: float | None) -> str | None:
        """Why ``seconds`` is not physical (the floor it is below and by how much), else None."""
        if seconds is None or not math.isfinite(seconds) or seconds <= 0:
            return None
        worst = None
        for name, floor in (("DRAM", self.dram_seconds), ("issue", self.issue_seconds)):
            if floor and seconds < floor * (1.0 - TOLERANCE) and (worst is None or floor > worst[1]):
                worst = (name, floor)
        if worst is None:
            return None
        from pipeperf.util.units import format_seconds

        name, floor = worst
        return f"below the {name} floor {format_seconds(floor)} by {1.0 - seconds / floor:.0%}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def floors_of(metrics: KernelMetrics | None, spec: GPUSpec, issued_per_traced: float = 1.0) -> Floors:
    """The floors of a launch from its quantitative-roofline counts (``metrics``: Table 1's, the
    :class:`~pipeperf.analysis.results.QuantitativeRoofline`'s) on GPU ``spec``; the emulation's
    (PTX) instruction count times ``issued_per_traced`` where the IDGs hold the SASS."""
    dram = inst = None
    if metrics is not None:
        dram = (metrics.m_tran_r + metrics.m_tran_w) * 32.0      # 32-byte sectors
        inst = float(metrics.m_inst) * issued_per_traced
    key = next(((k, what) for k, what in DRAM_KEYS if spec.memory.get(k)), None)
    gbs = float(spec.memory[key[0]]) if key else None
    source = f"{key[1]}, memory.{key[0]} of {spec.name}" if key else f"none: {spec.name} has no DRAM bandwidth"
    clock = max(spec.clock_ghz, spec.run_clock_ghz)
    issue = float(spec.issue_limit)
    return Floors(dram_bytes=dram, dram_gbs=gbs, dram_source=source,
                  dram_seconds=dram / (gbs * 1e9) if dram and gbs else None,
                  warp_instructions=inst, sms=int(spec.cores), issue_limit=issue, clock_ghz=clock,
                  issue_seconds=(inst / (spec.cores * issue) / (clock * 1e9)
                                 if inst and math.isfinite(issue) and issue > 0 and spec.cores else None))


def not_physical(floors: Floors | None, predictions: Mapping[str, Mapping[str, float | None]]) -> dict[str, str]:
    """{model: why its time is not physical} over the model rows ``predictions`` (empty without floors)."""
    if floors is None:
        return {}
    out = {}
    for m, v in predictions.items():
        why = floors.violation(v.get("seconds"))
        if why is not None:
            out[m] = why
    return out
