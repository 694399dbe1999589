"""``pipeperf analyze KERNEL.cu|.ptx --grid ... --block ... --arg ... --gpu NAME``: predicted run time."""

from __future__ import annotations

import argparse
import json

DESCRIPTION = """Predict a kernel launch's run time on one or more GPUs of the database, with no GPU:
compile (nvcc) and parse, emulate a sample of whole CTAs spread over the grid, tracing their warps, build the
warps' instruction dependence graphs (one per distinct path), compute occupancy from ptxas -v,
and run the Pipeline model's simulator. Arguments as for `pipeperf profile`."""


def register(subparsers) -> None:
    p = subparsers.add_parser("analyze", help="predict a kernel's run time on GPUs from its source",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a .ptx file, or a .cu file compiled with nvcc -ptx")
    p.add_argument("--kernel", help="kernel (.entry) name; needed when the file has several")
    p.add_argument("--grid", required=True, help="grid size X[,Y[,Z]]")
    p.add_argument("--block", required=True, help="block size X[,Y[,Z]]")
    p.add_argument("--arg", action="append", default=[], metavar="[NAME=]VALUE",
                   help="kernel argument (repeat), as for `pipeperf profile`")
    p.add_argument("--gpu", action="append", required=True, metavar="NAME", help="GPU of the database (repeat)")
    p.add_argument("--shared", type=int, default=0, help="dynamic shared memory bytes")
    p.add_argument("--mode", choices=("full", "hybrid"), default="hybrid", help="emulation mode (default hybrid)")
    p.add_argument("--trace-warps", type=int, default=256, metavar="N",
                   help="warps traced to build the IDGs: whole CTAs, the first, the last and evenly "
                        "spaced ones, N warps at most (one CTA at least; default 256)")
    p.add_argument("--all-ctas", action="store_true",
                   help="emulate every CTA (default: only the traced ones, when their paths and "
                        "addresses cannot depend on other CTAs' writes)")
    p.add_argument("--max-nodes", type=int, default=200_000, metavar="N",
                   help="cut each warp's trace at N instructions (default 200000)")
    p.add_argument("--arch", help="nvcc/ptxas target for .cu files (default: sm_90)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipeperf.analyze import analyze

    a = analyze(args.file, args.grid, args.block, args.arg, args.gpu, kernel=args.kernel, mode=args.mode,
                trace_warps=args.trace_warps, max_nodes=args.max_nodes, shared=args.shared, arch=args.arch,
                all_ctas=args.all_ctas)
    if args.json:
        print(json.dumps(a.to_dict(), indent=2))
        return 0
    r = a.resources
    print(f"kernel {a.kernel}: grid {a.grid}, block {a.block}; {r.get('registers', 0)} registers/thread, "
          f"{r.get('shared_bytes', 0)} B shared; traced {a.warps_traced} of {a.warps_total} warps"
          + (f" ({a.truncated_warps} traces cut)" if a.truncated_warps else ""))
    for p in a.predictions:
        busy = ", ".join(f"{k} {v:.2f}" for k, v in sorted(p.subsystem_busy.items()) if v > 0)
        classes = ", ".join(f"{c['instructions']} instr x{c['weight']:g}" for c in p.warp_classes)
        print(f"{p.gpu}: {p.cycles:.0f} cycles = {p.seconds * 1e6:.3f} us; occupancy {p.occupancy:.2f} "
              f"({p.block_limit} blocks/SM, limited by {p.limited_by}; {p.occupancy_source}), "
              f"simulated M={p.blocks_per_sm} x {p.warps_per_block} warps; bound by {p.bound_by}; "
              f"busy: {busy or '-'}; warp classes: {classes}")
    return 0
