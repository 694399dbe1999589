"""The Work Flow Graph (Baghsorkhi et al. 2010) of an IDG, Sec. 2.4 and 4.1 of
analytical-models-and-pipeline-model.txt.

The WFG groups a warp's instructions, in program order, into nodes: a block of
consecutive computational instructions, a single memory instruction, or a barrier
(synchronisation point). Transition arcs join consecutive nodes; a data-dependence
arc leaves every memory node towards the node holding the first instruction that
uses its result -- or towards the warp's exit when none does, because a warp ends
only when its memory transactions complete (as in the Pipeline simulator).

The ILP of a computational block is its instruction count divided by the length
(in instructions) of the longest dependence chain inside the block, so c3 -> {c3, c4}
of the example kernel has ILP 2 and {c1 -> c2} has ILP 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeperf.idg.graph import IDG
from pipeperf.models.params import NodeTiming

COMP, MEM, SYNC = "comp", "mem", "sync"


@dataclass(frozen=True)
class WfgNode:
    kind: str                  # comp | mem | sync
    first: int                 # first IDG node
    alpha: int                 # instructions in the node
    ilp: float                 # ILP of a computational block (1 otherwise)
    lam: float                 # mean CPI of its instructions
    Lam: float                 # mean latency of its instructions
    dep_target: int = -1       # memory node: WFG node index of its first user (len(nodes) = exit)

    def to_dict(self) -> dict:
        d = {"kind": self.kind, "alpha": self.alpha, "lambda": self.lam, "Lambda": self.Lam}
        if self.kind == COMP:
            d["ILP"] = self.ilp
        if self.kind == MEM:
            d["dependence_to"] = self.dep_target
        return d


def build_wfg(idg: IDG, t: NodeTiming) -> list[WfgNode]:
    """Split an IDG into WFG nodes (see module docstring)."""
    n = len(idg)
    kind = np.where(t.barrier, 2, np.where(t.mem, 1, 0))
    spans: list[tuple[int, int]] = []            # [start, end) of each WFG node
    i = 0
    while i < n:
        j = i + 1
        if kind[i] == 0:
            while j < n and kind[j] == 0:
                j += 1
        spans.append((i, j))
        i = j
    node_of = np.empty(n, dtype=np.int64)
    for k, (a, b) in enumerate(spans):
        node_of[a:b] = k
    first_user = np.full(n, len(spans), dtype=np.int64)      # WFG node of each instruction's first user
    for i in range(n):
        for d in idg.deps_of(i):
            if node_of[i] < first_user[d]:
                first_user[d] = node_of[i]
    nodes = []
    for a, b in spans:
        lam, Lam = float(t.lam[a:b].mean()), float(t.Lam[a:b].mean())
        if kind[a] == 0:
            nodes.append(WfgNode(COMP, a, b - a, (b - a) / _chain_length(idg, a, b), lam, Lam))
        elif kind[a] == 1:
            nodes.append(WfgNode(MEM, a, 1, 1.0, lam, Lam, int(first_user[a])))
        else:
            nodes.append(WfgNode(SYNC, a, 1, 1.0, lam, Lam))
    return nodes


def _chain_length(idg: IDG, a: int, b: int) -> int:
    """Longest dependence chain, in instructions, among nodes a..b-1."""
    depth = np.zeros(b - a, dtype=np.int64)
    for i in range(a, b):
        inside = [d - a for d in idg.deps_of(i) if d >= a]
        depth[i - a] = 1 + (max(depth[inside]) if inside else 0)
    return int(depth.max())
