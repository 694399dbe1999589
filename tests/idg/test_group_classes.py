"""Group classes (block shapes) of a KernelGraph: assignment, barrier checks, building from traces."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeperf.errors import PipeperfError
from pipeperf.idg.build import kernel_graph_from_profile, kernel_graph_from_traces
from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import GroupClass, KernelGraph, WarpClass, smooth_round_robin


def _idg(name: str, n_comp: int, n_bar: int) -> IDG:
    """``n_bar`` barriers, then ``n_comp`` dependent computations."""
    k = n_bar + n_comp
    ids = [f"i{j}" for j in range(k)]
    classes = ["bar_sync"] * n_bar + ["mul_f32"] * n_comp
    deps = [[] if j == 0 else [f"i{j - 1}"] for j in range(k)]
    return IDG.from_nodes(name, ids, classes, deps, [True] * n_bar + [False] * n_comp)


def _kernel(shapes, weights, idgs=None) -> KernelGraph:
    idgs = idgs or [_idg("a", 4, 1), _idg("b", 8, 1), _idg("c", 20, 3)]
    return KernelGraph("k", tuple(WarpClass(g, 1.0) for g in idgs), "",
                       tuple(GroupClass(tuple(s), float(w)) for s, w in zip(shapes, weights)))


def _reference_swrr(weights, n):
    """Smooth weighted round-robin in exact rational arithmetic, one pick at a time."""
    tot = sum(Fraction(w) for w in weights)
    credit = [Fraction(0)] * len(weights)
    out = []
    for _ in range(n):
        credit = [c + Fraction(w) / tot for c, w in zip(credit, weights)]
        j = max(range(len(weights)), key=lambda i: (credit[i], -i))
        out.append(j)
        credit[j] -= 1
    return out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=4), st.integers(0, 120))
def test_tiled_round_robin_equals_the_pick_by_pick_one(weights, n):
    assert smooth_round_robin(weights, n).tolist() == _reference_swrr(weights, n)


def test_without_group_classes_assign_is_per_warp():
    k = KernelGraph("k", (WarpClass(_idg("a", 4, 0), 2.0), WarpClass(_idg("b", 8, 0), 1.0)))
    a = k.assign(9)
    assert a.tolist() == [0, 1, 0] * 3
    assert k.assign(9, 3).tolist() == a.tolist()      # a group size changes nothing without group classes


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=3), st.integers(1, 200))
def test_groups_are_homogeneous_block_shapes_in_proportion(weights, n_groups):
    shapes = [(0, 1, 1), (2, 2, 2), (1, 0, 1)][:len(weights)]
    k = _kernel(shapes, weights)
    a = k.assign(3 * n_groups, 3).reshape(n_groups, 3)
    idx = [shapes.index(tuple(row)) for row in a]     # every group is one whole shape (raises if not)
    if n_groups >= sum(weights):                      # every shape has its share: pure round-robin
        counts = np.bincount(idx, minlength=len(shapes))
        share = np.array(weights) / sum(weights) * n_groups
        assert np.all(np.abs(counts - share) < 1.0)


def test_period_multiple_gives_exact_proportions_and_large_n_is_fast():
    k = _kernel([(0, 1), (2, 2)], [255, 1])
    a = k.assign(2 * 256 * 400, 2).reshape(-1, 2)
    assert (a[:, 0] == 2).sum() == 400 and (a[:, 0] == 0).sum() == 255 * 400


def test_group_size_none_takes_the_group_classes_size_and_needs_whole_groups():
    k = _kernel([(0, 1), (1, 0)], [1, 1])
    assert k.assign(4).tolist() == [0, 1, 1, 0]
    with pytest.raises(PipeperfError, match="not whole groups"):
        k.assign(5, 2)


def test_rare_costlier_shape_goes_on_the_simulated_core_cheaper_one_does_not():
    # shape 1 (warp class c: 23 instructions, 3 barriers) is 1 block in 100; a core of 3 groups
    # has no share of it, yet the core that runs it is the slowest: it replaces the last group
    k = _kernel([(0, 0), (2, 2)], [99, 1])
    assert k.assign(6, 2).reshape(3, 2)[:, 0].tolist() == [0, 0, 2]
    assert k.assign(2, 2).tolist() == [2, 2]
    cheap = _kernel([(1, 1), (0, 0)], [99, 1])        # a tail block with less work stays out
    assert cheap.assign(6, 2).tolist() == [1] * 6


def test_other_group_size_falls_back_or_refuses():
    same = _kernel([(0, 1), (1, 1)], [3, 1], [_idg("a", 4, 1), _idg("b", 8, 1)])   # all reach 1 barrier
    assert same.assign(8, 4).tolist() == [0, 1] * 4    # the warp classes by their weights (1, 1)
    mixed = _kernel([(0, 0), (2, 2)], [3, 1])         # 1 and 3 barriers: groups of 4 would mix them
    with pytest.raises(PipeperfError, match="cannot be simulated with groups of 4 warps"):
        mixed.assign(8, 4)
    assert len(mixed.assign(8, 1)) == 8               # single-warp groups never wait for each other


def test_barrier_check_is_per_block_shape():
    ok = _kernel([(0, 1), (2, 2)], [3, 1])           # shapes agree inside: 1 and 1; 3 and 3
    ok.check_barriers()
    no_groups = KernelGraph("k", ok.warp_classes)
    with pytest.raises(PipeperfError, match="different numbers of barriers"):
        no_groups.check_barriers()                    # without block shapes any warps may meet
    bad = _kernel([(0, 1), (0, 2)], [3, 1])
    with pytest.raises(PipeperfError, match=r"group class 1\).*warp position 0: 1; warp position 1: 3"):
        bad.check_barriers()


def test_group_class_validation():
    with pytest.raises(PipeperfError, match="names warp class 5"):
        _kernel([(0, 5)], [1])
    with pytest.raises(PipeperfError, match="different sizes"):
        _kernel([(0, 1), (0,)], [1, 1])
    with pytest.raises(PipeperfError, match="weights must be positive"):
        _kernel([(0, 1)], [0])


# ---------------------------------------------------------------- building from traces

def _trace(*ops):
    return [{"opcode": o, "dsts": ("%r1",), "srcs": ("%r1",)} for o in ops]


CLS = {"add": "add_f32", "mul": "mul_f32", "bar": "bar_sync"}


def test_build_groups_complete_blocks_by_warp_position():
    A, B, L = _trace("add", "bar", "add"), _trace("mul", "bar", "mul"), _trace("add", "bar", "add", "bar", "add")
    traces = {0: A, 1: B, 2: A, 3: B,                 # blocks 0, 1: (A, B)
              4: L, 5: L,                             # block 2: the last block, one barrier more
              6: A}                                   # block 3: cut by the trace sample
    built = kernel_graph_from_traces("k", traces, lambda e: CLS[e["opcode"]], warps_per_group=2)
    kg, info = built.graph, built.info
    names = [c.idg.name for c in kg.warp_classes]
    assert sorted(c.weight for c in kg.warp_classes) == [2.0, 2.0, 3.0]      # A x3 (w6 too), B x2, L x2
    shapes = {tuple(names[j] for j in g.warps): g.weight for g in kg.group_classes}
    assert shapes == {("k.w0", "k.w1"): 2.0, ("k.w4", "k.w4"): 1.0}
    assert (info.blocks_traced, info.partial_blocks, info.group_classes) == (3, 1, 2)
    kg.check_barriers()                               # refused before: 1 barrier vs 2
    with pytest.raises(PipeperfError):
        kernel_graph_from_traces("k", traces, lambda e: CLS[e["opcode"]]).graph.check_barriers()


def test_build_without_a_complete_block_has_no_group_classes():
    A = _trace("add", "bar")
    built = kernel_graph_from_traces("k", {0: A, 1: A}, lambda e: CLS[e["opcode"]], warps_per_group=4)
    kg, info = built.graph, built.info
    assert kg.group_classes == () and info.partial_blocks == 1 and info.blocks_traced == 0
    assert kg.assign(8, 4).tolist() == [0] * 8
    with pytest.raises(PipeperfError, match="warps per group"):
        kernel_graph_from_traces("k", {0: A}, lambda e: CLS[e["opcode"]], warps_per_group=0)


def test_profile_takes_warps_per_block_from_the_launch():
    from pipeperf.emulate import load_module, run_kernel, select_kernel

    m = load_module("tests/kernels/saxpy.cu")
    f = select_kernel(m, None)
    # n=40: block 0's two warps run the body, block 1's two warps are out of bounds
    p = run_kernel(m, grid=2, block=64, trace_warps=4,
                   args=[40, 2.0, np.ones(128, np.float32), np.zeros(128, np.float32)])
    built = kernel_graph_from_profile(p, f)
    kg, info = built.graph, built.info
    assert info.blocks_traced == 2 and len(kg.group_classes) == 2
    assert sorted(len(set(g.warps)) for g in kg.group_classes) == [1, 1]     # each block one path
    assert {g.warps[0] for g in kg.group_classes} == {0, 1}
    built = kernel_graph_from_profile(p, f, warps_per_group=1)
    kg1, info1 = built.graph, built.info
    assert info1.blocks_traced == 4 and sorted(g.weight for g in kg1.group_classes) == [2.0, 2.0]


# ---------------------------------------------------------------- hand-written files

def test_yaml_group_classes_load_and_check(tmp_path):
    from pipeperf.idg.io import load_kernel

    k = load_kernel("examples/idg/last_block.yaml")
    assert k.group_size == 4 and [g.weight for g in k.group_classes] == [7.0, 1.0]
    a = k.assign(4 * 8, 4).reshape(8, 4)
    assert sorted(a.tolist()) == [[0] * 4] * 7 + [[1] * 4]     # one period: 7 ordinary, 1 last
    with open("examples/idg/last_block.yaml") as fh:
        body = fh.read().split("group_classes:")[0]
    p = tmp_path / "bad.yaml"
    p.write_text(body + "group_classes:\n  - {weight: 1, warps: [0, 0]}\n  - {weight: 1, warps: [0, 2]}\n")
    with pytest.raises(PipeperfError, match=r"bad.yaml:\d+: group class 2: 'warps' must list warp-class indices 0..1"):
        load_kernel(p)
    p.write_text(body + "group_classes:\n  - {weight: 1, warps: [0, 1]}\n")
    with pytest.raises(PipeperfError, match="warp position 0: 1; warp position 1: 3"):
        load_kernel(p)                                # one block mixing 1 and 3 barriers
    p.write_text("name: x\ninstructions: [{id: a, class: mul_f32}]\ngroup_classes: [{warps: [0]}]\n")
    with pytest.raises(PipeperfError, match="needs 'warp_classes'"):
        load_kernel(p)


def test_block_weights_let_sampled_blocks_stand_for_more():
    A, L = _trace("add", "bar"), _trace("add", "bar", "add", "bar")
    traces = {0: A, 1: A, 6: A, 7: A, 8: L, 9: L}     # blocks 0, 3 (ordinary) and 4 (the last one)
    built = kernel_graph_from_traces("k", traces, lambda e: CLS[e["opcode"]], warps_per_group=2,
                                     block_weights={0: 1.0, 3: 2.0})   # block 3 stands for blocks 1-3
    kg, info = built.graph, built.info
    assert [g.weight for g in kg.group_classes] == [3.0, 1.0] and info.blocks_traced == 3
    assert [c.weight for c in kg.warp_classes] == [6.0, 2.0]
    with pytest.raises(PipeperfError, match="positive"):
        kernel_graph_from_traces("k", traces, lambda e: CLS[e["opcode"]], warps_per_group=2, block_weights={0: 0})
    with pytest.raises(PipeperfError, match="warps per group"):
        kernel_graph_from_traces("k", traces, lambda e: CLS[e["opcode"]], block_weights={0: 2.0})
