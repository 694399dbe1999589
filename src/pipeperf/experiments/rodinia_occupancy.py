"""The Pipeline-model paper's Rodinia study (Sec. 6.3, Table 9): each kernel over its occupancy
range on the Quadro K620, GTX 1060 and RTX 2070, every model's curve, normalised as Figs. 17-18.

The kernels (rodinia/kernels/*.cu) and their launches (rodinia/launches.yaml) ship with this
package; each launch is analysed once with ``pipeperf analyze``'s occupancy sweep (the API
``pipeperf.analyze(..., sweep=True)``), which limits resident blocks per SM as the paper limited
work groups with local memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pipeperf.experiments.framework import Outcome, Table, compare_row, compare_table

TITLE = "Rodinia occupancy study: Table 9's kernels over their occupancy ranges, every model, 3 GPUs"
SOURCE = ("Lemeire et al., analytical-models-and-pipeline-model.txt: Sec. 6.3, Table 9, Figs. 17-18, "
          "Tables 10-12")
GPUS = ("maxwell_k620", "pascal_gtx1060", "turing_rtx2070")
HERE = Path(__file__).parent / "rodinia"
#: the models of Tables 10-12, in their order (our names)
MODELS = ("pipeline", "volkov", "mwp_cwp", "wfg", "mwp_cwp_corr", "wfg_corr", "gpumech_rr", "gpumech_gto")
#: Tables 10-12: the Pipeline model's average MAPE / MAPE_shape per GPU (against unpublished measurements)
TABLE9 = ("Fan2", "nw_kernel1", "kmeans_kernel_c", "kmeans_swap", "lud_perimeter", "lud_internal", "hotspot",
          "opt_srad1", "opt_srad2", "bpnn_layerforward_ocl", "bpnn_adjust_weights_ocl", "compute_step_factor",
          "time_step", "compute_flux")
PAPER_AVERAGE = {"maxwell_k620": (22, 8.1), "pascal_gtx1060": (23, 5.2), "turing_rtx2070": (27.8, 6)}


def launches() -> list[dict[str, Any]]:
    return list(yaml.safe_load((HERE / "launches.yaml").read_text())["kernels"])


def run(out: Path) -> Outcome:
    curves, summary = [], []
    unsupported: list[str] = []
    for k in launches():
        lo, hi = k["warps"]
        for kd in _analyse(k, unsupported):
            sw = kd["sweep"]
            keep = [i for i, w in enumerate(sw["warps_per_sm"]) if lo <= w <= hi]
            speedup: dict[str, float] = {}
            for m in MODELS:
                secs = [sw["seconds"][m][i] for i in keep] if sw["seconds"].get(m) else []
                if not secs or any(s is None for s in secs):
                    continue
                for i, s in zip(keep, secs):
                    curves.append((k["name"], kd["gpu"], sw["warps_per_sm"][i], m, s, 100 * secs[0] / s))
                speedup[m] = secs[0] / secs[-1]
            summary.append((k["name"], k["app"], kd["gpu"], f"{lo}-{hi}",
                            f"{sw['warps_per_sm'][keep[0]]}-{sw['warps_per_sm'][keep[-1]]}",
                            *(speedup.get(m) for m in MODELS)))
    figures = tuple(_plot(curves, gpu, out) for gpu in GPUS)
    avg = [compare_row(f"Pipeline model average MAPE / MAPE_shape on {g} (Tables 10-12)", mape, None,
                       f"MAPE_shape {shape}; a MAPE against the paper's measurements, which it does not publish")
           for g, (mape, shape) in PAPER_AVERAGE.items()]
    shipped = {k["name"] for k in launches()}
    return Outcome(
        (Table("summary", ("kernel", "application", "gpu", "table9_warps", "swept_warps", *MODELS), tuple(summary),
               "Each model's predicted speed-up from the lowest to the highest occupancy of Table 9's range that "
               "the sweep reaches (blocks per SM x warps per block; registers, shared memory or the grid may cap "
               "it lower); times per occupancy are in `curves`."),
         Table("curves", ("kernel", "gpu", "warps", "model", "seconds", "throughput_pct_of_min_occupancy"),
               tuple(curves), "Every model's predicted time per occupancy; throughput normalised to 100 at "
                              "the lowest occupancy, as Figs. 17-18 plot it."),
         compare_table("printed_values", avg, "The paper's accuracy figures.")),
        figures,
        (f"{len(shipped)} of Table 9's {len(TABLE9)} kernels ship"
         + (f"; missing: {', '.join(n for n in TABLE9 if n not in shipped)}." if set(TABLE9) - shipped else "."),
         *unsupported,
         "Problem sizes and the stand-ins for data the hosts read from files are in rodinia/launches.yaml "
         "(`size` of each kernel).",
         "The paper prints no model or measured values of the curves (Figs. 17-18 are plots; Tables 10-12 are "
         "errors against measurements it does not publish), so no curve point is compared.",
         "Occupancy is varied by limiting resident blocks per SM (analyze's sweep); the paper allocated local "
         "memory to the same end. Memory lambdas come from pipeperf's own memory analysis (mapper g), not from "
         "the nvprof ratios of Sec. 6.3."))


def _analyse(k: dict[str, Any], unsupported: list[str]) -> list[dict[str, Any]]:
    """``pipeperf analyze`` with the occupancy sweep on every GPU at once (one emulation); where a GPU
    cannot run the kernel (e.g. no fp64 division class), on each GPU alone, naming those that cannot."""
    from pipeperf.api import analyze
    from pipeperf.errors import PipeperfError

    def one(gpus: list[str]) -> list[dict[str, Any]]:
        rep = analyze(HERE / "kernels" / k["file"], grid=tuple(k["grid"]), block=tuple(k["block"]),
                               args=k["args"], gpus=gpus, kernel=k["name"], what_if=False)
        return list(rep.to_dict()["kernels"])

    try:
        return one(list(GPUS))
    except PipeperfError:
        out = []
        for g in GPUS:
            try:
                out += one([g])
            except PipeperfError as exc:
                unsupported.append(f"{k['name']} on {g}: not predicted ({exc})")
        return out


def _plot(curves: list[tuple[Any, ...]], gpu: str, out: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = list(dict.fromkeys(c[0] for c in curves if c[1] == gpu))
    cols = 4
    fig, axes = plt.subplots((len(kernels) + cols - 1) // cols, cols, figsize=(16, 3.2 * ((len(kernels) + 3) // 4)),
                             squeeze=False)
    for ax, kern in zip(axes.flat, kernels):
        for m in MODELS:
            pts = [(c[2], c[5]) for c in curves if c[0] == kern and c[1] == gpu and c[3] == m]
            if pts:
                ax.plot(*zip(*pts), marker="o", ms=3, label=m)
        ax.set_title(kern, fontsize=9)
        ax.set_xlabel("warps per SM")
        ax.set_ylabel("throughput (min occ. = 100)")
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"Rodinia kernels on {gpu}: every model (Figs. 17-18 style)")
    fig.tight_layout()
    name = f"curves_{gpu}.png"
    fig.savefig(out / name, dpi=90)
    plt.close(fig)
    return name
