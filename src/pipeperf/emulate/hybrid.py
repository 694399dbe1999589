"""Hybrid PTX analysis (HyPA, Sec. III): which instructions must really execute.

HyPA emulates only the instructions that branch conditions depend on and
counts the rest. We take the backward slice (over registers, flow-insensitive,
so it over-approximates and is always safe) of every guard predicate and every
memory address, so the hybrid run reproduces full mode's instruction, branch
*and* memory statistics exactly. A load inside the slice makes memory
contents matter, so then every store and atomic joins the slice with its data.
Device functions are executed in full (their calls and argument stores join
the slice).
"""

from __future__ import annotations

from pipeperf.emulate.registry import LOAD_ROOTS
from pipeperf.emulate.registry import MEMORY_ROOTS as _MEM
from pipeperf.emulate.registry import PURE_STORE_ROOTS as _PURE_STORES
from pipeperf.emulate.registry import STORE_ROOTS as _STORES
from pipeperf.ptx.ir import Address, Function, Symbol, registers_in


def _regs(ops) -> set[str]:
    return {r.name for op in ops for r in registers_in(op)}


def needed_instructions(func: Function, memory: bool = True, optimistic: bool = False) -> set[int]:
    """Indices of ``func``'s instructions the hybrid mode executes; ``memory=False`` leaves
    addresses out of the slice (HyPA's own setting: no memory statistics). ``optimistic``
    keeps stores out even when a load is in the slice; the machine then checks at run time
    that no needed load reads bytes a skipped store wrote (else it reruns conservatively)."""
    ins = func.instructions
    writes = [_regs(x.dsts) if x.root not in _PURE_STORES else set() for x in ins]
    kernel_params = {p.name for p in func.params}
    need: set[int] = set()
    regs: set[str] = set()
    memory_matters = False

    def add(i: int, srcs: set[str]) -> None:
        need.add(i)
        regs.update(srcs)

    for i, x in enumerate(ins):
        if x.guard is not None:
            regs.add(x.guard.name)
        if x.root in _MEM and memory:
            for op in x.operands:
                if type(op) is Address and op.base is not None and type(op.base) is not Symbol:
                    regs.add(op.base.name)
            if x.space == "param" and not (x.root == "ld" and type(x.srcs[0]) is Address and
                                           type(x.srcs[0].base) is Symbol and
                                           x.srcs[0].base.name in kernel_params):
                add(i, _regs(x.operands))  # call-sequence argument passing
        if x.root == "call":
            add(i, set())
        if x.root in ("bra", "brx"):
            add(i, _regs(x.srcs))
    changed = True
    while changed:
        changed = False
        for i, x in enumerate(ins):
            if i in need:
                continue
            hit = writes[i] & regs
            if x.root in _STORES and memory_matters:
                hit = {"<memory>"}
            if hit:
                if x.root in LOAD_ROOTS and x.space != "param" and not optimistic:
                    memory_matters = True
                add(i, _regs(x.srcs) | _regs(x.dsts if x.root in _STORES else ()))
                if x.root in _STORES:
                    add(i, _regs(x.operands))
                changed = True
        if memory_matters:
            for i, x in enumerate(ins):
                if i not in need and x.root in _STORES:
                    add(i, _regs(x.operands))
                    changed = True
    return need
