"""Warps wider than the emulator's 32 lanes (AMD GCN wavefronts of 64): combine the traces.

The emulator runs CUDA semantics, 32-thread warps numbered per block. A GPU whose warp holds
``k * 32`` threads executes the k consecutive 32-thread warps of a block as one: when they follow
the same instruction sequence (the usual case, and the only one handled), the wide warp's trace
is that sequence with the lanes' active masks combined. Halves that take different paths would
execute the union of both paths on the real GPU; that is refused by name, not approximated.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from pipeperf.errors import PipeperfError


def wide_warp_traces(traces: Mapping[int, Sequence[Mapping]], threads_per_block: int, warp_size: int,
                     kernel: str = "") -> dict[int, list[Mapping]]:
    """Traces of ``warp_size``-thread warps, keyed ``block * wide_warps_per_block + j``, from the
    emulator's 32-thread warp traces (keyed ``block * warps32_per_block + i``)."""
    if warp_size % 32:
        raise PipeperfError(f"warp size {warp_size} is not a multiple of the emulator's 32 lanes")
    k = warp_size // 32
    w32 = math.ceil(threads_per_block / 32)
    wide = math.ceil(threads_per_block / warp_size)
    out: dict[int, list[Mapping]] = {}
    for wid in sorted(traces):
        block, i = divmod(wid, w32)
        key = block * wide + i // k
        t = traces[wid]
        if key not in out:
            out[key] = list(t)
            continue
        first = out[key]
        if len(first) != len(t) or any(a["pc"] != b["pc"] for a, b in zip(first, t)):
            raise PipeperfError(
                f"kernel '{kernel}': the 32-thread halves of {warp_size}-thread warp {i // k} of block "
                f"{block} take different paths; wide warps with divergent halves are not supported")
        shift = 32 * (i % k)
        out[key] = [dict(a, active=a.get("active", 0) | (b.get("active", 0) << shift)) for a, b in zip(first, t)]
    return out
