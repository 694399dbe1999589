"""``pipeperf gpu``: the GPU data: Pipeline-model specs (``list``, ``show``) and roofline peaks.

``import-mixbench`` turns a mixbench log (or a gpuroofperf-toolkit bench CSV) into a peaks YAML
usable with ``pipeperf roofline --gpu FILE.yaml``; ``peaks`` lists or shows the shipped table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeperf.cli import gpu_database
from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import PARAMETERS, UNITS, builtin_names, load_peaks, peaks_to_yaml
from pipeperf.measure.mixbench import read_benchmark_file


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("gpu", description="The GPU database (list, show, diff) and the roofline peaks (peaks, "
                                                 "import-mixbench).")
    sub = p.add_subparsers(dest="gpu_command", metavar="SUBCOMMAND")
    sub.required = True
    gpu_database.register(sub)
    imp = sub.add_parser("import-mixbench", help="mixbench output -> peaks YAML",
                         description="Read a mixbench log (or gpuroofperf-toolkit bench CSV) and "
                         "write the six GPU parameters of Table 3 as a peaks YAML citing the file.")
    imp.add_argument("file", metavar="FILE", help="mixbench stdout saved to a file")
    imp.add_argument("--name", help="GPU name in the YAML (default: from the device string)")
    imp.add_argument("--out", metavar="FILE.yaml", help="write here instead of stdout")
    imp.add_argument("--t-add", type=float, metavar="GIOPS",
                     help="integer-add throughput (mixbench does not measure it)")
    imp.add_argument("--t-ldst", type=float, metavar="GOPS",
                     help="shared-memory load/store throughput (mixbench does not measure it)")
    imp.add_argument("--like", metavar="GPU",
                     help="copy T_add/T_ldst not given from this database GPU (marked estimate)")
    imp.set_defaults(func=import_mixbench)
    show = sub.add_parser("peaks", help="list the shipped GPU peaks, or show one")
    show.add_argument("name", nargs="?", help="GPU name, alias or peaks YAML")
    show.set_defaults(func=show_peaks)


def import_mixbench(args: argparse.Namespace) -> int:
    like = load_peaks(args.like) if args.like else None
    peaks, warnings = read_benchmark_file(args.file, args.name, args.t_add, args.t_ldst, like)
    for warning in warnings:
        print(f"pipeperf: warning: {args.file}: {warning}", file=sys.stderr)
    text = peaks_to_yaml(peaks, header=f"GPU peaks imported by 'pipeperf gpu import-mixbench' "
                                       f"from {Path(args.file).name}")
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as exc:
            raise PipeperfError(f"cannot write: {exc.strerror}", file=args.out) from exc
        print(f"wrote {args.out} ({', '.join(p.name for p in peaks)})")
    else:
        sys.stdout.write(text)
    return 0


def show_peaks(args: argparse.Namespace) -> int:
    if args.name:
        names = [args.name]
    else:        # one namespace: the roofline-only GPUs, then every database GPU whose rates derive
        from pipeperf.hardware.spec import available_gpus

        names = builtin_names() + available_gpus()
    header = ["gpu", *PARAMETERS]
    rows = [header, ["", *(UNITS[k] for k in PARAMETERS)]]
    estimated = False
    skipped = []
    for name in names:
        try:
            peaks = load_peaks(name)
        except PipeperfError as exc:
            if args.name:
                raise
            skipped.append(f"{name} ({exc.message})")
            continue
        cells = [peaks.name]
        for key in PARAMETERS:
            mark = "*" if key in peaks.estimates else ""
            estimated |= bool(mark)
            cells.append(f"{peaks.value(key):,.1f}{mark}")
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))
    if estimated:
        print("* estimate, not measured (see its source: pipeperf gpu peaks NAME)")
    for line in skipped:
        print(f"not listed: {line}")
    if args.name:
        peaks = load_peaks(args.name)
        print()
        for key in PARAMETERS:
            print(f"{key}: {peaks.sources.get(key, 'unknown')}")
    return 0
