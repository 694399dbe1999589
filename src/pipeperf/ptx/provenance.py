"""Pointer provenance: which pointer parameters (or named variables) each register and each
memory access of a kernel may derive from. The emulator's CTA sampling uses it to tell a load of
``in[i]`` from a store to ``out[i]`` (:mod:`pipeperf.emulate.sampling`), and argument checking to
read an ``extern "C"`` pointer's element type from its accesses (:func:`pipeperf.ptx.params.ptx_element`)."""

from __future__ import annotations

from pipeperf.ptx.ir import TYPE_BYTES, Address, Function, Instruction, Symbol, registers_in
from pipeperf.ptx.slices import READS_MEMORY, space_of, written_registers

#: a value that may derive from any pointer (a 64-bit value loaded from memory)
UNKNOWN = "*"


def provenance(func: Function) -> dict[str, set[str]]:
    """Which pointer kernel parameters (64-bit ``.param``) or named variables each register's
    value may derive from, flow-insensitively; ``"*"``: possibly any pointer (a 64-bit value
    loaded from memory). Lets a load of ``in[i]`` and a store to ``out[i]`` be told apart:
    the emulator gives every pointer argument its own allocation."""
    names = {p.name for p in func.params}
    pointers = {p.name for p in func.params if TYPE_BYTES.get(p.type, 8) == 8 and not p.dims}
    prov: dict[str, set[str]] = {}
    changed = True
    while changed:
        changed = False
        for x in func.instructions:
            outs = written_registers(x)
            if not outs:
                continue
            r = x.op.root
            wide = TYPE_BYTES.get(x.types[-1], 8) >= 8 if x.types else True
            if r in READS_MEMORY:
                a = next((o for o in x.srcs if type(o) is Address), None)
                if (space_of(x) == "param" and a is not None and type(a.base) is Symbol
                        and a.base.name in names):
                    new = {a.base.name} if a.base.name in pointers and wide else set()
                else:
                    new = {UNKNOWN} if wide else set()
            else:
                new = set()
                for o in x.srcs:
                    if type(o) is Symbol:
                        new.add(o.name)
                    for reg in registers_in(o):
                        new |= prov.get(reg.name, set())
            for out in outs:
                cur = prov.setdefault(out, set())
                if not new <= cur:
                    cur |= new
                    changed = True
    return prov


def accesses_through(func: Function, param: str) -> list[Instruction]:
    """The global/generic loads, stores and atomics of ``func`` whose address derives from
    pointer parameter ``param`` alone (:func:`provenance`): what tells an ``extern "C"``
    kernel's pointer element type (:func:`pipeperf.ptx.params.ptx_element`)."""
    prov = provenance(func)
    return [x for x in func.instructions
            if x.op.root in ("ld", "st", "atom", "red") and space_of(x) in ("global", "generic")
            and address_provenance(x, prov) == {param}]


def operand_provenance(o, prov: dict[str, set[str]]) -> set[str]:
    """Allocations an address operand may point into; ``{"*"}`` when unknown."""
    if type(o) is not Address or o.base is None:
        return {UNKNOWN}
    if type(o.base) is Symbol:
        return {o.base.name}
    p = prov.get(o.base.name, set())
    return p if p and UNKNOWN not in p else {UNKNOWN}


def address_provenance(x, prov: dict[str, set[str]]) -> set[str]:
    """Allocations ``x``'s (first) address may point into."""
    return operand_provenance(next((o for o in x.operands if type(o) is Address), None), prov)
