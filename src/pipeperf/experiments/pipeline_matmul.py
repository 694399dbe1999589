"""The first Pipeline-model paper's matrix multiplication (Listing 1, Sec. IV-C): mmul_08 and
mmul_16 multiplying two 1024 x 1024 matrices on Fermi (C2050) and Pascal (GTX 1060) over occupancy
(Fig. 3), and the latencies Table III measured for its accesses beside the ones pipeperf's memory
analysis gives them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeperf.experiments.framework import Outcome, Table, compare_row, compare_table

TITLE = "Matrix multiplication of Listing 1 (8x8, 16x16 groups) over occupancy on Fermi and Pascal (Fig. 3, Table III)"
SOURCE = "Lemeire et al., pipeline-performance-model.txt: Sec. IV-C, Listing 1, Table III, Fig. 3"
KERNEL = Path(__file__).parent / "kernels" / "mmul.cu"
GPUS = ("fermi_c2050", "pascal_gtx1060")
N = 1024
MODELS = ("pipeline", "volkov", "mwp_cwp_corr", "wfg_corr", "gpumech_rr", "roofline")
#: Table III: (operation, kernel) -> {gpu: (lambda, Lambda)}
TABLE3 = {
    ("matrix A", "mmul_08"): {"fermi_c2050": (20, 162), "pascal_gtx1060": (7, 210)},
    ("matrix B", "mmul_08"): {"fermi_c2050": (45, 479), "pascal_gtx1060": (8, 409)},
    ("matrix A", "mmul_16"): {"fermi_c2050": (13, 244), "pascal_gtx1060": (6, 247)},
    ("matrix B", "mmul_16"): {"fermi_c2050": (17, 561), "pascal_gtx1060": (10, 444)},
    ("local memory", "mmul_08"): {"fermi_c2050": (2, 47), "pascal_gtx1060": (1, 30)},
    ("local memory", "mmul_16"): {"fermi_c2050": (2, 47), "pascal_gtx1060": (1, 30)},
}


def run(out: Path) -> Outcome:
    from pipeperf.api import analyze

    curves: list[tuple[Any, ...]] = []
    lat_rows = []
    for name, b in (("mmul_08", 8), ("mmul_16", 16)):
        rep = analyze(KERNEL, grid=(N // b, N // b), block=(b, b), what_if=False, kernel=name,
                               args=[f"C=zeros:f32:{N * N}", f"A=rand:f32:{N * N}", f"B=rand:f32:{N * N}",
                                     f"WA={N}", f"WB={N}"], gpus=list(GPUS))
        for kd in rep.to_dict()["kernels"]:
            sw, gpu = kd["sweep"], kd["gpu"]
            for m in MODELS:
                for w, s in zip(sw["warps_per_sm"], sw["seconds"].get(m) or []):
                    if s:
                        curves.append((name, gpu, w, m, s, 2 * N ** 3 / s / 1e9))
            loads = [x for x in kd["memory"] if x["opcode"].startswith("ld.global")]
            shared = next((x for x in kd["memory"] if x["opcode"].startswith("ld.shared")), None)
            for label, acc in (("matrix A", loads[0] if loads else None), ("matrix B", loads[1] if len(loads) > 1 else None),
                               ("local memory", shared)):
                lam, Lam = TABLE3[label, name][gpu]
                got = (None, None) if acc is None else (acc["cpi"], acc["latency"])
                lat_rows.append(compare_row(f"{name} {gpu} {label}: lambda", lam, got[0],
                                            "Table III: measured with a benchmark mimicking the access"))
                lat_rows.append(compare_row(f"{name} {gpu} {label}: Lambda", Lam, got[1]))
    fig = _plot(curves, out)
    return Outcome(
        (compare_table("table3_latencies", lat_rows, "Table III's latencies (cycles) against those pipeperf's "
                                                     "memory analysis assigns to the same loads."),
         Table("curves", ("kernel", "gpu", "warps", "model", "seconds", "gflops"), tuple(curves),
               f"Predicted time per occupancy, {N} x {N} matrices; GFLOP/s = 2 N^3 / time.")),
        (fig,),
        ("Fig. 3 plots measured and simulated performance but prints no numbers, so the curves are not compared.",
         "Occupancy: resident blocks per SM limited (the paper allocated unused __local memory)."))


def _plot(curves: list[tuple[Any, ...]], out: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for ax, (name, gpu) in zip(axes.flat, [(k, g) for k in ("mmul_08", "mmul_16") for g in GPUS]):
        for m in MODELS:
            pts = [(c[2], c[5]) for c in curves if c[0] == name and c[1] == gpu and c[3] == m]
            if pts:
                ax.plot(*zip(*pts), marker="o", ms=3, label=m)
        ax.set_title(f"{name} on {gpu}")
        ax.set_xlabel("warps per SM")
        ax.set_ylabel("GFLOP/s")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "mmul.png", dpi=100)
    plt.close(fig)
    return "mmul.png"
