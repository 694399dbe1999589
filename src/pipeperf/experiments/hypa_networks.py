"""HyPA's Table II (static and dynamic analysis of CNNs on a V100S) for the built-in networks
that are also rows of that table: % of instructions executed, branch efficiency, FLOPs."""

from __future__ import annotations

from pathlib import Path

from pipeperf.experiments.framework import Outcome, compare_row, compare_table

TITLE = "HyPA Table II: % executed, branch efficiency and FLOPs of CNNs (built-in networks, V100)"
SOURCE = "Metz et al., hybrid-ptx-analysis-hypa.txt: Table II (NVIDIA V100s)"
GPU = "volta_v100"
#: built-in network -> (its row in Table II, % to execute, eta_HyPA %, nvprof FLOPs)
TABLE2 = {
    "mobilenetv1": ("mobilenet", 10.77, 97.3356, 287_752_628_102),
    "mobilenetv2": ("MobileNetV2", 10.22, 98.2702, 210_300_655_245),
    "resnet50": ("resnet50", 6.51, 98.2734, 650_429_295_715),
}


def run(out: Path) -> Outcome:
    from pipeperf.network.api import analyze_network
    from pipeperf.tune.cache import ResultCache
    from pipeperf.util.cache import cache_dir

    cache = ResultCache(cache_dir() / "tune")
    rows = []
    for net, (row, pct, eta, flops) in TABLE2.items():
        m = analyze_network(net, builtin=True, gpus=[GPU], cache=cache).to_dict()["metrics"]
        rows += [
            compare_row(f"{net} ({row}): % of instructions executed", pct, 100 * m["fraction_emulated"],
                        "HyPA: its Keras/cuDNN kernels; ours: pipeperf's own kernels (network/kernels), CTA "
                        "sampling and hybrid mode"),
            compare_row(f"{net} ({row}): branch efficiency %", eta, m["branch_efficiency"],
                        "HyPA's eta_HyPA column (its nvprof column is 92.2 % for almost every network)"),
            compare_row(f"{net} ({row}): FLOPs executed (nvprof's in Table II)", flops,
                        m["flop_count_sp"] + m["flop_count_hp"] + m["flop_count_dp"],
                        "not comparable: Table II's run is not one batch-1 inference (its nvprof FLOPs are 85 to 350 "
                        "x the networks' published FLOPs) and counts cuDNN's kernels", comparable=False),
        ]
    return Outcome(
        (compare_table("table2", rows, f"Built-in networks on {GPU} (HyPA measured a V100S), batch 1, fp32, "
                                       "64 traced warps per launch."),),
        (),
        ("Only the networks that are rows of Table II and analyse within this experiment's time budget are "
         "run; validation/results/network_table.md (benchmarks/network_table.py) has all nine built-ins.",
         "pipeperf's results cache (the tune/ folder of its cache directory) keeps each analysed launch, so a "
         "re-run takes seconds; from an empty cache it took 1 to 3 minutes on the shared 2-core build machine.",
         "The kernels differ (HyPA analysed the cuDNN/TensorFlow kernels, we analyse pipeperf's direct "
         "convolution and GEMM kernels), so the differences measure the kernels as much as the analysis."))
