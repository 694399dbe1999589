"""Terminal table and JSON document of quantitative-roofline predictions."""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

from pipeperf.hardware.peaks import GpuPeaks
from pipeperf.models.quantitative import KernelMetrics, QuantitativePrediction
from pipeperf.report.names import short_name

MODEL = "quantitative roofline (Konstantinidis & Cotronis, JPDC 2017; seed 002 Eqs. 2-19)"


def predictions_document(kernels: Sequence[KernelMetrics], gpus: Sequence[GpuPeaks],
                         preds: Sequence[QuantitativePrediction]) -> dict[str, Any]:
    """JSON-ready document: one entry per kernel x GPU, plus the inputs they came from."""
    return {
        "model": MODEL,
        "units": {"rates": "G operations/s (T_*), GB/s (B_mem)", "fractions": "0..1",
                  "o_krn/o_dev": "operations per DRAM byte", "w_traf": "bytes"},
        "predictions": [p.to_dict() for p in preds],
        "kernels": [k.to_dict() for k in kernels],
        "gpus": [g.to_dict() for g in gpus],
    }


def format_predictions(preds: Sequence[QuantitativePrediction]) -> str:
    """Aligned text table: one row per kernel x GPU."""
    header = ["kernel", "gpu", "type", "O_krn", "O_dev", "E_mix", "E_instr", "T'_op", "bound",
              "predicted"]
    rows = [header]
    for p in preds:
        rows.append([
            short_name(p.kernel, 34),
            p.gpu,
            p.params.k_type,
            "inf" if p.params.o_krn == float("inf") else f"{p.params.o_krn:.3g}",
            f"{p.o_dev:.3g}",
            f"{100 * p.params.e_mix:.1f}%",
            f"{100 * p.e_instr:.1f}%",
            f"{p.t_op_adjusted:,.1f}",
            p.bound,
            _seconds(p.predicted_seconds),
        ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i < 3 or i == 8 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = sorted({n for p in preds for n in p.notes})
    if notes:
        lines.append("")
        lines.extend(f"note: {n}" for n in notes)
    return "\n".join(lines)


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.4g} s"
    if value >= 1e-3:
        return f"{value * 1e3:.4g} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.4g} us"
    return f"{value * 1e9:.4g} ns"
