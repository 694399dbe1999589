"""The whole validation suite (validation/): every published case predicted by every model, the
MAPE tables, the scatter plot and the JSON of every case, with the wall time of the run.

Run:  python3 benchmarks/validation_suite.py [--jobs 2] [--out out/validation] [--case GLOB ...] [--every K]
      python3 benchmarks/validation_suite.py --without dram,l1,...   # the model as it was before those fixes

``--without`` turns fixes of the Pipeline model off, to report the suite's MAPE before and after
each (issue 15): ``dram`` (achievable DRAM bandwidth shared by the active SMs, read/write mix:
off = the vendor-peak-derived memory class), ``l1`` (L1 hits of global loads), ``dispatch``
(the GPU-wide block dispatch rate), ``turnaround`` (a block slot's retire-and-dispatch latency),
``posted`` (a block retires once its global stores have left the SM: off = it waits for their
latency), ``overhead`` (the fixed launch
overhead), ``clock`` (the clock under load from the arithmetic activity: off = the database's
``clock_ghz``), ``atomics`` (same-address serialisation), ``weights`` (a sampled
CTA stands for its stratum of the grid: off = every sampled CTA weighs the same), ``reuse``
(cross-CTA reuse from the address's CTA-dependent part: off = the ctaid-dimension rule of before),
``warm`` (data left in L2 by the previous launch over the same buffers: off = L2 starts cold),
``intpipe`` (integer add/logic/moves on the ALU pipe beside the FMA pipe of Volta and later: off =
one pipe), ``l2pipe`` (requests served by L2 alone on the L2 slices' pipe: off = behind DRAM
requests on the memory pipe), ``l2share`` (an L2 hit's lambda from the measured L2 bandwidth
shared by the active SMs: off = the L2 class as the GPU file gives it), ``l1waves`` (an L1 hit's
cost from its bank wavefronts and tag lookups: off = its sectors / 4), ``firstcome`` (the DRAM and
L2 pipelines serve their waiting warps first-come: off = in the scheduler's order), ``returnbw`` (a 64- or
128-bit L1/shared load returns one register per lane per cycle: off = its bank wavefronts alone).
The switches change the GPU facts the fixes read, or swap the fix's function for the one it
replaced; the tool itself has no such switches.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]

FIXES = ("dram", "l1", "dispatch", "turnaround", "posted", "overhead", "clock", "atomics", "weights", "reuse", "warm",
         "returnbw",
         "intpipe", "l2pipe", "l2share", "l1waves", "firstcome")


def switch_off(fixes: set[str]) -> None:
    """Monkeypatch the fixes named in ``fixes`` away (before any worker process forks)."""
    import pipeperf.hardware.spec as spec_mod

    load = spec_mod.load_gpu

    def load_without(name):
        g = load(name)
        mem, launch = dict(g.memory), dict(g.launch)
        if "dram" in fixes:
            for k in ("dram_read_gbs", "dram_write_gbs", "dram_copy_gbs"):
                mem.pop(k, None)
        if "l1" in fixes:
            mem.pop("l1_bytes", None)
        if "dispatch" in fixes:
            launch.pop("blocks_per_clk", None)
        if "turnaround" in fixes:
            launch.pop("block_dispatch_cycles", None)
        if "overhead" in fixes:
            launch.pop("overhead_us", None)
        extra = {}
        if "clock" in fixes:
            extra["sustained_clock_ghz"] = g.clock_ghz
        if "atomics" in fixes:
            extra["atomics"] = {}
        if "l2share" in fixes:
            mem.pop("l2_bandwidth_bytes_per_clk", None)
        classes = dict(g.classes)
        for name, c in g.classes.items():
            if ("intpipe" in fixes and c.subsystem == "int") or ("l2pipe" in fixes and c.subsystem == "l2"):
                classes[name] = dataclasses.replace(c, subsystem="alu" if c.subsystem == "int" else "mem")
        return dataclasses.replace(g, memory=mem, launch=launch, classes=classes, **extra)

    spec_mod.load_gpu = load_without
    if "posted" in fixes or "firstcome" in fixes:
        import pipeperf.simulate.simulator as sim_mod

        if "posted" in fixes:
            sim_mod.POSTED_CLASSES = frozenset()
        if "firstcome" in fixes:
            sim_mod.FIRST_COME = ()
    if "weights" in fixes:
        import pipeperf.emulate.sampling as sampling

        sampling.sample_weights = lambda ctas, grid: {int(b): 1.0 for b in ctas}
    if "reuse" in fixes:
        import pipeperf.analysis.memory_trace as mt
        from pipeperf.analysis.cta_sharing import sharing_by_pc

        def dims_rule(stats, func, gpu, grid, block, params, wave_ctas, warps_per_cta, traced_ctas):
            glob = [pc for pc, st in stats.items() if st.space == "global"]
            for pc, (_, share) in sharing_by_pc(func, glob, grid, wave_ctas).items():
                stats[pc].shared_by = share
        mt.share_across_ctas = dims_rule
    if "warm" in fixes:
        import pipeperf.analysis.memory_trace as mt

        mt.warm_start = lambda stats, gpu, launch_scale: False
    if "l1waves" in fixes:
        import numpy as np

        import pipeperf.hardware.memory as mem_mod      # (its _global_stats calls banks' l1_load_wavefronts)

        mem_mod.l1_load_wavefronts = lambda acc, reqs: np.zeros(len(acc))   # 0: sectors / 4 per L1 hit
    if "returnbw" in fixes:
        import numpy as np

        import pipeperf.hardware.banks as banks_mod

        banks_mod.return_wavefronts = lambda acc, reqs: np.ones(len(acc), np.int64)   # banks alone


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=str(ROOT / "validation"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "out" / "validation"))
    ap.add_argument("--case", action="append", default=[], metavar="GLOB")
    ap.add_argument("--gpu", action="append", default=[])
    ap.add_argument("--every", type=int, default=1, metavar="K",
                    help="only every K-th case (a deterministic sample, for per-fix comparisons)")
    ap.add_argument("--without", default="", help=f"comma-separated fixes to turn off: {', '.join(FIXES)}, all")
    ap.add_argument("--isa", choices=("ptx", "sass"), default="ptx", help="IDGs from the PTX or the SASS")
    ap.add_argument("--case-timeout", type=float, default=900.0, help="seconds per launch before it is stopped")
    a = ap.parse_args()
    off = set(FIXES) if a.without == "all" else {x for x in a.without.split(",") if x}
    bad = off - set(FIXES)
    if bad:
        ap.error(f"unknown fix {sorted(bad)[0]!r}: expected {', '.join(FIXES)}")
    switch_off(off)
    from pipeperf.measure.suite import load_suite, results_json, run_suite, selector, summarise
    from pipeperf.report.suite_report import format_summary, plot_suite

    cases = load_suite(a.suite, selector(a.gpu, (), a.case))[::max(1, a.every)]
    t0 = time.perf_counter()
    res = run_suite(cases, jobs=a.jobs, progress=lambda d, n: print(f"\r{d}/{n} launches", end="", file=sys.stderr),
                    timeout=a.case_timeout, isa=a.isa)
    wall = time.perf_counter() - t0
    print(file=sys.stderr)
    s = summarise(res)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tag = ("without-" + "-".join(sorted(off)) if off else "all-fixes") + (f"-every{a.every}" if a.every > 1 else "") \
        + ("-sass" if a.isa == "sass" else "")
    (out / f"suite-{tag}.json").write_text(results_json(res, s))
    plot_suite(res, out / f"suite-{tag}.png")
    print(format_summary(s))
    print(f"\n{len(cases)} cases, {len({c.launch for c in cases})} launches in {wall:.0f} s with {a.jobs} jobs "
          f"({'fixes off: ' + ', '.join(sorted(off)) if off else 'every fix on'}; IDGs from the {a.isa.upper()}); "
          f"JSON and plot in {out}/suite-{tag}.*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
