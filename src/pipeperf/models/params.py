"""Aggregate kernel parameters shared by the analytical models (Table 2 of
analytical-models-and-pipeline-model.txt), derived from an IDG and a GPU spec.

The analytical models describe a kernel by a handful of numbers (alpha_comp,
alpha_mem, CI, lambda/Lambda per subsystem, Lambda_app); the IDG is more
detailed, so every model here reads the same numbers from this one module and
all models see exactly the same inputs.

Decisions (documented because the paper leaves them open):

* **memory vs computation** -- an instruction class is a *memory* class when its
  subsystem is ``mem`` or ``lsu``, or its subsystem or class name starts with
  ``ld_``, ``st_`` or ``mem``; everything else (ALU, SFU, DPU, barriers) is
  *computation* for the two-subsystem models (MWP-CWP, WFG, Transit, GPUMech).
  Barrier instructions are also counted in ``alpha_sync`` (Eq. 35).
* **several instruction classes of one kind** -- lambda_comp and Lambda_comp are
  the averages over the computational instructions (so alpha_comp * lambda_comp
  is the sum of their CPIs); the same for memory.
* **several warp classes** (divergent warps) -- every count and time is the
  weight-averaged value over the warp classes (alpha_comp = sum_c w_c alpha_comp_c,
  lambda_comp = sum_c w_c alpha_c lambda_c / alpha_comp, Lambda_app = sum_c w_c
  Lambda_app_c, ...); the graph-based models (WFG, GPUMech) are evaluated per warp
  class and their cycles per warp weight-averaged.
* **Lambda_app (Eq. 2)** -- the cycles of one warp executed in isolation (Table 2):
  the warp issues in program order, at most one instruction per cycle; an
  instruction waits for the Lambda of the instructions it depends on (set I of
  Eq. 2) and for its subsystem to accept it, lambda after the previous
  instruction on that subsystem (set J of Eq. 2: an independent instruction costs
  only its CPI); instructions after a barrier wait for it. This is the longest
  path through dependence edges weighted Lambda and issue edges weighted lambda
  (or the one-cycle issue slot), and it equals the Pipeline simulator's cycles
  for one warp (issue limit >= 1). For the example kernel of Fig. 1:
  c1 0-4, c2 4-8, m1 8-14, c3 14-18, c4 15-19 (one lambda after c3), m2 19-25,
  so Lambda_app = 3*4 + 2*6 + 1 = 25.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from pipeperf.hardware.spec import GPUSpec, InstrClass
from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import KernelGraph

MEMORY_SUBSYSTEMS = frozenset({"mem", "lsu", "atomic"})
MEMORY_PREFIXES = ("ld_", "st_", "mem")


def is_memory_class(ic: InstrClass) -> bool:
    """True for classes served by a memory subsystem (see the module docstring)."""
    return (ic.subsystem in MEMORY_SUBSYSTEMS or ic.subsystem.startswith(MEMORY_PREFIXES)
            or ic.name.startswith(MEMORY_PREFIXES))


@dataclass(frozen=True)
class NodeTiming:
    """Mapper f applied to every node of one IDG: per-node arrays."""

    lam: np.ndarray          # CPI lambda
    Lam: np.ndarray          # latency Lambda
    sub: np.ndarray          # subsystem index into ``subsystems``
    mem: np.ndarray          # bool: memory instruction
    barrier: np.ndarray      # bool: barrier instruction
    subsystems: tuple[str, ...]


def node_timing(idg: IDG, gpu: GPUSpec) -> NodeTiming:
    """Look up (subsystem, lambda, Lambda) of every node; unknown classes are a PipeperfError."""
    ics = [gpu.instr_class(c) for c in idg.classes]
    subsystems = tuple(gpu.subsystems)
    index = {s: k for k, s in enumerate(subsystems)}
    lam = np.array([c.cpi for c in ics], dtype=np.float64)[idg.cls]
    Lam = np.array([c.latency for c in ics], dtype=np.float64)[idg.cls]
    sub = np.array([index[c.subsystem] for c in ics], dtype=np.int64)[idg.cls]
    mem = np.array([is_memory_class(c) for c in ics], dtype=bool)[idg.cls] & ~idg.barrier
    return NodeTiming(lam, Lam, sub, mem, idg.barrier.copy(), subsystems)


def isolated_schedule(idg: IDG, t: NodeTiming) -> tuple[np.ndarray, np.ndarray]:
    """Issue and completion time of every node of one warp running alone (Eq. 2, see module doc).

    Lambda_app = max(done) = sum_{i in I} Lambda_i + sum_{j in J} lambda_j along the critical chain  # Eq. 2
    """
    n = len(idg)
    issue = np.zeros(n)
    done = np.zeros(n)
    tfree = [0.0] * len(t.subsystems)
    ptr, idx = idg.dep_ptr.tolist(), idg.dep_idx.tolist()
    lam, Lam, sub, bar = t.lam.tolist(), t.Lam.tolist(), t.sub.tolist(), t.barrier.tolist()
    last_barrier = -1
    next_slot = 0.0                                   # one instruction per warp per cycle
    for i in range(n):
        ready = next_slot
        for e in range(ptr[i], ptr[i + 1]):
            ready = max(ready, done[idx[e]])          # set I: wait for Lambda of the producer
        if last_barrier >= 0:
            ready = max(ready, done[last_barrier])
        s = max(ready, tfree[sub[i]])                 # set J: lambda after the previous issue
        issue[i] = s
        done[i] = s + Lam[i]
        tfree[sub[i]] = s + lam[i]
        next_slot = s + 1.0                           # a warp issues at most once per cycle
        if bar[i]:
            last_barrier = i
    return issue, done


def lambda_app(idg: IDG, gpu: GPUSpec) -> float:
    """Eq. 2: cycles of one warp executed in isolation."""
    _, done = isolated_schedule(idg, node_timing(idg, gpu))
    return float(done.max()) if len(done) else 0.0


@dataclass(frozen=True)
class WarpParams:
    """Table 2's software characterization of one warp class on one GPU."""

    name: str
    weight: float
    n_instr: float
    alpha: dict[str, float]               # instructions per class
    busy: dict[str, float]                # sum of lambda per subsystem (cycles a warp occupies it)
    alpha_comp: float
    alpha_mem: float
    alpha_sync: float
    lam_comp_sum: float                   # sum of lambda over computational instructions
    Lam_comp_sum: float
    lam_mem_sum: float
    Lam_mem_sum: float
    lambda_app: float                     # Eq. 2


