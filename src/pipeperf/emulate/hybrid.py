"""Hybrid PTX analysis (HyPA, Sec. III): which instructions must really execute.

HyPA emulates only the instructions that branch conditions depend on and
counts the rest. We take the backward slice (over registers, flow-insensitive,
so it over-approximates and is always safe) of every guard predicate, every
memory address and every register barrier id and thread count, so the hybrid
run reproduces full mode's instruction, branch *and* memory statistics exactly.
A load inside the slice makes memory contents matter, so then every store and
atomic joins the slice with its data.
Device functions are executed in full (their calls and argument stores join
the slice).
"""

from __future__ import annotations

from pipeperf.emulate.registry import LOAD_ROOTS
from pipeperf.emulate.registry import MEMORY_ROOTS as _MEM
from pipeperf.emulate.registry import PURE_STORE_ROOTS as _PURE_STORES
from pipeperf.emulate.registry import STORE_ROOTS as _STORES
from pipeperf.ptx.ir import Address, Function, Symbol
from pipeperf.ptx.slices import (
    MEMORY,
    address_registers,
    register_names,
    register_slice,
    written_registers,
)


#: needed_instructions' slices by (the function's id, memory, optimistic), the function kept with
#: each: the traced run, its bounds check and a tuning run's variants (which share parsed kernels)
#: ask for the same slice
_SLICES: dict[tuple[int, bool, bool], tuple[Function, frozenset[int]]] = {}


def needed_instructions(func: Function, memory: bool = True, optimistic: bool = False) -> set[int]:
    """:func:`_needed` of ``func``, kept for the last few functions (a parsed function is not
    changed after parsing, and the entry holds it, so its ``id`` names it while the entry lives)."""
    key = (id(func), memory, optimistic)
    hit = _SLICES.get(key)
    if hit is None or hit[0] is not func:
        if len(_SLICES) >= 16:
            _SLICES.pop(next(iter(_SLICES)))
        hit = _SLICES[key] = (func, frozenset(_needed(func, memory, optimistic)))
    return set(hit[1])


def _needed(func: Function, memory: bool = True, optimistic: bool = False) -> set[int]:
    """Indices of ``func``'s instructions the hybrid mode executes; ``memory=False`` leaves
    addresses out of the slice (HyPA's own setting: no memory statistics). ``optimistic``
    keeps stores out even when a load is in the slice; the machine then checks at run time
    that no needed load reads bytes a skipped store wrote (else it reruns conservatively).
    Memory is one location (:data:`~pipeperf.ptx.slices.MEMORY`) that every store writes and
    a slice load reads, so one load in the slice brings in every store."""
    ins = func.instructions
    writes = [(set(written_registers(x)) if x.root not in _PURE_STORES else set())
              | ({MEMORY} if x.root in _STORES else set()) for x in ins]
    kernel_params = {p.name for p in func.params}
    need: set[int] = set()
    regs: set[str] = set()

    def add(i: int, srcs: set[str]) -> None:
        need.add(i)
        regs.update(srcs)

    for i, x in enumerate(ins):
        if x.guard is not None:
            regs.add(x.guard.name)
        if x.root in _MEM and memory:
            regs |= address_registers(x)
            if x.space == "param" and not (x.root == "ld" and type(x.srcs[0]) is Address and
                                           type(x.srcs[0].base) is Symbol and
                                           x.srcs[0].base.name in kernel_params):
                add(i, register_names(x.operands))  # call-sequence argument passing
        if x.root == "call":
            add(i, set())
        if x.root in ("bra", "brx"):
            add(i, register_names(x.srcs))
        if x.root in ("bar", "barrier") and "warp" not in x.modifiers:
            regs |= register_names(x.srcs)  # a register barrier id or count: whom the threads wait for

    def join(i: int, x) -> set[str]:
        reads = register_names(x.operands if x.root in _STORES else x.srcs)
        if x.root in LOAD_ROOTS and x.space != "param" and not optimistic:
            reads.add(MEMORY)              # what it loads matters: every store joins
        return reads

    return register_slice(func, regs, need, writes, join)
