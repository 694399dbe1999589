"""Konstantinidis' quantitative roofline (seed 002, Eqs. 2-19).

The model predicts a kernel's time on a *target* GPU from profiler counts taken on a *reference*
GPU (Table 1) and the target's micro-benchmarked peaks (Table 3, :class:`GpuPeaks`). It refines
the plain roofline by two efficiencies: E_mix (how many of the beneficial instructions are
multiply-adds) and E_instr (how much of the single issue pipeline the beneficial instructions
get, given the load/store and "other" instructions competing for it, weighted by their cost).

All densities and efficiencies are kept as fractions in [0, 1]; the paper prints them as %.
Rates are in G-units per second (GFLOPS, GIOPS, GB/s), counts are totals per kernel launch.

Kernel counts come from three sources, each reduced to :class:`KernelMetrics` (Table 1):
Nsight Compute CSV (:mod:`pipeperf.measure.ncu_csv`), nvprof CSV
(:mod:`pipeperf.measure.nvprof_csv`) and a pipeperf emulator profile (:func:`metrics_from_profile`).

Pipeperf profile keys (the emulator writes them; names mirror nvprof's, counts per launch):

==========================  ======  ==========================================================
key                         level   meaning
==========================  ======  ==========================================================
``inst_executed_warp``      warp    warp-level instructions executed (nvprof ``inst_executed``)
``inst_fp_32``              thread  FP32 instructions (arithmetic, compare, min/max, ...) by
                                    non-predicated threads (nvprof ``inst_fp_32``)
``inst_fp_64``              thread  the same for FP64
``inst_integer``            thread  integer instructions (nvprof ``inst_integer``)
``inst_compute_ld_st``      thread  global/shared/local loads and stores (not texture)
``flop_count_sp_fma``       thread  FP32 fma/mad executions, each counted once
``flop_count_dp_fma``       thread  FP64 fma/mad executions, each counted once
``dram_read_transactions``  --      32-byte sectors read from DRAM
``dram_write_transactions`` --      32-byte sectors written to DRAM
==========================  ======  ==========================================================

Optional: ``inst_fp_16`` and ``flop_count_hp_fma`` (only to refuse half-precision kernels, which
Table 2 does not cover), ``inst_executed_thread`` (thread-level total, used as a consistency
check). Instead of the two ``dram_*_transactions`` the profile may give ``dram_read_bytes`` and
``dram_write_bytes``; an emulator with no cache model may give ``global_load_sectors`` and
``global_store_sectors`` (32-byte sectors requested by global loads/stores), which the result
marks as an upper-bound traffic estimate. A profile JSON file is either such a flat object
(optionally with ``"name"``) or ``{"kernels": [{"name": ..., "counts": {...}}, ...]}``.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal
from collections.abc import Mapping

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import GpuPeaks

KernelType = Literal["fp32", "fp64", "int"]
KERNEL_TYPES: tuple[str, ...] = ("fp32", "fp64", "int")
SECTOR_BYTES = 32  # DRAM transaction size of Eq. 3


@dataclass(frozen=True)
class KernelMetrics:
    """Table 1's profiler metrics of one kernel launch (thread-level unless noted)."""

    name: str
    m_fma32: float  # flop_count_sp_fma
    m_fma64: float  # flop_count_dp_fma
    m_ldst: float  # inst_compute_ld_st
    m_inst: float  # inst_executed (warp level)
    m_fp32: float  # inst_fp_32
    m_fp64: float  # inst_fp_64
    m_int: float  # inst_integer
    m_tran_r: float  # dram_read_transactions (32-byte)
    m_tran_w: float  # dram_write_transactions (32-byte)
    m_fp16: float | None = None  # inst_fp_16, only to refuse fp16 kernels
    m_tensor_flop: float = 0.0  # tensor-core (wmma/mma) operations, 2 m n k per warp MMA; not a Table 1 metric
    source: str = ""  # where the counts came from (file, format)
    measured_seconds: float | None = None  # reference GPU's duration, when the profile has it
    info: Mapping[str, Any] = field(default_factory=dict)  # launch id, grid, device, notes...

    def __post_init__(self) -> None:
        for attr in ("m_fma32", "m_fma64", "m_ldst", "m_inst", "m_fp32", "m_fp64", "m_int",
                     "m_tran_r", "m_tran_w"):
            value = getattr(self, attr)
            if not math.isfinite(value) or value < 0:
                raise PipeperfError(f"kernel {self.name!r}: {attr} = {value!r} is not a count")

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class KernelParams:
    """Table 2's kernel parameters (Eqs. 2-9)."""

    k_type: KernelType
    w_comp: float  # Eq. 2, operations
    w_traf: float  # Eq. 3, bytes
    e_mix: float  # Eq. 4, fraction
    i_ops: float  # Eq. 8, thread instructions
    i_total: float  # Eq. 9, thread instructions
    d_ops: float  # Eq. 5, fraction
    d_ldst: float  # Eq. 6, fraction
    d_other: float  # Eq. 7, fraction
    o_krn: float  # W_comp / W_traf, operations per byte (inf when W_traf = 0)


