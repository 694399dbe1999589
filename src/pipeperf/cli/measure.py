"""``pipeperf measure``: time one CUDA kernel on this GPU, optionally over occupancies.

Compiles KERNEL.cu for the GPU present, loads it with the generic launcher
(pipeperf.measure.launcher) and writes a CSV of run times per occupancy: the real curve that
``pipeperf`` predictions are compared with. Arguments are checked before anything runs, so
mistakes are reported on machines without a GPU too.
"""

from __future__ import annotations

import argparse
import csv
import io
import shlex
import sys
import tempfile
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure import harness, launcher


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "measure", help="time a CUDA kernel on this GPU (over occupancies)",
        description="Compile KERNEL.cu, run --kernel with the given grid, block and arguments, time it with "
                    "CUDA events (median of --reps after warm-up) and write a CSV. --sweep-occupancy repeats "
                    "it with dynamic shared memory limiting the blocks per SM to every count from the "
                    "natural one down to 1. Needs a CUDA GPU and nvcc.")
    p.add_argument("kernel_file", metavar="KERNEL.cu")
    p.add_argument("--kernel", required=True, metavar="NAME", help="kernel name (plain or mangled)")
    p.add_argument("--grid", required=True, metavar="X[,Y[,Z]]", help="grid dimensions in blocks")
    p.add_argument("--block", required=True, metavar="X[,Y[,Z]]", help="block dimensions in threads")
    p.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="one per kernel parameter, in order: n=1048576, a=f32:2.5, x=rand:f32:1048576[:LO:HI], "
                        "y=zeros:f32:N, ones:TYPE:N, iota:TYPE:N, a=file.npy")
    p.add_argument("--sweep-occupancy", action="store_true", help="time every blocks-per-SM count")
    p.add_argument("--out", metavar="FILE.csv", help="write the CSV here (default: print it)")
    p.add_argument("--reps", type=int, default=10, help="timed launches per point (default 10)")
    p.add_argument("--warmup", type=int, default=2, help="untimed launches first (default 2)")
    p.add_argument("--smem", type=int, default=0, metavar="BYTES", help="dynamic shared memory the kernel uses")
    p.add_argument("--arch", metavar="sm_XX", help="target (default: the GPU's compute capability)")
    p.add_argument("--nvcc-flag", action="append", default=[], metavar="FLAG", help="extra nvcc flag")
    p.add_argument("--build-dir", metavar="DIR", help="where the kernel is compiled (default: a temp dir)")
    p.set_defaults(func=measure)


def measure(args: argparse.Namespace) -> int:
    cu = Path(args.kernel_file)
    if not cu.is_file():
        raise PipeperfError("no such file", file=cu)
    grid = launcher.parse_dims(args.grid, "--grid")
    block = launcher.parse_dims(args.block, "--block")
    if block[0] * block[1] * block[2] > 1024:
        raise PipeperfError(f"--block {args.block}: more than 1024 threads per block")
    specs = [launcher.parse_arg(a) for a in args.arg]
    if args.reps < 1 or args.warmup < 0 or args.smem < 0:
        raise PipeperfError("--reps must be >= 1, --warmup and --smem >= 0")
    gpu = harness.detect_gpu("pipeperf measure runs the kernel, so it needs one")   # one line, exit 2
    nvcc = harness.require_nvcc()
    arch = args.arch or gpu.arch
    build = Path(args.build_dir) if args.build_dir else Path(tempfile.mkdtemp(prefix="pipeperf-measure-"))
    cubin, entries = launcher.compile_kernel(cu, arch, build, args.nvcc_flag, nvcc)
    entry = launcher.resolve_kernel(entries, args.kernel, str(cu))
    exe = launcher.build(nvcc=nvcc)
    out = Path(args.out) if args.out else build / "measure.csv"
    command = shlex.join(["pipeperf", "measure", str(cu), "--kernel", args.kernel, "--grid", args.grid,
                          "--block", args.block, *[x for a in args.arg for x in ("--arg", a)],
                          *(["--sweep-occupancy"] if args.sweep_occupancy else [])])
    launcher.run(launcher.command_line(exe, cubin, entry, grid, block, specs, out, args.sweep_occupancy,
                                       args.reps, args.smem, args.warmup, command), timeout=3600)
    text = out.read_text()
    if args.out:
        rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if not l.startswith("#")))))
        for r in rows:
            print(f"{r['blocks_per_sm']:>3} blocks/SM  {r['warps_per_sm']:>3} warps/SM  {float(r['ms_median']):10.4f} ms")
        print(f"wrote {out} ({len(rows)} rows, {gpu.name})")
    else:
        sys.stdout.write(text)
    return 0
