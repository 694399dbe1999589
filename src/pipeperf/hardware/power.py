"""Energy per inference from predicted times: a documented, cited board-power model.

Two figures per GPU (``power.yaml``: the vendor's maximum board power and a published idle
reading, each with its source):

* ``joules_tdp``: maximum board power x time, the upper bound the issue asks for at least;
* ``joules`` (what the ranking uses): an activity-based estimate in the form of Hong and Kim's
  integrated power model (ISCA 2010: power = idle power + each unit's maximum dynamic power x its
  access rate), with one unit, the busier of the arithmetic and DRAM: each launch draws
  ``idle + (tdp - idle) x u``, with ``u`` its achieved FLOP rate over the GPU's peak or its DRAM
  throughput over the peak bandwidth, whichever is higher (``pipeperf gpu peaks``), at most 1;
  launch overheads run at idle power. Board power, not the wall socket; no DVFS below the clock
  the database times at. The FLOP rate is the quantitative roofline's (fp32 and fp64 operations):
  half-precision work shows only through its DRAM traffic, so ``--dtype fp16`` energies are low."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

POWER_FILE = Path(__file__).parent / "power.yaml"


@dataclass(frozen=True)
class BoardPower:
    gpu: str
    tdp_w: float
    idle_w: float
    sources: dict[str, str]


@cache
def board_power(gpu: str) -> BoardPower | None:
    """The GPU's board power (None for a GPU ``power.yaml`` does not list: no energy for it)."""
    import yaml

    data: dict[str, Any] = yaml.safe_load(POWER_FILE.read_text()) or {}
    d = data.get(gpu)
    if d is None:
        return None
    return BoardPower(gpu, float(d["tdp_w"]), float(d["idle_w"]), dict(d.get("sources", {})))


def activity(gflops: float | None, dram_gbs: float | None, gpu: str) -> float:
    """u in [0, 1]: the higher of the achieved share of the FLOP peak and of the DRAM peak."""
    from pipeperf.errors import PipeperfError
    from pipeperf.hardware.peaks import load_peaks

    try:
        peaks = load_peaks(gpu)
    except PipeperfError:
        return 1.0                       # no peaks: charge the maximum board power
    shares = [x / p for x, p in ((gflops, peaks.t_sp), (dram_gbs, peaks.b_mem)) if x is not None and p]
    return min(1.0, max(shares, default=1.0))


def launch_joules(bp: BoardPower, seconds: float, overhead: float, u: float) -> tuple[float, float]:
    """(activity-based joules, TDP x time joules) of one launch: its kernel time at the activity's
    power, its launch overhead at idle power."""
    est = (bp.idle_w + (bp.tdp_w - bp.idle_w) * u) * seconds + bp.idle_w * overhead
    return est, bp.tdp_w * (seconds + overhead)