@dataclass(frozen=True)
class QuantitativePrediction:
    """One kernel on one GPU: every intermediate quantity of Eqs. 2-19 and the predicted time."""

    kernel: str
    gpu: str
    params: KernelParams
    t_op: float  # Eq. 10, G op/s
    w_op: float  # Eq. 11
    w_ldst: float  # Eq. 12
    w_other: float  # Eq. 13
    c_op: float  # Eq. 14
    c_ldst: float  # Eq. 15
    c_other: float  # Eq. 16
    e_instr: float  # Eq. 17, fraction
    t_op_adjusted: float  # Eq. 18, T'_op in G op/s
    o_dev: float  # T'_op / B_mem, operations per byte
    b_mem: float  # GB/s
    bound: Literal["memory", "compute"]
    t_predicted: float  # Eq. 19, G op/s
    predicted_seconds: float
    measured_seconds: float | None = None  # on the reference GPU, for comparison only
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Flat JSON-ready dict (non-finite numbers become the strings "inf"/"nan")."""
        out: dict[str, Any] = {
            "kernel": self.kernel,
            "gpu": self.gpu,
            "predicted_seconds": self.predicted_seconds,
            "bound": self.bound,
        }
        out.update(asdict(self.params))
        for key in ("t_op", "w_op", "w_ldst", "w_other", "c_op", "c_ldst", "c_other", "e_instr",
                    "t_op_adjusted", "o_dev", "b_mem", "t_predicted", "measured_seconds"):
            out[key] = getattr(self, key)
        out["notes"] = list(self.notes)
        return _jsonable(out)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


# --- kernel parameters (Table 2) -------------------------------------------------------------

def kernel_type(m: KernelMetrics) -> KernelType:
    """The paper's rule: fp64 if M_fp64 > 0, else fp32 if M_fp32 > 0, else int."""
    if m.m_fp64 > 0:
        return "fp64"
    if m.m_fp32 > 0:
        return "fp32"
    if m.m_fp16:
        raise PipeperfError(
            f"kernel {m.name!r} executes only half-precision floating point "
            f"(inst_fp_16 = {m.m_fp16:g}); the quantitative roofline (Table 2) models fp64, fp32 "
            "and int kernels only; force a type with --type if that is what you mean"
        )
    return "int"


def w_comp(m: KernelMetrics, k_type: KernelType) -> float:
    """Eq. 2: beneficial operations (a multiply-add counts twice)."""
    if k_type == "fp32":
        return m.m_fp32 + m.m_fma32  # Eq. 2
    if k_type == "fp64":
        return m.m_fp64 + m.m_fma64  # Eq. 2
    return m.m_int  # Eq. 2


def w_traf(m: KernelMetrics) -> float:
    """Eq. 3: DRAM bytes = 32 x (read + write transactions)."""
    return SECTOR_BYTES * (m.m_tran_r + m.m_tran_w)  # Eq. 3


