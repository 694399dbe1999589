"""``pipeperf sw26010``: static model, optimization analyses and auto-tuning for SW26010."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sw26010", description="Static performance model of SWACC/Athread kernels on SW26010 core groups.")
    sub = parser.add_subparsers(dest="sw26010_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("predict", help="predict T_total and every term of Eqs. 1-12")
    p.add_argument("specs", nargs="+", metavar="SPEC.yaml", help="kernel description(s)")
    _common(p)
    p.add_argument("--plot", metavar="FILE.png", help="write a Fig. 6-like stacked-bar breakdown")
    p.add_argument("--normalize", action="store_true",
                   help="plot each kernel relative to its measured (else predicted) time, as Fig. 6")
    p.set_defaults(func=_predict)

    a = sub.add_parser("analyze", help="DMA granularity (Eq. 13), double buffering (Eq. 14), "
                                       "active CPEs (Eq. 15)")
    a.add_argument("spec", metavar="SPEC.yaml")
    _common(a)
    a.add_argument("--baseline-us", type=float, metavar="US",
                   help="measured time to subtract savings from (default: the spec's measured_us, "
                        "else the prediction)")
    a.add_argument("--granularity", type=int, metavar="BYTES",
                   help="DMA request size for Eq. 13 (default: Trans_size)")
    a.add_argument("--target-cpes", type=int, metavar="N", help="CPE count for Eq. 15")
    a.set_defaults(func=_analyze)

    t = sub.add_parser("tune", help="static auto-tuning of tiles, unrolling and active CPEs")
    t.add_argument("space", metavar="SPACE.yaml")
    _common(t)
    t.add_argument("--top", type=int, default=5, metavar="K", help="variants to list (default 5)")
    t.add_argument("--jobs", type=int, metavar="N",
                   help="worker processes (default: 1 for small spaces, all cores for large)")
    t.add_argument("--plot", metavar="FILE.png", help="breakdown of the top K variants")
    t.add_argument("--emit-best", metavar="FILE.yaml", help="write the best variant's kernel description")
    t.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    t.add_argument("--sweep", choices=("active_cpes",), metavar="active_cpes",
                   help="print the best variant at each number of active CPEs (Fig. 9) instead of the top K")
    t.set_defaults(func=_tune)


def _emit(text: str) -> None:
    """Print, tolerating a closed pipe (``... | head``)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the exit-time flush


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--processor", metavar="PROC.yaml",
                   help="processor parameters (default: bundled Table I spec)")


def _predict(args: argparse.Namespace) -> int:
    from pipeperf.sw26010.kernel import load_kernel
    from pipeperf.sw26010.model import predict
    from pipeperf.sw26010.report import format_prediction

    preds = [predict(load_kernel(s, args.processor)) for s in args.specs]
    if args.plot:
        from pipeperf.sw26010.plot import Bar, plot_breakdown
        plot_breakdown([Bar(p.spec.name, p.us("t_comp"), p.us("t_dma"), p.us("t_g"), p.us("t_overlap"),
                            p.t_total_us, p.spec.measured_us) for p in preds], args.plot,
                       normalize=args.normalize)
    if args.json:
        out = [p.to_dict() for p in preds]
        _emit(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    else:
        _emit("\n\n".join(format_prediction(p) for p in preds))
    return 0


def _analyze(args: argparse.Namespace) -> int:
    from pipeperf.sw26010.analysis import analyze
    from pipeperf.sw26010.kernel import load_kernel
    from pipeperf.sw26010.model import predict
    from pipeperf.sw26010.report import format_analyses

    pred = predict(load_kernel(args.spec, args.processor))
    results = analyze(pred, args.baseline_us, args.granularity, args.target_cpes)
    if args.json:
        _emit(json.dumps({"kernel": pred.spec.name, "t_total_us": pred.t_total_us,
                          "analyses": [r.to_dict() for r in results]}, indent=2))
    else:
        _emit(format_analyses(pred, results))
    return 0


def _tune(args: argparse.Namespace) -> int:
    from pipeperf.errors import PipeperfError
    from pipeperf.sw26010.derive import derive_spec
    from pipeperf.sw26010.report import format_tune
    from pipeperf.sw26010.space import load_space
    from pipeperf.sw26010.tuner import tune

    if args.top < 1:
        raise PipeperfError(f"--top must be >= 1, got {args.top}")
    space = load_space(args.space, args.processor)
    result = tune(space, jobs=args.jobs, progress=not args.no_progress)
    if result.variants_feasible and args.emit_best:
        spec = derive_spec(space, result.variant(int(result.order[0])))
        try:
            Path(args.emit_best).write_text(yaml.safe_dump(spec.to_dict(), sort_keys=False))
        except OSError as exc:
            raise PipeperfError(f"cannot write: {exc.strerror or exc}", file=args.emit_best) from None
    if result.variants_feasible and args.plot:
        from pipeperf.sw26010.plot import Bar, plot_breakdown
        bars = []
        for row in result.top(args.top):
            u = row["us"]
            label = f"#{row['rank']} " + ",".join(str(v) for v in row["tiles"].values()) + \
                f" u{row['unroll']} c{row['active_cpes']}" + (" db" if row["double_buffer"] else "")
            bars.append(Bar(label, u["t_comp"], u["t_dma"], u["t_g"], u["t_overlap"], u["t_total"]))
        plot_breakdown(bars, args.plot, title=f"{space.name}: top {len(bars)} variants")
    if args.sweep:
        from pipeperf.sw26010.sweep import best_per_value, format_sweep

        rows = best_per_value(result, args.sweep)
        _emit(json.dumps({"kernel": space.name, "sweep": args.sweep, "rows": rows}, indent=2) if args.json
              else format_sweep(rows, args.sweep))
    elif args.json:
        _emit(json.dumps(result.to_dict(args.top), indent=2))
    else:
        _emit(format_tune(result, args.top))
    return 0
