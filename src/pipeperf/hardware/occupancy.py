"""Occupancy: how many blocks (groups) of a kernel are resident per SM, and what limits them.

The CUDA occupancy calculator's rules, reimplemented (REFERENCE.md, "Occupancy rules"; CUDA C
Programming Guide, "Compute Capabilities"; CUDA_Occupancy_Calculator.xls): blocks per SM =
min(warp limit, register limit, shared-memory limit, block limit). Registers are allocated per
warp, regs/thread x 32 rounded up to the allocation unit; the warps an SM can hold by registers
are floor(register file / registers per warp) rounded down to the warp allocation granularity
(the number of register-file sub-partitions), then divided by the warps of a block. Shared memory
per block is the static plus dynamic size plus a per-block reservation (8.0 and later), rounded
up to the allocation unit. The Pipeline model takes M (concurrent groups) from here.

:func:`resident_blocks` applies them to a GPU spec (or, where its compute capability has no rules,
the spec's resident warp and group limits); :func:`launch_residency` to a whole launch.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from pipeperf.errors import PipeperfError

if TYPE_CHECKING:
    from pipeperf.hardware.spec import GPUSpec

KB = 1024


@dataclass(frozen=True)
class SMLimits:
    """Per-SM resources of one compute capability, as the CUDA occupancy calculator uses them.

    Sources: max warps, blocks, registers, shared memory per SM and per block and max
    registers/thread from the CUDA C Programming Guide, table "Technical Specifications per
    Compute Capability"; the allocation units (registers, shared memory), the warp allocation
    granularity and the Fermi/Kepler shared-memory configuration from the "GPU Data" sheet of
    NVIDIA's CUDA_Occupancy_Calculator.xls (as transcribed by the open ports of the spreadsheet,
    e.g. xmartlabs/cuda-calculator) and NVIDIA's cuda_occupancy.h (CUDA 7.0 and later), whose
    sub-partition counts (2 on 2.x and 6.0, 4 otherwise) equal the spreadsheet's warp allocation
    granularity. The per-block shared-memory reservation (1 KB from 8.0 on, none before) is the
    calculator's "CUDA runtime shared memory" row.
    """

    cc: str
    max_warps: int
    max_blocks: int
    max_shared: int              # bytes per SM (largest carve-out / the 48 KB L1 split on 2.x-3.x)
    max_shared_per_block: int    # bytes, with the opt-in attribute
    reserved_shared: int         # bytes the driver reserves per block
    shared_unit: int             # allocation granularity, bytes
    registers: int = 65536       # 32-bit registers per SM
    reg_unit: int = 256          # registers allocated per warp in multiples of this
    warp_granularity: int = 4    # register-limited warps per SM are a multiple of this (sub-partitions)
    max_regs_per_thread: int = 255
    max_threads_per_block: int = 1024


# Rows 2.0-6.1 (CUDA C Programming Guide compute-capability table; CUDA_Occupancy_Calculator.xls
# "GPU Data"): 2.0 Fermi 48 warps / 8 blocks, 32 K registers allocated in units of 64 per warp,
# warp granularity 2, <= 63 registers/thread, 48 KB shared (the 48 KB shared / 16 KB L1 split,
# the calculator's default) in 128-B units; 3.0 Kepler 64 / 16, 64 K registers, <= 63
# registers/thread, 48 KB shared (48 KB split); 3.5 as 3.0 with 255 registers/thread; 5.0 Maxwell
# 64 / 32, 64 KB shared per SM; 5.2 96 KB; 6.0 Pascal GP100 64 KB and 2 sub-partitions (warp
# granularity 2); 6.1 96 KB. From 3.0 on registers go in units of 256 per warp and shared
# memory in 256-B units; every one of these has 48 KB per block and no per-block reservation.
# Verified against the spreadsheet's GPU Data as transcribed by its open ports, and against
# cuda_occupancy.h (CUDA 7.0: units, sub-partitions, blocks per SM for 2.x-5.x; later versions: 6.0
# has 2 sub-partitions, 6.1 has 4). Deliberate deviations: cuda_occupancy.h (CUDA 7.0) rounds
# Fermi warps of 21, 22, 29, 30, 37, 38, 45 or 46 registers/thread to 128 registers, a hardware
# quirk the spreadsheet does not model and neither do we; the ports give 5.2 32 K registers per
# block, but deviceQuery of a GTX 950 (cc 5.2) reports 65 536 registers per block, so 5.2 uses the
# whole 64 K file like 5.0.
LIMITS: dict[str, SMLimits] = {
    "2.0": SMLimits("2.0", 48, 8, 48 * KB, 48 * KB, 0, 128, registers=32768, reg_unit=64,
                    warp_granularity=2, max_regs_per_thread=63),
    "3.0": SMLimits("3.0", 64, 16, 48 * KB, 48 * KB, 0, 256, max_regs_per_thread=63),
    "3.5": SMLimits("3.5", 64, 16, 48 * KB, 48 * KB, 0, 256),
    "5.0": SMLimits("5.0", 64, 32, 64 * KB, 48 * KB, 0, 256),
    "5.2": SMLimits("5.2", 64, 32, 96 * KB, 48 * KB, 0, 256),
    "6.0": SMLimits("6.0", 64, 32, 64 * KB, 48 * KB, 0, 256, warp_granularity=2),
    "6.1": SMLimits("6.1", 64, 32, 96 * KB, 48 * KB, 0, 256),
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_shared_per_block(smem: int, cc: str | None = None) -> None:
    """Refuse ``smem`` bytes of shared memory per block where CUDA would refuse the launch: over
    compute capability ``cc``'s per-block limit (with the opt-in attribute) or, with no GPU
    named, over the largest of any GPU in the database (:func:`largest_shared_per_block`)."""
    if cc is None:
        limit, cc = largest_shared_per_block()
        if smem > limit:
            raise PipeperfError(f"{smem} bytes of shared memory per block exceed the {limit} bytes a block may "
                                f"use on any GPU of the database (compute capability {cc}, the most)")
        return
    lim = LIMITS[cc]
    if smem > lim.max_shared_per_block:
        raise PipeperfError(f"{smem} bytes of shared memory per block exceed the {lim.max_shared_per_block} "
                            f"bytes a block may use on compute capability {cc}")


def largest_shared_per_block() -> tuple[int, str]:
    """(bytes, compute capability): the largest per-block shared memory of the bundled GPUs'
    compute capabilities, the bound a launch with no GPU named must keep to."""
    from pipeperf.hardware.spec import available_gpus, load_gpu

    ccs = {load_gpu(g).compute_capability for g in available_gpus()} & set(LIMITS)
    return max((LIMITS[cc].max_shared_per_block, cc) for cc in ccs or LIMITS)


def occupancy(cc: str, threads_per_block: int, registers_per_thread: int,
              shared_per_block: int = 0, dynamic_shared: int = 0) -> Occupancy:
    """Resident blocks per SM for a launch; raises PipeperfError if the block cannot run at all."""
    if cc not in LIMITS:
        raise PipeperfError(f"no occupancy rules for compute capability {cc} (known: {', '.join(LIMITS)})")
    lim = LIMITS[cc]
    if not 1 <= threads_per_block <= lim.max_threads_per_block:
        raise PipeperfError(f"block of {threads_per_block} threads: expected 1..{lim.max_threads_per_block}")
    if not 0 <= registers_per_thread <= lim.max_regs_per_thread:
        raise PipeperfError(f"{registers_per_thread} registers per thread: expected 0..{lim.max_regs_per_thread} "
                            f"on compute capability {cc}")
    smem = shared_per_block + dynamic_shared
    check_shared_per_block(smem, cc)
    warps = math.ceil(threads_per_block / 32)
    by_warps: float = lim.max_warps // warps
    if registers_per_thread > 0:
        # CUDA_Occupancy_Calculator.xls: registers per warp rounded up to the allocation unit;
        # warps per SM = floor(register file / that) rounded down to the warp allocation
        # granularity (= per sub-partition floor(file/G / regs per warp), x G); then whole blocks
        regs_per_warp = _round_up(registers_per_thread * 32, lim.reg_unit)
        warps_by_regs = _round_down(lim.registers // regs_per_warp, lim.warp_granularity)
        by_regs: float = warps_by_regs // warps
    else:
        by_regs = math.inf                  # a kernel without registers is not register-limited
    if smem > 0:
        per_block = _round_up(smem + lim.reserved_shared, lim.shared_unit)
        by_smem: float = lim.max_shared // per_block
    else:
        by_smem = math.inf
    limits: dict[str, float] = {"warps": by_warps, "registers": by_regs, "shared memory": by_smem, "blocks": lim.max_blocks}
    blocks = int(min(limits.values()))
    if blocks == 0:
        worst = min(limits, key=lambda k: limits[k])
        raise PipeperfError(f"a block of {threads_per_block} threads with {registers_per_thread} registers/thread "
                            f"and {smem} B shared memory cannot be resident on compute capability {cc} "
                            f"(limited by {worst})")
    limited_by = next(k for k in ("warps", "registers", "shared memory", "blocks") if limits[k] == blocks)
    active = blocks * warps
    return Occupancy(blocks, warps, active, active / lim.max_warps, limited_by, limits)


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def _round_down(x: int, unit: int) -> int:
    return x // unit * unit


# -- a launch on a GPU spec: the glue between the CUDA rules above and a GPUSpec ----------------

def resident_blocks(gpu: GPUSpec, warps_per_block: int, threads: int, resources: dict[str, int],
                    dynamic_shared: int = 0) -> tuple[int, float, str, str]:
    """(blocks per SM, occupancy, limiter, source): the CUDA rules when the GPU's compute capability
    has them (2.0-9.0), else the spec's max resident warps and groups (registers, shared memory ignored).

    ptxas counts registers for the PTX's target (sm_75 or newer with nvcc 13); an older GPU whose
    per-thread limit is lower (63 on cc 2.0/3.0) is given that limit, as its own build would spill."""
    cc = str(getattr(gpu, "compute_capability", "") or "")
    if cc in LIMITS:
        regs = resources.get("registers", 0)
        cap = LIMITS[cc].max_regs_per_thread
        o = occupancy(cc, threads, min(regs, cap), resources.get("shared_bytes", 0), dynamic_shared)
        source = f"CUDA occupancy rules cc {cc}"
        if regs > cap:
            source += f"; ptxas' {regs} registers/thread counted as the cc's limit of {cap} (a build for it spills)"
        return o.blocks_per_sm, o.occupancy, o.limited_by, source
    by_warps = gpu.max_warps_per_core // warps_per_block
    by_groups = gpu.max_groups_per_core
    blocks = min(by_warps, by_groups)
    if blocks < 1:
        raise PipeperfError(f"a block of {warps_per_block} warps exceeds the {gpu.max_warps_per_core} "
                            f"resident warps of GPU '{gpu.name}'")
    limiter = "warps" if by_warps <= by_groups else "blocks"
    why = f"cc {cc} has no register/shared-memory rules here" if cc else \
        "no compute capability: registers and shared memory not checked"
    return blocks, blocks * warps_per_block / gpu.max_warps_per_core, limiter, f"spec max warps/groups ({why})"


@dataclass(frozen=True)
class Residency:
    """Occupancy of one launch on one GPU: ``blocks`` resident per SM (never more than exist),
    the occupancy rules' limit, its fraction of the SM, what limits it, and which rules said so."""

    blocks: int
    limit: int
    occupancy: float
    limited_by: str
    source: str


def launch_residency(gpu: GPUSpec, threads: int, resources: dict[str, int], dynamic_shared: int, n_blocks: int,
                     max_blocks_per_sm: int | None = None, note: str = "") -> Residency:
    """:func:`resident_blocks` of a launch of ``n_blocks`` blocks of ``threads`` threads, capped at
    ``max_blocks_per_sm`` (a carve-out or launch bound of the program) and at the blocks that exist
    per SM; ``note`` (which build's registers) is appended to the source."""
    warps = -(-threads // gpu.warp_size)         # warps of this GPU's width per block
    limit, occ, limiter, source = resident_blocks(gpu, warps, threads, resources, dynamic_shared)
    if note:
        source += f"; PTX and {resources.get('registers', 0)} registers/thread {note}"
    if max_blocks_per_sm is not None and max_blocks_per_sm < limit:
        limit, limiter = max_blocks_per_sm, "max blocks per SM (given)"
        occ = limit * warps / gpu.max_warps_per_core
        source += f"; capped at {limit} blocks per SM as the launch asks"
    blocks = max(1, min(limit, -(-n_blocks // gpu.cores)))   # never more resident than exist
    return Residency(blocks, limit, occ, limiter, source)
