"""Hand-picked engine cases: IDGs with and without barriers, warp and group classes, schedulers rr
and gto, issue limits 1, 1.5, 4 and none, block dispatch costs, several rounds of groups, the
per-instruction profile, pipelines served in the scheduler's order and first-come. Their results
were once recorded from the Numba engine the C engine replaced; the plain-Python reference engine
(pipeperf.simulate.reference) now checks them (tests/simulate/test_reference_engine.py), and the
attribution tests run them with and without attribution.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "idg"
FIXTURES = ROOT / "tests" / "fixtures" / "engine"


def random_kernel(n: int, seed: int, store: bool = False):
    """A realistic mix on the Pascal spec's classes, each instruction depending on 1-3 of the
    8 before it, with a barrier every ``n // 5`` instructions when ``seed`` is odd and posted
    global stores (``st_global``, Volta's spec) with ``store``."""
    from pipeperf.idg.graph import IDG
    from pipeperf.idg.kernel_graph import KernelGraph

    mix = {"fma_f32": 30, "add_f32": 12, "mul_f32": 12, "mul_s32": 10, "ld_global_s32": 10,
           "ld_shared_f32": 10, "cos_f32": 4, "div_approx_f32": 2, "mul_f64": 2}
    if store:
        mix["st_global"] = 3
    rng = random.Random(seed)
    names, weights = list(mix), list(mix.values())
    ids, classes, deps = [], [], []
    for i in range(n):
        ids.append(f"i{i}")
        barrier = seed % 2 == 1 and i and i % (n // 5) == 0
        classes.append("bar_sync" if barrier else rng.choices(names, weights)[0])
        back = rng.sample(range(max(0, i - 8), i), min(i, rng.randint(1, 3))) if i else []
        deps.append([f"i{j}" for j in sorted(back)])
    return KernelGraph.single(IDG.from_nodes(f"random{n}_{seed}", ids, classes, deps))


def cases() -> Iterator[tuple[str, object, object, dict]]:
    """(name, kernel, gpu, PreparedKernel.run keyword arguments) of every case."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.io import load_kernel
    from pipeperf.idg.paper_kernels import chain, example_kernel, instruction_mix, iterative_barrier

    # the GPU specs as they were when the results were first recorded (gpu show --yaml at 12b0c76),
    # so that the cases stay what they were when the database changes
    pascal, volta, turing = (load_gpu(FIXTURES / f"{n}.yaml") for n in ("pascal_gtx1060", "volta_v100", "turing_rtx2070"))
    for sched in ("rr", "gto"):
        yield f"random2000_{sched}", random_kernel(2000, 16), pascal, \
            dict(group_size=2, groups_per_core=32, scheduler=sched, profile=True)
        yield f"random_barriers_{sched}", random_kernel(1500, 17, store=True), volta, \
            dict(group_size=4, groups_per_core=8, total_groups=8 * volta.cores * 3, scheduler=sched, profile=True)
        yield f"mix_b4_{sched}", instruction_mix(4, 200), pascal, \
            dict(group_size=1, groups_per_core=8, total_groups=8 * pascal.cores * 3, scheduler=sched)
        yield f"iterative_barrier_{sched}", iterative_barrier(100), pascal, \
            dict(group_size=4, groups_per_core=4, total_groups=4 * pascal.cores * 2, scheduler=sched, profile=True)
        yield f"last_block_{sched}", load_kernel(EXAMPLES / "last_block.yaml"), volta, \
            dict(group_size=4, groups_per_core=8, total_groups=200 * volta.cores // 10, scheduler=sched, profile=True)
        yield f"divergent_{sched}", load_kernel(EXAMPLES / "divergent.yaml"), pascal, \
            dict(group_size=4, groups_per_core=6, total_groups=6 * pascal.cores * 2, scheduler=sched, profile=True)
        yield f"saxpy_{sched}", load_kernel(EXAMPLES / "saxpy_fig1.yaml"), volta.with_issue_limit(1), \
            dict(group_size=1, groups_per_core=32, scheduler=sched, profile=True)
        yield f"example_no_issue_limit_{sched}", example_kernel(), load_gpu("example_table2"), \
            dict(group_size=1, groups_per_core=12, total_groups=12 * 40, scheduler=sched, profile=True)
        yield f"ld_chain_turing_{sched}", chain(3000, "ld_global_s32"), turing, \
            dict(group_size=2, groups_per_core=16, scheduler=sched)
        yield f"mix_issue_1.5_{sched}", instruction_mix(16, 100), pascal.with_issue_limit(1.5), \
            dict(group_size=2, groups_per_core=16, total_groups=16 * pascal.cores * 2, scheduler=sched, profile=True)
        yield f"fast_forward_{sched}", load_kernel(EXAMPLES / "saxpy_fig1.yaml"), volta, \
            dict(group_size=2, groups_per_core=16, total_groups=16 * volta.cores * 20, scheduler=sched,
                 fast_forward=2)
        yield f"random_first_come_{sched}", random_kernel(2000, 18, store=True), volta, \
            dict(group_size=4, groups_per_core=8, total_groups=8 * volta.cores * 3, scheduler=sched, profile=True,
                 first_come=("mem", "l2"))
        yield f"ld_chain_first_come_{sched}", chain(3000, "ld_global_s32"), turing, \
            dict(group_size=2, groups_per_core=16, scheduler=sched, first_come=("mem",))


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def outcome(kernel, gpu, run: dict) -> dict:
    """Everything a run gives, floats in hex so that equal means bit-identical."""
    from pipeperf.simulate.simulator import PreparedKernel

    run = dict(run)
    r = PreparedKernel(kernel, gpu, first_come=run.pop("first_come", ())).run(**run)
    out = {"cycles": r.cycles.hex(), "issue_cycles": r.issue_cycles.hex(), "issued": r.instructions_on_core,
           "busy": {k: float(v).hex() for k, v in r.subsystem_busy.items()}, "seconds": r.seconds.hex()}
    if r.profile is not None:
        p = r.profile
        out["profile"] = {"n": len(p.warp), "warp": _digest(p.warp.astype(np.int64)),
                          "instr": _digest(p.instr.astype(np.int64)),
                          "issue": _digest(p.issue.astype(np.float64)),
                          "complete": _digest(p.complete.astype(np.float64)),
                          "subsystem": _digest(p.subsystem.astype(np.int64))}
    return out

