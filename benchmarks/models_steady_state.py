"""How close the Pipeline curve of ``pipeperf models`` is to the simulator's true steady state,
and how long the sweeps take. Run explicitly (not by pytest):

    PYTHONPATH=src python3 benchmarks/models_steady_state.py [N_KERNELS]

For random IDGs (2-14 nodes on ALU/SFU/memory, whole-cycle lambda and Lambda, issue limit
1/2/4/inf, RR and GTO, 1-32 warps) it compares, against the limit of very long runs
(extra warps per extra cycle between 128 and 256 rounds): the whole-run WPC of 16 and 32
rounds and the steady-state estimate of pipeperf (rounds 16 -> 32 and 8 -> 16).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from pipeperf.hardware.spec import GPUSpec, InstrClass, load_gpu
from pipeperf.idg import IDG, KernelGraph, bundled_kernel
from pipeperf.models.compare import evaluate
from pipeperf.simulate import PreparedKernel


def random_case(rng: np.random.Generator) -> tuple[KernelGraph, GPUSpec, int, str]:
    n = int(rng.integers(2, 15))
    cls = [str(rng.choice(["comp", "sfu", "mem"])) for _ in range(n)]
    ids = [f"n{k}" for k in range(n)]
    deps = [[ids[j] for j in range(max(0, k - 4), k) if rng.random() < 0.5] for k in range(n)]
    classes = {}
    for name, sub in (("comp", "alu"), ("sfu", "sfu"), ("mem", "mem")):
        lam = int(rng.integers(1, 5))
        classes[name] = InstrClass(name, sub, float(lam), float(rng.integers(lam, 25)))
    il = float(rng.choice([1.0, 2.0, 4.0, math.inf]))
    gpu = GPUSpec("random", 1, 1.0, il, classes, max_warps_per_core=256, max_groups_per_core=256)
    kernel = KernelGraph.single(IDG.from_nodes("random", ids, cls, deps))
    return kernel, gpu, int(rng.integers(1, 33)), str(rng.choice(["rr", "gto"]))


def convergence(n_cases: int) -> None:
    rng = np.random.default_rng(1)
    err: dict[str, list[float]] = {"whole 16": [], "whole 32": [], "steady 8->16": [], "steady 16->32": []}
    for _ in range(n_cases):
        kernel, gpu, w, sched = random_case(rng)
        prep = PreparedKernel(kernel, gpu)
        c = {r: prep.run(1, w, w * r, sched, check_limits=False).cycles for r in (8, 16, 32, 128, 256)}
        ref = w * 128 / (c[256] - c[128])
        est = {"whole 16": w * 16 / c[16], "whole 32": w * 32 / c[32],
               "steady 8->16": w * 8 / (c[16] - c[8]), "steady 16->32": w * 16 / (c[32] - c[16])}
        for k, v in est.items():
            err[k].append(abs(v / ref - 1))
    print(f"relative error against rounds 128 -> 256, {n_cases} random kernels:")
    for k, e in err.items():
        a = np.array(e)
        print(f"  {k:14s} mean {100 * a.mean():.2f} %  p95 {100 * np.percentile(a, 95):.2f} %  max {100 * a.max():.2f} %")


def timings() -> None:
    cases = [("example", "example_table2"), ("instruction_mix", "pascal_gtx1060"),
             ("iterative_barrier", "pascal_gtx1060")]
    evaluate(bundled_kernel("example"), load_gpu("example_table2"), [1, 2])      # compile the engine
    for name, gpu in cases:
        kernel = bundled_kernel(name)
        for models in (None, ["volkov", "mwp_cwp_corr", "wfg_corr", "gpumech_gto"]):
            t = time.perf_counter()
            evaluate(kernel, load_gpu(gpu), list(range(1, 65)), models)
            what = "all models" if models is None else "analytical only"
            print(f"  {name:18s} on {gpu:15s} 1-64 warps, {what:15s}: {time.perf_counter() - t:6.2f} s")


if __name__ == "__main__":
    convergence(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
    print("sweep times:")
    timings()
