"""Simulating kernels whose blocks differ (group classes): no deadlock, whole block shapes per group."""

import numpy as np
import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import GroupClass, KernelGraph, WarpClass
from pipeperf.simulate import simulate

GPU = load_gpu("pascal_gtx1060")


def _idg(name: str, n_comp: int, n_bar: int) -> IDG:
    """Rounds of (computation, barrier), then the remaining dependent computations."""
    ids, classes, deps, bars = [], [], [], []
    for j in range(n_comp + n_bar):
        bar = j < 2 * n_bar and j % 2 == 1
        ids.append(f"i{j}")
        classes.append("bar_sync" if bar else "mul_f32")
        deps.append([] if j == 0 or bar else [f"i{j - 1}"])
        bars.append(bar)
    return IDG.from_nodes(name, ids, classes, deps, bars)


P = _idg("common", 6, 2)        # an ordinary block's warps
Q = _idg("last", 30, 5)         # the last block's warps: an extra pass with three more barriers
R = _idg("other", 12, 2)        # another path through the ordinary barriers


def _shaped(shapes, weights, idgs=(P, Q, R)) -> KernelGraph:
    return KernelGraph("shaped", tuple(WarpClass(g, 1.0) for g in idgs), "",
                       tuple(GroupClass(s, float(w)) for s, w in zip(shapes, weights)))


def _run(kg, profile=False):
    return simulate(kg, GPU, group_size=4, groups_per_core=2, total_groups=8 * GPU.cores, profile=profile)


def test_last_block_with_extra_barriers_runs_between_the_homogeneous_kernels():
    mixed = _shaped([(0, 0, 0, 0), (1, 1, 1, 1)], [3, 1])
    with pytest.raises(PipeperfError, match="different numbers of barriers"):
        _run(KernelGraph("mixed", mixed.warp_classes[:2]))     # per-warp mixing: a group would deadlock
    r = _run(mixed, profile=True)
    lo, hi = _run(KernelGraph.single(P)).cycles, _run(KernelGraph.single(Q)).cycles
    assert lo < r.cycles < hi
    assert r.instructions_on_core == 4 * (6 * len(P) + 2 * len(Q))   # 8 groups on the core: 6 + 2
    per_warp = np.bincount(r.profile.warp, minlength=32).reshape(8, 4)
    assert np.all(per_warp == per_warp[:, :1])                        # every group one shape
    assert sorted(per_warp[:, 0].tolist()) == [len(P)] * 6 + [len(Q)] * 2


def test_warp_positions_keep_their_class():
    kg = _shaped([(0, 2, 0, 2)], [1])
    r = _run(kg, profile=True)
    per_warp = np.bincount(r.profile.warp, minlength=32).reshape(8, 4)
    assert np.all(per_warp == [len(P), len(R), len(P), len(R)])


def test_small_grid_times_the_core_that_runs_the_last_block():
    kg = _shaped([(0, 0, 0, 0), (1, 1, 1, 1)], [30, 1])
    # one group per core: the proportional share has no last block, yet one core runs it
    r = simulate(kg, GPU, group_size=4, groups_per_core=1, total_groups=GPU.cores)
    assert r.cycles == simulate(KernelGraph.single(Q), GPU, group_size=4, groups_per_core=1,
                                total_groups=GPU.cores).cycles


def test_block_shapes_of_another_size_than_the_group_are_refused():
    kg = _shaped([(0, 0, 0, 0), (1, 1, 1, 1)], [3, 1])
    with pytest.raises(PipeperfError, match="use group size 4"):
        simulate(kg, GPU, group_size=2, groups_per_core=2)
    assert simulate(kg, GPU, group_size=1, groups_per_core=2).cycles > 0


def test_cli_simulate_takes_the_group_size_of_the_group_classes(capsys):
    import json

    from pipeperf.cli.main import main

    assert main(["simulate", "examples/idg/last_block.yaml", "--gpu", "pascal_gtx1060", "--groups", "80",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["group_size"] == 4 and r["instructions_on_core"] == 4 * (7 * 4 + 1 * 9)   # 8 groups: 7 + 1
