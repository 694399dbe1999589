"""The WFG's nodes built from the IDG's dependence arrays (models/wfg_graph.build_wfg, issue 39) equal
the instruction-by-instruction construction they replaced, node for node."""

from __future__ import annotations

import numpy as np
import pytest

from model_test_helpers import random_timed_idgs

from pipeperf.idg.graph import IDG
from pipeperf.models.params import NodeTiming
from pipeperf.models.wfg_graph import COMP, MEM, SYNC, WfgNode, build_wfg


def _reference(idg: IDG, t: NodeTiming) -> list[WfgNode]:
    """The previous build_wfg, verbatim in its logic."""
    n = len(idg)
    kind = np.where(t.barrier, 2, np.where(t.mem, 1, 0))
    spans = []
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
    first_user = np.full(n, len(spans), dtype=np.int64)
    for i in range(n):
        for d in idg.deps_of(i):
            if node_of[i] < first_user[d]:
                first_user[d] = node_of[i]

    def chain(a, b):
        depth = np.zeros(b - a, dtype=np.int64)
        for i in range(a, b):
            inside = [d - a for d in idg.deps_of(i) if d >= a]
            depth[i - a] = 1 + (max(depth[inside]) if inside else 0)
        return int(depth.max())
    nodes = []
    for a, b in spans:
        lam, Lam = float(t.lam[a:b].mean()), float(t.Lam[a:b].mean())
        if kind[a] == 0:
            nodes.append(WfgNode(COMP, a, b - a, (b - a) / chain(a, b), lam, Lam))
        elif kind[a] == 1:
            nodes.append(WfgNode(MEM, a, 1, 1.0, lam, Lam, int(first_user[a])))
        else:
            nodes.append(WfgNode(SYNC, a, 1, 1.0, lam, Lam))
    return nodes


@pytest.mark.parametrize("seed", range(5))
def test_build_wfg_equals_the_reference(seed):
    for idg, t in random_timed_idgs(seed, 30, 120, mem_share=0.25, bar_share=0.05):
        assert build_wfg(idg, t) == _reference(idg, t)
