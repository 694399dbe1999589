"""Occupancy calculator against hand-computed cases (REFERENCE.md and the CUDA calculator's rules)."""

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.occupancy import occupancy


def test_registers_limit_cc80():
    # 64 regs x 32 threads = 2048 per warp; 16384 / 2048 = 8 warps per sub-partition, 32 per SM
    o = occupancy("8.0", 256, 64)
    assert (o.blocks_per_sm, o.occupancy, o.limited_by) == (4, 0.5, "registers")


def test_shared_limit_cc80_with_reservation():
    # 48 KB + 1 KB reserved = 49 KB per block; 164 KB / 49 KB = 3
    o = occupancy("8.0", 128, 32, shared_per_block=48 * 1024)
    assert (o.blocks_per_sm, o.limited_by) == (3, "shared memory")


def test_registers_limit_cc86():
    o = occupancy("8.6", 256, 64)
    assert o.blocks_per_sm == 4 and o.occupancy == pytest.approx(2 / 3)


def test_block_limit_cc90_small_blocks():
    # 32 threads, few registers: 64 warps would fit but only 32 blocks may be resident
    o = occupancy("9.0", 32, 16)
    assert (o.blocks_per_sm, o.active_warps, o.limited_by) == (32, 32, "blocks")


def test_warp_limit_cc75():
    o = occupancy("7.5", 1024, 16)
    assert (o.blocks_per_sm, o.occupancy, o.limited_by) == (1, 1.0, "warps")


def test_register_granularity_cc70():
    # 40 regs x 32 = 1280 -> rounded to 1280 (5 x 256); 16384 // 1280 = 12 warps per sub-partition
    # -> 48 warps; blocks of 8 warps -> 6
    o = occupancy("7.0", 256, 40)
    assert (o.blocks_per_sm, o.limited_by) == (6, "registers")
    # 33 regs x 32 = 1056 -> 1280 as well
    assert occupancy("7.0", 256, 33).blocks_per_sm == 6


def test_dynamic_shared_counts_and_unit_rounding_cc90():
    # 10 000 + 1024 reserved = 11 024 -> 11 136 (87 x 128); 228 KB = 233 472 / 11 136 = 20
    o = occupancy("9.0", 64, 32, shared_per_block=0, dynamic_shared=10_000)
    assert o.limits["shared memory"] == 20


def test_impossible_launches():
    with pytest.raises(PipeperfError, match="exceed"):
        occupancy("7.5", 128, 32, shared_per_block=70 * 1024)
    with pytest.raises(PipeperfError, match=r"expected 1..1024"):
        occupancy("9.0", 2048, 32)
    with pytest.raises(PipeperfError, match=r"compute capability 1.3"):   # Tesla: no rules here
        occupancy("1.3", 128, 32)


# issue 7: registers-, shared-memory- and block-limited launches on each of sm_70, sm_80, sm_90
@pytest.mark.parametrize("cc, threads, regs, smem, expect", [
    # 40 KB per block (no reservation on Volta, 256-B units): 96 KB / 40 KB = 2
    ("7.0", 128, 32, 40 * 1024, (2, "shared memory")),
    # one-warp blocks with few registers: 64 warps would fit, 32 blocks may be resident
    ("7.0", 32, 16, 0, (32, "blocks")),
    ("8.0", 32, 16, 0, (32, "blocks")),
    # 128 regs x 32 = 4096 per warp: 4 warps per sub-partition = 16 per SM = 2 blocks of 8 warps
    ("9.0", 256, 128, 0, (2, "registers")),
    # 100 KB + 1 KB reserved = 101 KB -> 228 KB / 101 KB = 2
    ("9.0", 128, 32, 100 * 1024, (2, "shared memory")),
])
def test_limiting_resource_by_hand(cc, threads, regs, smem, expect):
    o = occupancy(cc, threads, regs, shared_per_block=smem)
    assert (o.blocks_per_sm, o.limited_by) == expect