def e_mix(m: KernelMetrics, k_type: KernelType) -> float:
    """Eq. 4: operation-mix efficiency, 1 when every beneficial instruction is a multiply-add."""
    if k_type == "int":
        return 0.5  # Eq. 4
    count, fma = (m.m_fp32, m.m_fma32) if k_type == "fp32" else (m.m_fp64, m.m_fma64)
    if count <= 0:
        raise PipeperfError(f"kernel {m.name!r}: K_type {k_type} but no {k_type} instructions")
    if fma > count:
        raise PipeperfError(
            f"kernel {m.name!r}: inconsistent counts, {fma:g} {k_type} multiply-adds exceed "
            f"{count:g} {k_type} instructions"
        )
    return (count + fma) / (2.0 * count)  # Eq. 4


def i_ops(m: KernelMetrics, k_type: KernelType) -> float:
    """Eq. 8: beneficial (compute) thread instructions."""
    return {"fp32": m.m_fp32, "fp64": m.m_fp64, "int": m.m_int}[k_type]  # Eq. 8


def i_total(m: KernelMetrics) -> float:
    """Eq. 9: thread instructions, estimated as 32 x warp instructions."""
    return 32.0 * m.m_inst  # Eq. 9


def densities(m: KernelMetrics, k_type: KernelType) -> tuple[float, float, float]:
    """Eqs. 5-7: D_ops, D_ldst, D_other as fractions of I_total."""
    total = i_total(m)
    if total <= 0:
        raise PipeperfError(f"kernel {m.name!r}: inst_executed is zero, no instruction densities")
    d_ops = i_ops(m, k_type) / total  # Eq. 5
    d_ldst = m.m_ldst / total  # Eq. 6
    d_other = 1.0 - d_ops - d_ldst  # Eq. 7
    if d_other < -1e-9:
        raise PipeperfError(
            f"kernel {m.name!r}: inconsistent counts, compute ({i_ops(m, k_type):g}) plus "
            f"load/store ({m.m_ldst:g}) thread instructions exceed 32 x inst_executed ({total:g})"
        )
    return d_ops, d_ldst, max(d_other, 0.0)


def kernel_parameters(m: KernelMetrics, k_type: KernelType | None = None) -> KernelParams:
    """Table 2 for one kernel; ``k_type`` overrides the paper's selection rule."""
    kt: KernelType = k_type or kernel_type(m)
    if kt not in KERNEL_TYPES:
        raise PipeperfError(f"kernel type must be one of {', '.join(KERNEL_TYPES)}, got {kt!r}")
    comp = w_comp(m, kt)
    traf = w_traf(m)
    d_ops, d_ldst, d_other = densities(m, kt)
    return KernelParams(
        k_type=kt,
        w_comp=comp,
        w_traf=traf,
        e_mix=e_mix(m, kt),
        i_ops=i_ops(m, kt),
        i_total=i_total(m),
        d_ops=d_ops,
        d_ldst=d_ldst,
        d_other=d_other,
        o_krn=operational_intensity(comp, traf),
    )


def operational_intensity(comp: float, traf: float) -> float:
    """O_krn = W_comp / W_traf (infinite for a kernel without DRAM traffic)."""
    if traf <= 0:
        return math.inf if comp > 0 else 0.0
    return comp / traf


# --- GPU side and prediction (Eqs. 10-19) ---------------------------------------------------

def t_op(gpu: GpuPeaks, k_type: KernelType) -> float:
    """Eq. 10: peak throughput of the beneficial operations."""
    return {"fp32": gpu.t_sp, "fp64": gpu.t_dp, "int": gpu.t_int}[k_type]  # Eq. 10


def weights(gpu: GpuPeaks, k_type: KernelType) -> tuple[float, float, float]:
    """Eqs. 11-13: instruction cost relative to an FP32 multiply-add."""
    w_op = gpu.t_sp / t_op(gpu, k_type)  # Eq. 11
    w_ldst = 0.5 * gpu.t_sp / gpu.t_ldst  # Eq. 12
    w_other = 0.5 * gpu.t_sp / gpu.t_add  # Eq. 13
    return w_op, w_ldst, w_other


