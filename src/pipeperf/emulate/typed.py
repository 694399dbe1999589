"""The prologue every arithmetic and bit-manipulation opcode shares: its type, its refusals
(carry chains, integer saturation), its source getters and destination setter.

Families (:mod:`~pipeperf.emulate.arith`, :mod:`~pipeperf.emulate.bits`) are tables from
opcode to a builder taking the decoded :class:`Typed`; :func:`typed` makes one of them an
instruction's builder. All of this runs once per instruction, when the program is compiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeperf.emulate.numerics import rounding_mode
from pipeperf.emulate.operands import (
    Getter,
    Handler,
    Setter,
    Unsupported,
    getter,
    setter,
)
from pipeperf.emulate.state import NP
from pipeperf.ptx.ir import Instruction

#: destination type of ``.wide`` products, by source type
_WIDE = {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}


class Typed:
    """An arithmetic instruction decoded for its builder."""

    __slots__ = (
        "bits",
        "dst",
        "dt",
        "hi",
        "ins",
        "is_f",
        "mode",
        "mods",
        "out_dt",
        "root",
        "srcs",
        "wide",
    )

    def __init__(self, ins: Instruction, m: Any):
        t = ins.types[-1] if ins.types else "b32"
        self.ins, self.root, self.mods = ins, ins.root, ins.modifiers
        self.dt = dt = NP[t]
        self.wide = "wide" in self.mods
        self.hi = "hi" in self.mods
        if "cc" in self.mods:
            raise Unsupported(f"{ins.opcode} (carry chains)")
        if "sat" in self.mods and dt.kind != "f":
            raise Unsupported(f"{ins.opcode} (integer saturation)")
        self.srcs: list[Getter] = [getter(s, dt, m) for s in ins.srcs]
        self.out_dt = NP[_WIDE[t]] if self.wide else dt
        self.dst: Setter = setter(ins.dsts[0], self.out_dt)
        self.is_f = dt.kind == "f"
        self.mode = rounding_mode(ins)
        self.bits = dt.itemsize * 8


#: a family member's builder: the decoded instruction and the machine -> its handler
Family = Callable[[Typed, Any], Handler]


def typed(family: Family, packed: Callable[[Instruction, Any], Handler]
          ) -> Callable[[Instruction, Any], Handler]:
    """Builder ``(ins, m)`` of one family member; ``packed`` builds its f16x2 form."""
    def build(ins: Instruction, m: Any) -> Handler:
        if (ins.types[-1] if ins.types else "b32") == "f16x2":
            return packed(ins, m)
        return family(Typed(ins, m), m)
    return build
