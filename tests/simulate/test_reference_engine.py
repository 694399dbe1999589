"""The compiled engine and the plain-Python reference engine (simulate/reference.py) give the same
results bit for bit: end cycle, busy cycles per pipeline, issues, issue cycles and every issue's
warp, instruction, issue and completion time.

Random IDGs (dependences, barriers, L1 fill waits, fractional and non-dyadic lambdas, posted
results) on random GPUs (pipelines, first-come pipelines, issue limits, block dispatch and block
rate) under both schedulers, several warp classes per launch and several rounds of groups; and
random IDGs over the classes of the GPU database's specs through PreparedKernel's flattening.
The fast tier draws 60 of each; ``pytest -m slow`` draws 600 (then 300)."""

from __future__ import annotations

import math
import random
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_cases import cases
from pipeperf.simulate import engine, reference
from pipeperf.simulate.engine import EngineInput

LAMBDAS = [0.25, 0.5, 1.0, 2.0, 4.0, 1 / 3, 0.7, 1.7, 8.0, 27.3]
LATENCIES = [1.0, 4.0, 6.0, 24.0, 100.5, 400.0, 0.5]
ISSUE_LIMITS = [1.0, 1.5, 2.0, 4.0, math.inf, 0.5, 0.75]


def _fields(r: engine.CoreResult) -> tuple:
    return (r.status, r.end.hex(), [b.hex() for b in r.busy], r.issued, r.issue_cycles, r.rec_warp.tolist(),
            r.rec_instr.tolist(), [v.hex() for v in r.rec_issue], [v.hex() for v in r.rec_comp])


def assert_same(inp: EngineInput) -> None:
    c, ref = engine.run_core(inp), reference.run_core(inp)
    assert c.status == engine.OK
    assert _fields(c) == _fields(ref)


def random_input(seed: int, wide: bool | None = None) -> EngineInput:
    """A random core: 1-5 pipelines, 1-3 warp classes of 1-25 nodes that reach the same number of
    barriers (so that no group deadlocks), 1-6 groups of 1-4 warps, 1-4 resident; or (``wide``, one
    in 12 when None) 9-16 resident groups of 5-8 warps, more warps than the C engine's 64-bit scan
    words hold."""
    rng = random.Random(seed)
    wide = rng.random() < 1 / 12 if wide is None else wide
    n_sub = rng.randint(1, 5)
    n_bar = rng.choice([0, 0, 1, 2])
    lam_of = [rng.choice(LAMBDAS) for _ in range(n_sub)]          # each pipeline's usual lambda
    off, length, sub, lam, Lam, Lret, is_bar, bar_prev, dep_ptr, dep_idx, fill, fill_cycles = \
        [], [], [], [], [], [], [], [], [0], [], [], []
    for _ in range(rng.randint(1, 3)):
        n = rng.randint(max(1, n_bar), 25)
        bars = set(rng.sample(range(n), n_bar))
        off.append(len(sub))
        length.append(n)
        prev = -1
        for i in range(n):
            su = rng.randrange(n_sub)
            sub.append(su)
            lam.append(lam_of[su] if rng.random() < 0.7 else rng.choice(LAMBDAS))
            Lam.append(rng.choice(LATENCIES))
            Lret.append(lam[-1] if rng.random() < 0.2 else Lam[-1])   # a posted store: its issue slot
            is_bar.append(i in bars)
            bar_prev.append(prev)
            if i in bars:
                prev = i
            dep_idx.extend(sorted(rng.sample(range(max(0, i - 8), i), min(i, rng.randint(0, 3)))))
            dep_ptr.append(len(dep_idx))
            loads = [j for j in range(i) if j not in bars]
            fill.append(rng.choice(loads) if loads and rng.random() < 0.15 else -1)
            fill_cycles.append(rng.choice([0.0, 2.5, 30.0]))
    minlam = [min((lam[i] for i in range(len(sub)) if sub[i] == q), default=1.0) for q in range(n_sub)]
    gs, n_resident = (rng.randint(5, 8), rng.randint(9, 16)) if wide else (rng.randint(1, 4), rng.randint(1, 4))
    n_groups = rng.randint(1, n_resident + 8) if wide else rng.randint(1, 6)
    fifo = array("b", [rng.random() < 0.4 for _ in range(n_sub)]) if rng.random() < 0.6 else None
    with_fill = rng.random() < 0.5
    return EngineInput(
        off=array("q", off), length=array("q", length), sub=array("q", sub), lam=array("d", lam),
        Lam=array("d", Lam), Lret=array("d", Lret), is_bar=array("b", is_bar), bar_prev=array("q", bar_prev),
        dep_ptr=array("q", dep_ptr), dep_idx=array("q", dep_idx), minlam=array("d", minlam),
        fill=array("q", fill) if with_fill else None, fill_cycles=array("d", fill_cycles) if with_fill else None,
        fifo=fifo, warp_cls=array("q", [rng.randrange(len(off)) for _ in range(gs * n_groups)]),
        group_size=gs, n_groups=n_groups, n_resident=n_resident, issue_limit=rng.choice(ISSUE_LIMITS),
        scheduler=rng.choice([engine.RR, engine.GTO]), dispatch=rng.choice([0.0, 0.0, 3.0, 275.5]),
        interval=rng.choice([0.0, 0.0, 0.7, 2.5]), record=True)


