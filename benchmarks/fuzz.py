"""Fuzz pipeperf's inputs at scale: mutated corpus PTX and random command lines (issue 17).

    python3 benchmarks/fuzz.py [--ptx 2000] [--args 500] [--seed 20261124]

The same cases as ``tests/fuzz`` (which runs a few hundred by default), in the thousands; each
must end in a result or a one-line error, never a traceback or a run past the step budget.
Prints the counts, the most frequent refusals and every failure (with the seed and case number
to replay it: ``fuzz_ptx(1, seed, dir, start=N)``); exits 1 if any case failed. The process's
address space is capped (12 GiB, tests/fuzz/fuzz_cases.ADDRESS_SPACE) so a case that would exhaust memory fails instead of the machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fuzz"))

from fuzz_cases import fuzz_args, fuzz_ptx


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptx", type=int, default=2000, help="mutated PTX files (default 2000)")
    p.add_argument("--args", type=int, default=500, help="argument vectors (default 500)")
    p.add_argument("--seed", type=int, default=20261124)
    a = p.parse_args()
    failed = 0
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        ptx = fuzz_ptx(a.ptx, a.seed, Path(d))
    t_ptx = time.perf_counter() - t
    t = time.perf_counter()
    args = fuzz_args(a.args, a.seed)
    t_args = time.perf_counter() - t
    for name, o, secs, n in (("mutated PTX files", ptx, t_ptx, a.ptx), ("argument vectors", args, t_args, a.args)):
        print(f"{n} {name} (seed {a.seed}): {o.ran} ran, {o.refused} refused with a one-line error, "
              f"{len(o.failures)} failed; {secs:.1f} s")
        top = sorted(o.messages.items(), key=lambda kv: -kv[1])[:8]
        print("  most frequent refusals: " + "; ".join(f"{k!r} x{v}" for k, v in top))
        for f in o.failures:
            print("  FAILED " + f.replace("\n", "\n    "))
        failed += len(o.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