@dataclass(frozen=True)
class KernelParams:
    """Weight-averaged parameters of a kernel on a GPU, plus the per-warp-class ones."""

    kernel: KernelGraph
    gpu: GPUSpec
    warp_classes: tuple[WarpParams, ...]
    n_instr: float
    alpha: dict[str, float]
    busy: dict[str, float]
    alpha_comp: float
    alpha_mem: float
    alpha_sync: float
    lam_comp: float                       # lambda_comp (nan without computational instructions)
    Lam_comp: float                       # Lambda_comp
    lam_mem: float                        # lambda_mem = 1/BW (nan without memory instructions)
    Lam_mem: float                        # Lambda_mem
    lambda_app: float                     # Eq. 2
    issue_limit: float
    notes: tuple[str, ...] = field(default=())

    @property
    def ci(self) -> float:
        """Compute intensity CI = alpha_comp / alpha_mem (Table 2)."""
        return self.alpha_comp / self.alpha_mem if self.alpha_mem else math.inf

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha_comp": self.alpha_comp, "alpha_mem": self.alpha_mem, "alpha_sync": self.alpha_sync,
            "CI": _finite(self.ci), "lambda_comp": _finite(self.lam_comp), "Lambda_comp": _finite(self.Lam_comp),
            "lambda_mem": _finite(self.lam_mem), "Lambda_mem": _finite(self.Lam_mem),
            "Lambda_app": self.lambda_app, "instructions": self.n_instr, "alpha": self.alpha,
            "busy_per_subsystem": self.busy, "issue_limit": _finite(self.issue_limit),
            "warp_classes": [{"name": w.name, "weight": w.weight, "Lambda_app": w.lambda_app}
                             for w in self.warp_classes],
            "notes": list(self.notes),
        }


