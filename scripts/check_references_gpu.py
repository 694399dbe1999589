#!/usr/bin/env python3
"""Run every corpus kernel from its committed PTX on a real GPU (CuPy) and compare with the NumPy
references (tests/kernels/kernel_references.py) -- the hardware counterpart of
check_references_host.py, and the only check of the kernels the host shim cannot run (fp16,
cooperative groups, wmma / mma.sync, cp.async).

Needs a CUDA GPU and CuPy; the driver JIT-compiles the PTX of each target the device can run
(sm_75/sm_80/sm_90 PTX all load on an H100). Never run during corpus construction (no GPU then).

Usage: python3 scripts/check_references_gpu.py [kernel ...] [--arch sm_90] [--seed N]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "kernels"))

from kernel_corpus import corpus_archs, load_manifest, make_case  # noqa: E402


def run_on_gpu(cp, name: str, arch: str, seed: int) -> list[str]:
    case = make_case(name, seed)
    spec = case.spec
    module = cp.RawModule(path=str(spec.ptx_path(arch)))
    kernel = module.get_function(spec.name)
    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in case.args]
    kernel(spec.grid, spec.block, tuple(dev), shared_mem=spec.shared)
    cp.cuda.runtime.deviceSynchronize()
    names = [p.name for p in spec.params]
    return case.check({o: cp.asnumpy(dev[names.index(o)]) for o in spec.outputs})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--arch", action="append", help="targets to check (default: all committed)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    try:
        import cupy as cp
    except ImportError:
        print("check_references_gpu: error: needs CuPy and a CUDA GPU", file=sys.stderr)
        return 2
    cc = cp.cuda.Device().compute_capability  # e.g. "90"
    archs = [a for a in (args.arch or corpus_archs()) if int(a[3:]) <= int(cc)]
    bad = total = 0
    for spec in load_manifest():
        if args.kernels and spec.name not in args.kernels:
            continue
        for arch in archs:
            if arch not in spec.archs:
                continue
            total += 1
            try:
                problems = run_on_gpu(cp, spec.name, arch, args.seed)
            except Exception as e:  # report and go on: one broken kernel must not hide the others
                problems = [f"{type(e).__name__}: {e}"]
            bad += bool(problems)
            print(f"{'FAIL' if problems else 'ok  '}  {spec.name} {arch}" + "".join(f"\n      {p}" for p in problems))
    print(f"{total - bad} of {total} (kernel, target) pairs match their reference on sm_{cc}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
