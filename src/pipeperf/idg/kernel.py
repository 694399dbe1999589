"""A kernel as the Pipeline model sees it: one or more warp classes, each an IDG with a weight.

Different warps may follow different paths (divergence, boundary blocks); the
paper allows a distinct IDG per warp (Table 3: IDG_j for j = 1..Omega). We keep
the distinct ones as classes and spread them over the warps by weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.idg.graph import IDG


@dataclass(frozen=True)
class WarpClass:
    idg: IDG
    weight: float = 1.0


@dataclass(frozen=True)
class KernelGraph:
    """The software characterization: warp classes with relative weights."""

    name: str
    warp_classes: tuple[WarpClass, ...]
    source: str = ""

    @classmethod
    def single(cls, idg: IDG, source: str = "") -> "KernelGraph":
        return cls(idg.name, (WarpClass(idg, 1.0),), source)

    @property
    def idgs(self) -> list[IDG]:
        return [w.idg for w in self.warp_classes]

    @property
    def classes_used(self) -> set[str]:
        used: set[str] = set()
        for g in self.idgs:
            used.update(g.class_counts())
        return used

    def assign(self, n_warps: int) -> np.ndarray:
        """Warp-class index of each of ``n_warps`` warps, proportional to the weights.

        Smooth weighted round-robin: deterministic and evenly interleaved, so a
        group of consecutive warps holds the classes in the right proportions.
        """
        w = np.array([c.weight for c in self.warp_classes], dtype=np.float64)
        if len(w) == 1:
            return np.zeros(n_warps, dtype=np.int32)
        w = w / w.sum()
        out = np.empty(n_warps, dtype=np.int32)
        credit = np.zeros(len(w))
        for k in range(n_warps):
            credit += w
            j = int(np.argmax(credit))
            out[k] = j
            credit[j] -= 1.0
        return out

    def check_barriers(self) -> None:
        """All warps of a group must meet the same barriers, or the group deadlocks."""
        counts = {g.name: g.n_barriers for g in self.idgs}
        if len(set(counts.values())) > 1:
            detail = ", ".join(f"{k}: {v}" for k, v in counts.items())
            raise PipeperfError(f"warp classes of kernel '{self.name}' reach different numbers of barriers "
                                f"({detail}); a group would deadlock", file=self.source or None)
