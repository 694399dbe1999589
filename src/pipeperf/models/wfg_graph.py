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
    if n == 0:
        return []
    kind = np.where(t.barrier, 2, np.where(t.mem, 1, 0))
    # a node starts at every memory/barrier instruction and after one (computational runs between)
    start = np.flatnonzero((kind != 0) | np.r_[True, kind[:-1] != 0])
    end = np.r_[start[1:], n]
    node_of = np.repeat(np.arange(len(start), dtype=np.int64), end - start)
    ptr, idx = idg.dep_ptr, idg.dep_idx
    first_user = np.full(n, len(start), dtype=np.int64)      # WFG node of each instruction's first user
    if len(idx):
        np.minimum.at(first_user, idx, node_of[np.repeat(np.arange(n), np.diff(ptr))])
    ptr_l, idx_l, kinds, first = ptr.tolist(), idx.tolist(), kind.tolist(), first_user.tolist()
    nodes = []
    for a, b in zip(start.tolist(), end.tolist()):
        if kinds[a] == 0:
            lam, Lam = float(t.lam[a:b].mean()), float(t.Lam[a:b].mean())
            nodes.append(WfgNode(COMP, a, b - a, (b - a) / _chain_length(ptr_l, idx_l, a, b), lam, Lam))
        elif kinds[a] == 1:                                 # (one instruction: its own lambda, Lambda)
            nodes.append(WfgNode(MEM, a, 1, 1.0, float(t.lam[a]), float(t.Lam[a]), first[a]))
        else:
            nodes.append(WfgNode(SYNC, a, 1, 1.0, float(t.lam[a]), float(t.Lam[a])))
    return nodes


def _chain_length(ptr: list[int], idx: list[int], a: int, b: int) -> int:
    """Longest dependence chain, in instructions, among nodes a..b-1 (``ptr``/``idx``: the IDG's
    dependences, CSR)."""
    depth = [0] * (b - a)
    for i in range(a, b):
        m = 0
        for d in idx[ptr[i]:ptr[i + 1]]:
            if d >= a and depth[d - a] > m:
                m = depth[d - a]
        depth[i - a] = 1 + m
    return max(depth)