def predict(metrics: KernelMetrics, gpu: GpuPeaks, k_type: KernelType | None = None,
            params: KernelParams | None = None) -> QuantitativePrediction:
    """Predicted time of one kernel launch on ``gpu`` (Eqs. 2-19)."""
    p = params or kernel_parameters(metrics, k_type)
    peak = t_op(gpu, p.k_type)  # Eq. 10
    w_op, w_ldst, w_other = weights(gpu, p.k_type)  # Eqs. 11-13
    c_op = p.d_ops * w_op  # Eq. 14
    c_ldst = p.d_ldst * w_ldst  # Eq. 15
    c_other = p.d_other * w_other  # Eq. 16
    cost = c_op + c_ldst + c_other
    if cost <= 0:
        raise PipeperfError(f"kernel {metrics.name!r}: no instructions to cost (Eq. 17)")
    e_instr = c_op / cost  # Eq. 17
    t_adj = p.e_mix * e_instr * peak  # Eq. 18
    o_dev = t_adj / gpu.b_mem
    notes: list[str] = []
    if p.w_comp <= 0 and p.w_traf <= 0:
        raise PipeperfError(f"kernel {metrics.name!r}: neither compute operations nor DRAM traffic")
    if p.o_krn > o_dev:  # Eq. 19, compute bound
        bound: Literal["memory", "compute"] = "compute"
        t_pred = t_adj
        if t_adj <= 0:
            raise PipeperfError(
                f"kernel {metrics.name!r}: adjusted peak T'_op is zero (no {p.k_type} instructions "
                "among the executed ones); the model cannot bound its time"
            )
        seconds = p.w_comp / (t_adj * 1e9)
    else:  # Eq. 19, memory bound
        bound = "memory"
        t_pred = p.o_krn * gpu.b_mem
        # W_comp / (O_krn B_mem) = W_traf / B_mem, also defined when W_comp = 0.
        seconds = p.w_traf / (gpu.b_mem * 1e9)
    if p.w_comp <= 0:
        notes.append(f"no {p.k_type} operations: time is DRAM traffic / B_mem")
    notes.extend(str(n) for n in metrics.info.get("notes", ()))
    if gpu.estimates:
        reasons = "; ".join(sorted(set(gpu.estimates.values())))
        notes.append(f"{gpu.name}: {', '.join(gpu.estimates)} not measured ({reasons})")
    return QuantitativePrediction(
        kernel=metrics.name,
        gpu=gpu.name,
        params=p,
        t_op=peak,
        w_op=w_op,
        w_ldst=w_ldst,
        w_other=w_other,
        c_op=c_op,
        c_ldst=c_ldst,
        c_other=c_other,
        e_instr=e_instr,
        t_op_adjusted=t_adj,
        o_dev=o_dev,
        b_mem=gpu.b_mem,
        bound=bound,
        t_predicted=t_pred,
        predicted_seconds=seconds,
        measured_seconds=metrics.measured_seconds,
        notes=tuple(notes),
    )


# --- source (c): a pipeperf emulator profile --------------------------------------------------

PROFILE_REQUIRED: dict[str, str] = {
    "inst_executed_warp": "m_inst",
    "inst_fp_32": "m_fp32",
    "inst_fp_64": "m_fp64",
    "inst_integer": "m_int",
    "inst_compute_ld_st": "m_ldst",
    "flop_count_sp_fma": "m_fma32",
    "flop_count_dp_fma": "m_fma64",
}
PROFILE_TRAFFIC: tuple[tuple[str, str, float, str], ...] = (
    # (read key, write key, bytes per unit, note)
    ("dram_read_transactions", "dram_write_transactions", SECTOR_BYTES, ""),
    ("dram_read_bytes", "dram_write_bytes", 1.0, ""),
    ("global_load_sectors", "global_store_sectors", SECTOR_BYTES,
     "DRAM traffic estimated from global-memory sectors (no cache model): an upper bound"),
)


