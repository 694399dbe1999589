"""The SW26010 static performance model, Eqs. 1-12 (plus Eq. 14 for double buffering).

T_total = T_mem + T_comp - T_overlap. Memory time is the sum over requests of
max(baseline latency, bandwidth-limited serving time of all active CPEs'
requests); overlap is what the virtual groups of MRP CPEs can hide behind other
groups' computation (Sec. III-A). Everything is computed on arrays over kernel
variants; all times are in cycles of one CPE clock (µs via ``cycles_to_us``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from pipeperf.sw26010.batch import KIND_GLOAD, KIND_IN, KIND_OUT, KernelBatch, batch_from_specs, request_rows
from pipeperf.sw26010.kernel import INSTRUCTION_TYPES, KernelSpec, require_positive_work
from pipeperf.sw26010.processor import ProcessorSpec

_EPS = 1e-9


@dataclass
class Terms:
    """Every term of Eqs. 1-12 for V kernels (cycles unless noted)."""

    core_groups: np.ndarray      # CGs in use: ceil(active / 64); bandwidth scales with it
    trans_per_cycle: np.ndarray  # mem_bw / Freq / Trans_size (Eq. 4 denominator)
    l_mem_bw: np.ndarray         # (V, K) Eq. 4 per request kind
    req_latency: np.ndarray      # (V, K) max(L_base, L_mem_bw) per request (Eq. 3 summand)
    t_g: np.ndarray              # Eq. 3, Gload
    t_dma: np.ndarray            # Eq. 3, DMA
    t_dma_in: np.ndarray         # copy-in share of T_DMA
    t_dma_out: np.ndarray        # copy-out share of T_DMA
    t_mem: np.ndarray            # Eq. 2
    ins: np.ndarray              # (V, 4) retired floating, fixed, SPM, div/sqrt instructions
    avg_ilp: np.ndarray          # Eq. 6's avg_ILP (latency-weighted over blocks)
    t_comp: np.ndarray           # Eq. 6
    n_reqs_g: np.ndarray         # #g_reqs
    n_reqs_dma: np.ndarray       # #DMA_reqs
    mrt_g: np.ndarray            # total Gload transactions per CPE
    mrt_dma: np.ndarray          # total DMA transactions per CPE
    avg_mrt_g: np.ndarray        # Eq. 12 (Gload)
    avg_mrt_dma: np.ndarray      # Eq. 12
    l_avg_g: np.ndarray          # Eq. 11
    l_avg_dma: np.ndarray        # Eq. 11
    mrp_g: np.ndarray            # Eq. 10 (whole CPEs)
    mrp_dma: np.ndarray          # Eq. 10 (whole CPEs)
    ng_g: np.ndarray             # Eq. 9
    ng_dma: np.ndarray           # Eq. 9
    t_g_overlap: np.ndarray      # Eq. 8
    t_dma_overlap: np.ndarray    # Eq. 8
    t_overlap_base: np.ndarray   # Eq. 7 without double buffering
    db_saving: np.ndarray        # Eq. 14 gain applied where double buffering is on
    t_overlap: np.ndarray        # Eq. 7 (+ Eq. 14)
    scenario: np.ndarray         # 1: computation outlasts the overlap, 2: fully overlapped
    t_total: np.ndarray          # Eq. 1

    def row(self, i: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)[i]
            out[f.name] = value.tolist() if isinstance(value, np.ndarray) else value.item()
        return out

    def take(self, index: np.ndarray) -> Terms:
        return Terms(**{f.name: getattr(self, f.name)[index] for f in fields(self)})


def evaluate(batch: KernelBatch, proc: ProcessorSpec) -> Terms:
    """Eqs. 1-12 (and Eq. 14 where double buffering is on) for every kernel of a batch."""
    active = batch.active_cpes.astype(float)
    core_groups = np.ceil(active / proc.cpes_per_cg - _EPS)
    # mem_bw grows linearly with the core groups in use (Sec. V-C-3).
    trans_per_cycle = proc.mem_bw_gbs * core_groups / proc.freq_ghz / proc.trans_size
    count, mrt, kind = batch.req_count, batch.req_mrt, batch.req_kind

    l_mem_bw = active[:, None] * mrt / trans_per_cycle[:, None]           # Eq. 4
    req_latency = np.where(kind >= 0, np.maximum(proc.l_base, l_mem_bw), 0.0)
    spent = count * req_latency                                           # Eq. 3 summands
    is_g, is_in, is_out = kind == KIND_GLOAD, kind == KIND_IN, kind == KIND_OUT
    is_dma = is_in | is_out
    t_g = (spent * is_g).sum(axis=1)                                      # Eq. 3
    t_dma_in = (spent * is_in).sum(axis=1)
    t_dma_out = (spent * is_out).sum(axis=1)
    t_dma = t_dma_in + t_dma_out                                          # Eq. 3
    t_mem = t_g + t_dma                                                   # Eq. 2

    ins = batch.ins.sum(axis=1)
    lat = np.array([proc.l_floating, proc.l_fixed, proc.l_spm, proc.l_div_sqrt])
    pipelined = (batch.ins[:, :, :3] * lat[:3]).sum(axis=2)               # per block
    pipelined_time = (pipelined / batch.ilp).sum(axis=1)
    # Eq. 6; div/sqrt are not pipelined (footnote 1), so they are not divided by ILP.
    t_comp = pipelined_time + batch.ins[:, :, 3].sum(axis=1) * proc.l_div_sqrt
    with np.errstate(invalid="ignore", divide="ignore"):
        avg_ilp = np.where(pipelined_time > 0, pipelined.sum(axis=1) / pipelined_time, 0.0)

    g = _overlap_terms(count, mrt, is_g, t_g, active, trans_per_cycle, proc)
    d = _overlap_terms(count, mrt, is_dma, t_dma, active, trans_per_cycle, proc)
    mem_overlap = g["overlap"] + d["overlap"]
    t_overlap_base = np.minimum(t_comp, mem_overlap)                      # Eq. 7
    scenario = np.where(t_comp <= mem_overlap, 2, 1)
    # Eq. 14: double buffering hides the copy-in of one virtual group (Fig. 5),
    # bounded by the computation still exposed.
    with np.errstate(invalid="ignore", divide="ignore"):
        one_group_in = np.where(d["ng"] > 0, t_dma_in / np.maximum(d["ng"], 1), 0.0)
    db_gain = np.minimum(one_group_in, t_comp - t_overlap_base)
    db_saving = np.where(batch.double_buffer, db_gain, 0.0)
    t_overlap = t_overlap_base + db_saving
    t_total = t_mem + t_comp - t_overlap                                  # Eq. 1

    return Terms(
        core_groups=core_groups, trans_per_cycle=trans_per_cycle, l_mem_bw=l_mem_bw,
        req_latency=req_latency, t_g=t_g, t_dma=t_dma, t_dma_in=t_dma_in, t_dma_out=t_dma_out,
        t_mem=t_mem, ins=ins, avg_ilp=avg_ilp, t_comp=t_comp,
        n_reqs_g=g["n"], n_reqs_dma=d["n"], mrt_g=g["mrt"], mrt_dma=d["mrt"],
        avg_mrt_g=g["avg_mrt"], avg_mrt_dma=d["avg_mrt"], l_avg_g=g["l_avg"], l_avg_dma=d["l_avg"],
        mrp_g=g["mrp"], mrp_dma=d["mrp"], ng_g=g["ng"], ng_dma=d["ng"],
        t_g_overlap=g["overlap"], t_dma_overlap=d["overlap"], t_overlap_base=t_overlap_base,
        db_saving=db_saving, t_overlap=t_overlap, scenario=scenario, t_total=t_total,
    )


def _overlap_terms(count: np.ndarray, mrt: np.ndarray, mask: np.ndarray, t_req: np.ndarray,
                   active: np.ndarray, trans_per_cycle: np.ndarray,
                   proc: ProcessorSpec) -> dict[str, np.ndarray]:
    """Eqs. 8-12 for one request class (Gload or DMA)."""
    n = (count * mask).sum(axis=1)
    total_mrt = (count * mrt * mask).sum(axis=1)
    has = n > 0
    safe_n = np.where(has, n, 1.0)
    avg_mrt = np.where(has, total_mrt / safe_n, 0.0)                      # Eq. 12
    safe_avg = np.where(has, avg_mrt, 1.0)
    l_avg = np.where(has, proc.l_base + (safe_avg - 1.0) * proc.delta_delay, 0.0)  # Eq. 11
    mrp_raw = l_avg * trans_per_cycle / safe_avg                          # Eq. 10
    # A virtual group is a whole number of CPEs; flooring gives the paper's
    # NG_DMA = 16 for 64 CPEs with large blocks (Sec. IV-2).
    mrp = np.where(has, np.maximum(1.0, np.floor(mrp_raw + _EPS)), 0.0)
    ng = np.where(has, np.ceil(active / np.maximum(mrp, 1.0) - _EPS), 0.0)  # Eq. 9
    safe_ng = np.maximum(ng, 1.0)
    overlap = np.where(has, (1.0 - 1.0 / safe_ng) * (1.0 - 1.0 / safe_n) * t_req, 0.0)  # Eq. 8
    return {"n": n, "mrt": total_mrt, "avg_mrt": avg_mrt, "l_avg": l_avg, "mrp": mrp,
            "ng": ng, "overlap": overlap}


# -- one kernel -------------------------------------------------------------------------------

_US_FIELDS = ("t_total", "t_mem", "t_g", "t_dma", "t_dma_in", "t_dma_out", "t_comp", "t_overlap",
              "t_overlap_base", "t_g_overlap", "t_dma_overlap", "db_saving")


@dataclass
class Prediction:
    """The model's terms for one kernel description, with µs views."""

    spec: KernelSpec
    terms: dict[str, Any]   # cycles, as from Terms.row
    requests: list[dict[str, Any]]

    def us(self, name: str) -> float:
        return float(self.spec.processor.cycles_to_us(self.terms[name]))

    @property
    def t_total_us(self) -> float:
        return self.us("t_total")

    def to_dict(self) -> dict[str, Any]:
        t = self.terms
        out: dict[str, Any] = {
            "kernel": self.spec.name,
            "source": self.spec.source,
            "active_cpes": self.spec.active_cpes,
            "core_groups": int(t["core_groups"]),
            "double_buffer": self.spec.double_buffer,
            "scenario": int(t["scenario"]),
            "us": {name: self.us(name) for name in _US_FIELDS},
            "cycles": {name: float(t[name]) for name in _US_FIELDS},
            "compute": {"instructions": dict(zip(INSTRUCTION_TYPES, t["ins"])),
                        "avg_ilp": t["avg_ilp"]},
            "gload": {"reqs": t["n_reqs_g"], "mrt": t["mrt_g"], "avg_mrt": t["avg_mrt_g"],
                      "l_avg": t["l_avg_g"], "mrp": t["mrp_g"], "ng": int(t["ng_g"])},
            "dma": {"reqs": t["n_reqs_dma"], "mrt": t["mrt_dma"], "avg_mrt": t["avg_mrt_dma"],
                    "l_avg": t["l_avg_dma"], "mrp": t["mrp_dma"], "ng": int(t["ng_dma"])},
            "requests": self.requests,
        }
        if self.spec.measured_us is not None:
            out["measured_us"] = self.spec.measured_us
            out["error_pct"] = 100.0 * (self.t_total_us - self.spec.measured_us) / self.spec.measured_us
        return out


def predict(spec: KernelSpec) -> Prediction:
    """Evaluate the model for one kernel description."""
    require_positive_work(spec)
    batch = batch_from_specs([spec])
    terms = evaluate(batch, spec.processor)
    row = terms.row(0)
    requests = []
    for j, (name, kind, count, mrt, nbytes) in enumerate(request_rows(spec)):
        ts = spec.processor.trans_size
        requests.append({
            "name": name, "kind": {KIND_IN: "dma-in", KIND_OUT: "dma-out", KIND_GLOAD: "gload"}[kind],
            "count": count, "bytes": nbytes, "mrt": mrt,
            "waste_pct": 100.0 * (1.0 - nbytes / (mrt * ts)) if mrt else 0.0,
            "l_mem_bw": row["l_mem_bw"][j], "latency": row["req_latency"][j],
            "total_us": float(spec.processor.cycles_to_us(count * row["req_latency"][j])),
        })
    return Prediction(spec, row, requests)
