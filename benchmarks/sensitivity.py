"""How the Pipeline model's time for validation cases moves when one GPU figure moves a little.

A prediction should be a smooth function of the hardware figures it reads: a 1 % slower DRAM
cannot make a kernel 13 % faster. Where it does, the simulated warps run in lock step (the known
limit in docs/MODEL.md, "Known limits") and the time depends on the phase in which they meet
the memory pipeline, so differences between variants smaller than the spread printed here are
not resolved by the model. This script measures that spread; it changes nothing in the tool.

Run:  python3 benchmarks/sensitivity.py --case 'aligned-types/a100_80gb/RGBA32*' [--figure dram]
                                        [--factors 0.97,0.99,1,1.01,1.03] [--jobs 2]

``--figure``: ``dram`` scales the achievable DRAM figures (memory.dram_read/write/copy_gbs),
``l2`` the measured L2 bandwidth (memory.l2_bandwidth_bytes_per_clk). Per case it prints the
Pipeline time at each factor, the spread (largest / smallest - 1) and whether the time falls (or
stays) as the bandwidth grows; per order group, at which factors the variants come out in the
measured order.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]

FIGURES = {"dram": ("dram_read_gbs", "dram_write_gbs", "dram_copy_gbs"),
           "l2": ("l2_bandwidth_bytes_per_clk",)}
_factor = [1.0]          # the factor the patched loader applies (forked workers inherit it)


def scale_figure(keys: tuple[str, ...]) -> None:
    """Make every GPU the database loads have its ``memory`` figures ``keys`` times ``_factor[0]``."""
    import pipeperf.hardware.spec as spec_mod

    load = spec_mod.load_gpu

    def load_scaled(name):
        g = load(name)
        mem = dict(g.memory)
        for k in keys:
            if mem.get(k):
                mem[k] = mem[k] * _factor[0]
        return dataclasses.replace(g, memory=mem)

    spec_mod.load_gpu = load_scaled


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=str(ROOT / "validation"))
    ap.add_argument("--case", action="append", default=[], metavar="GLOB", required=True)
    ap.add_argument("--figure", choices=sorted(FIGURES), default="dram")
    ap.add_argument("--factors", default="0.97,0.98,0.99,1,1.01,1.02,1.03")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    factors = sorted(float(x) for x in a.factors.split(","))
    scale_figure(FIGURES[a.figure])
    from pipeperf.measure.suite import load_suite, order_checks, run_suite, selector

    cases = load_suite(a.suite, selector((), (), a.case))
    if not cases:
        ap.error(f"no case matches {a.case}")
    times: dict[str, list[float | None]] = {c.id: [] for c in cases}
    orders: dict[str, list[bool | None]] = {}
    for f in factors:
        _factor[0] = f
        res = run_suite(cases, jobs=a.jobs)
        for r in res:
            times[r.case.id].append(r.predicted.get("pipeline"))
        for o in order_checks(res, ["pipeline"]):
            orders.setdefault(o["group"], []).append(o["in_order"]["pipeline"])
    print(f"Pipeline time (us) with the {a.figure} figures x factor")
    print(f"{'case':52s}" + "".join(f"{f:>9g}" for f in factors) + "   spread  falls as bandwidth grows")
    for cid, ts in times.items():
        ok = [t for t in ts if t is not None]
        if len(ok) < len(ts):
            print(f"{cid:52s}  (no prediction at some factor)")
            continue
        spread = max(ok) / min(ok) - 1.0
        falls = all(ok[i + 1] <= ok[i] * (1 + 1e-9) for i in range(len(ok) - 1))
        print(f"{cid:52s}" + "".join(f"{t * 1e6:9.2f}" for t in ok) + f"  {spread:6.1%}  {'yes' if falls else 'NO'}")
    for g, v in orders.items():
        print(f"order group {g}: in the measured order at factors "
              + (", ".join(f"{f:g}" for f, ok in zip(factors, v) if ok) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
