"""The "coalesced global accesses" what-if only removes sectors: it must never predict a slowdown.

It used to, on a column gather at low occupancy (0.25x "faster"): the sectors it removed were the
L1/L2 hits, so the few sectors left read as misses and the request's latency rose from an L1
hit's to DRAM's. A coalesced request still waits for the same data from the same levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pipeperf.hardware.accesses import PcMemory
from pipeperf.hardware.memory_classes import global_class, ideal_stats, l1_class
from pipeperf.hardware.spec import load_gpu

KERNELS = Path(__file__).with_name("kernels") / "column_access.cu"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(requests=st.integers(1, 500), per_request=st.integers(2, 32), hit=st.floats(0, 1), l1=st.floats(0, 1),
       intra=st.floats(0, 1), shared_by=st.floats(1, 8), need=st.integers(1, 4), dram_cpi=st.floats(0.5, 50))
def test_coalescing_never_raises_lambda_or_latency(requests, per_request, hit, l1, intra, shared_by, need, dram_cpi):
    sectors = requests * per_request
    min_sectors = min(sectors - 1, requests * need)
    l2_hits = int(hit * sectors)
    l1_hits = int(l1 * l2_hits)
    # an L1 hit is on a sector the CTA itself loaded before (L1 is the CTA's share of the SM's), so
    # it is an intra-CTA hit too: intra_hits >= l1_hits, as the cache model counts them
    stats = {0: PcMemory(0, "global", requests=requests, sectors=sectors, l2_hits=l2_hits,
                         intra_hits=max(l1_hits, int(intra * l2_hits)), l1_hits=l1_hits, shared_by=shared_by,
                         min_sectors=min_sectors)}
    fixed = ideal_stats(stats, "coalesced global accesses")[0]
    gpu = load_gpu("ampere_a100")
    base, l2, l1c = gpu.classes["ld_global_s32"], gpu.classes["ld_global_l2"], l1_class(gpu)
    before = global_class(base, stats[0], l2, "x", dram_cpi, l1c)
    after = global_class(base, fixed, l2, "x", dram_cpi, l1c)
    assert after.cpi <= before.cpi * (1 + 1e-9)
    assert after.latency <= before.latency * (1 + 1e-9)
    # DRAM sectors never grow; they stay where the removed sectors were all redundant re-touches (hits)
    dram_before, dram_after = sectors * (1 - stats[0].hit_rate), fixed.sectors * (1 - fixed.hit_rate)
    assert dram_after <= dram_before + 1e-6
    if l2_hits >= sectors - min_sectors and shared_by == 1.0:
        assert dram_after == pytest.approx(dram_before, abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("kernel, grid", [("gather_cols", "4,4"), ("gather_cols", "64,64"),
                                          ("transpose_naive", "4,4"), ("transpose_naive", "64,64")])
def test_coalesced_what_if_is_never_a_slowdown(cli, kernel, grid):
    rc, out, err = cli("analyze", str(KERNELS), "--kernel", kernel, "--grid", grid, "--block", "32,8",
                       "--arg", "in=rand:f32:4194304", "--arg", "out=zeros:f32:4194304", "--arg", "n=2048",
                       "--gpu", "ampere_a100", "--gpu", "hopper_h100", "--gpu", "volta_v100", "--json")
    assert rc == 0, err
    for k in json.loads(out)["kernels"]:
        w = k["what_if"]["coalesced global accesses"]
        assert w["speedup"] >= 1.0, (k["gpu"], w)
