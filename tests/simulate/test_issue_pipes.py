"""The FMA and ALU pipes of Volta and later SMs, and the L2 slices beside DRAM, worked out by hand.

Volta through Hopper issue FP32 and IMAD to the FMA pipe and integer add/compare/logic/moves to a
separate ALU pipe, each 16 lanes wide (2 cycles per warp per sub-partition, 0.5 per SM), behind
one issue port per sub-partition (issue limit 4 per SM). A memory request served by L2 alone
uses the L2 slices, not the DRAM bandwidth share, so it does not queue behind DRAM requests."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.hardware.mapper import resolve
from pipeperf.hardware.accesses import PcMemory
from pipeperf.hardware.memory_classes import ONE_LEVEL, global_class
from pipeperf.hardware.spec import InstrClass, available_gpus, load_gpu
from pipeperf.idg.io import load_kernel
from pipeperf.simulate.simulator import PreparedKernel

MODERN = [n for n in available_gpus() if load_gpu(n).compute_capability
          and float(load_gpu(n).compute_capability) >= 7.0]


@pytest.mark.parametrize("name", MODERN)
def test_integer_alu_and_imad_sit_on_different_pipes(name):
    """IMAD (mul_s32) shares the FP32 pipe; integer add (add_s32, the ALU pipe) does not."""
    g = load_gpu(name)
    sub = {c: g.classes[resolve(c, g.classes, name)].subsystem for c in ("add_s32", "mul_s32", "fma_f32")}
    assert sub["mul_s32"] == sub["fma_f32"] != sub["add_s32"], sub
    assert g.issue_limit == 4


def _kernel(tmp_path, reps: int):
    body = "".join(f"  - {{id: m{i}a, class: mul_s32}}\n  - {{id: m{i}b, class: mul_s32}}\n"
                   f"  - {{id: a{i}a, class: add_s32}}\n  - {{id: a{i}b, class: add_s32}}\n" for i in range(reps))
    (tmp_path / "k.yaml").write_text("name: imad_iadd\ninstructions:\n" + body)
    return load_kernel(str(tmp_path / "k.yaml"))


def test_imad_and_iadd_overlap_on_an_a100(tmp_path):
    """32 warps x 64 x (2 IMAD + 2 IADD), all independent: each pipe needs 2 x 0.5 = 1 cycle per
    warp and repetition, and so does the issue limit (4 instructions / 4 per cycle): 32 x 64 = 2048
    cycles. On one pipe the same work takes 4 x 0.5 x 2048 = 4096."""
    g = load_gpu("ampere_a100")
    r = PreparedKernel(_kernel(tmp_path, 64), g).run(32, 1, 1, check_limits=False)
    assert r.cycles == pytest.approx(2048, rel=0.05)
    one = g.with_classes(add_s32=InstrClass("add_s32", "alu", 0.5, 4, "test", True))
    r1 = PreparedKernel(_kernel(tmp_path, 64), one).run(32, 1, 1, check_limits=False)
    assert r1.cycles == pytest.approx(4096, rel=0.05)


def _row(l2_hits: int, l1_hits: int = 0) -> PcMemory:
    return PcMemory(pc=0, space="global", requests=10, sectors=40, l2_hits=l2_hits, l1_hits=l1_hits)


def test_a_request_served_by_one_level_uses_that_levels_pipe():
    """All sectors in L2 -> the L2 class's pipe (lambda: 1 reference request at L2's cpi);
    a DRAM share above 1 - ONE_LEVEL -> the DRAM (mem) pipe; all in L1 -> the L1 pipe."""
    g = load_gpu("ampere_rtx3090")
    base, l2 = g.classes["st_global"], g.classes["ld_global_l2"]
    l1 = InstrClass("l1", "lsu", 1.0, 33, "test", True)
    hit = global_class(base, _row(40), l2, "x")
    assert (hit.subsystem, hit.cpi) == ("l2", pytest.approx(l2.cpi))
    assert global_class(base, _row(int(40 * ONE_LEVEL) - 1), l2, "x").subsystem == "mem"
    assert global_class(base, _row(40, l1_hits=40), l2, "x", l1=l1).subsystem == "lsu"


def test_l2_hits_do_not_queue_behind_dram_requests(tmp_path):
    """One warp, 8 x (a DRAM store, lambda 19.01, then 3 stores whose sectors are in L2, lambda
    7.51): on one pipe 8 x (19.01 + 3 x 7.51) = 332 cycles of pipe time; on two, the DRAM pipe's
    8 x 19.01 = 152 plus the last L2 store's latency at most."""
    g = load_gpu("ampere_rtx3090")
    body = "".join(f"  - {{id: d{i}, class: st_global}}\n" + "".join(
        f"  - {{id: h{i}{j}, class: st_l2}}\n" for j in range(3)) for i in range(8))
    (tmp_path / "k.yaml").write_text("name: stores\ninstructions:\n" + body)
    st = g.classes["st_global"]
    for sub, low, high in (("l2", 8 * 19.01, 8 * 19.01 + 3 * 7.51 + 211), ("mem", 8 * (19.01 + 3 * 7.51), 1e9)):
        spec = g.with_classes(st_l2=InstrClass("st_l2", sub, 7.51, 211, "test", True),
                              st_global=InstrClass("st_global", "mem", 19.01, st.latency, "test", True))
        r = PreparedKernel(load_kernel(str(tmp_path / "k.yaml")), spec).run(1, 1, 1, check_limits=False)
        assert low <= r.cycles <= high, (sub, r.cycles)


