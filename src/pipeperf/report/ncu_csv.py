"""``pipeperf analyze --csv FILE``: the predictions in the layout of ``ncu --csv --page details``.

One row per kernel x GPU x metric with ncu's columns, so spreadsheets and scripts written for
Nsight Compute read predictions as they read profiles. A quantity ncu measures under a name has
that name and ncu's base unit (what ``--print-units base`` writes: ``nsecond``, ``byte``,
``sector``, ``inst``, ``%``) in ncu's "Command line profiler metrics" section, the one ncu
fills for ``--metrics``; everything else is ``pipeperf__...`` in a ``pipeperf`` section. The
Table 1 metrics of the quantitative roofline are all there, so
:func:`pipeperf.measure.ncu_csv.read_ncu_csv` (``pipeperf roofline FILE.csv``) reads the file
back: the predicted time as ``gpu__time_duration.sum``, the counts as the launch's. Each GPU is
one "launch" (ID), its database name in ``Device``.

Where the meaning differs from ncu's, the docs say so: ``sm__warps_active...`` is the warps the
simulation keeps resident on an SM (an upper bound of ncu's average over the kernel's tail).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterator

from pipeperf.report.headline import headline

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis, GPUPrediction

#: ncu's ``--csv --page details`` columns, in its order
COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
           "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
           "Metric Value")
NCU_SECTION = "Command line profiler metrics"
PIPEPERF_SECTION = "pipeperf"

#: KernelMetrics attribute -> ncu metric (whole-launch thread-instruction counts, warp-level for inst)
_COUNTS = {
    "m_fma32": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "m_fma64": "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "m_ldst": "smsp__sass_thread_inst_executed_op_memory_pred_on.sum",
    "m_inst": "smsp__inst_executed.sum",
    "m_fp32": "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum",
    "m_fp64": "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum",
    "m_int": "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
}

Row = tuple[str, str, str, Any]        # (section, metric, unit, value)


def analysis_rows(analysis: Analysis) -> list[dict[str, str]]:
    """Every row of the file as {column: text}."""
    from pipeperf.ptx.cuda_names import demangle_name

    kernel = demangle_name(analysis.kernel) or analysis.kernel
    out = []
    for launch_id, pred in enumerate(analysis.predictions):
        fixed = {"ID": str(launch_id), "Process ID": "", "Process Name": "pipeperf",
                 "Host Name": "prediction", "Kernel Name": kernel, "Context": "", "Stream": "",
                 "Block Size": _dim(analysis.block), "Grid Size": _dim(analysis.grid), "Device": pred.gpu,
                 "CC": pred.compute_capability}
        for section, metric, unit, value in _metrics(analysis, pred):
            out.append({**fixed, "Section Name": section, "Metric Name": metric, "Metric Unit": unit,
                        "Metric Value": _text(value)})
    return out


def analysis_csv(analysis: Analysis) -> str:
    """The CSV text, every field quoted as ncu writes it."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writeheader()
    w.writerows(analysis_rows(analysis))
    return buf.getvalue()


def write_csv(analysis: Analysis, path: str | Path) -> Path:
    """Write :func:`analysis_csv` to ``path``; an unwritable path is a one-line error."""
    from pipeperf.errors import PipeperfError

    out = Path(path)
    try:
        out.write_text(analysis_csv(analysis), encoding="utf-8")
    except OSError as e:
        raise PipeperfError(f"cannot write CSV: {e.strerror}", file=str(out)) from None
    return out


