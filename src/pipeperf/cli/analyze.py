"""``pipeperf analyze KERNEL.cu|.ptx --grid ... --block ... --arg ... --gpu NAME``: predicted run time."""

from __future__ import annotations

import argparse
import json

from pipeperf.analysis.options import AnalyzeOptions
from pipeperf.cli.check_ptxas import add_check_ptxas_option, check_ptxas
from pipeperf.cli.execution import add_execution_options, check_execution, check_output, open_cache
from pipeperf.cli.launch_options import (EPILOG, add_budget_option, add_launch_options, add_oob_option, launch_specs,
                                         shared_bytes)
from pipeperf.cli.nvcc_options import add_nvcc_options, nvcc_flags

DESCRIPTION = """Predict a kernel launch's run time on one or more GPUs of the database, with no GPU:
compile (nvcc) and parse, emulate a sample of whole CTAs spread over the grid, tracing their warps, build the
warps' instruction dependence graphs (one per distinct path), compute occupancy from ptxas -v,
and run the Pipeline model's simulator."""


#: the models the text report shows unless --models says otherwise (issue 18)
DEFAULT_MODELS = ("pipeline", "roofline", "volkov")

#: the options' defaults, which ``--help`` shows (one place: :class:`AnalyzeOptions`)
DEFAULTS = AnalyzeOptions()


