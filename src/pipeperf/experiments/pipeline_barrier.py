"""The iterative barrier kernel (Fig. 15): N dependent instructions each followed by a barrier,
simulated by the Pipeline model over occupancy and work-group size on Fermi and Pascal (Fig. 16).
Only the Pipeline model (and WFG) see work groups (Table 7), so only the simulator runs here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeperf.experiments.framework import Outcome, Table, compare_row, compare_table

TITLE = "Iterative barrier kernel over occupancy and work-group size on Fermi and Pascal (Figs. 15-16)"
SOURCE = "Lemeire et al., analytical-models-and-pipeline-model.txt: Sec. 6.2, Figs. 15-16, Table 8"
GPUS = ("fermi_c2050", "pascal_gtx1060")
GROUP_WARPS = (1, 2, 4, 8, 16, 32)           # work groups of 32 to 1024 threads
N = 64                                       # barrier steps per warp
ROUNDS = 4                                   # groups per resident slot (the runs of pipeperf models)


def run(out: Path) -> Outcome:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.paper_kernels import iterative_barrier
    from pipeperf.simulate import simulate

    kernel = iterative_barrier(N)
    rows: list[tuple[Any, ...]] = []
    fig, axes = plt.subplots(1, len(GPUS), figsize=(12, 4))
    for ax, name in zip(axes, GPUS):
        gpu = load_gpu(name)
        for gw in GROUP_WARPS:
            pts = []
            for m in range(1, gpu.max_groups_per_core + 1):
                if m * gw > gpu.max_warps_per_core:
                    break
                r = simulate(kernel, gpu, gw, m, total_groups=m * gpu.cores * ROUNDS)
                rows.append((name, 32 * gw, m, m * gw, r.cycles, r.warps_per_cycle))
                pts.append((m * gw, r.warps_per_cycle))
            ax.plot(*zip(*pts), marker="o", ms=3, label=f"group {32 * gw}")
        ax.set_title(f"{name}: Pipeline model, {N} barrier steps")
        ax.set_xlabel("warps per SM (occupancy)")
        ax.set_ylabel("warps per cycle per SM")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "barrier.png", dpi=100)
    plt.close(fig)
    printed = [compare_row("Pipeline model MAPE, barrier kernel, Fermi (Table 8)", 3.8, None,
                           "a MAPE against the paper's measurements, which it does not publish: not reproducible"),
               compare_row("Pipeline model MAPE, barrier kernel, Pascal (Table 8)", 5.1, None, "as above"),
               compare_row("Fermi: maximum occupancy (warps)", 48, float(load_gpu("fermi_c2050").max_warps_per_core)),
               compare_row("Pascal: maximum occupancy (warps)", 64, float(load_gpu("pascal_gtx1060").max_warps_per_core))]
    return Outcome(
        (compare_table("printed_values", printed, "Table 8's barrier-kernel row and Fig. 16's axes."),
         Table("curves", ("gpu", "group_threads", "groups_per_sm", "warps", "cycles", "warps_per_cycle"),
               tuple(rows), f"Pipeline simulator, {ROUNDS} rounds of resident groups per SM.")),
        ("barrier.png",),
        ("Fig. 16 plots measured and simulated performance but prints no values.",))
