"""Warps wider than the emulator's 32 lanes (AMD GCN wavefronts of 64): combine the traces.

The emulator runs CUDA semantics, 32-thread warps numbered per block. A GPU whose warp holds
``k * 32`` threads executes the k consecutive 32-thread warps of a block as one. When they
follow the same instruction sequence (the usual case) the wide warp's trace is that sequence
with the lanes' active masks combined. When they diverge, the wide warp issues the union of
their paths (SIMT: each side of a branch with the lanes that took it, a loop as many times as
its longest-running lane): the sequences are aligned on their longest matching runs
(``difflib``), matched instructions are issued once for both, the others in order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import difflib

from pipeperf.errors import PipeperfError


def wide_warp_traces(traces: Mapping[int, Sequence[Mapping]], threads_per_block: int,
                     warp_size: int) -> dict[int, list[Mapping]]:
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
        shift = 32 * (i % k)
        out[key] = merge_paths(out[key], t, shift)
    return out


def merge_paths(a: Sequence[Mapping], b: Sequence[Mapping], shift: int) -> list[Mapping]:
    """The union of two warps' traces as one wider warp issues it; ``b``'s active lanes move up
    by ``shift`` bits. Identical sequences merge entry by entry."""
    def moved(e):
        return dict(e, active=e.get("active", 0) << shift)

    if len(a) == len(b) and all(x["pc"] == y["pc"] for x, y in zip(a, b)):
        return [dict(x, active=x.get("active", 0) | (y.get("active", 0) << shift)) for x, y in zip(a, b)]
    sm = difflib.SequenceMatcher(None, [e["pc"] for e in a], [e["pc"] for e in b], autojunk=False)
    out: list[Mapping] = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            out += [dict(x, active=x.get("active", 0) | (y.get("active", 0) << shift))
                    for x, y in zip(a[i1:i2], b[j1:j2])]
        else:                                   # delete, insert, replace: each side's own path
            out += list(a[i1:i2]) + [moved(y) for y in b[j1:j2]]
    return out
