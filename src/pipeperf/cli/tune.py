"""``pipeperf tune KERNEL.cu|SPACE.yaml``: rank every variant of a parameter space by predicted time per GPU."""

from __future__ import annotations

import argparse

from pipeperf.cli.execution import add_execution_options, check_execution, check_output, open_cache
import json

from pipeperf.cli.launch_options import add_budget_option

DESCRIPTION = """Predict every variant of a kernel's parameter space on one or more GPUs, with no GPU, and
rank them: compile-time macros (-D TILE=8,16,32), template arguments, the block shape, a grid and dynamic
shared memory given by expressions of the parameters and problem sizes, constraints. Each distinct
compile runs once per target; each variant is analysed as 'pipeperf analyze' does (Pipeline model).
Work runs on Dask (a local cluster of this machine's cores by default); results are cached, so a re-run
or an extended space computes only new variants."""

EPILOG = """space file (YAML; the command line's options add to it or replace its entries):
  source: matmul_tiled.cu   kernel: matmul_tiled   sizes: {N: 256}
  params: {TILE: [8, 16, 32], BY: '1..32*2'}       defines: [TILE]      template: []
  grid: [N / TILE, N / TILE]   block: [TILE, BY]   shared: 2 * TILE * (TILE + 1) * 4
  args: ['A=rand:f32:{N*N}', 'n={N}']   constraints: ['BY <= TILE']   gpus: [volta_v100, hopper_h100]
expressions: numbers, parameters, sizes, + - * / // % **, comparisons, and/or, 'a if c else b',
  min max abs int float round ceil floor sqrt log2 cdiv round_up is_pow2
example:
  pipeperf tune examples/tune/matmul.yaml --out tune.csv --plot tune.png
  pipeperf tune k.cu -D TILE=8,16,32 --param BY=1,2,4,8 --size N=512 --grid 'N/TILE,N/TILE' \\
      --block TILE,BY --arg 'A=rand:f32:{N*N}' ... --constraint 'BY <= TILE' --gpu a100 --gpu h100"""


def register(subparsers) -> None:
    p = subparsers.add_parser("tune", description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the kernel (.cu), or a space file (.yaml) that names it with 'source:'")
    p.add_argument("--space", metavar="FILE.yaml", help="the space file, when FILE is the kernel")
    g = p.add_argument_group("the space (added to the space file's, or replacing its grid/block/shared/args)")
    g.add_argument("--kernel", metavar="NAME", help="the kernel's CUDA name (needed with template arguments)")
    g.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUES|EXPR]",
                   help="macro for nvcc: NAME=8,16,32 (or 1..64*2) sweeps it as a parameter, NAME=EXPR sets it "
                        "from the parameters, NAME alone defines it (repeat)")
    g.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=VALUES",
                   help="a parameter of the launch only (block shape, ...): 1,2,4,8 or 1..32*2 (repeat)")
    g.add_argument("--template", action="append", default=[], metavar="NAME=VALUES|EXPR",
                   help="the kernel's next template argument: NAME=8,16 sweeps it, EXPR sets it (repeat, in order)")
    g.add_argument("--size", dest="sizes", action="append", default=[], metavar="NAME=VALUE",
                   help="a fixed problem size for the expressions (repeat)")
    g.add_argument("--grid", metavar="EXPRS", help="grid: X[,Y[,Z]] expressions, e.g. 'cdiv(N,TILE),cdiv(N,TILE)'")
    g.add_argument("--block", metavar="EXPRS", help="block: X[,Y[,Z]] expressions, e.g. TILE,BY")
    g.add_argument("--shared", "--smem", dest="shared", metavar="EXPR", help="dynamic shared memory in bytes")
    g.add_argument("--arg", dest="args", action="append", default=[], metavar="[NAME=]VALUE",
                   help="kernel argument as for analyze, with {EXPR} parts: A=rand:f32:{N*N} (repeat)")
    g.add_argument("--constraint", dest="constraints", action="append", default=[], metavar="EXPR",
                   help="a condition every variant must meet, e.g. 'TILE*BY <= 1024' (repeat)")
    g.add_argument("--gpu", dest="gpus", action="append", default=[], metavar="NAME|FILE",
                   help="GPU: a database or user-folder name (pipeperf gpu list) or a spec YAML (repeat)")
    g.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR", help="include folder for nvcc")
    g.add_argument("--nvcc-flag", action="append", default=[], metavar="FLAG", help="any other nvcc flag (repeat)")
    a = p.add_argument_group("analysis")
    a.add_argument("--trace-warps", type=int, metavar="N", help="warps traced per launch (default 256, as analyze)")
    a.add_argument("--mode", choices=("full", "hybrid"), help="emulation mode (default hybrid)")
    add_budget_option(a, None)
    a.add_argument("--phase-check", action="store_true", default=None,
                   help="simulate each variant also with the DRAM and L2 bandwidth 1%% higher and lower and show "
                        "the spread of its time (lock-step warps: ranks closer than it are not resolved)")
    add_execution_options(p)
    o = p.add_argument_group("output")
    o.add_argument("--top", type=int, default=5, metavar="K", help="variants shown per GPU (default 5)")
    o.add_argument("--out", metavar="FILE.csv|FILE.parquet", help="write every variant x GPU (rank, time, bound, "
                                                                  "occupancy, status and reason)")
    o.add_argument("--plot", metavar="FILE.png", help="plot the predicted time over the space, one panel per GPU")
    o.add_argument("--json", action="store_true", help="print every variant x GPU as JSON instead of the table")
    from pipeperf.cli.main import add_verbosity

    add_verbosity(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pipeperf.errors import PipeperfError
    from pipeperf.tune import tune
    from pipeperf.tune.report import format_tune, plot_tune, write_records
    from pipeperf.tune.spacefile import CliSpace, load_space

    check_execution(args)
    if args.top < 1:
        raise PipeperfError(f"--top {args.top}: expected a number of variants >= 1")
    for option, path in (("--out", args.out), ("--plot", args.plot)):
        check_output(option, path)
    if args.out and Path(args.out).suffix.lower() not in (".csv", ".parquet"):
        raise PipeperfError(f"--out {args.out}: expected a .csv or .parquet file")
    is_space = Path(args.file).suffix.lower() in (".yaml", ".yml")
    if is_space and args.space:
        raise PipeperfError("--space: FILE is a space file already")
    cli = CliSpace(None if is_space else args.file, args.kernel, args.sizes, args.params, args.defines,
                   args.template, args.grid, args.block, args.shared, args.args, args.constraints, args.gpus,
                   args.includes, args.nvcc_flag, {"trace_warps": args.trace_warps, "mode": args.mode,
                                                                 "phase_check": args.phase_check,
                                                                 "max_steps": args.max_steps})
    space = load_space(args.file if is_space else args.space, cli)
    result = tune(space, args.cluster, args.workers, open_cache(args))
    written = []
    if args.out:
        write_records(result.records(), args.out)
        written.append(f"variants: {args.out}")
    if args.plot:
        plot_tune(result, args.plot)
        written.append(f"plot: {args.plot}")
    if args.json:
        from pipeperf.models.curve import jsonable

        print(json.dumps(jsonable({"variants": result.records(), "computed": result.result.computed,
                                   "cached": result.result.cached}), indent=1))
    else:
        print(format_tune(result, args.top))
        for line in written:
            print(line)
    return 0
