"""Counts derivable by hand: branches, divergence, sectors, bank conflicts, FLOPs."""

from __future__ import annotations

import numpy as np
import pytest

from test_emulate_corpus import emulate_case

from pipeperf.emulate import run_kernel
from pipeperf.ptx import parse_file
import itertools


def test_saxpy_counts_by_hand():
    # n = 1000, grid 4 x block 256: 32 warps; warp 31 holds threads 992..1023, 8 in range.
    case, prof, _ = emulate_case("saxpy")
    c = prof.counts
    assert c["warps"] == 32 and c["threads"] == 1024 and c["ctas"] == 4
    assert c["branches"] == 32            # one bounds-check branch per warp
    assert c["divergent_branches"] == 1   # only warp 31 splits
    assert c["branch_efficiency"] == pytest.approx(100 * 31 / 32)
    assert c["inst_fp_32"] == 1000 and c["flop_count_sp"] == 2000  # one FMA per thread
    assert c["flop_count_sp_fma"] == 1000
    assert c["global_load_requests"] == 64 and c["global_store_requests"] == 32
    assert c["global_load_sectors"] == 2 * 125 and c["global_store_sectors"] == 125
    # thread-level: instructions up to the branch run for 1024 threads, the body for 1000,
    # the final ret for all.
    k = parse_file(case.spec.ptx_path("sm_80")).function("saxpy")
    ins = k.instructions
    b = next(i for i, x in enumerate(ins) if x.root == "bra")
    assert ins[-1].root == "ret" and k.labels[ins[b].srcs[0].name] == len(ins) - 1
    body = len(ins) - b - 2
    assert c["inst_executed_thread_all"] == 1024 * (b + 1) + 1000 * body + 1024
    assert c["inst_executed_warp"] == 32 * len(ins)


def test_shared_bank_conflicts_transpose():
    _, plain, _ = emulate_case("transpose_shared")
    _, padded, _ = emulate_case("transpose_padded")
    # 6 blocks x 8 warps x 4 tile rows: 192 warp stores, 192 warp column reads, each read
    # hitting one bank 32 times (31 extra wavefronts); the 33-column tile has none.
    assert plain.counts["shared_requests"] == 384 == padded.counts["shared_requests"]
    assert plain.counts["shared_bank_conflicts"] == 192 * 31
    assert padded.counts["shared_bank_conflicts"] == 0


def test_global_sectors_coalescing():
    _, naive, _ = emulate_case("transpose_naive")
    assert naive.counts["global_load_sectors"] == 6144 * 4 // 32     # row reads coalesced
    assert naive.counts["global_store_sectors"] == 6144                # column writes: 1 each
    _, strided, _ = emulate_case("strided_copy")
    assert strided.counts["global_load_sectors"] == 4096             # stride 33: no sharing
    assert strided.counts["global_store_sectors"] == 4096 * 4 // 32


def test_divergent_kernel_and_loop():
    _, d, _ = emulate_case("divergent")
    assert d.counts["divergent_branches"] > 0
    assert d.counts["branch_efficiency"] < 100
    _, m, _ = emulate_case("matmul_tiled")
    assert m.counts["divergent_branches"] == 0
    assert m.counts["branch_efficiency"] == 100.0


def test_fp64_and_fp16_flops():
    _, d, _ = emulate_case("daxpy")
    assert d.counts["flop_count_dp"] == 2000 and d.counts["inst_fp_64"] == 1000
    assert d.counts["flop_count_sp"] == 0
    _, h, _ = emulate_case("half2_axpy")
    assert h.counts["flop_count_hp"] > 0 and h.counts["inst_fp_16"] > 0


def test_warp_vs_thread_counts_with_partial_warp():
    # a single 40-thread block: two warps (32 + 8 threads)
    x = np.ones(40, np.float32)
    y = np.zeros(40, np.float32)
    case, _, _ = emulate_case("saxpy")
    p = run_kernel(case.spec.ptx_path("sm_80"), 1, 40, [40, np.float32(2), x, y])
    assert np.all(y == 2)
    n = len(parse_file(case.spec.ptx_path("sm_80")).function("saxpy").instructions)
    assert p.counts["inst_executed_warp"] == 2 * n
    assert p.counts["inst_executed_thread_all"] == 40 * n
    assert p.counts["divergent_branches"] == 0


def test_multi_batch_equals_single_batch():
    case, _, _ = emulate_case("reduce_shared")
    spec = case.spec
    a1, a2 = case.fresh_args(), case.fresh_args()
    p1 = run_kernel(spec.ptx_path("sm_80"), spec.grid, spec.block, a1)
    p2 = run_kernel(spec.ptx_path("sm_80"), spec.grid, spec.block, a2, batch_threads=256)
    assert np.array_equal(a1[1], a2[1])
    for k in ("inst_executed_warp", "branches", "divergent_branches", "shared_bank_conflicts",
              "global_load_sectors"):
        assert p1.counts[k] == p2.counts[k]


def test_traces_record_active_lanes():
    case, _, _ = emulate_case("saxpy")
    spec = case.spec
    p = run_kernel(spec.ptx_path("sm_80"), spec.grid, spec.block, case.fresh_args(),
                   trace_warps=32)
    t31 = p.traces[31]
    stores = [e for e in t31 if e["opcode"].startswith("st.global")]
    assert len(stores) == 1 and stores[0]["active"] == 0xFF   # 8 active lanes
    addrs = stores[0]["addresses"]
    assert len(addrs) == 8 and all(b - a == 4 for a, b in itertools.pairwise(addrs))
    assert p.traces[0][0]["category"] and p.traces[0][0]["addresses"] is None
    assert len(p.traces[0]) == len(parse_file(spec.ptx_path("sm_80")).function("saxpy")
                                   .instructions)


def test_divergent_if_else_reconverges_at_post_dominator():
    # `divergent` splits every warp on odd/even index into two paths that join before the
    # store: had the paths not reconverged, divergent warps would issue the store twice.
    _, p, _ = emulate_case("divergent")
    w = p.by_opcode["warp"]
    assert p.counts["divergent_branches"] >= 32
    assert w["st.global.f32"] == w["ld.global.f32"]
    # both fma paths run for every warp (half the lanes each)
    t = p.by_opcode["thread"]
    assert t["fma.rn.f32"] == p.counts["inst_fp_32"]


def test_data_dependent_loop_counts_match_iterations():
    case, p, outputs = emulate_case("collatz_steps")
    steps = outputs["steps"].astype(np.int64)
    # every loop iteration issues the back-edge branch once per thread still looping
    assert p.counts["inst_executed_thread"] > int(steps.sum())
    assert p.counts["divergent_branches"] > 0
