"""The common output of every occupancy model: warps per cycle at each occupancy omega.

Warps per cycle (WPC) and cycles per run (CPR, one run = omega warps) are two views
of the same number, CPR = omega / WPC (Table 2); both are per compute unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from pipeperf.errors import PipeperfError


@dataclass
class ModelCurve:
    """One model's prediction over a list of occupancies; ``unsupported`` names why it has none."""

    name: str
    label: str
    warps: np.ndarray
    warps_per_cycle: np.ndarray | None
    details: dict[str, Any] = field(default_factory=dict)
    unsupported: str | None = None

    @property
    def cpr(self) -> np.ndarray | None:
        return None if self.warps_per_cycle is None else self.warps / self.warps_per_cycle

    def warps_per_cycle_list(self) -> list[float | None] | None:
        return None if self.warps_per_cycle is None else [jsonable(v) for v in self.warps_per_cycle]

    def details_dict(self) -> dict[str, Any]:
        d = {k: jsonable(v) for k, v in self.details.items()}
        if self.unsupported:
            d["unsupported"] = self.unsupported
        return d


def unsupported(name: str, label: str, warps: np.ndarray, reason: str) -> ModelCurve:
    return ModelCurve(name, label, warps, None, {}, reason)


def as_warps(warps: ArrayLike) -> np.ndarray:
    """Occupancies as a float array of positive values (a user error otherwise)."""
    w = np.atleast_1d(np.asarray(warps, dtype=np.float64))
    if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise PipeperfError("occupancies (warps) must be positive numbers")
    return w


def jsonable(v: Any) -> Any:
    """Convert NumPy values and non-finite floats (to null) for JSON output."""
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return [jsonable(x) for x in v.tolist()]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else None
    return v
