"""Local memory as the SASS uses it: register spills and stack arrays, cached where they fit.

ptxas spills what does not fit in the registers to local memory (``STL``/``LDL`` at offsets of
the stack pointer R1) and places arrays it cannot keep in registers there too. Local memory is
private per thread and interleaved so that a warp's 4-byte access to one slot is one coalesced
128-byte request, and it is cached in L1 and L2 as global memory is (CUDA C++ Best Practices
Guide, "Local Memory"; CUDA C++ Programming Guide, "Device Memory Accesses": local memory
"resides in device memory" and is cached like global memory from compute capability 5.x on).
The database's ``ld_local_s32`` is an L1 hit; a kernel whose resident threads' local slots exceed
the SM's L1 left over by shared memory streams them through L2 and, past the L2, DRAM.

The hit rates are capacity shares: the L1 keeps ``L1 free / (slots x resident threads)`` of the
SM's local footprint, the L2 ``L2 / (the same x active SMs)`` of the GPU's (every resident thread
touches its own slots; other data competing for the caches is not counted, so these are upper
bounds). A request then costs what :func:`~pipeperf.hardware.memory_classes.global_class` charges a global
access of those hit rates, so spills compete for the same L2 and DRAM bandwidth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeperf.hardware.accesses import PcMemory, REF_SECTORS, SECTOR
from pipeperf.hardware.memory import l2_reach_bytes
from pipeperf.hardware.memory_classes import dram_request_cpi, global_class, l1_class, l2_class
from pipeperf.hardware.spec import GPUSpec, InstrClass

_STACK_SLOT = re.compile(r"^\[R1(?:\+(0x[0-9a-f]+|\d+))?\]$")
LOCAL_OPCODES = {"LDL": "ld_local_s32", "STL": "st_local"}
#: the DRAM class a local request's misses cost, per base class
_FAR_CLASS = {"ld_local_s32": "ld_global_s32", "st_local": "st_global"}


@dataclass(frozen=True)
class LocalFootprint:
    """The local bytes each thread touches: from the SASS's stack-pointer offsets where every
    local access names one (``exact``), else ptxas' stack frame (an array indexed at run time)."""

    bytes_per_thread: int
    exact: bool
    instructions: int            # static LDL/STL instructions

    def describe(self) -> str:
        how = "the SASS's stack slots" if self.exact else "ptxas' stack frame (an access not at a fixed slot)"
        return f"{self.bytes_per_thread} B per thread ({how})"


def local_footprint(instrs: Iterable, frame_bytes: int, width_of) -> LocalFootprint | None:
    """The :class:`LocalFootprint` of a function's SASS (None: no local access). ``width_of``:
    bytes per thread of a memory instruction (:func:`~pipeperf.hardware.sass_mapper.access_bytes`)."""
    covered: set[int] = set()
    exact, n = True, 0
    for x in instrs:
        if x.opcode not in LOCAL_OPCODES:
            continue
        n += 1
        addr = next((o for o in x.operands if o.startswith("[")), "")
        m = _STACK_SLOT.match(addr.replace(" ", ""))
        if m is None:
            exact = False
            continue
        off = int(m.group(1), 0) if m.group(1) else 0
        covered.update(range(off, off + width_of(x)))
    if not n:
        return None
    touched = len(covered) if exact else max(frame_bytes, len(covered))
    return LocalFootprint(max(touched, 4), exact, n)


def local_class(gpu: GPUSpec, base_name: str, width: int, fp: LocalFootprint, resident_threads: int,
                shared_bytes_per_sm: int, active_sms: int) -> InstrClass:
    """lambda/Lambda of a warp's local access of ``width`` bytes per thread (module docstring)."""
    base = gpu.classes[base_name]
    far = gpu.classes.get(_FAR_CLASS.get(base_name, "ld_global_s32"), base)
    sm_bytes = float(fp.bytes_per_thread) * max(1, resident_threads)
    l1_free = max(0.0, float(gpu.memory.get("l1_bytes") or 0) - shared_bytes_per_sm)
    q1 = min(1.0, l1_free / sm_bytes) if l1_class(gpu) is not None else 0.0
    reach = l2_reach_bytes(gpu)
    h2 = min(1.0, reach / (sm_bytes * max(1, active_sms))) if reach else 1.0
    h2 = max(h2, q1)
    name = local_class_name(base_name, width)
    where = (f"local memory, {fp.describe()} x {resident_threads} resident threads per SM: L1 keeps {q1:.0%} "
             f"({l1_free / 1024:.0f} KiB left by shared memory), L2 {h2:.0%}")
    if q1 >= 1.0:
        return InstrClass(name, base.subsystem, base.cpi, base.latency, f"{where}: {base.name} ({base.source})", True)
    requests = 1024
    sectors = requests * max(1, width * 32 // SECTOR)
    st = PcMemory(pc=-1, space="global", requests=requests, sectors=sectors, l2_hits=round(sectors * h2),
                  l1_hits=round(sectors * q1), l1_wavefronts=requests * max(1.0, sectors / requests / REF_SECTORS))
    c = global_class(far, st, l2_class(gpu, active_sms), name, dram_request_cpi(gpu, 0.5, active_sms), l1_class(gpu))
    return InstrClass(name, c.subsystem, c.cpi, c.latency, f"{where}; as a global access: {c.source}", True)


def local_class_name(base_name: str, width: int) -> str:
    """The class name :func:`local_class` gives a local access (what the SASS translator looks up)."""
    return f"{base_name}@local{width}B"
