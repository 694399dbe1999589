"""GPUMech (Huang et al. 2014): interval analysis of a representative warp, Sec. 2.5 of
analytical-models-and-pipeline-model.txt, with RR and GTO schedulers and GPUMech(RR)*.

As in the paper, computational latencies are ignored and the memory contention
part of GPUMech (MSHRs, DRAM bandwidth) is not implemented. The representative warp
runs alone, in program order: a computational instruction keeps the warp issuing
for its CPI lambda and its result is ready then; a memory instruction issues at no
cost and its result arrives Lambda_mem later. Each time the warp must wait, an
*interval* ends: interval i has n_i instructions taking I_i issue cycles, followed
by S_i stall cycles (the last interval's stall drains the final memory latency).

GPUMech's own text is not among our sources; the multithreading equations below
are reconstructed from the paper's description and worked numbers (Sec. 2.5.1:
issue probability 3/(3+6) and 2 non-overlapped instructions for 4 warps) with
Volkov's typo corrections (min and max swapped in Eqs. 15-16, Eq. 7 an IPC):

    issue_prob = sum_i I_i / sum_i (I_i + S_i)                                 # GPUMech Eq. 9
  RR (GPUMech Eqs. 10-11): between two instructions of the representative warp
  every other warp issues with probability issue_prob, and those delay it:
    nonoverl_i = (n_i - 1)^+ * (omega - 1) * issue_prob    instructions
    cycles_i   = I_i + S_i + nonoverl_i * I_i / n_i
  GTO (GPUMech Eqs. 12-16): during a stall the other warps run whole intervals:
    issue_prob_in_stall_i = min(1, issue_prob * S_i)                           # GPUMech Eq. 15
    overl_i  = min(S_i, issue_prob_in_stall_i * (omega - 1) * mean_i I_i)      # GPUMech Eqs. 12, 14, 16
    cycles_i = omega * I_i + S_i - overl_i
  RR* (Sec. 2.5.1): issue probability 1 and at most one overlapped instruction per
  other warp and per stall cycle (stall cycles counted in instructions of I_i / n_i cycles):
    #overl_insts_i    = min(stall_cycles_i, #warps - 1)
    #nonoverl_insts_i = (#warps - 1) * #interval_insts_i - #overl_insts_i
    cycles_i = I_i + S_i + #nonoverl_insts_i * I_i / n_i

CPR = sum_i cycles_i; with several warp classes the CPRs are weight-averaged.
Uncorrected RR overlaps more instructions than there are stall cycles, so its
curve goes through the roof; GTO converges to Volkov's roof (Sec. 2.5.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeperf.idg.graph import IDG
from pipeperf.models.curve import ModelCurve
from pipeperf.models.params import KernelParams, NodeTiming, class_memo, node_timing

NAME_RR, LABEL_RR = "gpumech_rr", "GPUMech RR"
NAME_GTO, LABEL_GTO = "gpumech_gto", "GPUMech GTO"
NAME_RR_CORR, LABEL_RR_CORR = "gpumech_rr_corr", "GPUMech RR*"


@dataclass(frozen=True)
class Interval:
    insts: int          # n_i: instructions issued in the interval
    issue: float        # I_i: cycles spent issuing them
    stall: float        # S_i: stall cycles that end the interval

    def to_dict(self) -> dict:
        return {"insts": self.insts, "issue_cycles": self.issue, "stall_cycles": self.stall}


def intervals(idg: IDG, t: NodeTiming) -> list[Interval]:
    """Split the representative warp's execution into intervals (see module docstring). (Walked on
    Python lists: one NumPy call per instruction cost more than the walk.)"""
    cost = np.where(t.mem, 0.0, t.lam).tolist()           # issue cycles of each instruction
    ready_after = np.where(t.mem, t.Lam, t.lam).tolist()  # computational latency ignored
    mem = np.asarray(t.mem, bool).tolist()
    ptr, idx = idg.dep_ptr.tolist(), idg.dep_idx.tolist()
    done = [0.0] * len(idg)
    out: list[Interval] = []
    n_i, issue_i, clock = 0, 0.0, 0.0
    for i in range(len(idg)):
        a, b = ptr[i], ptr[i + 1]
        start = max(clock, max([done[d] for d in idx[a:b]]) if b > a else 0.0)
        if start > clock:                                 # the warp stalls: the interval ends
            _close(out, n_i, issue_i, start - clock)
            n_i, issue_i = 0, 0.0
        done[i] = start + ready_after[i]
        clock = start + cost[i]
        if not mem[i]:
            n_i += 1
            issue_i += cost[i]
    end = max(done) if done else 0.0
    _close(out, n_i, issue_i, max(0.0, end - clock))
    return out


def _close(out: list[Interval], n: int, issue: float, stall: float) -> None:
    """Append an interval; a stall right after another one (no instruction between) extends it."""
    if n == 0 and out:
        last = out[-1]
        out[-1] = Interval(last.insts, last.issue, last.stall + stall)
    elif n or stall:
        out.append(Interval(n, issue, stall))


def _arrays(ivs: list[Interval]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = np.array([iv.insts for iv in ivs], dtype=np.float64)
    issue = np.array([iv.issue for iv in ivs], dtype=np.float64)
    stall = np.array([iv.stall for iv in ivs], dtype=np.float64)
    return n, issue, stall


def _per_inst(n: np.ndarray, issue: np.ndarray) -> np.ndarray:
    return np.divide(issue, n, out=np.zeros_like(issue), where=n > 0)


def _issue_prob(issue: np.ndarray, stall: np.ndarray) -> float:
    """GPUMech Eq. 9; 1 for a warp with no intervals (an empty IDG: nothing to issue or stall on)."""
    total = float(issue.sum() + stall.sum())
    return float(issue.sum()) / total if total > 0 else 1.0


def cpr_rr(ivs: list[Interval], warps: np.ndarray) -> tuple[np.ndarray, dict]:
    n, issue, stall = _arrays(ivs)
    p = _issue_prob(issue, stall)                                            # GPUMech Eq. 9
    nonoverl = np.maximum(n - 1, 0)[:, None] * (warps[None, :] - 1) * p      # GPUMech Eqs. 10-11
    cycles = issue[:, None] + stall[:, None] + nonoverl * _per_inst(n, issue)[:, None]
    return cycles.sum(axis=0), {"issue_prob": p}


def cpr_rr_corrected(ivs: list[Interval], warps: np.ndarray) -> tuple[np.ndarray, dict]:
    n, issue, stall = _arrays(ivs)
    others = warps[None, :] - 1
    lam = _per_inst(n, issue)[:, None]
    slots = np.divide(stall[:, None], lam, out=np.zeros_like(lam), where=lam > 0)  # stall in instructions
    overl = np.minimum(slots, others)                                        # Sec. 2.5.1, #overl_insts
    nonoverl = others * n[:, None] - overl                                   # Sec. 2.5.1, #nonoverl_insts
    cycles = issue[:, None] + stall[:, None] + nonoverl * lam
    return cycles.sum(axis=0), {"issue_prob": 1.0}


def cpr_gto(ivs: list[Interval], warps: np.ndarray) -> tuple[np.ndarray, dict]:
    n, issue, stall = _arrays(ivs)
    p = _issue_prob(issue, stall)                                            # GPUMech Eq. 9
    p_stall = np.minimum(1.0, p * stall)                                     # GPUMech Eq. 15 (min)
    mean_issue = float(issue.mean()) if len(issue) else 0.0
    overl = np.minimum(stall[:, None],                                       # GPUMech Eq. 16 (min)
                       p_stall[:, None] * (warps[None, :] - 1) * mean_issue)     # Eqs. 12, 14
    cycles = warps[None, :] * issue[:, None] + stall[:, None] - overl
    return cycles.sum(axis=0), {"issue_prob": p, "issue_prob_in_stall": p_stall}


def _predict(kp: KernelParams, warps: np.ndarray, name: str, label: str, fn) -> ModelCurve:
    cpr = np.zeros_like(warps)
    per_class = []
    for wc, wp in zip(kp.kernel.warp_classes, kp.warp_classes):
        ivs = class_memo(kp, "intervals", wc.idg, lambda: intervals(wc.idg, node_timing(wc.idg, kp.gpu)))  # noqa: B023 (called at once)
        c, d = fn(ivs, warps)
        cpr += wp.weight * c
        shown = [iv.to_dict() for iv in ivs[:64]]
        per_class.append({"warp_class": wc.idg.name, "weight": wp.weight, "n_intervals": len(ivs),
                          "intervals": shown, **d, "CPR": c})
    details = dict(per_class[0]) if len(per_class) == 1 else {"warp_classes": per_class}
    details["CPR"] = cpr
    return ModelCurve(name, label, warps, warps / cpr, details)


def predict_rr(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    return _predict(kp, warps, NAME_RR, LABEL_RR, cpr_rr)


def predict_gto(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    return _predict(kp, warps, NAME_GTO, LABEL_GTO, cpr_gto)


def predict_rr_corrected(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    return _predict(kp, warps, NAME_RR_CORR, LABEL_RR_CORR, cpr_rr_corrected)
