"""IDGs built from the emulator's per-warp traces (pipeperf.idg.build)."""

import numpy as np

from pipeperf.emulate import load_module, run_kernel, select_kernel
from pipeperf.idg.build import kernel_graph_from_profile, kernel_graph_from_traces

SAXPY = "tests/kernels/saxpy.cu"


def _saxpy(n: int, grid: int, block: int, warps: int):
    m = load_module(SAXPY)
    f = select_kernel(m, None)
    size = grid * block
    p = run_kernel(m, grid=grid, block=block, trace_warps=warps,
                   args=[n, 2.0, np.ones(size, np.float32), np.zeros(size, np.float32)])
    built = kernel_graph_from_profile(p, f)
    return built.graph, built.info


def test_saxpy_idg_nodes_and_load_to_fma_edges():
    kg, info = _saxpy(128, 2, 64, 4)
    assert info.warps_traced == 4 and len(kg.warp_classes) == 1
    g = kg.warp_classes[0].idg
    assert len(g) == 20                       # 20 PTX instructions executed once each
    loads = [i for i in range(len(g)) if g.class_of(i) == "ld_global_s32"][:2]
    fma = next(i for i in range(len(g)) if g.class_of(i) == "fma_f32")
    assert len(loads) == 2 and all(ld in g.deps_of(fma) for ld in loads)
    st = next(i for i in range(fma + 1, len(g)) if g.class_of(i) == "st_global")
    assert fma in g.deps_of(st)               # the store reads the fma's result


def test_saxpy_tail_gives_two_weighted_warp_classes():
    kg, _ = _saxpy(40, 2, 64, 4)              # warps 0, 1 work (1 partly); warps 2, 3 are out of bounds
    assert sorted(c.weight for c in kg.warp_classes) == [2.0, 2.0]
    sizes = sorted(len(c.idg) for c in kg.warp_classes)
    assert sizes[0] < sizes[1] == 20
    short = min(kg.warp_classes, key=lambda c: len(c.idg)).idg
    assert "fma_f32" not in short.class_counts()


def test_trace_cap_and_register_edges_by_hand():
    trace = [{"opcode": "ld", "dsts": ("%r1",), "srcs": ("[%rd1]",)},
             {"opcode": "add", "dsts": ("%r2",), "srcs": ("%r1", "1")},
             {"opcode": "add", "dsts": ("%r1",), "srcs": ("%r2", "%r1")},
             {"opcode": "st", "dsts": ("[%rd1]",), "srcs": ("%r1",)}]
    cls = {"ld": "ld_global_s32", "add": "add_f32", "st": "ld_global_s32"}
    built = kernel_graph_from_traces("k", {0: trace, 1: trace * 2}, lambda e: cls[e["opcode"]], max_nodes=4)
    kg, info = built.graph, built.info
    assert info.truncated_warps == 1 and len(kg.warp_classes) == 1 and kg.warp_classes[0].weight == 2
    g = kg.warp_classes[0].idg
    assert [list(g.deps_of(i)) for i in range(4)] == [[], [0], [0, 1], [2]]


def test_a_fill_source_links_each_hit_to_the_warps_latest_earlier_instance():
    """pc 1 waits for pc 0's fill (mapper g's fill sources): in a loop of two iterations each pc 1
    node names the pc 0 node of its own iteration; pc 0 itself names nothing."""
    from pipeperf.idg.build import warp_idg

    body = [{"pc": 0, "opcode": "ld", "dsts": ("%r1",), "srcs": ("[%rd1]",)},
            {"pc": 1, "opcode": "ld", "dsts": ("%r2",), "srcs": ("[%rd1+4]",)},
            {"pc": 2, "opcode": "add", "dsts": ("%r3",), "srcs": ("%r2", "1")}]
    g = warp_idg("k", body * 2, lambda e: e["opcode"], fills={1: 0})
    assert g.fill.tolist() == [-1, 0, -1, -1, 3, -1]
    assert warp_idg("k", body * 2, lambda e: e["opcode"]).fill is None


def test_cut_traces_end_at_the_barriers_every_warp_of_the_block_reached():
    """Two warps of one block: warp 0 does 1 instruction between barriers, warp 1 does 3. Cut at 8
    instructions, warp 0 has met 4 barriers and warp 1 two; the IDGs keep both up to their second
    barrier (no false deadlock), and what is kept says so for the extrapolation."""
    def e(op: str) -> dict:
        return {"pc": 0 if op == "bar.sync" else 1, "opcode": op, "dsts": [], "srcs": []}

    cls = {"bar.sync": "bar_sync", "add.s32": "add_s32"}
    w0 = [e("add.s32"), e("bar.sync")] * 8
    w1 = [e("add.s32")] * 3 + [e("bar.sync")] + [e("add.s32")] * 3 + [e("bar.sync")] + [e("add.s32")] * 10
    built = kernel_graph_from_traces("k", {0: w0, 1: w1}, lambda x: cls[x["opcode"]], max_nodes=8,
                                     warps_per_group=2)
    kg, info = built.graph, built.info
    kg.check_barriers()
    assert sorted(c.idg.n_barriers for c in kg.warp_classes) == [2, 2]
    assert sorted(len(c.idg) for c in kg.warp_classes) == [4, 8]
    assert info.instructions_kept == 12 and info.truncated_warps == 2
