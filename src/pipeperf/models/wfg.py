"""The WFG model (Baghsorkhi et al. 2010) and its correction WFG*, Sec. 2.4 and 5.1 of
analytical-models-and-pipeline-model.txt.

Every arc of the Work Flow Graph (:mod:`pipeperf.models.wfg_graph`) gets a latency
as a function of the occupancy omega (WLP_effect = omega, no work groups):

* transition arc leaving computational block i (alpha_i instructions, ILP_i)
      lambda_comp^trans,i = alpha_i * max(lambda_comp, Lambda_comp / (ILP_i * omega))   # Eq. 30
* transition arc leaving a memory node: the memory CPI not hidden by compute cycles
      CYC_comp = sum_i lambda_comp^trans,i + lambda_mem^instr * alpha_mem               # Eqs. 31-32
      lambda_mem^trans = lambda_mem^instr + max(0, (CYC_mem - CYC_comp) / alpha_mem)   # Eqs. 33-34
  with CYC_mem = alpha_mem * lambda_mem and lambda_mem^instr = lambda_comp (Table 2);
* dependence arc leaving a memory node: the latency not hidden by other warps
      NBC_avg = CYC_comp / (alpha_mem + alpha_sync + 1)                                # Eq. 35
      Lambda_exposed = Lambda_mem - (omega - 1) * NBC_avg                              # Eq. 36
* a barrier's transition arc costs its CPI (the WFG's synchronisation model is not
  part of the paper's comparison).

Flattening the graph -- sum along transition arcs, the larger of the two arcs
leaving a memory node -- gives the cycles per warp CPW, and CPR = CPW * omega
(Eq. 39). Dependence arcs that skip nodes are handled by taking the longest path.

WFG* (Sec. 5.1): lambda_mem^instr = 0 and Eq. 42 instead of Eq. 36,

      Lambda_exposed = Lambda_mem / omega
                       - max(0, (omega - 1) / omega * NBC_avg - alpha_i Lambda_comp / (omega ILP_i))  # Eq. 42

where i is the computational block just before the memory node: the exposed
latency counts once per run, not per warp (Eq. 41), and compute cycles that already
hide computational latencies cannot hide memory latency too. Eq. 41 alone is
reported in the details. With several warp classes CPW is the weighted mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.idg.graph import IDG
from pipeperf.models.curve import ModelCurve
from pipeperf.models.params import KernelParams, class_memo, node_timing
from pipeperf.models.wfg_graph import COMP, MEM, WfgNode, build_wfg

NAME, LABEL = "wfg", "WFG"
NAME_CORR, LABEL_CORR = "wfg_corr", "WFG*"
MAX_NODE_DETAILS = 24


def warp_cycles(nodes: list[WfgNode], warps: np.ndarray, lam_instr: float, alpha_sync: float,
                corrected: bool) -> tuple[np.ndarray, dict]:
    """CPW of one warp class at every omega, and the intermediate quantities."""
    if len(warps) == 1 and len(nodes) > MAX_NODE_DETAILS:
        return _one_omega(nodes, warps, lam_instr, alpha_sync, corrected)
    w = warps
    comp_arcs = {k: nd.alpha * np.maximum(nd.lam, nd.Lam / (nd.ilp * w))          # Eq. 30
                 for k, nd in enumerate(nodes) if nd.kind == COMP}
    mems = [k for k, nd in enumerate(nodes) if nd.kind == MEM]
    alpha_mem = len(mems)
    cyc_comp = sum(comp_arcs.values(), np.zeros_like(w)) + lam_instr * alpha_mem   # Eq. 31
    alpha_comp = sum(nodes[k].alpha for k in comp_arcs)
    lam_trans_mean = (cyc_comp - lam_instr * alpha_mem) / alpha_comp if alpha_comp else 0 * w  # Eq. 32
    cyc_mem = sum(nodes[k].lam for k in mems)
    lam_trans = lam_instr + np.maximum(0.0, (cyc_mem - cyc_comp) / max(alpha_mem, 1))  # Eq. 33
    nbc = cyc_comp / (alpha_mem + alpha_sync + 1)                                  # Eq. 35
    exposed: dict[int, np.ndarray] = {}
    eq41: dict[int, np.ndarray] = {}
    for k in mems:
        Lm = nodes[k].Lam
        if corrected:
            prev = nodes[k - 1] if k > 0 and nodes[k - 1].kind == COMP else None
            hidden_comp = prev.alpha * prev.Lam / (w * prev.ilp) if prev else 0.0
            exposed[k] = Lm / w - np.maximum(0.0, (w - 1) / w * nbc - hidden_comp)    # Eq. 42
        else:
            exposed[k] = Lm - (w - 1) * nbc                                        # Eq. 36
        eq41[k] = (Lm - (w - 1) * nbc) / w                                         # Eq. 41
    # flatten: longest path through transition and dependence arcs
    n = len(nodes)
    start = [np.zeros_like(w) for _ in range(n + 1)]
    for k, nd in enumerate(nodes):
        if nd.kind == COMP:
            trans = comp_arcs[k]
        elif nd.kind == MEM:
            trans = lam_trans
            start[nd.dep_target] = np.maximum(start[nd.dep_target], start[k] + exposed[k])
        else:
            trans = np.full_like(w, nd.lam)
        start[k + 1] = np.maximum(start[k + 1], start[k] + trans)
    cpw = start[n]
    details: dict[str, Any] = {"CYC_comp": cyc_comp, "CYC_mem": cyc_mem, "NBC_avg": nbc, "lambda_comp_trans_mean": lam_trans_mean,
               "lambda_mem_instr": lam_instr, "lambda_mem_trans": lam_trans, "CPW": cpw}
    if n <= MAX_NODE_DETAILS:
        details["nodes"] = [nd.to_dict() for nd in nodes]
        details["comp_trans_arcs"] = {str(k): v for k, v in comp_arcs.items()}
        details["Lambda_exposed"] = {str(k): v for k, v in exposed.items()}
        details["Lambda_exposed_eq41"] = {str(k): v for k, v in eq41.items()}
    return cpw, details


def _max(a: float, b: float) -> float:
    """``np.maximum`` of two floats (NaN wins, as there)."""
    return a if a >= b or a != a else b


def _one_omega(nodes: list[WfgNode], warps: np.ndarray, lam_instr: float, alpha_sync: float,
               corrected: bool) -> tuple[np.ndarray, dict]:
    """:func:`warp_cycles` at one omega on a WFG too long for its per-node details: the same
    operations in the same order on floats instead of one-element arrays (a 20 000-node WFG's
    longest path cost ~10 NumPy calls per node); the same results, as one-element arrays."""
    w = float(warps[0])
    comp_arcs = {k: nd.alpha * _max(nd.lam, nd.Lam / (nd.ilp * w))                # Eq. 30
                 for k, nd in enumerate(nodes) if nd.kind == COMP}
    mems = [k for k, nd in enumerate(nodes) if nd.kind == MEM]
    alpha_mem = len(mems)
    cyc_comp = sum(comp_arcs.values(), 0.0) + lam_instr * alpha_mem              # Eq. 31
    alpha_comp = sum(nodes[k].alpha for k in comp_arcs)
    lam_trans_mean = (cyc_comp - lam_instr * alpha_mem) / alpha_comp if alpha_comp else 0 * w  # Eq. 32
    cyc_mem = sum(nodes[k].lam for k in mems)
    lam_trans = lam_instr + _max(0.0, (cyc_mem - cyc_comp) / max(alpha_mem, 1))   # Eq. 33
    nbc = cyc_comp / (alpha_mem + alpha_sync + 1)                                  # Eq. 35
    exposed: dict[int, float] = {}
    for k in mems:
        Lm = nodes[k].Lam
        if corrected:
            prev = nodes[k - 1] if k > 0 and nodes[k - 1].kind == COMP else None
            hidden_comp = prev.alpha * prev.Lam / (w * prev.ilp) if prev else 0.0
            exposed[k] = Lm / w - _max(0.0, (w - 1) / w * nbc - hidden_comp)     # Eq. 42
        else:
            exposed[k] = Lm - (w - 1) * nbc                                        # Eq. 36
    n = len(nodes)
    start = [0.0] * (n + 1)
    for k, nd in enumerate(nodes):
        if nd.kind == COMP:
            trans = comp_arcs[k]
        elif nd.kind == MEM:
            trans = lam_trans
            start[nd.dep_target] = _max(start[nd.dep_target], start[k] + exposed[k])
        else:
            trans = float(nd.lam)
        start[k + 1] = _max(start[k + 1], start[k] + trans)

    def one(x: float) -> np.ndarray:
        return np.full(1, x, np.float64)
    cpw = one(start[n])
    details: dict[str, Any] = {"CYC_comp": one(cyc_comp), "CYC_mem": cyc_mem, "NBC_avg": one(nbc),
                               "lambda_comp_trans_mean": one(lam_trans_mean), "lambda_mem_instr": lam_instr,
                               "lambda_mem_trans": one(lam_trans), "CPW": cpw}
    return cpw, details


def _predict(kp: KernelParams, warps: np.ndarray, corrected: bool) -> ModelCurve:
    lam_instr = 0.0 if corrected or not kp.alpha_comp else kp.lam_comp    # Table 2 / Sec. 5.1
    cpw = np.zeros_like(warps)
    per_class = []
    for wc, wp in zip(kp.kernel.warp_classes, kp.warp_classes):
        nodes = _wfg(kp, wc.idg)
        c, d = warp_cycles(nodes, warps, lam_instr, wp.alpha_sync, corrected)
        cpw += wp.weight * c
        per_class.append({"warp_class": wc.idg.name, "weight": wp.weight, **d})
    details = dict(per_class[0]) if len(per_class) == 1 else {"warp_classes": per_class}
    details["CPW"], details["CPR"] = cpw, cpw * warps                             # Eq. 39
    return ModelCurve(NAME_CORR if corrected else NAME, LABEL_CORR if corrected else LABEL,
                      warps, 1.0 / cpw, details)


def _wfg(kp: KernelParams, idg: IDG) -> list[WfgNode]:
    return class_memo(kp, "wfg", idg, lambda: build_wfg(idg, node_timing(idg, kp.gpu)))


def predict(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    return _predict(kp, warps, corrected=False)


def predict_corrected(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    return _predict(kp, warps, corrected=True)


def wfg_of(idg: IDG, kp: KernelParams) -> list[WfgNode]:
    """The WFG of one IDG under ``kp``'s GPU (for reports and tests)."""
    return build_wfg(idg, node_timing(idg, kp.gpu))
