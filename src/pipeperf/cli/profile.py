"""``pipeperf profile KERNEL.cu|.ptx --grid X[,Y,Z] --block X[,Y,Z] --arg ...``: emulate a launch."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pipeperf.cli.check_ptxas import add_check_ptxas_option, check_ptxas
from pipeperf.cli.launch_options import (EPILOG, add_budget_option, add_launch_options, add_oob_option, launch_specs,
                                         shared_bytes)
from pipeperf.cli.nvcc_options import add_nvcc_options, nvcc_flags
from pipeperf.emulate.budget import DEFAULT_STEPS

DESCRIPTION = """Emulate one kernel launch with pipeperf's SIMT emulator and print its profile
(instructions by category, FLOPs, branches and branch efficiency, global sectors, shared bank
conflicts). --mode hybrid executes only what branches and addresses depend on (HyPA) and gives
the same counts faster. E.g.
  --arg n=1048576 --arg a=2.0 --arg x=rand:f32:1048576 --arg y=zeros:f32:1048576
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("profile", description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a .ptx file, or a .cu file compiled with nvcc -ptx")
    add_launch_options(p)
    add_oob_option(p)
    p.add_argument("--mode", choices=("full", "hybrid"), default="full")
    p.add_argument("--no-memory", action="store_true",
                   help="hybrid mode without memory addresses (HyPA's slice: branch conditions "
                        "only); memory statistics are then not reported")
    p.add_argument("--arch", help="nvcc target for .cu files (default: the compiler's)")
    add_nvcc_options(p)
    add_budget_option(p, DEFAULT_STEPS)
    p.add_argument("--trace", metavar="FILE.json",
                   help="write per-warp dynamic traces (opcode, class, operands, active lanes, "
                        "addresses) of the first --trace-warps warps")
    p.add_argument("--trace-warps", type=int, default=4, metavar="N",
                   help="warps to trace with --trace (default 4)")
    p.add_argument("--csv", metavar="FILE", help="append a HyPA-style CSV row to FILE")
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    add_check_ptxas_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipeperf.emulate import csv_text, run_kernel
    from pipeperf.ptx.cuda_names import display_name
    from pipeperf.hardware.occupancy import check_shared_per_block

    launch_specs(args)
    check_shared_per_block(shared_bytes(args))       # no GPU named: any GPU of the database's limit
    check_ptxas(args, args.file)

    prof = run_kernel(args.file, args.grid, args.block, args.arg, kernel=args.kernel,
                      shared=shared_bytes(args), mode=args.mode, max_steps=args.max_steps,
                      arch=args.arch, memory=not args.no_memory, nvcc_flags=nvcc_flags(args),
                      trace_warps=args.trace_warps if args.trace else 0,
                      allow_dtype_mismatch=args.allow_dtype_mismatch, oob=args.oob)
    if args.trace:
        doc = {"kernel": prof.name, "grid": list(prof.grid), "block": list(prof.block),
               "warps": {str(w): [dict(e, dsts=list(e["dsts"]), srcs=list(e["srcs"]),
                                       addresses=None if e["addresses"] is None
                                       else [int(v) for v in e["addresses"]]) for e in entries]
                         for w, entries in sorted(prof.traces.items())}}
        Path(args.trace).write_text(json.dumps(doc))
    if args.csv:
        path = Path(args.csv)
        new = not path.exists() or path.stat().st_size == 0
        with path.open("a") as f:
            f.write(csv_text([prof], header=new))
    if args.json:
        print(json.dumps(prof.to_dict(), indent=2))
        return 0
    c = prof.counts
    print(f"kernel {display_name(prof.name)}  grid {prof.grid}  block {prof.block}  mode {prof.mode}")
    rows = [
        ("warp instructions executed", c["inst_executed_warp"]),
        ("thread instructions executed", c["inst_executed_thread"]),
        ("  fp32 / fp64 / fp16", f"{c['inst_fp_32']} / {c['inst_fp_64']} / {c['inst_fp_16']}"),
        ("  integer", c["inst_integer"]),
        ("  load/store", c["inst_compute_ld_st"]),
        ("flop sp / dp / hp", f"{c['flop_count_sp']} / {c['flop_count_dp']} / {c['flop_count_hp']}"),
        ("branches / divergent", f"{c['branches']} / {c['divergent_branches']}"),
        ("branch efficiency %", f"{c['branch_efficiency']:.2f}"),
        ("global load / store requests",
         f"{c['global_load_requests']} / {c['global_store_requests']}"),
        ("global sectors (load / store)",
         f"{c['global_load_sectors']} / {c['global_store_sectors']}"),
        ("shared requests / bank conflicts",
         f"{c['shared_requests']} / {c['shared_bank_conflicts']}"),
        ("fraction emulated", f"{c['fraction_emulated']:.3f}"),
        ("seconds", f"{c['seconds']:.3f}"),
    ]
    for k, v in rows:
        print(f"  {k:34s} {v}".replace("None", "n/a"))
    from pipeperf.report.analyze_text import oob_lines

    for line in oob_lines(prof.out_of_bounds):
        print(line)
    for note in prof.notes:
        print(f"  note: {note}")
    return 0
