"""``pipeperf simulate``: run the Pipeline-model simulator on an IDG, once or over occupancies."""

from __future__ import annotations

import argparse
import json
import sys

from pipeperf.cli.common import add_kernel_args, resolve_kernel
from pipeperf.errors import PipeperfError
from pipeperf.util.ranges import parse_int_range


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", description="Simulate a kernel's instruction dependence graph on one compute unit "
                                   "of a GPU and report cycles, seconds, warps/cycle, IPC and "
                                   "subsystem utilisation.")
    add_kernel_args(p)
    p.add_argument("--group-size", type=int, metavar="WARPS",
                   help="warps per group |gamma| (default: the kernel's group classes' size, else 1)")
    p.add_argument("--groups-per-core", type=int, default=1, metavar="M",
                   help="concurrent groups per core (default 1)")
    p.add_argument("--groups", type=int, metavar="TOTAL",
                   help="groups in the whole launch (default: one round, M x cores)")
    p.add_argument("--scheduler", choices=["rr", "gto"], default="rr", help="warp scheduler (default rr)")
    p.add_argument("--warps", metavar="RANGE",
                   help="occupancy sweep, e.g. 1-64: M = warps / group size at each point")
    p.add_argument("--runs", type=int, default=1,
                   help="rounds of groups per slot in a sweep (default 1; more approaches steady state)")
    p.add_argument("--json", action="store_true", help="print JSON (a list for a sweep)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the occupancy curve of a sweep")
    p.add_argument("--gantt", metavar="FILE.png", help="draw the execution profile of a single run")
    # nothing on simulate's path logs or shows a progress bar: no logging to set up (its import
    # is a few percent of a simulation's whole process)
    p.set_defaults(func=run, logs=False)


def run(args: argparse.Namespace) -> int:
    kernel, gpu = resolve_kernel(args)
    from pipeperf.simulate import PreparedKernel, occupancy_sweep

    prep = PreparedKernel(kernel, gpu)
    if args.group_size is None:
        args.group_size = kernel.group_size or 1
    if args.warps:
        if args.gantt:
            raise PipeperfError("--gantt draws a single run; drop --warps")
        if args.runs < 1:
            raise PipeperfError("--runs must be >= 1")
        warps = parse_int_range(args.warps, "--warps")
        gs = args.group_size
        results = occupancy_sweep(prep, gpu, warps, args.scheduler, gs, args.runs, args.groups)
        over = [r.warps for r in results if r.warps > gpu.max_warps_per_core
                or r.groups_per_core > gpu.max_groups_per_core]
        if over:
            print(f"pipeperf: note: {len(over)} point(s) from {over[0]} warps exceed {gpu.name}'s limits "
                  f"({gpu.max_warps_per_core} warps, {gpu.max_groups_per_core} groups per core); "
                  "simulated anyway", file=sys.stderr)
        if args.plot:
            from pipeperf.report.sim_plots import plot_occupancy
            plot_occupancy(results, args.plot)
        if args.json:
            print(json.dumps([r.to_dict() for r in results], indent=1))
        else:
            print(f"{kernel.name} on {gpu.name} ({gpu.full_name or gpu.name}), scheduler {args.scheduler}, "
                  f"group size {gs} warp(s)")
            print(f"{'warps':>5} {'cycles':>12} {'seconds':>11} {'warps/cycle':>11} {'IPC':>7}  bound")
            for r in results:
                print(f"{r.warps:>5} {r.cycles:>12.2f} {r.seconds:>11.4g} {r.warps_per_cycle:>11.5f} "
                      f"{r.ipc:>7.3f}  {r.bound_by}")
        return 0
    if args.plot:
        raise PipeperfError("--plot draws an occupancy sweep; add --warps RANGE")
    r = prep.run(args.group_size, args.groups_per_core, args.groups, args.scheduler, profile=bool(args.gantt))
    if args.gantt:
        from pipeperf.report.sim_plots import plot_gantt
        plot_gantt(r, args.gantt)
    if args.json:
        print(json.dumps(r.to_dict(), indent=1))
        return 0
    print(f"kernel      {r.kernel}")
    print(f"gpu         {gpu.name} ({gpu.full_name or gpu.name}): {gpu.cores} cores at {gpu.clock_ghz:g} GHz, "
          f"issue limit {gpu.issue_limit:g}")
    print(f"launch      {r.groups_total} groups of {r.group_size} warp(s), {r.groups_per_core} resident per core "
          f"(occupancy {r.warps} warps), {r.groups_on_core} groups on the busiest core")
    print(f"scheduler   {r.scheduler}")
    print(f"cycles      {r.cycles:.2f}")
    print(f"time        {r.seconds * 1e6:.4f} us")
    print(f"warps/cycle {r.warps_per_cycle:.5f} per core")
    print(f"IPC         {r.ipc:.4f} warp instructions per cycle per core")
    busy = ", ".join(f"{k} {100 * v:.1f}%" for k, v in sorted(r.subsystem_busy.items(), key=lambda kv: -kv[1]) if v > 0)
    print(f"busy        {busy}")
    print(f"bound by    {r.bound_by}")
    return 0