def test_l2_hits_share_the_measured_l2_bandwidth_among_active_sms():
    """A100: 3833 B/clk measured (memory.l2_bandwidth_bytes_per_clk): a 128-B request per SM costs
    128 / (3833 / 108) = 3.61 cycles with every SM busy, 128 / (3833 / 64) = 2.14 with 64."""
    from pipeperf.hardware.memory_classes import l2_class

    g = load_gpu("ampere_a100")
    assert l2_class(g, 108).cpi == pytest.approx(128 / (3833 / 108))
    assert l2_class(g, 64).cpi == pytest.approx(128 / (3833 / 64))
    assert l2_class(g, 10_000).cpi == l2_class(g, 108).cpi
    bare = load_gpu("ada_rtx4090")                 # no measured L2 bandwidth: the file's class
    assert l2_class(bare, 10).cpi == bare.classes["ld_global_l2"].cpi


def test_an_in_place_update_larger_than_l2_writes_back_at_dram_bandwidth():
    """saxpy y = a*x + y: the store hits the sector its load brought in. L2 is write-back: over a
    stream far larger than the L2 (3 x 256 MB against the H200's 50 MB) each dirty sector is
    evicted to DRAM during the kernel, so the launch moves 3 x 256 MB through DRAM and cannot beat
    the achievable bandwidth (3887 GB/s read): >= 768 MB / 3887 GB/s = 207 us at the read rate.
    Over 3 x 4 MB the dirty sectors stay in L2 to the kernel's end: the store is an L2 hit."""
    from pathlib import Path

    from pipeperf.analysis import analyze

    cu = Path(__file__).resolve().parents[1] / "kernels" / "saxpy.cu"
    for n, hit in ((1 << 26, 0.0), (1 << 20, 1.0)):
        a = analyze(cu, [n // 256], [256], [f"n={n}", "a=2", f"x=rand:f32:{n}", f"y=rand:f32:{n}"],
                    ["hopper_h200"], kernel="saxpy", what_if=False).predictions[0]
        st = [r for r in a.memory if r["opcode"].startswith("st.global")]
        assert st and st[0]["l2_hit_rate"] == pytest.approx(hit)
        if hit == 0.0:
            assert a.seconds >= 0.99 * 3 * n * 4 / 3887e9


def test_a_spatial_sample_of_sectors_keeps_the_hit_rate():
    """SHARDS: following 1 in R sectors (by hash) with the cache scaled by 1/R estimates the hit
    rate of the whole stream. A cyclic sweep over 3000 sectors, 20 times: with room for 4000 every
    pass after the first hits (95 %), with room for 2000 none does (LRU on a cyclic sweep)."""
    from pipeperf.hardware.cache_model import l2_hits, sector_sample

    sectors = np.tile(np.arange(3000, dtype=np.int64) * 7919, 20)
    order = np.arange(len(sectors))
    keep, r = sector_sample(sectors, limit=len(sectors) // 4)
    assert r == 4 and 0.15 < keep.mean() < 0.35
    for cap, want in ((4000, 0.95), (2000, 0.0)):
        exact = l2_hits(order, sectors, cap).mean()
        sampled = l2_hits(order[keep], sectors[keep], cap / r).mean()
        assert exact == pytest.approx(want) and sampled == pytest.approx(exact, abs=0.02)
