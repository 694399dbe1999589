"""Eq. 1 of pipeline-performance-model.txt: W warps of N dependent instructions on one pipeline."""

import math

import pytest

from pipeperf.hardware.spec import GPUSpec, InstrClass
from pipeperf.idg.paper_kernels import chain
from pipeperf.simulate import simulate


def eq1(N: int, W: int, lam: float, Lam: float) -> float:
    if Lam / lam >= W:
        return N * Lam + (W - 1) * lam
    return Lam + (N * W - 1) * lam


def one_pipeline(lam: float, Lam: float) -> GPUSpec:
    return GPUSpec("pipe", 1, 1.0, math.inf, {"x": InstrClass("x", "p", lam, Lam)},
                   max_warps_per_core=128, max_groups_per_core=128)


@pytest.mark.parametrize("lam", [0.25, 0.5, 1.0, 1.75, 3.0])
@pytest.mark.parametrize("Lam", [4.0, 6.0, 29.5])
@pytest.mark.parametrize("N", [1, 3, 10])
@pytest.mark.parametrize("W", [1, 2, 5, 8, 16, 33, 64])
def test_round_robin_matches_eq1_exactly(lam, Lam, N, W):
    r = simulate(chain(N, "x"), one_pipeline(lam, Lam), group_size=1, groups_per_core=W, scheduler="rr")
    assert r.cycles == pytest.approx(eq1(N, W, lam, Lam), abs=1e-9)


@pytest.mark.parametrize("lam,Lam", [(0.25, 6.0), (1.0, 18.0), (2.0, 29.5)])
@pytest.mark.parametrize("W", [1, 2, 3, 5])
def test_gto_matches_eq1_while_latency_bound(lam, Lam, W):
    assert Lam / lam >= W
    r = simulate(chain(7, "x"), one_pipeline(lam, Lam), 1, W, scheduler="gto")
    assert r.cycles == pytest.approx(eq1(7, W, lam, Lam))


def test_gto_never_beats_the_pipeline_bound():
    """Beyond Lambda/lambda GTO starves young warps, so it can only be slower than Eq. 1."""
    for W in (16, 33, 64):
        r = simulate(chain(10, "x"), one_pipeline(1.0, 6.0), 1, W, scheduler="gto")
        assert r.cycles >= eq1(10, W, 1.0, 6.0) - 1e-9


def test_groups_are_replaced_when_they_finish():
    """N = ceil(N_total / P) groups run on a core, M at a time: 8 groups, 2 resident = 4 rounds.

    Each finished group is replaced at its completion time, so the second slot stays
    lambda = 1 cycle behind the first: 4 * N * Lambda + lambda.
    """
    spec = one_pipeline(1.0, 10.0)
    assert simulate(chain(5, "x"), spec, 1, 2, total_groups=2).cycles == 51
    assert simulate(chain(5, "x"), spec, 1, 2, total_groups=8).cycles == 201
    spec4 = spec.__class__(**{**spec.__dict__, "cores": 4})
    assert simulate(chain(5, "x"), spec4, 1, 2, total_groups=29).cycles == 201   # ceil(29/4) = 8