def _count(counts: Mapping[str, Any], key: str, name: str, file: str | None) -> float:
    raw = counts[key]
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise PipeperfError(f"profile of {name!r}: {key} = {raw!r} is not a number", file=file)
    value = float(raw)
    if not math.isfinite(value) or value < 0:
        raise PipeperfError(f"profile of {name!r}: {key} = {raw!r} is not a count", file=file)
    return value


def metrics_from_profile(counts: Mapping[str, Any], name: str = "kernel",
                         file: str | Path | None = None) -> KernelMetrics:
    """Table 1's metrics from a pipeperf profile's counts (keys in the module docstring)."""
    where = str(file) if file is not None else None
    missing = [k for k in PROFILE_REQUIRED if k not in counts]
    if missing:
        raise PipeperfError(f"profile of {name!r} lacks {', '.join(missing)}", file=where)
    values = {attr: _count(counts, key, name, where) for key, attr in PROFILE_REQUIRED.items()}
    notes: list[str] = []
    for read_key, write_key, unit, note in PROFILE_TRAFFIC:
        if read_key in counts or write_key in counts:
            if read_key not in counts or write_key not in counts:
                raise PipeperfError(f"profile of {name!r} has only one of {read_key}/{write_key}",
                                    file=where)
            # Kept in 32-byte transactions so Eq. 3 applies unchanged.
            values["m_tran_r"] = _count(counts, read_key, name, where) * unit / SECTOR_BYTES
            values["m_tran_w"] = _count(counts, write_key, name, where) * unit / SECTOR_BYTES
            if note:
                notes.append(note)
            break
    else:
        raise PipeperfError(
            f"profile of {name!r} has no DRAM traffic: give dram_read_transactions and "
            "dram_write_transactions (or *_bytes, or global_load_sectors/global_store_sectors)",
            file=where,
        )
    fp16 = _count(counts, "inst_fp_16", name, where) if "inst_fp_16" in counts else None
    if "inst_executed_thread" in counts:
        thread_total = _count(counts, "inst_executed_thread", name, where)
        if thread_total > 32 * values["m_inst"]:
            raise PipeperfError(
                f"profile of {name!r}: inst_executed_thread ({thread_total:g}) exceeds "
                f"32 x inst_executed_warp ({32 * values['m_inst']:g})", file=where)
    tensor = _count(counts, "flop_count_tensor", name, where) if "flop_count_tensor" in counts else 0.0
    return KernelMetrics(name=name, m_fp16=fp16, m_tensor_flop=tensor, source=f"pipeperf profile {where or ''}".strip(),
                         info={"notes": notes} if notes else {}, **values)


def read_profile_json(path: str | Path) -> list[KernelMetrics]:
    """Kernels of a pipeperf profile JSON file (flat counts or ``{"kernels": [...]}``)."""
    file = Path(path)
    try:
        data = json.loads(file.read_text())
    except OSError as exc:
        raise PipeperfError(f"cannot read profile: {exc.strerror}", file=file) from exc
    except json.JSONDecodeError as exc:
        raise PipeperfError(f"invalid JSON: {exc.msg}", file=file, line=exc.lineno) from exc
    if isinstance(data, dict) and isinstance(data.get("kernels"), list):
        out = []
        for i, item in enumerate(data["kernels"]):
            if not isinstance(item, dict) or not isinstance(item.get("counts"), dict):
                raise PipeperfError(f"kernels[{i}] needs a 'counts' object", file=file)
            name = str(item.get("name", f"kernel{i}"))
            out.append(metrics_from_profile(item["counts"], name, file))
        if not out:
            raise PipeperfError("profile lists no kernels", file=file)
        return out
    if isinstance(data, dict):
        return [metrics_from_profile(data, str(data.get("name", file.stem)), file)]
    raise PipeperfError("a profile JSON must be an object", file=file)
