"""Run `pipeperf analyze` on every kernel of the CUDA corpus (tests/kernels) on a few GPUs.

Prints, per kernel, the predicted time per GPU and the wall time of the analysis, or the error.
Run: PYTHONPATH=src python3 benchmarks/analyze_corpus.py [GPU ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "kernels"))

from kernel_corpus import load_manifest, make_case

from pipeperf.analysis import analyze
from pipeperf.errors import PipeperfError


def main(gpus: list[str]) -> None:
    for spec in load_manifest():
        case = make_case(spec.name)
        t0 = time.perf_counter()
        try:
            a = analyze(f"tests/kernels/{spec.file}", spec.grid, spec.block, case.args, gpus, shared=spec.shared,
                        kernel=spec.name, trace_warps=64)
            res = "  ".join(f"{p.gpu} {p.seconds * 1e6:.2f} us ({p.bound_by})" for p in a.predictions)
        except PipeperfError as e:
            res = f"error: {e}"
        print(f"{spec.name:24s} {time.perf_counter() - t0:6.2f} s  {res}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["pascal_gtx1060", "fermi_c2050"])
