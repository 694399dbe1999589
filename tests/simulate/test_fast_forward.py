"""Fast-forward of long launches (PreparedKernel.run(fast_forward=R)): two short simulations of
R and 2R rounds of resident groups, extrapolated linearly. Exact for a periodic steady state,
off by default, and never used where the groups differ or a profile is asked for."""

import pytest

from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.io import load_kernel
from pipeperf.idg.kernel_graph import GroupClass, KernelGraph
from pipeperf.simulate.simulator import PreparedKernel

GPU = load_gpu("example_table2")     # the paper's Table 2 toy GPU of the example kernel


@pytest.fixture(scope="module")
def prep():
    return PreparedKernel(load_kernel("examples/idg/example_kernel.yaml"), GPU)


@pytest.mark.parametrize("m", [1, 3, 8])
@pytest.mark.parametrize("total", [GPU.cores * 97, GPU.cores * 200 + 7])
def test_extrapolation_matches_the_full_simulation(prep, m, total):
    exact = prep.run(4, m, total, check_limits=False)
    ff = prep.run(4, m, total, check_limits=False, fast_forward=4)
    assert exact.fast_forward is None and ff.fast_forward["rounds"] == 4
    k1, k2 = ff.fast_forward["simulated_groups"]
    assert k2 - k1 == 4 * m and k1 % m == exact.groups_on_core % m       # same last partial round
    assert ff.cycles == pytest.approx(exact.cycles, rel=0.01)
    assert ff.instructions_on_core == exact.instructions_on_core
    for s, b in exact.subsystem_busy.items():
        assert ff.subsystem_busy[s] == pytest.approx(b, abs=0.01)


def test_short_launches_and_profiles_are_simulated_in_full(prep):
    short = prep.run(4, 2, GPU.cores * 10, check_limits=False, fast_forward=4)      # 10 <= k2 = 8 + 8
    assert short.fast_forward is None
    prof = prep.run(4, 2, GPU.cores * 100, check_limits=False, fast_forward=4, profile=True)
    assert prof.fast_forward is None and prof.profile is not None


def test_mixed_block_shapes_are_simulated_in_full():
    kg = load_kernel("examples/idg/example_kernel.yaml")
    two = KernelGraph(kg.name, kg.warp_classes * 2, kg.source,
                      (GroupClass((0, 0, 0, 0), 9.0), GroupClass((1, 1, 1, 1), 1.0)))
    p = PreparedKernel(two, GPU)
    r = p.run(4, 2, GPU.cores * 100, check_limits=False, fast_forward=4)
    assert r.fast_forward is None


def test_huge_launches_of_mixed_shapes_are_fast_forwarded_from_their_first_groups(monkeypatch):
    """Past HUGE_GROUPS groups a core (issue 39: a 65535 x 65535 grid, 4e7 groups a core) mixed block
    shapes are extrapolated too, over a window holding MIX_GROUPS of each shape, from the order's
    first groups only: within 1 % of simulating every group."""
    import time

    import pipeperf.simulate.simulator as S

    kg = load_kernel("examples/idg/example_kernel.yaml")
    two = KernelGraph(kg.name, kg.warp_classes * 2, kg.source,
                      (GroupClass((0, 0, 0, 0), 9.0), GroupClass((1, 1, 1, 1), 1.0)))
    p = PreparedKernel(two, GPU)
    total = GPU.cores * 3000 + 5
    exact = p.run(4, 2, total, check_limits=False, fast_forward=4)
    assert exact.fast_forward is None                        # below the threshold: as before
    monkeypatch.setattr(S, "HUGE_GROUPS", 1000)
    ff = p.run(4, 2, total, check_limits=False, fast_forward=4)
    k1, k2 = ff.fast_forward["simulated_groups"]
    assert k2 - k1 >= S.MIX_GROUPS * 2 and (k2 - k1) % 2 == 0 and k1 % 2 == exact.groups_on_core % 2
    assert ff.cycles == pytest.approx(exact.cycles, rel=0.01)
    assert ff.instructions_on_core == pytest.approx(exact.instructions_on_core, rel=0.01)
    monkeypatch.undo()
    t0 = time.perf_counter()
    huge = p.run(4, 2, 65535 * 65535, check_limits=False, fast_forward=4)
    assert time.perf_counter() - t0 < 5 and huge.groups_on_core > S.HUGE_GROUPS and huge.fast_forward is not None


@pytest.mark.parametrize("m", [1, 2, 4])
@pytest.mark.parametrize("per_sm", [700, 1500])
def test_costly_mixed_shapes_are_fast_forwarded_by_instructions(monkeypatch, m, per_sm):
    """Below HUGE_GROUPS, a launch of mixed block shapes whose whole order would cost the engine more
    than MIXED_WORK instructions (a dedispersion's 68 750 blocks, half of them exiting at a bounds
    check) is extrapolated from two windows of its own order by the instructions still to come:
    within 1 % of simulating every group here, at a fraction of the engine's work. (Not a bound: with
    3 or 6 resident blocks of these 4- and 9-node warps, 3 barriers in the heavy ones, the windows
    meet the 7:1 order out of phase and the time is 1-7 % off, as the group-linear rule's is; the
    dedispersion's 31 250-instruction warps: -0.5 %, docs/experiments/2026-11-28-app-suite-speed.md.)"""
    import pipeperf.simulate.simulator as S

    v100 = load_gpu("volta_v100")
    p = PreparedKernel(load_kernel("examples/idg/last_block.yaml"), v100)  # 4- and 9-node warps, 7:1 blocks
    total = v100.cores * per_sm + 3
    exact = p.run(4, m, total, check_limits=False, fast_forward=4)
    assert exact.fast_forward is None                        # below MIXED_WORK: simulated whole, as before
    monkeypatch.setattr(S, "MIXED_WORK", 0)
    ff = p.run(4, m, total, check_limits=False, fast_forward=4)
    assert ff.fast_forward is not None and ff.fast_forward["by_instructions"]
    k1, k2 = ff.fast_forward["simulated_groups"]
    assert k2 - k1 >= S.MIXED_GROUPS * 2 and (k2 - k1) % m == 0 and k1 % m == exact.groups_on_core % m
    assert ff.cycles == pytest.approx(exact.cycles, rel=0.01)
    assert ff.instructions_on_core == pytest.approx(exact.instructions_on_core, rel=0.001)
    assert ff.simulated_instructions < exact.simulated_instructions / 5
    assert exact.simulated_instructions == exact.instructions_on_core
