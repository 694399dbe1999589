"""A kernel as the Pipeline model sees it: warp classes (IDG + weight), optionally group classes.

Different warps may follow different paths (divergence, boundary blocks); the
paper allows a distinct IDG per warp (Table 3: IDG_j for j = 1..Omega). We keep
the distinct ones as classes and spread them over the warps by weight.

Warps of one block are not interchangeable, though: a block's shape (which warp
position runs which path) matters for barriers, and whole blocks may differ (a
"last block" reduction runs extra barriers). A *group class* records one traced
block shape: the warp-class index of each warp position in the group, weighted by
how many traced blocks had that shape. When a kernel has group classes the
simulator assigns whole groups from them, so every simulated group is one real
block shape and meets its barriers together.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING
from collections.abc import Collection, Sequence

from pipeperf.errors import PipeperfError
from pipeperf.idg.graph import IDG

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class WarpClass:
    idg: IDG
    weight: float = 1.0


@dataclass(frozen=True)
class GroupClass:
    """One block shape: ``warps[p]`` is the warp-class index of the warp at position ``p``."""

    warps: tuple[int, ...]
    weight: float = 1.0


def smooth_round_robin(weights: Sequence[float], n: int) -> array:
    """Index of each of ``n`` picks from classes with ``weights``, evenly interleaved (int64).

    Smooth weighted round-robin (credit += w; pick the largest credit; it pays 1):
    deterministic, and every prefix holds each class in proportion within one pick.
    With integer weights the sequence repeats every sum(weights) picks, so only one
    period is computed and then tiled: O(n) for 10^5+ picks. Plain Python (no NumPy), so
    ``pipeperf simulate`` does not import NumPy.
    """
    w = [float(x) for x in weights]
    if len(w) == 1 or n <= 0:
        return array("q", bytes(8 * max(n, 0)))
    total = _pairwise_sum(w)
    integral = all(x == round(x) for x in w) and total < 2**31
    period = int(total) if integral else n
    m = min(n, period)
    out = array("q", bytes(8 * m))
    if integral:                       # exact integer credits (scaled by the period)
        wi = [int(x) for x in w]
        credit = [0] * len(wi)
        for k in range(m):
            for j in range(len(wi)):
                credit[j] += wi[j]
            j = max(range(len(wi)), key=credit.__getitem__)   # first of the largest
            out[k] = j
            credit[j] -= period
    else:
        wf = [x / total for x in w]
        fcredit = [0.0] * len(wf)
        for k in range(m):
            for j in range(len(wf)):
                fcredit[j] += wf[j]
            j = max(range(len(wf)), key=fcredit.__getitem__)
            out[k] = j
            fcredit[j] -= 1.0
    if m == n:
        return out
    return (out * -(-n // m))[:n]


def _pairwise_sum(x: list[float]) -> float:
    """The sum of ``x`` as ``numpy.sum`` rounds it (eight partial sums per block of up to 128,
    halves above), so fractional weights normalise to the same bits as they did with NumPy."""
    n = len(x)
    if n < 8:
        res = 0.0
        for v in x:
            res += v
        return res
    if n <= 128:
        r = x[:8]
        for i in range(8, n - n % 8, 8):
            for j in range(8):
                r[j] += x[i + j]
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(n - n % 8, n):
            res += x[i]
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(x[:n2]) + _pairwise_sum(x[n2:])


@dataclass(frozen=True)
class KernelGraph:
    """The software characterization: warp classes with relative weights, and optionally
    group classes (block shapes over the warp classes) with relative weights."""

    name: str
    warp_classes: tuple[WarpClass, ...]
    source: str = ""
    group_classes: tuple[GroupClass, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.warp_classes)
        sizes = {len(g.warps) for g in self.group_classes}
        if len(sizes) > 1:
            raise PipeperfError(f"group classes of kernel '{self.name}' have different sizes "
                                f"{sorted(sizes)}; one kernel has one block size", file=self.source or None)
        for k, g in enumerate(self.group_classes):
            if not g.warps:
                raise PipeperfError(f"group class {k} of kernel '{self.name}' has no warps", file=self.source or None)
            bad = [j for j in g.warps if not 0 <= j < n]
            if bad:
                raise PipeperfError(f"group class {k} of kernel '{self.name}' names warp class {bad[0]}, "
                                    f"but the kernel has {n} warp classes (0..{n - 1})", file=self.source or None)
            if not g.weight > 0:
                raise PipeperfError(f"group class {k} of kernel '{self.name}' has weight {g.weight}; "
                                    "weights must be positive", file=self.source or None)

    @classmethod
    def single(cls, idg: IDG, source: str = "") -> KernelGraph:
        return cls(idg.name, (WarpClass(idg, 1.0),), source)

    @property
    def idgs(self) -> list[IDG]:
        return [w.idg for w in self.warp_classes]

    @property
    def group_size(self) -> int | None:
        """Warps per group of the group classes (None when the kernel has none)."""
        return len(self.group_classes[0].warps) if self.group_classes else None

    @property
    def classes_used(self) -> set[str]:
        used: set[str] = set()
        for g in self.idgs:
            used.update(g.class_counts())
        return used

    def assign(self, n_warps: int, group_size: int | None = None) -> np.ndarray:
        """:meth:`assign_buffer` as a NumPy array."""
        import numpy as np
        return np.frombuffer(self.assign_buffer(n_warps, group_size), np.int64)

    def assign_buffer(self, n_warps: int, group_size: int | None = None) -> array:
        """Warp-class index (int64) of each of ``n_warps`` warps (warp k belongs to group k // group_size).

        Without group classes: the warp classes by smooth weighted round-robin over
        single warps, so a group of consecutive warps holds them in proportion.

        With group classes and a ``group_size`` equal to theirs (or None): whole groups
        by smooth weighted round-robin over the group classes, each group one traced
        block shape, warp positions keeping their class. ``n_warps`` must then be a
        multiple of the group size. A shape with less than one group's share (a
        last block among few groups per core) still takes the last group's place when
        it is costlier, since the simulated core stands for the slowest (_busiest_core).

        With group classes of another size than ``group_size`` (a kernel simulated
        with another block size than it was traced or written with) the block shapes
        do not apply; we fall back to the per-warp assignment, which is only safe when
        no group can deadlock: ``group_size`` 1, or every warp class reaching the same
        number of barriers. Otherwise a PipeperfError says so.
        """
        if not self.group_classes:
            return smooth_round_robin([c.weight for c in self.warp_classes], n_warps)
        gs = self.group_size if group_size is None else group_size
        assert gs is not None                  # group classes come with their group size
        if gs < 1:
            raise PipeperfError(f"group size must be >= 1, got {gs}")
        if gs != self.group_size:
            bars = {g.n_barriers for g in self.idgs}
            if gs == 1 or len(bars) == 1:
                return smooth_round_robin([c.weight for c in self.warp_classes], n_warps)
            raise PipeperfError(
                f"kernel '{self.name}' has block shapes of {self.group_size} warps whose warp classes reach "
                f"different numbers of barriers ({', '.join(str(b) for b in sorted(bars))}); it cannot be "
                f"simulated with groups of {gs} warps (use group size {self.group_size})",
                file=self.source or None)
        if n_warps % gs:
            raise PipeperfError(f"{n_warps} warps are not whole groups of {gs} warps")
        order = self._busiest_core(smooth_round_robin([g.weight for g in self.group_classes], n_warps // gs))
        shapes = [array("q", g.warps).tobytes() for g in self.group_classes]
        return array("q", b"".join(map(shapes.__getitem__, order)))

    def _busiest_core(self, order: array) -> array:
        """Put each block shape the proportional share leaves out on the simulated core, in place
        of a cheaper block, latest first.

        The simulator times one core and takes it for the kernel, which ends with its slowest
        core. A shape whose share is under one block per core still runs somewhere (it was
        traced), and the core that runs it is the slowest when it holds more instructions than
        the block it displaces: a "last block" reduction's extra pass. Cheaper shapes (tail
        blocks that exit early) stay out: a core of full blocks finishes later. Large grids,
        where every shape has its share, are unchanged.
        """
        present = set(order)
        absent = [j for j in range(len(self.group_classes)) if j not in present]
        if not absent or len(order) == 0:
            return order
        lengths = [len(c.idg) for c in self.warp_classes]
        cost = [sum(lengths[j] for j in g.warps) for g in self.group_classes]
        order = array(order.typecode, order)
        fixed = bytearray(len(order))
        for j in sorted(absent, key=lambda j: (-cost[j], j)):       # costliest first
            for k in range(len(order) - 1, -1, -1):
                if not fixed[k] and cost[order[k]] < cost[j]:
                    order[k] = j             # the rare block runs last, as a last block does
                    fixed[k] = 1
                    break
        return order

    def check_classes(self, gpu_name: str, classes: Collection[str]) -> None:
        """A one-line error when the IDGs use an instruction class the GPU does not define (before
        any model or the simulator reads a class that is not there)."""
        missing = sorted(self.classes_used - set(classes))
        if missing:
            raise PipeperfError(
                f"kernel '{self.name}' uses instruction class{'es' if len(missing) > 1 else ''} "
                f"{', '.join(repr(m) for m in missing)} that GPU '{gpu_name}' does not define "
                f"(it has: {', '.join(sorted(classes))})", file=self.source or None)

    def check_barriers(self) -> None:
        """All warps of a group must meet the same barriers, or the group deadlocks.

        With group classes only the warps of one block shape must agree (blocks may
        differ from each other); without, every warp class may share a group."""
        if self.group_classes:
            for k, g in enumerate(self.group_classes):
                by_count: dict[int, list[int]] = {}
                for p, j in enumerate(g.warps):
                    by_count.setdefault(self.warp_classes[j].idg.n_barriers, []).append(p)
                if len(by_count) > 1:
                    detail = "; ".join(f"warp position{'s' if len(ps) > 1 else ''} "
                                       f"{', '.join(map(str, ps))}: {c}" for c, ps in sorted(by_count.items()))
                    raise PipeperfError(f"warps of one block (group class {k}) of kernel '{self.name}' reach "
                                        f"different numbers of barriers ({detail}); the block would deadlock",
                                        file=self.source or None)
            return
        counts = {g.name: g.n_barriers for g in self.idgs}
        if len(set(counts.values())) > 1:
            detail = ", ".join(f"{k}: {v}" for k, v in counts.items())
            raise PipeperfError(f"warp classes of kernel '{self.name}' reach different numbers of barriers "
                                f"({detail}); a group would deadlock", file=self.source or None)