def _metrics(analysis: Analysis, pred: GPUPrediction) -> Iterator[Row]:
    h = headline(pred)
    ncu, own = NCU_SECTION, PIPEPERF_SECTION
    yield ncu, "gpu__time_duration.sum", "nsecond", pred.seconds * 1e9
    metrics = pred.quantitative.metrics if pred.quantitative else None
    if metrics is not None:
        read, write = metrics.m_tran_r * 32.0, metrics.m_tran_w * 32.0
        yield ncu, "dram__bytes_read.sum", "byte", round(read)
        yield ncu, "dram__bytes_write.sum", "byte", round(write)
        yield ncu, "dram__sectors_read.sum", "sector", round(metrics.m_tran_r)
        yield ncu, "dram__sectors_write.sum", "sector", round(metrics.m_tran_w)
        for attr, name in _COUNTS.items():
            yield ncu, name, "inst", round(getattr(metrics, attr))
    if h.dram_gbs is not None:
        yield ncu, "dram__bytes.sum.per_second", "Gbyte/second", h.dram_gbs
    yield ncu, "sm__maxwarps_per_active_cycle_pct", "%", 100 * h.occupancy
    yield ncu, "sm__warps_active.avg.pct_of_peak_sustained_active", "%", 100 * h.resident_occupancy
    yield ncu, "launch__grid_size", "", math.prod(analysis.grid)
    yield ncu, "launch__block_size", "", math.prod(analysis.block)
    yield ncu, "launch__registers_per_thread", "register/thread", analysis.resources.get("registers", 0)
    yield ncu, "launch__shared_mem_per_block_static", "byte", analysis.resources.get("shared_bytes", 0)
    yield own, "pipeperf__headline", "", h.text()
    yield own, "pipeperf__bound", "", h.bound
    yield own, "pipeperf__bound_text", "", h.bound_text
    if h.flop is not None:
        yield own, "pipeperf__flop_count.sum", "flop", round(h.flop)
    if h.gflops is not None:
        yield own, "pipeperf__flop_throughput", "Gflop/second", h.gflops
    if h.flop_pct_of_peak is not None:
        yield own, "pipeperf__flop_throughput.pct_of_peak", "%", 100 * h.flop_pct_of_peak
    if h.peak_gflops is not None:
        yield own, "pipeperf__peak_flop_throughput", "Gflop/second", h.peak_gflops
    if h.dram_pct_of_peak is not None:
        yield own, "pipeperf__dram_throughput.pct_of_peak", "%", 100 * h.dram_pct_of_peak
    if h.peak_dram_gbs is not None:
        yield own, "pipeperf__peak_dram_bandwidth", "Gbyte/second", h.peak_dram_gbs
    yield own, "pipeperf__launch_overhead.sum", "nsecond", pred.launch_overhead_seconds * 1e9
    yield own, "pipeperf__sm_cycles", "cycle", pred.cycles
    yield own, "pipeperf__warps_resident_per_sm", "warp", h.warps_per_sm
    yield own, "pipeperf__blocks_per_sm_limit", "block", pred.block_limit
    yield own, "pipeperf__occupancy_limited_by", "", pred.limited_by
    for sub, busy in pred.bound.subsystem_busy.items():
        yield own, f"pipeperf__subsystem_busy_{sub}.pct", "%", 100 * busy
    if pred.bound.issue_share is not None:
        yield own, "pipeperf__issue_slots_used.pct", "%", 100 * pred.bound.issue_share
    yield own, "pipeperf__cycles_no_issue.pct", "%", 100 * pred.bound.idle_share
    if h.peak_dram_source is not None:
        yield own, "pipeperf__peak_dram_bandwidth.source", "", h.peak_dram_source
    floors = getattr(pred, "floors", None)
    if floors is not None and floors.dram_seconds is not None:
        yield own, "pipeperf__floor_dram.time_duration", "nsecond", floors.dram_seconds * 1e9
    if floors is not None and floors.issue_seconds is not None:
        yield own, "pipeperf__floor_issue.time_duration", "nsecond", floors.issue_seconds * 1e9
    flags = pred.not_physical if floors is not None else {}
    for model, v in pred.predictions.items():
        if (seconds := v.get("seconds")) is not None:
            yield own, f"pipeperf__time_duration_{model}.sum", "nsecond", seconds * 1e9
        if model in flags:
            yield own, f"pipeperf__time_duration_{model}.not_physical", "", flags[model]
    for what, w in (pred.what_if or {}).items():
        slug = what.replace(" ", "_")
        yield own, f"pipeperf__what_if_{slug}.time_duration", "nsecond", w["seconds"] * 1e9
        if w.get("speedup"):
            yield own, f"pipeperf__what_if_{slug}.speedup", "x", w["speedup"]
    for i, a in enumerate(getattr(pred, "advice", None) or [], 1):      # largest gain first
        slug = f"{i}_" + a.kind.replace(" ", "_")
        yield own, f"pipeperf__advice_{slug}.time_duration", "nsecond", a.seconds_after * 1e9
        yield own, f"pipeperf__advice_{slug}.text", "", a.text
    if getattr(pred, "source_lines", None):
        from pipeperf.analysis.stalls import line_label

        t = pred.source_lines[0]
        yield own, "pipeperf__top_source_line", "", line_label(t)
        yield own, "pipeperf__top_source_line.pct", "%", 100 * t.share


def _dim(d: Any) -> str:
    return "(" + ", ".join(str(x) for x in d) + ")"   # ncu's "(32, 8, 1)"


def _text(value: Any) -> str:
    """A value as ncu prints it with ``--print-units base``: whole numbers plain, others with the
    digits a float carries (no thousands separators, '.' decimals)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return str(int(value))
    return f"{value:.10g}"
