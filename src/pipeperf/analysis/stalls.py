"""Where the simulated time goes, per PTX instruction and per CUDA source line: the Nsight Compute
Source page, predicted.

The simulator charges every cycle of every warp slot of the simulated SM to an IDG node and a
reason (:class:`pipeperf.simulate.simulator.Attribution`). Nodes are dynamic instructions of a
warp class; each carries its PTX instruction (``IDG.pcs``), so summing the charges per PTX
instruction and then per source line (``.loc``, :class:`pipeperf.ptx.source_map.SourceMap`)
gives each line's slot cycles. The warp classes run on the simulated SM in proportion to their
sampling weights (``KernelGraph.assign``), so no further weighting applies. A line's share is
its slot cycles over all slot cycles of the run (idle ones included), so the lines and the idle
rows add up to the simulated time exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:
    from pipeperf.ptx.ir import Function
    from pipeperf.ptx.source_map import SourceMap
    from pipeperf.simulate.simulator import PreparedKernel, SimResult

#: what the report says about how per-line time is obtained (an approximation, stated)
METHOD = ("time per source line: every warp slot's cycles on the simulated SM charged to the "
          "instruction the warp issues next and why it waits (a wait for a busy pipeline to the "
          "instruction occupying it, a wait at a barrier to the barrier), or to idle; per line as a "
          "share of all slot cycles; the simulated SM stands for every SM")


@dataclass(frozen=True)
class PcStalls:
    """Slot cycles of one run per PTX instruction (pc) and reason, and the idle slot cycles."""

    by_pc: dict[int, dict[str, float]]
    idle: dict[str, float]
    total: float                          # slot cycles of the run (slots x cycles)


@dataclass(frozen=True)
class LineTime:
    """One source line's (or, without a ``.loc``, one PTX line's) share of the simulated time."""

    file: str | None                      # None: a PTX instruction with no source line
    line: int | None
    ptx_lines: list[int]
    share: float                          # of the simulated time, 0..1
    cycles: float                         # share x the kernel's simulated cycles
    reasons: list[tuple[str, float]] = field(default_factory=list)   # (reason, share of the time), largest first
    ptx: list[tuple[int, float, str]] = field(default_factory=list)  # per PTX line: (line, share, top reason)

    @property
    def top_reason(self) -> str:
        return self.reasons[0][0] if self.reasons else "-"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "ptx_lines": self.ptx_lines,
                "share_pct": round(100 * self.share, 3), "cycles": round(self.cycles, 2),
                "reasons": [{"reason": r, "share_pct": round(100 * s, 3)} for r, s in self.reasons],
                "ptx": [{"ptx_line": n, "share_pct": round(100 * s, 3), "top_reason": r} for n, s, r in self.ptx]}


def name_producers(prep: PreparedKernel, func: Function) -> None:
    """Name each node's producer kind after its PTX instruction (loads and stores by state space,
    atomics, shuffles, barriers), else after its class's subsystem, for the dependency reasons.
    A pc's kind is named once, from its first node (every GPU's IDGs hold tens of thousands)."""
    import bisect

    from pipeperf.simulate.simulator import producer_kind

    idgs = prep.kernel.idgs
    if any(g.pcs is None for g in idgs):
        return
    if not idgs:
        prep.name_producers([])
        return
    node_pcs = [cast(np.ndarray, g.pcs) for g in idgs]
    keys, first, inv = np.unique(np.concatenate(node_pcs), return_index=True, return_inverse=True)
    offs = np.cumsum([0] + [len(p) for p in node_pcs]).tolist()
    sub = prep.sub
    labels = []
    for pc, i in zip(keys.tolist(), first.tolist()):
        op = func.instructions[pc].op
        space = op.space if op.space not in (None, "generic") else "generic"
        if op.root in ("ld", "ldu", "cp"):
            labels.append(f"{space} load")
        elif op.root in ("atom", "red"):
            labels.append(f"{space} atomic")
        elif op.root in ("shfl", "vote", "match", "redux"):
            labels.append("warp shuffle/vote")
        else:                                   # the class of the pc's first node
            k = bisect.bisect_right(offs, i) - 1
            g = idgs[k]
            name = g.class_of(i - offs[k])
            labels.append(producer_kind(str(name), prep.subsystems[int(sub[i])]))
    prep.name_producers_by_pc(labels, first, inv.reshape(-1))


def pc_stalls(run: SimResult, prep: PreparedKernel) -> PcStalls | None:
    """Sum a run's attribution (``run.attribution``, from ``PreparedKernel.run(attribute=True)``)
    per PTX instruction; None when the run has none or its IDGs do not know their PTX lines."""
    a = run.attribution
    idgs = prep.kernel.idgs
    if a is None or any(g.pcs is None for g in idgs):
        return None
    pcs = np.concatenate([g.pcs for g in idgs]) if idgs else np.zeros(0, np.int64)
    cells = a.cells.copy()
    reasons = list(a.reasons)
    # "pipeline busy" names the pipeline the instruction waits for
    pipe = reasons.index("pipeline busy")
    subs = prep.subsystems
    by_pc: dict[int, dict[str, float]] = {}
    keys, inv = np.unique(pcs, return_inverse=True)
    per_pc = np.zeros((len(keys), len(reasons)))
    np.add.at(per_pc, inv, cells)
    per_pipe = np.zeros((len(keys), len(subs)))
    np.add.at(per_pipe, (inv, prep.sub), cells[:, pipe])
    for k, pc in enumerate(keys.tolist()):
        row = {r: float(v) for r, v in zip(reasons, per_pc[k]) if v > 0 and r != "pipeline busy"}
        for q, v in enumerate(per_pipe[k]):
            if v > 0:
                row[f"pipeline busy ({subs[q]})"] = float(v)
        if row:
            by_pc[int(pc)] = row
    return PcStalls(by_pc, dict(a.idle), a.total)


@dataclass(frozen=True)
class LineTimes:
    """The predicted time by source line (``lines``, largest share first) and the idle rows
    (``idle``: slot cycles with no instruction): the shares of both sum to 1."""

    lines: list[LineTime]
    idle: list[dict[str, Any]]


def line_times(stalls: PcStalls, func: Function, sources: SourceMap | None, cycles: float) -> LineTimes:
    """Per source line of ``func`` (``sources``: its module's SourceMap, or None), its share of the
    ``cycles`` the kernel is predicted to take and its reasons, largest share first; and the idle
    rows (slot cycles with no instruction), so that the shares of both sum to 1."""
    total = stalls.total or 1.0
    lines: dict[tuple, dict[str, Any]] = {}
    for pc, reasons in stalls.by_pc.items():
        ins = func.instructions[pc]
        loc = sources.location(func, ins) if sources is not None else None
        key = (loc.file, loc.line) if loc else (None, ins.line)
        d = lines.setdefault(key, {"ptx": {}, "reasons": {}})
        per = d["ptx"].setdefault(ins.line, {})
        for r, v in reasons.items():
            d["reasons"][r] = d["reasons"].get(r, 0.0) + v
            per[r] = per.get(r, 0.0) + v
    out = []
    for (f, n), d in lines.items():
        slot = sum(d["reasons"].values())
        share = slot / total
        ranked = sorted(((r, v / total) for r, v in d["reasons"].items()), key=lambda rv: -rv[1])
        ptx = [(k, sum(rs.values()) / total, max(rs, key=rs.get)) for k, rs in sorted(d["ptx"].items())]
        out.append(LineTime(f, n if f is not None else None, sorted(d["ptx"]), share, share * cycles, ranked, ptx))
    out.sort(key=lambda x: -x.share)
    idle = [{"reason": r, "share_pct": 100 * v / total, "cycles": v / total * cycles}
            for r, v in stalls.idle.items() if v > 0]
    return LineTimes(out, idle)


def line_label(t: LineTime) -> str:
    """``file.cu:18`` or, without a source line, ``PTX line 45``."""
    return f"{t.file}:{t.line}" if t.file is not None else f"PTX line {t.ptx_lines[0]}"
