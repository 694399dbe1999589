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
    with pytest.raises(PipeperfError, match="expected 1..1024"):
        occupancy("9.0", 2048, 32)
    with pytest.raises(PipeperfError, match="compute capability 6.1"):
        occupancy("6.1", 128, 32)


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