def warp_params(idg: IDG, weight: float, gpu: GPUSpec) -> WarpParams:
    t = node_timing(idg, gpu)
    _, done = isolated_schedule(idg, t)
    comp = ~t.mem
    busy: dict[str, float] = {}
    for k, s in enumerate(t.subsystems):
        total = float(t.lam[t.sub == k].sum())
        if total:
            busy[s] = total
    return WarpParams(
        name=idg.name, weight=weight, n_instr=float(len(idg)),
        alpha={c: float(v) for c, v in idg.class_counts().items()}, busy=busy,
        alpha_comp=float(comp.sum()), alpha_mem=float(t.mem.sum()), alpha_sync=float(t.barrier.sum()),
        lam_comp_sum=float(t.lam[comp].sum()), Lam_comp_sum=float(t.Lam[comp].sum()),
        lam_mem_sum=float(t.lam[t.mem].sum()), Lam_mem_sum=float(t.Lam[t.mem].sum()),
        lambda_app=float(done.max()) if len(done) else 0.0,
    )


def kernel_params(kernel: KernelGraph, gpu: GPUSpec) -> KernelParams:
    """Derive Table 2's parameters of ``kernel`` on ``gpu`` (weight-averaged over warp classes)."""
    kernel.check_classes(gpu.name, gpu.classes)
    total_w = sum(wc.weight for wc in kernel.warp_classes)
    wps = tuple(warp_params(wc.idg, wc.weight / total_w, gpu) for wc in kernel.warp_classes)

    def avg(attr: str) -> float:
        return float(sum(w.weight * getattr(w, attr) for w in wps))

    def avg_dict(attr: str) -> dict[str, float]:
        out: dict[str, float] = {}
        for w in wps:
            for k, v in getattr(w, attr).items():
                out[k] = out.get(k, 0.0) + w.weight * v
        return out

    a_comp, a_mem = avg("alpha_comp"), avg("alpha_mem")
    notes = []
    if len(wps) > 1:
        notes.append(f"{len(wps)} warp classes: parameters are weight-averaged over them")
    if avg("alpha_sync"):
        notes.append("barriers: counted as computational instructions; only WFG (Eq. 35) and the "
                     "Pipeline simulator model their synchronisation")
    return KernelParams(
        kernel=kernel, gpu=gpu, warp_classes=wps, n_instr=avg("n_instr"),
        alpha=avg_dict("alpha"), busy=avg_dict("busy"),
        alpha_comp=a_comp, alpha_mem=a_mem, alpha_sync=avg("alpha_sync"),
        lam_comp=avg("lam_comp_sum") / a_comp if a_comp else math.nan,
        Lam_comp=avg("Lam_comp_sum") / a_comp if a_comp else math.nan,
        lam_mem=avg("lam_mem_sum") / a_mem if a_mem else math.nan,
        Lam_mem=avg("Lam_mem_sum") / a_mem if a_mem else math.nan,
        lambda_app=avg("lambda_app"), issue_limit=float(gpu.issue_limit), notes=tuple(notes),
    )


def _finite(x: float) -> float | None:
    """JSON has no inf/nan: such values become null."""
    return None if x is None or not math.isfinite(x) else float(x)


_T = TypeVar("_T")


def class_memo(kp: KernelParams, what: str, idg: IDG, build: Callable[[], _T]) -> _T:
    """``build()`` of one warp class's IDG, once per ``kp``: the model variants (WFG and WFG*,
    GPUMech's three schedulers) walk the same graph or intervals, which cost more to build than
    to evaluate. The result is shared: callers only read it."""
    memo: dict[tuple[str, int], tuple[IDG, Any]] = kp.__dict__.setdefault("_class_memo", {})  # (frozen dataclass)
    hit = memo.get((what, id(idg)))
    if hit is None or hit[0] is not idg:
        hit = memo[(what, id(idg))] = (idg, build())
    result: _T = hit[1]
    return result