def register(subparsers) -> None:
    p = subparsers.add_parser("analyze", description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="a .ptx file, or a .cu file compiled with nvcc -ptx")
    add_launch_options(p, required=False)
    add_oob_option(p)
    p.add_argument("--gpu", action="append", metavar="NAME|FILE",
                   help="GPU: a database or user-folder name (pipeperf gpu list) or a spec YAML (repeat)")
    b = p.add_argument_group("many launches (--batch): kernels x launches x GPUs, on the engine of 'pipeperf tune'")
    b.add_argument("--batch", metavar="LAUNCHES.yaml",
                   help="analyse every launch of the file (file, kernel, grid, block, args, defines, gpus; "
                        "docs/commands/analyze.md) on its GPUs and --gpu's: a table, --out FILE.csv|.parquet, results cached")
    b.add_argument("--out", metavar="FILE.csv|FILE.parquet", help="with --batch: one row per launch x GPU")
    add_execution_options(p, group=b, old=("--dask-scheduler",))
    p.add_argument("--mode", choices=("full", "hybrid"), default=DEFAULTS.mode,
                   help=f"emulation mode (default {DEFAULTS.mode})")
    p.add_argument("--trace-warps", type=int, default=DEFAULTS.trace_warps, metavar="N",
                   help="warps traced to build the IDGs: whole CTAs, the first, the last and evenly "
                        f"spaced clusters of consecutive ones, N warps at most (one CTA at least; default "
                        f"{DEFAULTS.trace_warps})")
    p.add_argument("--all-ctas", action="store_true",
                   help="emulate every CTA (default: only the traced ones, when their paths and "
                        "addresses cannot depend on other CTAs' writes)")
    add_budget_option(p, DEFAULTS.max_steps)
    p.add_argument("--max-nodes", type=int, default=DEFAULTS.max_nodes, metavar="N",
                   help=f"cut each warp's trace at N instructions (default {DEFAULTS.max_nodes})")
    p.add_argument("--arch", help="nvcc/ptxas target for .cu files (default: sm_90)")
    add_nvcc_options(p)
    p.add_argument("--warm-l2", action="store_true",
                   help="the launch follows one over the same buffers: data that fits in L2 is there from "
                        "the start (default: L2 starts cold)")
    p.add_argument("--max-blocks-per-sm", type=int, metavar="N",
                   help="cap the resident blocks per SM below the occupancy limit (as a shared-memory "
                        "carve-out or launch bound of the program does)")
    p.add_argument("--isa", choices=("ptx", "sass"), default=DEFAULTS.isa,
                   help="what the IDGs hold: the emulated PTX, or the SASS ptxas makes for each GPU's target, "
                        "walked along the PTX's paths (default: %(default)s)")
    p.add_argument("--scheduler", choices=("rr", "gto"), default=DEFAULTS.scheduler,
                   help="Pipeline simulator's scheduler")
    p.add_argument("--fast-forward", type=int, default=DEFAULTS.fast_forward, metavar="R",
                   help="a long launch of identical blocks is simulated for R and 2R rounds of resident "
                        f"blocks and extrapolated (default {DEFAULTS.fast_forward}; 0 simulates every block)")
    p.add_argument("--exact", action="store_true",
                   help="no shortcuts, however slow: emulate and simulate every loop iteration (no periodic-"
                        "loop skipping), whole traces (no cap, no --max-nodes), every block (no --fast-forward)")
    p.add_argument("--no-what-if", dest="what_if", action="store_false",
                   help="skip re-simulating without bank conflicts / with coalesced global accesses")
    p.add_argument("--resimulation-limit", type=int, default=DEFAULTS.resimulation_limit, metavar="N",
                   help="skip the what-ifs, the lock-step check and the advice's re-simulations (with a note) "
                        "where one simulation of the launch runs more than N instructions on the simulated SM "
                        f"(default {DEFAULTS.resimulation_limit}; 0: no limit)")
    p.add_argument("--no-memory-analysis", dest="memory", action="store_false",
                   help="skip mapper g: memory instructions keep the database's lambda/Lambda")
    p.add_argument("--sweep-occupancy", action="store_true",
                   help="also predict with 1 .. the occupancy limit of resident blocks per SM (every model)")
    p.add_argument("--plot", metavar="FILE.png", help="chart of the occupancy sweep (needs --sweep-occupancy)")
    p.add_argument("--html", metavar="FILE.html",
                   help="also write the report as one self-contained HTML page (headline, occupancy with its "
                        "sweep, memory, warp classes, models, what-ifs, roofline, source view); implies "
                        "--sweep-occupancy")
    p.add_argument("--csv", metavar="FILE.csv",
                   help="also write one row per kernel x GPU x metric in the layout of ncu --csv (ncu's metric "
                        "names where one exists, pipeperf__... otherwise)")
    p.add_argument("--json", action="store_true",
                   help='print {"kernels": [{"name", "gpu", "occupancy", "predictions", "bound", "profile", ...}]}')
    p.add_argument("--models", default=",".join(DEFAULT_MODELS), metavar="LIST",
                   help=f"models in the text report's table, comma-separated, or 'all' (default: "
                        f"{','.join(DEFAULT_MODELS)}); --json, --html and --csv carry every model")
    add_check_ptxas_option(p)
    from pipeperf.cli.main import add_verbosity

    add_verbosity(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipeperf.analysis import analyze
    from pipeperf.errors import PipeperfError

    check_execution(args)
    if args.batch:
        return run_batch(args)
    _single_launch(args)
    if args.html:
        args.sweep_occupancy = True
    if args.plot and not args.sweep_occupancy:
        raise PipeperfError("--plot draws the occupancy sweep: add --sweep-occupancy")
    for option, path in (("--html", args.html), ("--csv", args.csv), ("--plot", args.plot)):
        check_output(option, path)
    launch_specs(args)
    check_ptxas(args, args.file)
    a = analyze(args.file, args.grid, args.block, args.arg, args.gpu, options_from_args(args))
    if args.plot:
        from pipeperf.report.analyze_plots import plot_sweep

        plot_sweep(a, args.plot)
    written = [f"plot: {args.plot}"] if args.plot else []
    if args.html:
        from pipeperf.report.html_report import write_html
        from pipeperf.report.source_view import source_view

        view = source_view(a, args.file)
        write_html(a, args.html, view)
        written.append(f"html: {args.html}")
    if args.csv:
        from pipeperf.report.ncu_csv import write_csv

        write_csv(a, args.csv)
        written.append(f"csv: {args.csv}")
    if args.json:
        from pipeperf.models.curve import jsonable

        print(json.dumps(jsonable(a.to_dict()), indent=1))
    else:
        from pipeperf.report.analyze_text import format_analysis

        print(format_analysis(a, _models(args.models, a)))
        for line in written:
            print(line)
    return 0


def options_from_args(args: argparse.Namespace) -> AnalyzeOptions:
    """The :class:`AnalyzeOptions` of the command line (``--fast-forward 0``: every block simulated)."""
    if args.resimulation_limit is not None and args.resimulation_limit < 0:
        from pipeperf.errors import PipeperfError

        raise PipeperfError(f"--resimulation-limit must be >= 0 (0: no limit), got {args.resimulation_limit}")
    return AnalyzeOptions(kernel=args.kernel, mode=args.mode, trace_warps=args.trace_warps,
                          max_nodes=args.max_nodes, shared=shared_bytes(args), arch=args.arch,
                          sweep=args.sweep_occupancy, scheduler=args.scheduler, memory=args.memory,
                          all_ctas=args.all_ctas, fast_forward=args.fast_forward or None,
                          what_if=args.what_if, max_blocks_per_sm=args.max_blocks_per_sm,
                          nvcc_flags=tuple(nvcc_flags(args)), warm_l2=args.warm_l2, exact=args.exact,
                          isa=args.isa, max_steps=args.max_steps,
                          allow_dtype_mismatch=args.allow_dtype_mismatch, oob=args.oob,
                          resimulation_limit=args.resimulation_limit or None)


def _single_launch(args: argparse.Namespace) -> None:
    """One launch needs its file, grid, block and GPUs (argparse no longer checks: --batch does not)."""
    from pipeperf.errors import PipeperfError

    missing = [o for o, v in (("FILE", args.file), ("--grid", args.grid), ("--block", args.block),
                              ("--gpu", args.gpu)) if not v]
    if missing:
        raise PipeperfError(f"analyze needs {', '.join(missing)} (or --batch LAUNCHES.yaml)")
    if args.out or args.cluster != "local" or args.workers or args.cache_dir or args.no_cache:
        raise PipeperfError("--out, --cluster, --workers, --cache-dir and --no-cache go with --batch")


#: options of one launch that a batch file sets per launch (or not at all), refused with --batch
_NOT_WITH_BATCH = (("file", "FILE"), ("grid", "--grid"), ("block", "--block"), ("arg", "--arg"), ("kernel", "--kernel"),
                   ("html", "--html"), ("csv", "--csv"), ("plot", "--plot"), ("sweep_occupancy", "--sweep-occupancy"),
                   ("arch", "--arch"), ("defines", "-D"), ("includes", "-I"), ("nvcc_flag", "--nvcc-flag"),
                   ("all_ctas", "--all-ctas"), ("exact", "--exact"), ("warm_l2", "--warm-l2"),
                   ("max_blocks_per_sm", "--max-blocks-per-sm"))


def run_batch(args: argparse.Namespace) -> int:
    """``analyze --batch``: the launches of a file on their GPUs (:mod:`pipeperf.tune.batch`)."""
    from pathlib import Path

    from pipeperf.errors import PipeperfError
    from pipeperf.tune.totals import ranking
    from pipeperf.tune.batch import batch_records, batch_totals, format_batch, run_batch as run
    from pipeperf.tune.report import write_records

    given = [flag for attr, flag in _NOT_WITH_BATCH if getattr(args, attr, None)]
    if str(getattr(args, "shared", "0")) != "0":
        given.append("--shared")
    if args.scheduler != "rr" or args.what_if is False or args.memory is False:
        given.append("--scheduler/--no-what-if/--no-memory-analysis")
    if given:
        raise PipeperfError(f"--batch: {given[0]} is not for a batch (each launch's file sets it, or analyze one launch)")
    check_output("--out", args.out)
    if args.out and Path(args.out).suffix.lower() not in (".csv", ".parquet"):
        raise PipeperfError(f"--out {args.out}: expected a .csv or .parquet file")
    options = {k: getattr(args, k) for k in ("trace_warps", "mode", "max_nodes", "fast_forward", "max_steps")
               if getattr(args, k) != getattr(DEFAULTS, k)}          # given: they override the file's
    result = run(args.batch, args.gpu or [], args.cluster, args.workers, open_cache(args), options)
    records = batch_records(result)
    if args.out:
        write_records(records, args.out)
    if args.json:
        totals = batch_totals(result)
        from pipeperf.models.curve import jsonable

        print(json.dumps(jsonable({"launches": records, "totals": totals, "ranking": list(ranking(totals, list(totals))),
                                   "computed": result.computed, "cached": result.cached}), indent=1))
    else:
        print(format_batch(result))
        if args.out:
            print(f"launches: {args.out}")
    return 0


def _models(spec: str, a) -> list[str] | None:
    """The models the text report shows: None for all, else the names asked for (one-line error
    for a name no prediction has)."""
    from pipeperf.errors import PipeperfError

    if spec.strip() == "all":
        return None
    names = [m.strip() for m in spec.split(",") if m.strip()]
    known = list(a.predictions[0].predictions) if a.predictions else []
    bad = [m for m in names if m not in known]
    if bad:
        raise PipeperfError(f"--models: unknown model {bad[0]!r}: expected 'all' or some of {', '.join(known)}")
    return names