# Older compute capabilities (CUDA_Occupancy_Calculator.xls rules). Per-SM limits used below:
#   2.0: 48 warps, 8 blocks, 32 768 registers in units of 64 per warp, warp granularity 2,
#        <= 63 regs/thread, 48 KB shared in 128-B units
#   3.0: 64 warps, 16 blocks, 65 536 registers in units of 256, granularity 4, <= 63 regs/thread,
#        48 KB shared in 256-B units          (3.5: the same with <= 255 regs/thread)
#   5.0: 64 warps, 32 blocks, 65 536 / 256 / 4, 64 KB shared per SM, 48 KB per block, 256-B units
#   6.1: as 5.0 with 96 KB shared per SM      (6.0: as 5.0 with warp granularity 2)
@pytest.mark.parametrize("cc, threads, regs, smem, expect", [
    # --- 2.0 (Fermi C2050)
    # 40 x 32 = 1280 regs/warp (20 x 64); 32768 // 1280 = 25 -> rounded down to even 24 warps;
    # blocks of 5 warps -> 24 // 5 = 4 (without the granularity it would be 25 // 5 = 5)
    ("2.0", 160, 40, 0, (4, "registers", 20 / 48)),
    # 10 000 B -> 10 112 (79 x 128); 49152 // 10112 = 4; regs: 20 x 32 = 640, 32768 // 640 = 51
    # -> 50 warps // 4 = 12; warps 48 // 4 = 12
    ("2.0", 128, 20, 10_000, (4, "shared memory", 16 / 48)),
    # 2-warp blocks: warps 24, regs 512/warp -> 64 warps -> 32, shared 3700 -> 3712 -> 13; cap 8
    ("2.0", 64, 16, 3_700, (8, "blocks", 16 / 48)),
    # 32-warp blocks: 48 // 32 = 1 (regs 64 warps // 32 = 2)
    ("2.0", 1024, 16, 0, (1, "warps", 32 / 48)),
    # --- 3.0 (Kepler GTX 650 Ti)
    # 63 x 32 = 2016 -> 2048; 65536 // 2048 = 32 warps; blocks of 8 -> 4
    ("3.0", 256, 63, 0, (4, "registers", 0.5)),
    # 1280 regs/warp; 65536 // 1280 = 51 -> 48 (multiple of 4); blocks of 17 warps -> 2 (warps: 3)
    ("3.0", 544, 40, 0, (2, "registers", 34 / 64)),
    # 20 000 B -> 20 224 (79 x 256); 49152 // 20224 = 2; regs 1024/warp -> 64 warps -> 16
    ("3.0", 128, 32, 20_000, (2, "shared memory", 8 / 64)),
    # one-warp blocks: warps 64, regs 512/warp -> 128 warps -> 128; cap 16
    ("3.0", 32, 16, 0, (16, "blocks", 16 / 64)),
    # 3.5 allows 64 registers: 2048/warp -> 32 warps -> 4 blocks of 8
    ("3.5", 256, 64, 0, (4, "registers", 0.5)),
    # --- 5.0 (Maxwell K620)
    # 64 x 32 = 2048; 32 warps; blocks of 8 -> 4
    ("5.0", 256, 64, 0, (4, "registers", 0.5)),
    # 40 KB = 40 960 (160 x 256); 65536 // 40960 = 1
    ("5.0", 128, 32, 40 * 1024, (1, "shared memory", 4 / 64)),
    # 20 000 -> 20 224; 65536 // 20224 = 3
    ("5.0", 128, 32, 20_000, (3, "shared memory", 12 / 64)),
    # one-warp blocks: warps 64, regs 128; cap 32
    ("5.0", 32, 16, 0, (32, "blocks", 0.5)),
    # --- 6.1 (Pascal GTX 1060)
    # 128 x 32 = 4096; 65536 // 4096 = 16 warps; blocks of 4 -> 4
    ("6.1", 128, 128, 0, (4, "registers", 0.25)),
    # 40 KB: 98304 // 40960 = 2 (one more than on 5.0's 64 KB)
    ("6.1", 128, 32, 40 * 1024, (2, "shared memory", 8 / 64)),
    # 20 000 -> 20 224; 98304 // 20224 = 4
    ("6.1", 128, 32, 20_000, (4, "shared memory", 16 / 64)),
    ("6.1", 32, 16, 0, (32, "blocks", 0.5)),
    # 32-warp blocks: warps 64 // 32 = 2 = regs (1024/warp -> 64 warps // 32 = 2): warps named first
    ("6.1", 1024, 32, 0, (2, "warps", 1.0)),
    # 25-warp blocks, 40 regs: 65536 // 1280 = 51 -> 48 (granularity 4) -> 48 // 25 = 1
    ("6.1", 800, 40, 0, (1, "registers", 25 / 64)),
    # --- 6.0: granularity 2 keeps 50 warps -> 50 // 25 = 2 blocks, the warp limit (64 // 25 = 2) too
    ("6.0", 800, 40, 0, (2, "warps", 50 / 64)),
])
def test_older_compute_capabilities_by_hand(cc, threads, regs, smem, expect):
    o = occupancy(cc, threads, regs, shared_per_block=smem)
    assert (o.blocks_per_sm, o.limited_by) == expect[:2]
    assert o.occupancy == pytest.approx(expect[2])


