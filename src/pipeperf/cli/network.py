"""``pipeperf network MODEL.onnx|--builtin NAME --gpu A [--gpu B ...]``: a whole network's
predicted time per layer and in total on each GPU, HyPA's metrics, the ranking by time and by
energy."""

from __future__ import annotations

import argparse
import json

from pipeperf.cli.execution import add_execution_options, check_execution, check_output, open_cache

DESCRIPTION = """Predict a whole CNN inference on GPUs with no GPU: read the ONNX graph (shapes from
onnx.shape_inference; weights are never read), map each node to launches of pipeperf's own CUDA
kernel library by a documented rule, analyse each distinct launch once (pipeperf analyze's hybrid
emulation of a CTA sample and the Pipeline model), and report per layer and in total: the predicted
time with launch overheads, HyPA's metrics (inst_executed, flop_count_sp/hp/dp, branch_efficiency,
share of instructions emulated), the bound, the top layers, and the GPUs ranked by time and by
energy per inference. With --cluster local (the default) the Dask cluster starts only for 24 or
more launch x GPU analyses; fewer run in this process."""


def register(subparsers) -> None:
    p = subparsers.add_parser("network", help="predict a whole CNN (ONNX graph) per layer on GPUs",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", nargs="?", metavar="MODEL.onnx", help="an ONNX model file")
    p.add_argument("--builtin", metavar="NAME", help="a built-in network instead of a file: alexnet, vgg16, "
                   "resnet18, resnet50, mobilenetv1, mobilenetv2, densenet121, squeezenet, efficientnet_b0")
    p.add_argument("--gpu", action="append", metavar="NAME|FILE",
                   help="GPU: a database or user-folder name (pipeperf gpu list) or a spec YAML (repeat)")
    p.add_argument("--batch", type=int, metavar="N", help="batch size (replaces the inputs' first dimension; default: the model's, 1 where it is "
                   "symbolic and for the built-ins)")
    p.add_argument("--dtype", choices=("fp32", "fp16"), default="fp32", help="the kernels' element type (default fp32; "
                   "fp16: half-precision kernels, Gemm on the tensor cores)")
    p.add_argument("--no-fold-bn", dest="fold_bn", action="store_false",
                   help="run BatchNormalization as its own kernel instead of folding it into the preceding Conv")
    p.add_argument("--no-fuse", dest="fuse", action="store_false",
                   help="run activations as their own kernels instead of in their producer's epilogue")
    p.add_argument("--no-warm-l2", dest="warm_l2", action="store_false",
                   help="analyse every layer with a cold L2 (default: consecutive layers whose tensors fit in L2 run warm)")
    p.add_argument("--trace-warps", type=int, default=64, metavar="N",
                   help="warps traced per launch (the sample its IDGs come from; default 64)")
    p.add_argument("--arch", metavar="SM", help="one nvcc target for every GPU (e.g. sm_80): one compile per kernel "
                   "file instead of one per GPU target, faster; default: each GPU's own target, as analyze")
    p.add_argument("--json", action="store_true", help='print {"gpus", "layers", "totals", "ranking", "unsupported", ...}')
    p.add_argument("--html", metavar="FILE.html", help="also write the report as one self-contained HTML page")
    p.add_argument("--csv", metavar="FILE.csv", help="also write one row per layer x GPU")
    p.add_argument("--rows", type=int, metavar="N", help="layers in the text report's table (default: all)")
    add_execution_options(p, auto=True)
    from pipeperf.cli.main import add_verbosity

    add_verbosity(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pipeperf.errors import PipeperfError
    from pipeperf.network.api import analyze_network

    if bool(args.model) == bool(args.builtin):
        raise PipeperfError("network needs MODEL.onnx or --builtin NAME (one of them)")
    if not args.gpu:
        raise PipeperfError("network needs at least one --gpu NAME")
    if args.batch is not None and args.batch < 1:
        raise PipeperfError(f"--batch {args.batch}: expected a batch size >= 1")
    if args.trace_warps < 1:
        raise PipeperfError(f"--trace-warps {args.trace_warps}: expected a number of warps >= 1")
    check_execution(args, auto=True)
    s = args.cluster
    for option, path in (("--html", args.html), ("--csv", args.csv)):
        check_output(option, path)
    r = analyze_network(args.model or args.builtin, builtin=bool(args.builtin), gpus=args.gpu, batch=args.batch,
                        dtype=args.dtype, fold_bn=args.fold_bn, fuse=args.fuse, warm_l2=args.warm_l2,
                        trace_warps=args.trace_warps, scheduler="auto" if s == "local" and args.workers is None else s,
                        workers=args.workers, cache=open_cache(args), arch=args.arch)
    written = []
    if args.html:
        r.write_html(args.html)
        written.append(f"html: {args.html}")
    if args.csv:
        Path(args.csv).write_text(r.csv())
        written.append(f"csv: {args.csv}")
    if args.json:
        from pipeperf.models.curve import jsonable

        print(json.dumps(jsonable(r.to_dict()), indent=1))
    else:
        print(r.text(args.rows))
        for line in written:
            print(line)
    return 0
