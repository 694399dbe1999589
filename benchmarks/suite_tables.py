"""The suite's tables again from saved ``validate --suite ... --json`` outputs, merged.

Long validation runs are split (by GPU, family, ISA) and saved as JSON; this reads any number of
them (one ISA each, or ``--isa both``'s {"ptx": ..., "sass": ...}), takes each case's predictions
from the last file that has it, joins them with the case files of the suite as they are now (a
case whose measured time changed since is reported, not mixed in) and prints ``validate``'s
tables (overall, per part, per family, per GPU), for each ISA, and the PTX/SASS comparison.

    python3 benchmarks/suite_tables.py RUN.json [more.json ...] [--out DIR]
    python3 benchmarks/suite_tables.py ptx=PTX_RUN.json sass=SASS_RUN.json    # one-ISA runs, named
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pipeperf.measure.suite import CaseResult, load_suite, summarise  # noqa: E402
from pipeperf.report.suite_report import format_isa_comparison, format_summary  # noqa: E402


def _runs(doc: dict) -> dict[str, dict]:
    return {k: v for k, v in doc.items() if k in ("ptx", "sass")} if "cases" not in doc else {"": doc}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+")
    ap.add_argument("--isa", default="", help="the ISA of files that hold one run (ptx or sass)")
    ap.add_argument("--suite", default=str(ROOT / "validation"))
    ap.add_argument("--out", help="write summary-ISA.txt and suite-ISA.json here too")
    a = ap.parse_args()
    cases = {c.id: c for c in load_suite(a.suite)}
    merged: dict[str, dict[str, dict]] = {}
    for f in a.results:
        named, _, path = f.rpartition("=") if f.startswith(("ptx=", "sass=")) else ("", "", f)
        for isa, run in _runs(json.loads(Path(path).read_text())).items():
            for c in run["cases"]:
                merged.setdefault(isa or named or a.isa or "ptx", {})[c["id"]] = c
    summaries = {}
    for isa, by_id in sorted(merged.items()):
        results, stale = [], []
        for cid, c in by_id.items():
            case = cases.get(cid)
            if case is None or abs(case.seconds - c["measured_seconds"]) > 1e-12 * max(1.0, case.seconds):
                stale.append(cid)
                continue
            results.append(CaseResult(case, c["predicted_seconds"], c.get("launch_overhead_seconds", 0.0),
                                      c.get("error"), phase_spread=c.get("phase_spread")))
        s = summarise(results)
        summaries[isa] = s
        text = f"== IDGs from the {isa.upper()} ({len(results)} cases" + (
            f"; {len(stale)} stale or unknown, left out: {', '.join(stale[:5])}" if stale else "") + ")\n"
        text += format_summary(s)
        print(text)
        if a.out:
            out = Path(a.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"summary-{isa}.txt").write_text(text + "\n")
            from pipeperf.measure.suite import results_json
            (out / f"suite-{isa}.json").write_text(results_json(results, s))
    if {"ptx", "sass"} <= summaries.keys():
        cmp = format_isa_comparison(summaries["ptx"], summaries["sass"])
        print(cmp)
        if a.out:
            (Path(a.out) / "isa-comparison.txt").write_text(cmp + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