def test_fermi_shared_unit_is_128_bytes():
    # 3700 B -> 3712 (29 x 128): 49152 // 3712 = 13; with 256-B units (3840) it would be 12
    assert occupancy("2.0", 64, 16, shared_per_block=3_700).limits["shared memory"] == 13
    # 6.1 rounds to 256 B: 3840 -> 98304 // 3840 = 25
    assert occupancy("6.1", 64, 16, shared_per_block=3_700).limits["shared memory"] == 25


def test_older_compute_capabilities_reject_what_cannot_launch():
    # 63 registers/thread at most on 2.0 and 3.0 (255 from 3.5)
    for cc in ("2.0", "3.0"):
        with pytest.raises(PipeperfError, match=r"expected 0..63 on compute capability"):
            occupancy(cc, 128, 64)
    # 48 KB per block on every one of them, though 5.0 has 64 KB and 6.1 96 KB per SM
    for cc in ("2.0", "3.0", "5.0", "6.1"):
        with pytest.raises(PipeperfError, match="exceed the 49152 bytes"):
            occupancy(cc, 128, 32, shared_per_block=48 * 1024 + 1)
    # Fermi, 23-warp blocks of 44 regs: 44 x 32 = 1408 (22 x 64); 32768 // 1408 = 23 -> 22 (even)
    # warps < 23: no block fits, although 23 x 1408 = 32 384 <= 32 768 registers
    with pytest.raises(PipeperfError, match="limited by registers"):
        occupancy("2.0", 736, 44)


def _subpartition_rule(cc, threads, regs):
    """The 7.0-9.0 register rule before the generalisation: 4 sub-partitions of 16 384 registers."""
    rpw = -(-regs * 32 // 256) * 256
    return (16384 // rpw) * 4 // -(-threads // 32)


@pytest.mark.parametrize("cc", ["7.0", "7.5", "8.0", "8.6", "8.9", "9.0"])
def test_newer_register_limits_unchanged(cc):
    # the spreadsheet's floor(65536 / regs per warp) rounded down to 4 equals 4 x floor(16384 / it)
    for threads in (32, 96, 128, 160, 256, 384, 544, 800, 1024):
        for regs in range(1, 256, 3):
            try:
                got = occupancy(cc, threads, regs).limits["registers"]
            except PipeperfError:
                got = 0
            assert got == _subpartition_rule(cc, threads, regs), (threads, regs)


@pytest.mark.parametrize("gpu, cc", [("fermi_c2050", "2.0"), ("kepler_gtx650ti", "3.0"),
                                     ("maxwell_k620", "5.0"), ("pascal_gtx1060", "6.1")])
def test_seed_gpus_use_the_rules_in_analyze(gpu, cc):
    from pipeperf.hardware.occupancy import resident_blocks
    from pipeperf.hardware.spec import load_gpu

    # 256 threads x 36 regs: 1152 regs/warp. 2.0: 32768 // 1152 = 28 warps -> 3 blocks of 8 (the
    # former spec fallback said min(48 // 8, 8) = 6); 3.0+: 1152 -> 1280 (256 units),
    # 65536 // 1280 = 51 -> 48 warps -> 6 blocks
    blocks, occ, limiter, source = resident_blocks(load_gpu(gpu), 8, 256, {"registers": 36, "shared_bytes": 0})
    assert source == f"CUDA occupancy rules cc {cc}" and limiter == "registers"
    assert (blocks, occ) == ((3, 0.5) if cc == "2.0" else (6, 0.75))
