"""Tuning sweeps of the validation suite: would a static tuner built on the Pipeline model have
picked the variant that the real GPU ran fastest?

A tuner chooses among variants that solve the *same problem*, so a sweep is a set of cases on one
GPU that share the problem and differ in how it is run:

- a **launch-shape** sweep: the same kernel, arguments (buffers, sizes), build flags and L2 state,
  different grid / block / dynamic shared memory / residency cap (gpu-stream over block sizes);
- a **code-variant** sweep: an ``order_group`` of the case files (declared there as the same
  problem solved by other code: alignedTypes' 12 copies, seven reductions, four SGEMMs).

Cases of one kernel on one GPU that differ in their arguments (a size, a buffer) or in their build
flags (mixbench's ``-DCOMPUTE_ITERATIONS``: the work per element) solve different problems: no
tuner chooses between them, so they are reported as rejected with that reason.

Quality loss of a sweep = measured time of the variant with the least predicted time / the least
measured time - 1 (the SW26010 paper's tuner lost < 6 %). The GPU time the measured sweep took is
sum over its variants of ``timed_launches x measured seconds`` (the benchmark's own repetition
count, from the case file's source): kernel time only, without compile, allocation and host time.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from dataclasses import dataclass
from collections.abc import Mapping, Sequence

from pipeperf.measure.suite import Case

TIE = 0.01            # predictions within 1 % of the least are a tie: the tuner cannot tell them apart
_SHAPE = ("grid", "block", "shared", "max_blocks_per_sm")


@dataclass(frozen=True)
class Sweep:
    """Variants of one problem on one GPU, as measured."""

    name: str                     # the order group, else the case ids' pattern
    gpu: str
    kind: str                     # "launch shape" | "code variant"
    swept: str                    # what differs: "grid, block", "kernel", ...
    cases: tuple[Case, ...]

    def variant(self, c: Case) -> str:
        """The part of ``c``'s id that names it within the sweep (b256, kernel_9)."""
        pattern = _name(self.cases).split("/")
        parts = [p for p, q in zip(c.id.split("/"), pattern) if q == "*"]
        return "/".join(parts) or c.id


@dataclass(frozen=True)
class Rejected:
    """Cases of one kernel on one GPU that are not one tuning sweep, and why."""

    what: str
    n_cases: int
    reason: str


@dataclass(frozen=True)
class SweepScore:
    """The tuner's pick against the measured best, for one sweep."""

    sweep: Sweep
    variants: tuple[str, ...]
    measured: tuple[float, ...]            # seconds, per variant
    predicted: tuple[float, ...]           # seconds, per variant (Pipeline model)
    picked: str
    best: str
    loss: float                            # measured(picked) / measured(best) - 1
    ties: tuple[str, ...]                  # variants predicted within TIE of the pick (the pick included)
    tie_loss: float                        # the largest loss among them
    spearman: float | None                 # predicted vs measured rank correlation (None: undefined)
    gpu_sweep_seconds: float | None        # sum of timed_launches x measured seconds
    calibrating: tuple[str, ...]           # variants a GPU database constant was read from

    def to_dict(self) -> dict:
        return {"sweep": self.sweep.name, "gpu": self.sweep.gpu, "kind": self.sweep.kind,
                "swept": self.sweep.swept, "variants": list(self.variants),
                "case_ids": [c.id for c in self.sweep.cases],
                "measured_seconds": list(self.measured), "predicted_seconds": list(self.predicted),
                "picked": self.picked, "best": self.best, "loss_percent": round(100 * self.loss, 3),
                "ties_within_1_percent": list(self.ties), "tie_loss_percent": round(100 * self.tie_loss, 3),
                "spearman": None if self.spearman is None else round(self.spearman, 4),
                "gpu_sweep_seconds": self.gpu_sweep_seconds,
                "timed_launches": [c.timed_launches for c in self.sweep.cases],
                "calibrating_variants": list(self.calibrating)}


def _kernel(c: Case) -> str:
    return f"{os.path.basename(c.launch.kernel_file)}:{c.launch.kernel}"


def _name(cases: Sequence[Case]) -> str:
    """The ids' common '/'-separated parts, '*' where they differ."""
    split = [c.id.split("/") for c in cases]
    if len({len(s) for s in split}) != 1:
        return cases[0].id.rsplit("/", 1)[0] + "/*"
    return "/".join(p[0] if len(set(p)) == 1 else "*" for p in zip(*split))


def _differing(cases: Sequence[Case], fields: Sequence[str]) -> list[str]:
    return [f for f in fields if len({getattr(c.launch, f) for c in cases}) > 1]


