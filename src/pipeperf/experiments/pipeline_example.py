"""The example kernel of Fig. 1 with Table 2's parameters under every model (Figs. 2 and 14)."""

from __future__ import annotations

from pathlib import Path

from pipeperf.experiments.curves import curve_table, values
from pipeperf.experiments.framework import Outcome, compare_row, compare_table

TITLE = "Example kernel (Fig. 1, Table 2) under every occupancy model (Figs. 2, 14)"
SOURCE = "Lemeire et al., analytical-models-and-pipeline-model.txt: Sec. 2 (Eqs. 1-16), Figs. 2 and 14"
WARPS = list(range(1, 13))


def run(out: Path) -> Outcome:
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg import bundled_kernel
    from pipeperf.models.compare import evaluate
    from pipeperf.report.model_plots import plot_models

    ev = evaluate(bundled_kernel("example", {}), load_gpu("example_table2"), WARPS)
    volkov = values(ev, "volkov")
    peak_at = next((w for w, v in zip(WARPS, volkov) if abs(v - 0.25) < 1e-12), None)
    mwp = ev.curves["mwp_cwp"].details
    rows = [
        compare_row("Lambda_app (cycles of one warp alone, Sec. 2.2)", 25, float(ev.params.lambda_app)),
        compare_row("Volkov WPC at 1 warp (1/Lambda_app)", 1 / 25, volkov[0]),
        compare_row("Volkov peak WPC", 1 / 4, max(volkov)),
        compare_row("Volkov: warps that reach the peak", 7, peak_at),
        compare_row("Roofline WPC (Eq. 1 over 6 instructions)", 1 / 4, values(ev, "roofline")[0]),
        compare_row("MWP (Eq. 15)", 3, float(mwp["MWP"])),
        compare_row("CWP (Eq. 16)", 4, float(mwp["CWP"])),
    ]
    plot_models(ev, out / "models.png", title="Example kernel, Table 2 machine")
    return Outcome(
        (compare_table("printed_values", rows, "Values Sec. 2 prints for the example kernel."),
         curve_table("curves", ev, "Warps per cycle per core at 1-12 warps (Figs. 2 and 14 plot these curves; "
                                   "the paper prints no values of them beyond the rows of printed_values).")),
        ("models.png",),
        ("The GPU is the paper's Table 2 toy machine (hardware/gpus/example_table2.yaml); the kernel is the "
         "bundled IDG of Fig. 1 (idg/paper_kernels.py).",))
