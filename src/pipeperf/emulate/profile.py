"""Profile of one emulated launch: nvprof-style metrics, JSON dict and HyPA CSV row."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter as _C
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping, Sequence

if TYPE_CHECKING:                       # NumPy's: imported by the functions that count, not by the record
    from pipeperf.emulate.counters import Counters
    from pipeperf.emulate.tracelog import TraceLog

#: HyPA's CSV columns (Sec. IV, Table of results), then ours.
CSV_COLUMNS = ["file", "ptx_version", "target", "address_size", "kernel", "ctas", "threads",
               "static_instructions", "dynamic_instructions", "fp_instructions",
               "executed_instructions", "divergent_branches", "branch_efficiency",
               "duration_ms", "mode", "inst_executed_warp", "fraction_emulated", "branches",
               "flop_count_sp", "flop_count_dp", "flop_count_hp", "global_load_requests",
               "global_store_requests", "global_sectors", "shared_requests",
               "shared_bank_conflicts"]

_LDST_SPACES = ("global", "shared", "local", "generic")


@dataclass
class Profile:
    """Counts of one kernel launch (thread-level counts exclude predicated-off threads
    unless named ``_all``)."""

    name: str
    file: str | None
    ptx_version: str
    target: str
    address_size: int | None
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    mode: str
    seconds: float
    static_instructions: int
    counts: dict[str, Any] = field(default_factory=dict)
    by_category: dict[str, dict[str, int]] = field(default_factory=dict)
    by_opcode: dict[str, dict[str, int]] = field(default_factory=dict)
    traces: Mapping[int, list[dict[str, Any]]] = field(default_factory=dict)   # a TraceLog from the emulator
    #: the traced warps' memory accesses as array blocks (see Counters.memory_log); emptied once
    #: mapper g has made them its ``accesses`` (analysis/memory_trace.launch_memory)
    memory_log: list[Any] = field(default_factory=list)
    #: kernel name -> mapper g's traced accesses (hardware.accesses.Accesses) built from ``memory_log``
    accesses: dict[str, Any] = field(default_factory=dict, repr=False)
    #: PTX line -> state space of generic wmma.load/store accesses (Counters.resolved_spaces)
    resolved_spaces: dict[int, str] = field(default_factory=dict)
    #: PTX line -> bytes between a wmma.load/store's matrix rows (Counters.wmma_row_bytes)
    wmma_row_bytes: dict[int, int] = field(default_factory=dict)
    #: scalar parameter values of the launch (PTX parameter name -> number), for address analyses
    params: dict[str, int | float] = field(default_factory=dict)
    #: what the counts leave out, for the reader (e.g. printf calls not executed)
    notes: list[str] = field(default_factory=list)
    #: --oob warn: out-of-bounds global accesses per line, most first: {"ptx_line", "source", "loads", "stores"}
    out_of_bounds: list[dict[str, Any]] = field(default_factory=list)
    #: a sampled launch's CTA strata (:class:`~pipeperf.emulate.sampling.Strata`), for the traced CTAs' weights
    strata: Any = None

    def __getitem__(self, key: str) -> Any:
        return self.counts[key]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "file": self.file, "ptx_version": self.ptx_version,
             "target": self.target, "address_size": self.address_size,
             "grid": list(self.grid), "block": list(self.block), "mode": self.mode}
        d.update(self.counts)
        d["by_category"] = self.by_category
        d["by_opcode"] = self.by_opcode
        if self.notes:
            d["notes"] = self.notes
        if self.out_of_bounds:
            d["out_of_bounds"] = self.out_of_bounds
        return d

    def csv_row(self) -> dict[str, Any]:
        c = self.counts
        return {
            "file": self.file or "", "ptx_version": self.ptx_version, "target": self.target,
            "address_size": self.address_size or "", "kernel": self.name, "ctas": c["ctas"],
            "threads": c["threads"], "static_instructions": self.static_instructions,
            "dynamic_instructions": c["inst_executed_thread_all"],
            "fp_instructions": c["inst_fp_32"] + c["inst_fp_64"] + c["inst_fp_16"],
            "executed_instructions": c["inst_emulated_thread"],
            "divergent_branches": c["divergent_branches"],
            "branch_efficiency": f"{c['branch_efficiency']:.2f}",
            "duration_ms": f"{1000 * self.seconds:.3f}", "mode": self.mode,
            "inst_executed_warp": c["inst_executed_warp"],
            "fraction_emulated": f"{c['fraction_emulated']:.4f}", "branches": c["branches"],
            "flop_count_sp": c["flop_count_sp"], "flop_count_dp": c["flop_count_dp"],
            "flop_count_hp": c["flop_count_hp"],
            "global_load_requests": c["global_load_requests"],
            "global_store_requests": c["global_store_requests"],
            "global_sectors": c["global_sectors"], "shared_requests": c["shared_requests"],
            "shared_bank_conflicts": c["shared_bank_conflicts"],
        }


#: HyPA's per-launch metrics (Sec. IV), as :func:`hypa_metrics` returns them
HYPA_METRICS = ("inst_executed", "inst_executed_thread", "flop_count_sp", "flop_count_dp", "flop_count_hp", "branches", "divergent_branches",
                "branch_efficiency", "fraction_emulated")


def hypa_metrics(counts: Mapping[str, Any]) -> dict[str, float]:
    """HyPA's metrics of a whole launch from an emulation's counts: instructions (warp-level, as
    nvprof's inst_executed), FLOPs and branches scaled from the emulated CTAs to the grid, branch
    efficiency of the emulated ones, and ``fraction_emulated``: the share of the launch's thread
    instructions the emulator actually executed (CTA sampling and hybrid mode together; HyPA's
    '% to execute')."""
    keys = ("flop_count_sp", "flop_count_dp", "flop_count_hp", "branches", "divergent_branches",
            "inst_executed_warp", "inst_executed_thread_all")
    out = launch_scaled(counts, keys)
    out["inst_executed"] = out.pop("inst_executed_warp")
    all_t = out.pop("inst_executed_thread_all")
    out["branch_efficiency"] = float(counts.get("branch_efficiency", 100.0))
    out["inst_executed_thread"] = all_t
    out["fraction_emulated"] = float(counts.get("inst_emulated_thread", 0) or 0) / all_t if all_t else 0.0
    return out


def csv_text(profiles: list[Profile], header: bool = True) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
    if header:
        w.writeheader()
    for p in profiles:
        w.writerow(p.csv_row())
    return out.getvalue()


def build_profile(machine: Any, seconds: float) -> Profile:
    """Derive every metric from the machine's per-instruction counters."""
    c: Counters = machine.counters
    totals, by_category, by_opcode = _tally(c)
    counts = {**_instruction_counts(totals), **_memory_counts(c, machine.memory),
              "barriers": c.barriers, "ctas": c.ctas, "threads": c.threads, "warps": c.warps,
              "seconds": seconds,
              "thread_instructions_per_second": totals["thread_all"] / seconds if seconds else 0.0}
    if getattr(machine, "weighted", None) is not None:
        counts["launch"] = weighted_counts(machine.weighted, machine.memory)
    m = machine.module
    return Profile(
        name=machine.kernel.name, file=machine.file, ptx_version=m.version,
        target=",".join(m.target), address_size=m.address_size, grid=machine.launch.grid,
        block=machine.launch.block, mode=machine.mode, seconds=seconds,
        static_instructions=len(machine.kernel.instructions), counts=counts,
        by_category=by_category, by_opcode=by_opcode,
        traces=_with_lengths(c), memory_log=c.memory_log,
        resolved_spaces=dict(c.resolved_spaces), wmma_row_bytes=dict(c.wmma_row_bytes))


#: the counts a sampled launch also gives for the whole grid (``counts["launch"]``)
LAUNCH_KEYS = ("inst_executed_warp", "inst_executed_thread", "inst_executed_thread_all", "inst_fp_32",
               "inst_fp_64", "inst_fp_16", "inst_integer", "inst_sfu", "inst_compute_ld_st", "flop_count_sp",
               "flop_count_dp", "flop_count_hp", "flop_count_sp_fma", "flop_count_dp_fma", "flop_count_hp_fma",
               "flop_count_sp_add", "flop_count_sp_mul", "flop_count_dp_add", "flop_count_dp_mul",
               "flop_count_sp_special", "flop_count_tensor", "branches", "divergent_branches", "global_load_requests",
               "global_store_requests", "global_load_sectors", "global_store_sectors", "global_sectors",
               "shared_requests", "shared_load_requests", "shared_store_requests", "shared_bank_conflicts",
               "local_requests", "atomic_requests", "ctas", "threads", "warps")


def weighted_counts(w: Any, memory: bool) -> dict[str, float | None]:
    """The whole grid's counts from a sample's :class:`~pipeperf.emulate.counters.Weighted`
    counters (each CTA's counts times the grid CTAs it stands for)."""
    totals, _, _ = _tally(w)
    c = {**_instruction_counts(totals), **_memory_counts(w, memory),
         "ctas": w.ctas, "threads": w.threads, "warps": w.warps}
    return {k: None if c[k] is None else float(c[k]) for k in LAUNCH_KEYS}


def launch_scaled(counts: Mapping[str, Any], keys: Any) -> dict[str, float]:
    """``keys``' counts of the whole launch: the stratum-weighted ones of a sampled launch
    (``counts["launch"]``), else the emulated CTAs' counts x (CTAs in the grid / CTAs emulated)."""
    launch = counts.get("launch")
    if launch:
        return {k: float(launch.get(k) if launch.get(k) is not None else counts.get(k, 0) or 0) for k in keys}
    total = float(counts.get("ctas_total") or counts.get("ctas") or 1)
    emulated = float(counts.get("ctas_emulated") or total) or total
    return {k: float(counts.get(k, 0) or 0) * (total / emulated) for k in keys}


def _tally(c: Any) -> tuple[_C[str], dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """Totals over every executed instruction (warp, thread and per-class counts, FLOPs), and the
    warp and thread counts by category and by opcode."""
    from pipeperf.emulate.counters import FLOPS

    cat_w: _C[str] = _C()
    cat_t: _C[str] = _C()
    op_w: _C[str] = _C()
    op_t: _C[str] = _C()
    totals: _C[str] = _C()
    for prog, w, t, on in c.per_prog.values():
        for i, x in enumerate(prog.func.instructions):
            if not t[i]:
                continue
            cat, opc = x.category, x.opcode
            cat_w[cat] += w[i]
            cat_t[cat] += on[i]
            op_w[opc] += w[i]
            op_t[opc] += on[i]
            totals["warp"] += w[i]
            totals["thread_all"] += t[i]
            totals["thread"] += on[i]
            if prog.emulated[i]:
                totals["emulated"] += t[i]
            fl = FLOPS.get(x.root, 0)
            if x.root in ("wmma.mma", "mma"):         # per warp: 2 m n k (an MMA's multiply-adds)
                totals["flop_tensor"] += w[i] * tensor_flops(x.modifiers)
            if cat in ("fp32", "fp64", "fp16"):
                key = {"fp32": "sp", "fp64": "dp", "fp16": "hp"}[cat]
                lanes = 2 if "f16x2" in x.types or "bf16x2" in x.types else 1
                totals["inst_" + cat] += on[i]
                totals["flop_" + key] += fl * on[i] * lanes
                if x.root in ("fma", "mad"):
                    totals["fma_" + key] += on[i] * lanes
                elif x.root in ("add", "sub"):
                    totals["add_" + key] += on[i] * lanes
                elif x.root == "mul":
                    totals["mul_" + key] += on[i] * lanes
            elif cat == "sfu":
                totals["sfu"] += on[i]
                totals["flop_special"] += on[i]
            elif cat == "int":
                totals["int"] += on[i]
            sp = x.space or "generic"
            if x.root in ("ld", "st") and sp in _LDST_SPACES:
                totals["ldst"] += on[i]
    return (totals, {"warp": dict(cat_w), "thread": dict(cat_t)},
            {"warp": dict(op_w), "thread": dict(op_t)})


def _instruction_counts(totals: _C[str]) -> dict[str, Any]:
    emulated_t = totals["emulated"]
    return {
        "inst_executed_warp": totals["warp"],
        "inst_executed_thread": totals["thread"],
        "inst_executed_thread_all": totals["thread_all"],
        "inst_emulated_thread": emulated_t,
        "fraction_emulated": emulated_t / totals["thread_all"] if totals["thread_all"] else 0.0,
        "inst_fp_32": totals["inst_fp32"], "inst_fp_64": totals["inst_fp64"],
        "inst_fp_16": totals["inst_fp16"], "inst_integer": totals["int"],
        "inst_sfu": totals["sfu"], "inst_compute_ld_st": totals["ldst"],
        "flop_count_sp": totals["flop_sp"], "flop_count_dp": totals["flop_dp"],
        "flop_count_hp": totals["flop_hp"], "flop_count_sp_fma": totals["fma_sp"],
        "flop_count_dp_fma": totals["fma_dp"], "flop_count_hp_fma": totals["fma_hp"],
        "flop_count_sp_add": totals["add_sp"], "flop_count_sp_mul": totals["mul_sp"],
        "flop_count_dp_add": totals["add_dp"], "flop_count_dp_mul": totals["mul_dp"],
        "flop_count_sp_special": totals["flop_special"], "flop_count_tensor": totals["flop_tensor"],
    }


_MMA_SHAPE = re.compile(r"m(\d+)n(\d+)k(\d+)")


def tensor_flops(modifiers: Sequence[str]) -> int:
    """Floating-point (or integer) operations of one warp's wmma.mma/mma of shape ``mMnNkK``
    (a modifier; PTX ISA, sec. 9.7.14/9.7.15): 2 m n k, a multiply-add twice; 0 without one."""
    for m in modifiers:
        shape = _MMA_SHAPE.fullmatch(m)
        if shape:
            a, b, c = (int(v) for v in shape.groups())
            return 2 * a * b * c
    return 0


def _memory_counts(c: Any, memory: bool) -> dict[str, Any]:
    """Branch and memory statistics; without addresses (hybrid, ``memory=False``) the memory
    ones are None, "unknown", never a wrong 0."""
    b, d = c.branches, c.divergent_branches
    counts: dict[str, Any] = {
        "branches": b, "divergent_branches": d,
        # nvprof branch_efficiency = 100 * (branches - divergent) / branches
        "branch_efficiency": 100.0 * (b - d) / b if b else 100.0,
        "global_load_requests": c.global_load_requests,
        "global_store_requests": c.global_store_requests,
        "global_load_sectors": c.global_load_sectors,
        "global_store_sectors": c.global_store_sectors,
        "global_sectors": c.global_load_sectors + c.global_store_sectors,
        "shared_requests": c.shared_requests,
        "shared_load_requests": c.shared_load_requests,
        "shared_store_requests": c.shared_store_requests,
        "shared_bank_conflicts": c.shared_bank_conflicts,
        "local_requests": c.local_requests, "atomic_requests": c.atomics,
    }
    if not memory:
        for k in ("global_load_requests", "global_store_requests", "global_load_sectors",
                  "global_store_sectors", "global_sectors", "shared_requests",
                  "shared_load_requests", "shared_store_requests", "shared_bank_conflicts",
                  "local_requests", "atomic_requests"):
            counts[k] = None
    return counts


def _with_lengths(c: Counters) -> TraceLog:
    """The trace log, told how many entries each traced warp executed (beyond a cap, if any)."""
    c.trace.lengths = c._tlen
    c.trace.length_ids = c.trace_ids
    c.trace.mem_frontier = c.mem_frontier
    return c.trace
