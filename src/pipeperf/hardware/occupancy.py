"""Occupancy: how many blocks (groups) of a kernel are resident per SM, and what limits them.

The CUDA occupancy calculator's rules, reimplemented (REFERENCE.md, "Occupancy rules"; CUDA C
Programming Guide, "Compute Capabilities"): blocks per SM = min(warp limit, register limit,
shared-memory limit, block limit). Registers are allocated per warp in units of 256 within each
of the 4 sub-partitions (16 384 registers each); shared memory per block is the static plus
dynamic size plus a per-block reservation, rounded up to the allocation unit. The Pipeline model
takes M (concurrent groups) from here.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from pipeperf.errors import PipeperfError

KB = 1024


@dataclass(frozen=True)
class SMLimits:
    """Per-SM resources of one compute capability (CUDA C Programming Guide, Table 'Technical
    Specifications per Compute Capability'; shared-memory reservation and units as the CUDA
    occupancy calculator applies them)."""

    cc: str
    max_warps: int
    max_blocks: int
    max_shared: int              # bytes per SM (largest carve-out)
    max_shared_per_block: int    # bytes, with the opt-in attribute
    reserved_shared: int         # bytes the driver reserves per block
    shared_unit: int             # allocation granularity, bytes
    registers: int = 65536
    reg_unit: int = 256          # registers allocated per warp in multiples of this
    subpartitions: int = 4
    max_regs_per_thread: int = 255
    max_threads_per_block: int = 1024


LIMITS: dict[str, SMLimits] = {
    "7.0": SMLimits("7.0", 64, 32, 96 * KB, 96 * KB, 0, 256),
    "7.5": SMLimits("7.5", 32, 16, 64 * KB, 64 * KB, 0, 256),
    "8.0": SMLimits("8.0", 64, 32, 164 * KB, 163 * KB, 1 * KB, 128),
    "8.6": SMLimits("8.6", 48, 16, 100 * KB, 99 * KB, 1 * KB, 128),
    "8.9": SMLimits("8.9", 48, 24, 100 * KB, 99 * KB, 1 * KB, 128),
    "9.0": SMLimits("9.0", 64, 32, 228 * KB, 227 * KB, 1 * KB, 128),
}


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_block: int
    active_warps: int
    occupancy: float             # active warps / max warps
    limited_by: str              # warps | registers | shared memory | blocks
    limits: dict[str, float]     # blocks per SM allowed by each resource

    def to_dict(self) -> dict:
        return asdict(self)


def occupancy(cc: str, threads_per_block: int, registers_per_thread: int,
              shared_per_block: int = 0, dynamic_shared: int = 0) -> Occupancy:
    """Resident blocks per SM for a launch; raises PipeperfError if the block cannot run at all."""
    if cc not in LIMITS:
        raise PipeperfError(f"no occupancy rules for compute capability {cc} (known: {', '.join(LIMITS)})")
    lim = LIMITS[cc]
    if not 1 <= threads_per_block <= lim.max_threads_per_block:
        raise PipeperfError(f"block of {threads_per_block} threads: expected 1..{lim.max_threads_per_block}")
    if not 0 <= registers_per_thread <= lim.max_regs_per_thread:
        raise PipeperfError(f"{registers_per_thread} registers per thread: expected 0..{lim.max_regs_per_thread}")
    smem = shared_per_block + dynamic_shared
    if smem > lim.max_shared_per_block:
        raise PipeperfError(f"{smem} bytes of shared memory per block exceed the {lim.max_shared_per_block} "
                            f"bytes a block may use on compute capability {cc}")
    warps = math.ceil(threads_per_block / 32)
    by_warps = lim.max_warps // warps
    if registers_per_thread > 0:
        regs_per_warp = _round_up(registers_per_thread * 32, lim.reg_unit)
        warps_per_sub = (lim.registers // lim.subpartitions) // regs_per_warp
        by_regs = (warps_per_sub * lim.subpartitions) // warps
    else:
        by_regs = math.inf                  # a kernel without registers is not register-limited
    if smem > 0:
        per_block = _round_up(smem + lim.reserved_shared, lim.shared_unit)
        by_smem = lim.max_shared // per_block
    else:
        by_smem = math.inf
    limits = {"warps": by_warps, "registers": by_regs, "shared memory": by_smem, "blocks": lim.max_blocks}
    blocks = int(min(limits.values()))
    if blocks == 0:
        worst = min(limits, key=limits.get)
        raise PipeperfError(f"a block of {threads_per_block} threads with {registers_per_thread} registers/thread "
                            f"and {smem} B shared memory cannot be resident on compute capability {cc} "
                            f"(limited by {worst})")
    limited_by = next(k for k in ("warps", "registers", "shared memory", "blocks") if limits[k] == blocks)
    active = blocks * warps
    return Occupancy(blocks, warps, active, active / lim.max_warps, limited_by, limits)


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit
