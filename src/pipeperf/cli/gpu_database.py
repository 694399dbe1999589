"""``pipeperf gpu list`` / ``pipeperf gpu show``: the Pipeline-model GPU database.

Registered as subcommands by ``cli/gpu.py``, next to the roofline peaks, so that all
GPU data is reached through one ``pipeperf gpu`` command.
"""

from __future__ import annotations

import argparse
import json

from pipeperf.hardware.spec import all_gpus, load_gpu, shadowed_user_gpus
from pipeperf.hardware.spec_diff import spec_diff


def register(sub: argparse._SubParsersAction) -> None:
    lst = sub.add_parser("list", help="GPU specs for the Pipeline model, bundled and the user's own "
                                          "($PIPEPERF_GPU_PATH, ~/.config/pipeperf/gpus), with where each comes from")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=run, name=None)
    show = sub.add_parser("show", help="one GPU spec: lambda/Lambda per instruction class and sources")
    show.add_argument("name", help="GPU name (bundled or a user folder's), alias (e.g. pascal) or spec YAML")
    fmt = show.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--yaml", action="store_true",
                     help="print the whole spec (its base merged in) as a loadable, editable YAML file")
    show.set_defaults(func=run)
    diff = sub.add_parser("diff", help="the numbers two GPU specs give differently (e.g. measured vs published)",
                          description="Every field and every class's lambda/Lambda that differ between two specs "
                                      "(bundled names or YAML files), with the ratio B/A; fields only one has are "
                                      "listed too.")
    diff.add_argument("a", metavar="A", help="GPU name or spec YAML (e.g. the published entry)")
    diff.add_argument("b", metavar="B", help="GPU name or spec YAML (e.g. a campaign's fitted file)")
    diff.add_argument("--all", action="store_true", help="list equal numbers too")
    diff.add_argument("--common", action="store_true", help="only the numbers both specs give")
    diff.set_defaults(func=run_diff)


def run(args: argparse.Namespace) -> int:
    if not args.name:
        origins = all_gpus()
        rows = [(n, load_gpu(n)) for n in origins]
        if args.json:
            print(json.dumps([{**g.to_dict(), "origin": origins[n]} for n, g in rows], indent=1))
            return 0
        print(f"{'name':<22} {'full name':<34} {'cc':>4} {'cores':>5} {'GHz':>6} {'load':>6} {'IL':>4} "
              f"{'classes':>7}  {'base':<16} origin")
        for n, g in rows:
            print(f"{n:<22} {g.full_name[:34]:<34} {g.compute_capability or '-':>4} {g.cores:>5} "
                  f"{g.clock_ghz:>6.3f} {g.sustained_clock_ghz:>6.3f} {g.issue_limit:>4g} {len(g.classes):>7}  "
                  f"{g.base:<16} {origins[n]}")
        for f, bundled in shadowed_user_gpus().items():
            print(f"not used: {f} (its name is the bundled GPU {bundled}; rename it)")
        return 0
    if getattr(args, "yaml", False):
        from pipeperf.hardware.spec import spec_yaml

        print(spec_yaml(args.name), end="")
        return 0
    g = load_gpu(args.name)
    if args.json:
        print(json.dumps(g.to_dict(), indent=1))
        return 0
    print(f"{g.name}: {g.full_name} ({g.architecture}), {g.cores} cores at {g.clock_ghz:g} GHz, "
          f"warp {g.warp_size}, issue limit {g.issue_limit:g}, max {g.max_warps_per_core} warps / "
          f"{g.max_groups_per_core} groups per core" + (f"; base {g.base}" if g.base else ""))
    if g.sources:
        print(f"{'field':<36} {'value':>12}  source")
        for key, value in g.fields().items():
            est = " (estimate)" if key in g.estimates else ""
            print(f"{key:<36} {value:>12g}  {g.sources.get(key, '')}{est}")
    print(f"{'class':<24} {'subsystem':<9} {'lambda':>7} {'Lambda':>7}  source")
    for c in g.classes.values():
        est = " (estimate)" if c.estimate else ""
        print(f"{c.name:<24} {c.subsystem:<9} {c.cpi:>7g} {c.latency:>7g}  {c.source}{est}")
    return 0


def run_diff(args: argparse.Namespace) -> int:
    a, b = load_gpu(args.a), load_gpu(args.b)
    rows = spec_diff(a, b, args.all, args.common)
    if not rows:
        print(f"{a.name} and {b.name} give the same numbers")
        return 0
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}} {a.name:>14} {b.name:>14} {'B/A':>7}")
    for key, x, y, ratio in rows:
        print(f"{key:<{width}} {x:>14} {y:>14} {ratio:>7}")
    print(f"{len(rows)} numbers differ" + (" or are listed" if args.all else "") + f" (A = {args.a}, B = {args.b})")
    return 0
