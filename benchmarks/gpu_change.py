"""Score a GPU-database change on the suite cases it touches, before and after, in one run.

Each selected launch is emulated once and simulated on its case's GPU (the database as it is now)
and on a variant GPU file (e.g. the entry as it was before the change: ``base: hopper_h100`` plus
the old numbers), so a constant's before/after per-family MAPE costs one analysis per launch:

    PYTHONPATH=src python3 benchmarks/gpu_change.py --case-file ids.txt \\
        --variant hopper_h100=old_h100.yaml --variant hopper_h200_lent=old_lent.yaml --jobs 2

Prints per-family MAPE (Pipeline model) per part, "variant" and "database" side by side, and the
per-case predictions; ``--json F`` keeps them.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from pipeperf.hardware.spec import load_gpu
from pipeperf.measure.suite import Case, _in_workers, load_suite, selector

MODEL = "pipeline"


def _ape(pred: float | None, measured: float) -> float | None:
    return None if pred is None else abs(pred - measured) / measured * 100.0


def _seconds(out: dict, gpu: str, with_launch: bool) -> float | None:
    """The Pipeline time a launch's analysis gave ``gpu`` (plus its launch overhead where the
    measurement includes the launch); None where it failed."""
    o = out.get(gpu, {})
    s = o.get("models", {}).get(MODEL) if "error" not in o else None
    return None if s is None else s + (o["overhead"] if with_launch else 0.0)


def _fmt(s: float | None) -> str:
    return f"{s:10.4g}" if s is not None else "         -"


def _table(rows: list[dict], key: str) -> dict[str, dict[str, float]]:
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        ape = _ape(r[key], r["measured"])
        if ape is not None:
            acc[r["part"]][r["family"]].append(ape)
    return {part: {f: sum(v) / len(v) for f, v in fams.items()} for part, fams in acc.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="validation")
    ap.add_argument("--case-file", required=True, help="case ids (globs), one per line")
    ap.add_argument("--variant", action="append", default=[], metavar="GPU=FILE",
                    help="the GPU file to compare with the database's GPU of that name")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--isa", default="ptx", choices=("ptx", "sass"))
    ap.add_argument("--json", help="write the per-case predictions here")
    a = ap.parse_args(argv)
    variants = dict(v.split("=", 1) for v in a.variant)
    names = {g: load_gpu(f).name for g, f in variants.items()}
    ids = [x.strip() for x in Path(a.case_file).read_text().splitlines() if x.strip()]
    cases: list[Case] = load_suite(a.suite, selector(ids=ids))
    groups: dict = defaultdict(list)
    for c in cases:
        groups[c.launch].append(c)
    work = [(launch, sorted({c.gpu for c in cs} | {variants[c.gpu] for c in cs if c.gpu in variants}), False, a.isa)
            for launch, cs in groups.items()]
    rows = []
    for k, (item, out) in enumerate(_in_workers(work, max(1, a.jobs), a.timeout)):
        print(f"[{k + 1}/{len(work)}] {item[0].kernel}", file=sys.stderr, flush=True)
        for c in groups[item[0]]:
            var = names.get(c.gpu)
            rows.append({"id": c.id, "family": c.family, "part": c.part, "gpu": c.gpu, "measured": c.seconds,
                         "database": _seconds(out, c.gpu, c.includes_launch),
                         "variant": _seconds(out, var or c.gpu, c.includes_launch),
                         "error": next((o["error"] for o in out.values() if isinstance(o, dict) and "error" in o), None)})
    var_t, db_t = _table(rows, "variant"), _table(rows, "database")
    print(f"\n{MODEL} MAPE %                       variant  database")
    for part in sorted(db_t.keys() | var_t.keys()):
        fams = sorted(db_t.get(part, {}).keys() | var_t.get(part, {}).keys())
        vm = [var_t.get(part, {}).get(f) for f in fams]
        dm = [db_t.get(part, {}).get(f) for f in fams]
        print(f"{part}, mean over families".ljust(34) + "".join(
            f"{sum(x for x in m if x is not None) / max(1, sum(x is not None for x in m)):9.1f}" for m in (vm, dm)))
        for f, v, d in zip(fams, vm, dm):
            print(f"  {f}".ljust(34) + "".join(f"{x:9.1f}" if x is not None else "        -" for x in (v, d)))
    print("\ncase                                                          measured   variant  database")
    for r in rows:
        print(f"{r['id'][:60]:60s} {_fmt(r['measured'])}{_fmt(r['variant'])}{_fmt(r['database'])}"
              + (f"  ({r['error']})" if r["error"] else ""))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
