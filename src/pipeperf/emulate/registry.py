"""The one opcode registry: PTX opcode root -> how to build its handler and how it touches
memory.

Execution (:class:`~pipeperf.emulate.program.Program`) builds every operation's handler
through :func:`build`, once per instruction; hybrid mode's slice
(:mod:`~pipeperf.emulate.hybrid`) takes from the same entries which instructions are memory
accesses, loads and stores. Families of opcodes are tables of their own modules
(:mod:`~pipeperf.emulate.arith`, :mod:`~pipeperf.emulate.bits`); their rows are registered
here, so an opcode is supported exactly when it has an entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from pipeperf.emulate import arith, bits, compare, convert, memops, warpops, wmma
from pipeperf.emulate.operands import Handler, Unsupported
from pipeperf.emulate.typed import typed
from pipeperf.ptx.ir import Instruction

#: builder of an instruction's handler on machine ``m``; ``full=False``: hybrid mode's
#: address-only form of a memory access whose data are not in the slice
Builder = Callable[[Instruction, Any, bool], Handler]


class Opcode(NamedTuple):
    """How one opcode executes and how it touches memory."""

    build: Builder
    #: "load", "store" (writes memory, no register), "atomic" (writes memory and a register), ""
    access: str = ""
    #: a skipped store taints its bytes and a load checks them (optimistic hybrid mode needs it)
    poison_checked: bool = True


def _alu(fn: Callable[[Instruction, Any], Handler]) -> Builder:
    """A register-to-register builder; a type without a NumPy view (NP, e.g. bf16x2) makes the
    instruction unsupported."""
    def build_alu(ins: Instruction, m: Any, full: bool = True) -> Handler:
        try:
            return fn(ins, m)
        except KeyError as exc:
            if exc.args and exc.args[0] in ins.types:
                raise Unsupported(f"{ins.opcode} (type .{exc.args[0]})") from None
            raise
    return build_alu


def _plain(fn: Callable[[Instruction, Any], Handler]) -> Builder:
    def build(ins: Instruction, m: Any, full: bool = True) -> Handler:
        return fn(ins, m)
    return build


def _nothing(ins: Instruction, m: Any, full: bool = True) -> Handler:
    """Fences, cp.async's groups (copies complete at once here) and bar.warp.sync
    (``__syncwarp``: a group's lanes of a warp already run together, as shfl.sync and
    vote.sync assume; it orders no data of its own)."""
    return lambda st, ix: None


def _tensor(fn: Callable[[Any, Instruction], Handler]) -> Builder:
    def build(ins: Instruction, m: Any, full: bool = True) -> Handler:
        return fn(m, ins)
    return build


def _tensor_memory(fn: Callable[[Any, Instruction, bool], Handler]) -> Builder:
    """wmma.load/store: ``full=False`` (hybrid mode, the fragment outside the slice) counts and
    logs the access without moving the fragment's data."""
    def build(ins: Instruction, m: Any, full: bool = True) -> Handler:
        return fn(m, ins, full)
    return build


OPCODES: dict[str, Opcode] = {
    **{r: Opcode(_alu(typed(f, arith.packed_half))) for r, f in {**arith.FAMILY, **bits.FAMILY}.items()},
    **{r: Opcode(_alu(arith.special_function)) for r in arith.SFU},
    "sqrt": Opcode(_alu(arith.sqrt_rcp)), "rcp": Opcode(_alu(arith.sqrt_rcp)),
    "set": Opcode(_alu(compare.comparison)), "setp": Opcode(_alu(compare.comparison)),
    "cvt": Opcode(_alu(convert.convert)), "mov": Opcode(_alu(convert.move)),
    "cvta": Opcode(_alu(convert.convert_address)),
    "membar": Opcode(_nothing), "fence": Opcode(_nothing), "bar.warp": Opcode(_nothing),
    "shfl": Opcode(_plain(warpops.shuffle)),
    "vote": Opcode(_plain(warpops.vote)), "redux": Opcode(_plain(warpops.vote)),
    "ld": Opcode(memops.load_store, "load"), "st": Opcode(memops.load_store, "store"),
    "atom": Opcode(memops.load_store, "atomic"), "red": Opcode(memops.load_store, "store"),
    "cp.async": Opcode(memops.copy_async, "store", False),
    **dict.fromkeys(("cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all"),
                    Opcode(_nothing)),
    "wmma.load": Opcode(_tensor_memory(wmma.load), "load", False),
    "wmma.store": Opcode(_tensor_memory(wmma.store), "store", False),
    "wmma.mma": Opcode(_tensor(wmma.mma), "", False),
    "mma": Opcode(_tensor(wmma.build_mma), "", False),
}

#: instructions that access memory through an address operand
MEMORY_ROOTS = frozenset(r for r, o in OPCODES.items() if o.access)
#: instructions whose loaded data can reach registers (a load in the slice makes memory matter)
LOAD_ROOTS = frozenset(r for r, o in OPCODES.items() if o.access == "load")
#: instructions that write memory, and those of them that write no register
STORE_ROOTS = frozenset(r for r, o in OPCODES.items() if o.access in ("store", "atomic"))
PURE_STORE_ROOTS = frozenset(r for r, o in OPCODES.items() if o.access == "store")
#: instructions whose skipped stores optimistic hybrid mode cannot see
UNCHECKED_ROOTS = frozenset(r for r, o in OPCODES.items() if not o.poison_checked)


def build(x: Instruction, m: Any, full: bool = True) -> Handler:
    """The handler of operation ``x`` on machine ``m``, or :class:`Unsupported`."""
    op = OPCODES.get(x.root)
    if op is None:
        if x.root.startswith(("cp", "wmma", "mma")):
            raise Unsupported("tensor/async-copy instructions are not emulated")
        raise Unsupported(x.opcode)
    return op.build(x, m, full)
