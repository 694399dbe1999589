"""``pipeperf measure``: time one CUDA kernel on this GPU, optionally over occupancies.

Compiles KERNEL.cu for the GPU present, loads it with the generic launcher
(pipeperf.measure.launcher) and writes a CSV of run times per occupancy: the real curve that
``pipeperf`` predictions are compared with. Launch options and argument specs are those of
profile and analyze (cli/launch_options); they are parsed before anything runs, so misspellings
are reported on machines without a GPU too.
"""

from __future__ import annotations

import argparse
import csv
import io
import shlex
import sys
import tempfile
from pathlib import Path

from pipeperf.cli.launch_options import EPILOG, add_launch_options, launch_specs, shared_bytes
from pipeperf.cli.nvcc_options import add_nvcc_options, nvcc_flags
from pipeperf.errors import PipeperfError
from pipeperf.util.launch_args import check_cuda_limits, dim3


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "measure", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compile KERNEL.cu, run --kernel with the given grid, block and arguments, time it with\n"
                    "CUDA events (median of --reps after warm-up) and write a CSV. --sweep-occupancy repeats\n"
                    "it with dynamic shared memory limiting the blocks per SM to every count from the\n"
                    "natural one down to 1. Needs a CUDA GPU and nvcc.")
    p.add_argument("kernel_file", metavar="KERNEL.cu")
    add_launch_options(p)
    p.add_argument("--sweep-occupancy", action="store_true", help="time every blocks-per-SM count")
    p.add_argument("--reset-buffers", action="store_true",
                   help="copy every buffer's first contents back before each launch, untimed (kernels that "
                        "keep a tile counter or flags in global memory: a decoupled look-back scan)")
    p.add_argument("--out", metavar="FILE.csv", help="write the CSV here (default: print it)")
    p.add_argument("--reps", type=int, default=10, help="timed launches per point (default 10)")
    p.add_argument("--warmup", type=int, default=2, help="untimed launches first (default 2)")
    p.add_argument("--arch", metavar="sm_XX", help="target (default: the GPU's compute capability)")
    add_nvcc_options(p)
    p.add_argument("--build-dir", metavar="DIR", help="where the kernel is compiled (default: a temp dir)")
    p.set_defaults(func=measure)


def measure(args: argparse.Namespace) -> int:
    from pipeperf.measure import harness, launcher     # nvcc discovery and the launcher: only when run
    cu = Path(args.kernel_file)
    if not cu.is_file():
        raise PipeperfError("no such file", file=cu)
    grid, block = dim3(args.grid, "grid"), dim3(args.block, "block")
    check_cuda_limits(grid, block)
    specs = launch_specs(args)                           # misspellings fail here, GPU or not
    shared = shared_bytes(args)
    if args.reps < 1 or args.warmup < 0:
        raise PipeperfError("--reps must be >= 1 and --warmup >= 0")
    gpu = harness.detect_gpu("pipeperf measure runs the kernel, so it needs one")   # one line, exit 2
    nvcc = harness.require_nvcc()
    arch = args.arch or gpu.arch
    build = Path(args.build_dir) if args.build_dir else Path(tempfile.mkdtemp(prefix="pipeperf-measure-"))
    cubin, entries = launcher.compile_kernel(cu, arch, build, nvcc_flags(args), nvcc)
    entry = launcher.resolve_kernel(entries, args.kernel, str(cu))
    bound = launcher.bind(cu, launcher.ptx_path(cu, build).read_text(), entry, specs,
                          allow_dtype_mismatch=args.allow_dtype_mismatch)
    exe = launcher.build(nvcc=nvcc)
    out = Path(args.out) if args.out else build / "measure.csv"
    command = shlex.join(["pipeperf", "measure", str(cu), *(["--kernel", args.kernel] if args.kernel else []),
                          "--grid", args.grid, "--block", args.block, *[x for a in args.arg for x in ("--arg", a)],
                          *(["--shared", str(shared)] if shared else []),
                          *(["--sweep-occupancy"] if args.sweep_occupancy else []),
                          *(["--reset-buffers"] if args.reset_buffers else [])])
    launcher.run(launcher.command_line(exe, cubin, entry, grid, block, bound, out, args.sweep_occupancy,
                                       args.reps, shared, args.warmup, command, args.reset_buffers), timeout=3600)
    text = out.read_text()
    if args.out:
        rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if not l.startswith("#")))))
        for r in rows:
            print(f"{r['blocks_per_sm']:>3} blocks/SM  {r['warps_per_sm']:>3} warps/SM  {float(r['ms_median']):10.4f} ms")
        print(f"wrote {out} ({len(rows)} rows, {gpu.name})")
    else:
        sys.stdout.write(text)
    return 0