def _arg_names(cases: Sequence[Case]) -> list[str]:
    """Names of the arguments whose value differs (``B=zeros:f64:4096`` -> B)."""
    values: dict[str, set[str]] = defaultdict(set)
    for c in cases:
        for i, a in enumerate(c.launch.args):
            values[a.partition("=")[0] if "=" in a else f"#{i}"].add(a)
    return sorted(n for n, v in values.items() if len(v) > 1)


def find_sweeps(cases: Sequence[Case]) -> tuple[list[Sweep], list[Rejected]]:
    """The tuning sweeps among ``cases`` (derived from the case data alone) and what was rejected."""
    sweeps: list[Sweep] = []
    rejected: list[Rejected] = []
    groups: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for c in cases:
        if c.order_group:
            groups[(c.order_group, c.gpu)].append(c)
    for (og, gpu), cs in sorted(groups.items()):
        if len(cs) < 2:
            rejected.append(Rejected(f"order group {og} on {gpu}", 1, "a single variant"))
            continue
        diff = (["kernel"] if len({c.launch.kernel for c in cs}) > 1 else []) + \
            _differing(cs, ("kernel_file", "args", "nvcc_flags") + _SHAPE)
        sweeps.append(Sweep(og, gpu, "code variant", ", ".join(diff) or "nothing", tuple(cs)))

    by_kernel: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for c in cases:
        if not c.order_group:
            by_kernel[(_kernel(c), c.gpu)].append(c)
    for (kernel, gpu), cs in sorted(by_kernel.items()):
        problems: dict[tuple, list[Case]] = defaultdict(list)
        for c in cs:
            L = c.launch
            problems[(L.args, L.nvcc_flags, L.arch, L.warm_l2)].append(c)
        what = f"{kernel} on {gpu}"
        n_sweeps = 0
        for pcs in problems.values():
            shape = _differing(pcs, _SHAPE)
            if len(pcs) >= 2 and shape:
                sweeps.append(Sweep(_name(pcs), gpu, "launch shape", ", ".join(sorted(shape, key=_SHAPE.index)),
                                    tuple(pcs)))
                n_sweeps += 1
        if len(problems) > 1:
            why = []
            if _differing(cs, ("args",)):
                why.append(f"arguments differ ({', '.join(_arg_names(cs))}): the problem size")
            if _differing(cs, ("nvcc_flags",)):
                flags = sorted({f.split("=")[0] for c in cs for f in c.launch.nvcc_flags})
                why.append(f"build flags differ ({', '.join(flags)}): the computation, and no order_group "
                           "declares them one problem")
            if _differing(cs, ("arch", "warm_l2")):
                why.append("target or L2 state differs")
            tail = (f"; within each problem, {n_sweeps} launch-shape sweep(s) found" if n_sweeps
                    else "; no problem has two launch shapes")
            rejected.append(Rejected(f"{what} across {len(problems)} problems", len(cs),
                                     "; ".join(why) + " - not a tuning choice" + tail))
        elif not n_sweeps and len(cs) >= 2:
            rejected.append(Rejected(what, len(cs), "the same launch measured more than once"))
    return sweeps, rejected


def _ranks(xs: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties given their average rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation (Pearson's r of the average ranks); None when either side is constant."""
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    sab = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    saa = sum((x - ma) ** 2 for x in ra)
    sbb = sum((y - mb) ** 2 for y in rb)
    if saa == 0 or sbb == 0:
        return None
    return sab / math.sqrt(saa * sbb)


def score_sweep(sweep: Sweep, predicted: Mapping[str, float | None]) -> SweepScore | None:
    """The pick (least predicted time) and its quality loss; None when a variant has no prediction."""
    cs = sweep.cases
    got = [predicted.get(c.id) for c in cs]
    pred = [p for p in got if p is not None]
    if len(pred) < len(got) or any(not math.isfinite(p) for p in pred):
        return None
    meas = [c.seconds for c in cs]
    best_t = min(meas)
    ip = min(range(len(cs)), key=lambda i: pred[i])
    ib = min(range(len(cs)), key=lambda i: meas[i])
    ties = [i for i in range(len(cs)) if pred[i] <= pred[ip] * (1 + TIE)]
    names = [sweep.variant(c) for c in cs]
    gpu = None if any(c.timed_launches is None for c in cs) else sum((c.timed_launches or 0) * c.seconds for c in cs)
    return SweepScore(sweep, tuple(names), tuple(meas), tuple(pred), names[ip], names[ib],
                      meas[ip] / best_t - 1, tuple(names[i] for i in ties),
                      max(meas[i] / best_t - 1 for i in ties), spearman(pred, meas), gpu,
                      tuple(names[i] for i, c in enumerate(cs) if c.calibrates))