def random_prepared(seed: int, gpu_name: str, scheduler: str) -> EngineInput:
    """A random IDG over a database GPU's own classes (barriers in every warp alike), flattened by
    PreparedKernel with the GPU's first-come pipelines, issue limit and block dispatch."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.graph import IDG
    from pipeperf.idg.kernel_graph import KernelGraph
    from pipeperf.simulate.simulator import PreparedKernel

    gpu = load_gpu(gpu_name)
    rng = random.Random(seed)
    names = sorted(c for c, k in gpu.classes.items() if k.subsystem != "barrier")
    bar = next((c for c, k in gpu.classes.items() if k.subsystem == "barrier"), None)
    n = rng.randint(2, 30)
    every = rng.choice([0, n // 2 or 1, 4]) if bar else 0
    ids = [f"i{i}" for i in range(n)]
    classes = [bar if every and i and i % every == 0 else rng.choice(names) for i in range(n)]
    deps = [[f"i{j}" for j in sorted(rng.sample(range(max(0, i - 6), i), min(i, rng.randint(0, 2))))]
            for i in range(n)]
    prep = PreparedKernel(KernelGraph.single(IDG.from_nodes(f"r{seed}", ids, classes, deps)), gpu)
    gs, m = rng.randint(1, 4), rng.randint(1, 4)
    n_groups = rng.randint(1, 3 * m)
    return prep.engine_input(prep.kernel.assign_buffer(n_groups * gs, gs), gs, n_groups, m, scheduler, profile=True)


GPUS = ["pascal_gtx1060", "volta_v100", "turing_rtx2070", "ampere_a100", "hopper_h100", "example_table2",
        "maxwell_k620", "ada_l40"]
_FAST = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])
_SLOW = settings(max_examples=600, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(st.integers(0, 2**32 - 1))
def test_random_cores_agree(seed):
    assert_same(random_input(seed))


@_FAST
@given(st.integers(0, 2**32 - 1), st.sampled_from(GPUS), st.sampled_from(["rr", "gto"]))
def test_random_idgs_on_database_gpus_agree(seed, gpu, scheduler):
    assert_same(random_prepared(seed, gpu, scheduler))


@pytest.mark.slow
@_SLOW
@given(st.integers(0, 2**32 - 1))
def test_many_random_cores_agree(seed):
    assert_same(random_input(seed))


@pytest.mark.slow
@settings(_SLOW, max_examples=300)
@given(st.integers(0, 2**32 - 1), st.sampled_from(GPUS), st.sampled_from(["rr", "gto"]))
def test_many_random_idgs_on_database_gpus_agree(seed, gpu, scheduler):
    assert_same(random_prepared(seed, gpu, scheduler))


def _case_input(name: str) -> EngineInput:
    from pipeperf.simulate.simulator import PreparedKernel

    for case, kernel, gpu, run in cases():
        if case == name:
            run = dict(run)
            prep = PreparedKernel(kernel, gpu, first_come=run.pop("first_come", ()))
            gs, m = run["group_size"], run["groups_per_core"]
            n = math.ceil((run.get("total_groups") or m * gpu.cores) / gpu.cores)
            return prep.engine_input(prep.kernel.assign_buffer(n * gs, gs), gs, n, m, run["scheduler"], profile=True)
    raise KeyError(name)


_SMALL_CASES = [f"{c}_{s}" for c in ("iterative_barrier", "last_block", "divergent", "saxpy",
                                     "example_no_issue_limit") for s in ("rr", "gto")]
_LARGE_CASES = [f"{c}_{s}" for c in ("random2000", "random_barriers", "mix_b4", "ld_chain_turing", "mix_issue_1.5",
                                     "random_first_come", "ld_chain_first_come") for s in ("rr", "gto")]


@pytest.mark.parametrize("name", _SMALL_CASES)
def test_the_engine_cases_agree(name):
    """The hand-picked engine cases (tests/simulate/engine_cases.py): example IDG files, barriers
    every iteration, a last block of another shape, no issue limit."""
    assert_same(_case_input(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", _LARGE_CASES)
def test_the_large_engine_cases_agree(name):
    """10^5 instructions and more per core: a few seconds to half a minute each in the reference."""
    assert_same(_case_input(name))


def test_the_cases_cover_every_unextrapolated_engine_case():
    names = {name for name, _, _, run in cases() if not run.get("fast_forward")}
    assert names == set(_SMALL_CASES) | set(_LARGE_CASES)


@pytest.mark.parametrize("scheduler", ["rr", "gto"])
def test_the_simulator_on_the_reference_engine_gives_the_same_run(scheduler, monkeypatch):
    """PreparedKernel.run, fast-forward's extrapolation included, on either engine: the same
    SimResult (the fast_forward engine case, and a profiled run)."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.io import load_kernel
    from pipeperf.simulate.simulator import PreparedKernel

    from engine_cases import EXAMPLES, FIXTURES

    volta = load_gpu(FIXTURES / "volta_v100.yaml")
    prep = PreparedKernel(load_kernel(EXAMPLES / "saxpy_fig1.yaml"), volta)
    runs = [dict(group_size=2, groups_per_core=16, total_groups=16 * volta.cores * 20, scheduler=scheduler,
                 fast_forward=2),
            dict(group_size=2, groups_per_core=6, total_groups=6 * volta.cores * 3, scheduler=scheduler, profile=True)]
    c_runs = [prep.run(**run) for run in runs]
    monkeypatch.setattr(engine, "run_core", reference.run_core)
    for run, c in zip(runs, c_runs):
        r = prep.run(**run)
        assert r.to_dict() == c.to_dict()
        assert (r.profile is None) == (c.profile is None)
        if c.profile is not None:
            assert r.profile is not None
            assert (r.profile.issue.tobytes(), r.profile.complete.tobytes(), r.profile.warp.tobytes()) == \
                (c.profile.issue.tobytes(), c.profile.complete.tobytes(), c.profile.warp.tobytes())
    assert c_runs[0].fast_forward is not None


def test_a_deadlock_is_reported_by_both():
    """A barrier that one warp of the group never reaches stops both engines with DEADLOCK."""
    inp = EngineInput(
        off=array("q", [0, 2]), length=array("q", [2, 1]), sub=array("q", [0, 0, 0]), lam=array("d", [1.0] * 3),
        Lam=array("d", [4.0] * 3), Lret=array("d", [4.0] * 3), is_bar=array("b", [0, 1, 0]),
        bar_prev=array("q", [-1, -1, -1]), dep_ptr=array("q", [0, 0, 0, 0]), dep_idx=array("q"),
        minlam=array("d", [1.0]), fill=None, fill_cycles=None, fifo=None, warp_cls=array("q", [0, 1]),
        group_size=2, n_groups=1, n_resident=1, issue_limit=1.0, scheduler=engine.RR, dispatch=0.0, interval=0.0)
    assert engine.run_core(inp).status == reference.run_core(inp).status == engine.DEADLOCK
