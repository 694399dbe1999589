"""HyPA's Table II for pipeperf's built-in networks (issue 37): per network the share of
instructions the analysis executed, the executed instructions, FLOPs (counted by the emulation,
and 2 x the published multiply-adds), branch efficiency, and the predicted inference time and
energy on a V100 (HyPA measured a V100S).

Run: PYTHONPATH=src python3 benchmarks/network_table.py [--gpu volta_v100] [--net NAME ...] [--trace-warps N]
Writes validation/results/network_table.md and network_table.json (what is committed); the
results cache (pipeperf's tune/ folder) makes a re-run cheap.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "validation" / "results"


def main() -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from pipeperf.network.api import analyze_network
    from pipeperf.network.builtin import NETWORKS, PUBLISHED
    from pipeperf.tune.cache import ResultCache
    from pipeperf.util.cache import cache_dir

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="volta_v100")
    ap.add_argument("--net", action="append", help="built-in network (repeat; default: all)")
    ap.add_argument("--trace-warps", type=int, default=64)
    args = ap.parse_args()
    rows = []
    cache = ResultCache(cache_dir() / "tune")
    for net in args.net or list(NETWORKS):
        t0 = time.perf_counter()
        r = analyze_network(net, builtin=True, gpus=[args.gpu], trace_warps=args.trace_warps, cache=cache)
        d = r.to_dict()
        m, t = d["metrics"], d["totals"][args.gpu]
        pub = PUBLISHED.get(net)
        rows.append({"network": net, "layers": len(d["layers"]), "launches": d["analysis"]["launches"],
                     "distinct_launches": d["analysis"]["distinct_launches"],
                     "pct_executed": 100 * m["fraction_emulated"], "inst_executed": m["inst_executed"],
                     "flop_count": m["flop_count_sp"] + m["flop_count_hp"] + m["flop_count_dp"],
                     "model_flops": m["model_flops"], "published_flops": 2 * pub.macs if pub else None,
                     "published_source": pub.source if pub else None,
                     "branch_efficiency": m["branch_efficiency"], "ms": t["seconds"] * 1e3,
                     "joules": t["joules_per_inference"]})
        print(f"{net}: {rows[-1]['ms']:.3g} ms predicted, analysed in {time.perf_counter() - t0:.1f} s "
              f"({d['analysis']['cached']} launch x GPU from the results cache)", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "network_table.json").write_text(json.dumps({"gpu": args.gpu, "trace_warps": args.trace_warps, "rows": rows},
                                                       indent=1) + "\n")
    lines = [f"# HyPA Table II for pipeperf's built-in networks ({args.gpu}, batch 1, fp32)", "",
             "Regenerate: `PYTHONPATH=src python3 benchmarks/network_table.py` (pipeperf network --builtin NAME "
             f"--gpu {args.gpu}, {args.trace_warps} traced warps per launch). % executed: the share of the network's "
             "thread instructions the emulator executed (CTA sampling and hybrid mode; HyPA's '% to execute'); "
             "inst_executed: warp instructions (nvprof's metric); FLOPs: counted by the emulation (what the kernels "
             "execute: the image padding's multiply-adds, those of the GEMM tiles' unused rows and columns where a "
             "dimension is not a multiple of 64, biases, unfolded BatchNormalizations and activations) and 2 x the Conv/Gemm multiply-adds of the graph against "
             "2 x the published count (sources: pipeperf.network.builtin.PUBLISHED); time and energy: predicted for "
             "pipeperf's own kernels (network/kernels), launch overheads included, not cuDNN's.", "",
             "| CNN | layers | launches (distinct) | % executed | inst_executed | FLOPs (emulated) | FLOPs (graph) | "
             "FLOPs (published) | branch eff. | time (ms) | J/inference |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for x in rows:
        pub = "-" if x["published_flops"] is None else f"{x['published_flops']:.3g}"
        lines.append(f"| {x['network']} | {x['layers']} | {x['launches']} ({x['distinct_launches']}) | "
                     f"{x['pct_executed']:.2f} % | {x['inst_executed']:,.0f} | {x['flop_count']:.3g} | "
                     f"{x['model_flops']:.3g} | {pub} | {x['branch_efficiency']:.2f} % | {x['ms']:.3g} | "
                     f"{'-' if x['joules'] is None else format(x['joules'], '.3g')} |")
    (OUT / "network_table.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT / 'network_table.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
