"""Parse throughput of the PTX front end (pure Python, one core).

Usage: PYTHONPATH=src python3 benchmarks/ptx_parse.py [--corpus DIR] [--mb 20]

Three measurements over the CUDA test corpus (tests/kernels/ptx/*.ptx):

* cold files   -- every corpus file parsed once, intern tables emptied first;
* concatenated -- one module made of all corpus files' bodies repeated until it
                  holds at least --mb MB, intern tables emptied first (without the
                  PTX check: its functions repeat, which ptxas and the check refuse);
* repeated     -- the corpus files parsed again and again (warm intern tables)
                  until --mb MB have been parsed.

Cold files and repeated are timed twice: the parser alone, and with the PTX check
(pipeperf.ptx.check, what every command runs).

Times are CPU seconds of this process (time.process_time), which shared,
loaded machines disturb less than wall time; wall time is printed too.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from pipeperf.ptx.parser import clear_caches, parse_ptx

_HEADER = re.compile(r"^\s*\.(?:version|target|address_size)\b[^\n]*\n", re.M)


def _timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.process_time() - c0, time.perf_counter() - w0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[1]
                                            / "tests" / "kernels" / "ptx"))
    ap.add_argument("--mb", type=float, default=20.0, help="megabytes to parse (default 20)")
    args = ap.parse_args(argv)
    files = sorted(Path(args.corpus).glob("*.ptx"))
    if not files:
        print(f"no .ptx files in {args.corpus}", file=sys.stderr)
        return 2
    texts = [p.read_text() for p in files]
    corpus_bytes = sum(len(t.encode()) for t in texts)
    print(f"corpus: {len(files)} files, {corpus_bytes / 1e6:.3f} MB")
    target = args.mb * 1e6

    def report(name, nbytes, ninstr, cpu, wall):
        print(f"{name:<18} {nbytes / 1e6:8.2f} MB  {ninstr:>9} instructions  "
              f"{nbytes / cpu / 1e6:6.2f} MB/s CPU  ({nbytes / wall / 1e6:6.2f} MB/s wall, "
              f"{ninstr / cpu / 1e3:6.1f} k instr/s)")

    # cold: each file once, empty intern tables
    for check in (False, True):
        clear_caches()
        mods, cpu, wall = _timed(lambda: [parse_ptx(t, check=check) for t in texts])  # noqa: B023 (run at once)
        report("cold files" + (" +check" if check else ""), corpus_bytes,
               sum(len(f.instructions) for m in mods for f in m.functions), cpu, wall)

    # one big module: header once, every file's body, repeated
    head = _HEADER.findall(texts[0])
    bodies = "".join(_HEADER.sub("", t) for t in texts)
    reps = max(1, int(target // len(bodies.encode())) + 1)
    big = "".join(head) + bodies * reps
    nbytes = len(big.encode())
    clear_caches()
    m, cpu, wall = _timed(lambda: parse_ptx(big, check=False))  # noqa: F821 (big is deleted only after the call)
    report("concatenated", nbytes, sum(len(f.instructions) for f in m.functions), cpu, wall)
    del m, big

    # repeated parses of the separate files (warm intern tables)
    rounds = max(1, int(target // corpus_bytes) + 1)

    def repeated(check: bool) -> int:
        n = 0
        for _ in range(rounds):
            for t in texts:
                n += sum(len(f.instructions) for f in parse_ptx(t, check=check).functions)
        return n

    for check in (False, True):
        ninstr, cpu, wall = _timed(lambda: repeated(check))  # noqa: B023 (run at once)
        report("repeated" + (" +check" if check else ""), corpus_bytes * rounds, ninstr, cpu, wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
