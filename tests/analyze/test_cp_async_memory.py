"""Mapper g on ``cp.async`` copies (sm_80+): the copy's global source is analysed as a global load
of cp-size bytes per lane (coalescing, L1 for ``.ca`` only, L2, DRAM bytes), and its PC gets a
global load's memory class; a tensor-core GEMM that loads every tile with cp.async has its tiles'
DRAM traffic in its floors."""

import pytest

from pipeperf.analysis import analyze

SRC = "tests/analyze/cp_async_copy.cu"   # (not in the corpus: no manifest reference outputs)
GPU = "ampere_a100_80gb"
CTAS, THREADS = 8, 256                  # 8 CTAs of 8 warps: every warp traced


def _rows(kernel, args):
    a = analyze(SRC, str(CTAS), str(THREADS), args, [GPU], kernel=kernel, arch="sm_80", what_if=False)
    p = a.predictions[0]
    return [r for r in p.memory if r["opcode"].startswith("cp.async")], p


@pytest.fixture(scope="module")
def runs():
    return {"ca4": _rows("copy_ca4", ["x=rand:f32:2048", "y=zeros:f32:2048"]),
            "cg16": _rows("copy_cg16_twice", ["x=rand:f32:8192", "y=zeros:f32:2048"]),
            "ca16": _rows("copy_ca16_twice", ["x=rand:f32:8192", "y=zeros:f32:2048"])}


def test_a_coalesced_copy_is_a_global_load_of_its_cp_size(runs):
    (ca4,), _ = runs["ca4"]
    (first, _), _ = runs["cg16"]
    for r, size in ((ca4, 4), (first, 16)):
        assert r["space"] == "global" and r["requests"] == CTAS * THREADS // 32
        # 32 lanes x cp-size bytes, consecutive: 32 * size / 32 sectors per warp request
        assert r["sectors_per_request"] == r["min_sectors_per_request"] == size
        # first touch of each sector: an L2 miss, read from DRAM once
        assert r["l2_hit_rate"] == 0 and r["dram_read_bytes"] == CTAS * THREADS * size
        assert r["dram_write_bytes"] == 0
        assert r["base_class"] == "ld_global_s32"
    # lambda on the memory pipes follows the sectors: 16 sectors a request cost more than 4
    assert first["cpi"] > 3 * ca4["cpi"]


def test_cg_bypasses_l1_and_ca_hits_it(runs):
    (_, cg_again), _ = runs["cg16"]
    (_, ca_again), _ = runs["ca16"]
    # the second copy of the same bytes: .cg (cached in L2 only) hits L2, .ca hits the L1
    assert cg_again["l1_hit_rate"] == 0 and cg_again["l2_hit_rate"] == 1 and cg_again["dram_read_bytes"] == 0
    assert ca_again["l1_hit_rate"] == 1 and ca_again["dram_read_bytes"] == 0
    assert ca_again["latency"] < cg_again["latency"]


def test_copies_count_in_the_dram_floor(runs):
    _, p = runs["cg16"]
    # x read once (8 CTAs x 256 lanes x 16 B), y written once (8 x 256 x 4 B)
    assert p.floors.dram_bytes == pytest.approx(CTAS * THREADS * 16 + CTAS * THREADS * 4)
