"""From the emulator's traces to mapper g: the traced warps' memory requests as
:class:`pipeperf.hardware.memory.Accesses`, and each GPU's adjusted memory classes.

This is wiring (the analysis itself is :mod:`pipeperf.hardware.memory`): it resolves generic
addresses to their state space with the emulator's address windows and takes each request's
bytes per lane from the PTX instruction (element type x vector width).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from pipeperf.emulate.memory import CONST_BASE, LOCAL_BASE, SHARED_BASE
from pipeperf.hardware.memory import Accesses, MemoryMapping, analyse, l2_capacity_sectors, map_memory
from pipeperf.hardware.spec import GPUSpec
from pipeperf.ptx.ir import TYPE_BYTES

_ROOTS = ("ld", "st", "ldu", "atom", "red")


def _bytes_per_lane(x) -> int:
    t = x.op.types[-1] if x.op.types else "b32"
    vec = next((int(m[1:]) for m in x.op.modifiers if m in ("v2", "v4", "v8")), 1)
    return TYPE_BYTES.get(t, 4) * (vec if x.op.root in ("ld", "st", "ldu") else 1)


def _space(x, first_addr: int) -> tuple[str | None, int]:
    """(space or None when not analysed, base to subtract) for one traced request."""
    sp = x.op.space
    if sp in ("global", "shared", "local"):
        return sp, 0
    if sp not in (None, "generic"):
        return None, 0                       # param, const, tex: not global/shared traffic
    if first_addr >= CONST_BASE:
        return None, 0
    if first_addr >= LOCAL_BASE:
        return "local", LOCAL_BASE
    if first_addr >= SHARED_BASE:
        return "shared", SHARED_BASE
    return "global", 0


def traced_accesses(traces: Mapping[int, Sequence[Mapping]], func, wave_of: Mapping[int, int] | None = None
                    ) -> Accesses:
    """The memory requests of ``func``'s traced warps; ``wave_of[warp]`` orders warps of later
    waves of blocks after earlier ones in the cache model."""
    ins = func.instructions
    rows = []
    longest = max((len(t) for t in traces.values()), default=0) + 1
    for wid, entries in traces.items():
        base_step = (wave_of or {}).get(wid, 0) * longest
        for step, e in enumerate(entries):
            a = e.get("addresses")
            if a is None or len(a) == 0 or e.get("function", func.name) != func.name:
                continue
            x = ins[e["pc"]]
            if x.op.root not in _ROOTS:
                continue
            sp, base = _space(x, a[0])
            if sp is None or sp == "local":
                continue
            addrs = [v - base for v in a] if base else a
            rows.append((e["pc"], wid, base_step + step, sp, _bytes_per_lane(x), addrs))
    return Accesses.from_rows(rows)


def memory_mapping(acc: Accesses, func, base_class: Mapping[int, str], gpu: GPUSpec,
                   traced_warps: int, concurrent_warps: int) -> MemoryMapping:
    """Mapper g for one GPU: statistics per PC (cache capacity scaled to the sample) and classes
    named after the PTX line."""
    stats = analyse(acc, l2_capacity_sectors(gpu, traced_warps, concurrent_warps))
    labels = {pc: f"L{func.instructions[pc].line}" for pc in stats}
    return map_memory(stats, base_class, gpu, labels)
