"""Optimization analyses of Sec. IV: DMA granularity (Eq. 13), double buffering
(Eq. 14) and the number of active CPEs (Eq. 15).

Each returns the predicted saving with the reason, so a user learns *why* an
optimization helps (or not) before writing it. Savings are first-order, as in
the paper (Eq. 13 ignores the change of NG, Eq. 15 that of T_overlap); the
predicted time after the change is ``baseline - saving``, where the baseline is
the measured time when the kernel file gives one (as Fig. 8 does) or the
model's T_total otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.sw26010.batch import KIND_GLOAD, request_rows
from pipeperf.sw26010.model import Prediction


@dataclass
class Analysis:
    """Predicted effect of one optimization."""

    name: str
    equation: str
    saving_us: float
    baseline_us: float
    baseline_kind: str       # "measured" or "predicted"
    explanation: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def predicted_us(self) -> float:
        return self.baseline_us - self.saving_us

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "equation": self.equation, "saving_us": self.saving_us,
                "baseline_us": self.baseline_us, "baseline_kind": self.baseline_kind,
                "predicted_us": self.predicted_us, "explanation": self.explanation,
                "details": self.details}


def _baseline(pred: Prediction, baseline_us: float | None) -> tuple[float, str]:
    if baseline_us is not None:
        return baseline_us, "measured"
    if pred.spec.measured_us is not None:
        return pred.spec.measured_us, "measured"
    return pred.t_total_us, "predicted"


def dma_granularity(pred: Prediction, granularity: int | None = None,
                    baseline_us: float | None = None) -> Analysis:
    """Eq. 13: split DMA requests into pieces of ``granularity`` bytes (default Trans_size).

    More, smaller requests leave less DMA time outside the overlap (Eq. 8's
    1 - 1/#DMA_reqs), as long as each piece stays >= Trans_size.
    """
    spec = pred.spec
    ts = spec.processor.trans_size
    g = ts if granularity is None else granularity
    if g < ts:
        raise PipeperfError(f"DMA granularity {g} B is below Trans_size ({ts} B): Eq. 13 holds only "
                            "while requests stay >= Trans_size (smaller ones waste transactions)",
                            file=spec.source)
    rows = [r for r in request_rows(spec) if r[1] != KIND_GLOAD]
    base, kind = _baseline(pred, baseline_us)
    n1 = sum(r[2] for r in rows)
    if n1 == 0:
        return Analysis("dma_granularity", "Eq. 13", 0.0, base, kind, "the kernel issues no DMA requests")
    n2 = sum(count * max(1, nbytes // g) for _, _, count, _, nbytes in rows)
    t_dma = pred.us("t_dma")
    raw = (1.0 / n1 - 1.0 / n2) * t_dma                                   # Eq. 13
    room = pred.us("t_comp") - pred.us("t_overlap")
    saving = max(0.0, min(raw, room))
    details = {"dma_reqs_before": n1, "dma_reqs_after": n2, "granularity_bytes": g,
               "eq13_us": raw, "exposed_comp_us": room}
    if n2 == n1:
        why = (f"every DMA request is already at most {g} B, so it cannot be split without "
               f"dropping below Trans_size = {ts} B and wasting transactions")
    elif saving < raw:
        why = (f"splitting into {g}-byte requests raises #DMA_reqs from {n1:g} to {n2:g}; Eq. 13 gives "
               f"{raw:.1f} us but only {room:.1f} us of computation is left to overlap (Eq. 7)")
    else:
        why = (f"splitting into {g}-byte requests raises #DMA_reqs from {n1:g} to {n2:g}, so Eq. 8's "
               f"(1 - 1/#DMA_reqs) hides more of T_DMA = {t_dma:.1f} us: "
               f"(1/{n1:g} - 1/{n2:g}) x T_DMA = {raw:.1f} us (NG and T_g unchanged)")
    return Analysis("dma_granularity", "Eq. 13", saving, base, kind, why, details)


def double_buffer(pred: Prediction, baseline_us: float | None = None) -> Analysis:
    """Eq. 14: double buffering hides at most the copy-in of one virtual group.

    Fig. 5: in Scenario 1 the gain is one group's copy-in time
    (T_DMA,in / NG_DMA); in Scenario 2 computation is already fully overlapped
    and there is nothing to gain (T_comp - T_overlap = 0).
    """
    spec, t = pred.spec, pred.terms
    base, kind = _baseline(pred, baseline_us)
    ng = int(t["ng_dma"])
    if ng == 0:
        return Analysis("double_buffer", "Eq. 14", 0.0, base, kind, "the kernel issues no DMA requests")
    t_in = pred.us("t_dma_in")
    one_group = t_in / ng
    room = pred.us("t_comp") - pred.us("t_overlap_base")
    gain = max(0.0, min(one_group, room))                                 # Eq. 14
    details = {"ng_dma": ng, "t_dma_in_us": t_in, "one_group_copy_in_us": one_group,
               "exposed_comp_us": room, "scenario": int(t["scenario"]),
               "fraction_of_t_dma": gain / pred.us("t_dma") if pred.us("t_dma") else 0.0}
    largest = max((r.useful_bytes for r in spec.dma), default=0)
    spm_note = ""
    if not spec.double_buffer and 2 * largest > spec.processor.spm_bytes:
        spm_note = (f"; note two buffers of the largest request ({largest} B) exceed the "
                    f"{spec.processor.spm_bytes}-byte SPM, so tiles must shrink first")
    if room <= 0:
        why = ("Scenario 2: computation is already fully overlapped with memory accesses "
               "(T_overlap = T_comp), so double buffering cannot help (Fig. 5, right)")
    elif gain < one_group:
        why = (f"Scenario 1, but only {room:.1f} us of computation is exposed, less than one virtual "
               f"group's copy-in ({one_group:.1f} us)")
    else:
        why = (f"Scenario 1: the gain is one virtual group's copy-in, T_DMA,in / NG_DMA = "
               f"{t_in:.1f} / {ng} = {gain:.1f} us ({100 * details['fraction_of_t_dma']:.1f} % of T_DMA)")
    if spec.double_buffer:
        why = "already double buffered (gain included in T_total): " + why
        gain = 0.0
    return Analysis("double_buffer", "Eq. 14", gain, base, kind, why + spm_note, details)


def active_cpes(pred: Prediction, target: int | None = None,
                baseline_us: float | None = None) -> Analysis:
    """Eq. 15: fewer active CPEs help only when DMA wastes transactions and T_DMA > T_comp.

    With fewer CPEs each CPE moves more data per request; a request whose
    grown size still fits in the transactions it already pays (size < Trans_size,
    Sec. IV-3) costs no more per CPE, so its T_DMA falls with #active_CPEs
    (Eq. 4) while T_comp rises. Requests without waste keep their T_DMA.
    """
    spec, t = pred.spec, pred.terms
    ts = spec.processor.trans_size
    a = spec.active_cpes
    base, kind = _baseline(pred, baseline_us)
    if target is not None and not 1 <= target < a:
        raise PipeperfError(f"target CPE count must be between 1 and {a - 1}, got {target}",
                            file=spec.source)
    candidates = sorted(set(range(8, a, 8)) | ({target} if target else set()))
    rows = [r for r in request_rows(spec) if r[1] != KIND_GLOAD]
    lat = t["req_latency"]
    t_comp = pred.us("t_comp")
    t_dma = pred.us("t_dma")
    table = []
    for c in candidates:
        frac = (a - c) / a
        grow = a / c
        waste_us = sum(float(spec.processor.cycles_to_us(count * lat[j]))
                       for j, (_, _, count, mrt, nbytes) in enumerate(rows)
                       if nbytes * grow <= mrt * ts)
        saving = frac * max(0.0, waste_us - t_comp)                       # Eq. 15
        table.append({"active_cpes": c, "fraction": frac, "wasteful_t_dma_us": waste_us,
                      "saving_us": saving})
    if target is not None:
        best = next(r for r in table if r["active_cpes"] == target)
    else:
        best = max(table, key=lambda r: (r["saving_us"], r["active_cpes"]),
                   default={"active_cpes": a, "fraction": 0.0, "wasteful_t_dma_us": 0.0,
                            "saving_us": 0.0})
    details = {"active_cpes": a, "best_active_cpes": best["active_cpes"], "t_dma_us": t_dma,
               "t_comp_us": t_comp, "candidates": table}
    waste_any = any(nbytes < mrt * ts for _, _, _, mrt, nbytes in rows)
    if not rows:
        why = "the kernel issues no DMA requests"
    elif not waste_any or best["wasteful_t_dma_us"] == 0.0:
        why = ("DMA requests waste no transactions (or would outgrow them), so T_DMA does not fall "
               f"with fewer CPEs; using all {a} CPEs is close to best (Sec. IV-3)")
    elif best["wasteful_t_dma_us"] <= t_comp:
        why = (f"DMA wastes transactions, but T_DMA ({best['wasteful_t_dma_us']:.1f} us) <= T_comp "
               f"({t_comp:.1f} us): the extra computation per CPE outweighs the DMA saved")
    else:
        why = (f"DMA requests smaller than Trans_size waste transactions and T_DMA "
               f"({best['wasteful_t_dma_us']:.1f} us) > T_comp ({t_comp:.1f} us): using "
               f"{best['active_cpes']} of {a} CPEs saves {best['fraction']:.3g} x "
               f"(T_DMA - T_comp) = {best['saving_us']:.1f} us")
    return Analysis("active_cpes", "Eq. 15", best["saving_us"], base, kind, why, details)


def analyze(pred: Prediction, baseline_us: float | None = None, granularity: int | None = None,
            target_cpes: int | None = None) -> list[Analysis]:
    """The three analyses of Sec. IV for one kernel."""
    return [dma_granularity(pred, granularity, baseline_us), double_buffer(pred, baseline_us),
            active_cpes(pred, target_cpes, baseline_us)]
