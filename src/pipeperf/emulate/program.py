"""A function compiled for the scheduler: per instruction its kind (an operation, or which
control transfer), its handler, branch target and guard, all in flat lists indexed by PC."""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate.budget import ATOMIC_STEP
from pipeperf.emulate.errors import EmulationError
from pipeperf.emulate.operands import Handler, Unsupported
from pipeperf.emulate.registry import MEMORY_ROOTS, build
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function, Instruction

#: instruction kinds: an operation (a handler), or how the scheduler moves threads
OP, BRA, EXIT, BAR, CALL, RET, BRX = range(7)
#: control transfers by opcode root (``bar.warp`` is an operation; a device function's ``ret``
#: returns, a kernel's exits)
CONTROL = {"bra": BRA, "brx": BRX, "exit": EXIT, "trap": EXIT, "ret": RET, "bar": BAR,
           "barrier": BAR, "call": CALL}


class Program:
    """A function compiled to handlers; ``kind[i]`` says how the scheduler treats instruction i.
    ``needed``: hybrid mode's slice (None: every instruction); ``emulated[i]``: whether
    instruction i really executes (its counts are exact either way)."""

    def __init__(self, m: Any, func: Function, needed: set[int] | None):
        self.func = func
        ins = func.instructions
        self.n = len(ins)
        self.kind: list[int] = []
        self.handler: list[Any] = []
        self.target: list[int] = []
        self.guard: list[Any] = []
        self.cost: list[int] = []                 # each step's weight in the step budget
        self.brx_tables: dict[int, Any] = {}
        self.bars: dict[int, tuple[Any, Any, bool]] = {}
        self.emulated = np.zeros(self.n, bool)
        for i, x in enumerate(ins):
            k = CONTROL.get(x.root, OP)
            if k == RET and func.kind != "func":
                k = EXIT
            elif k == BAR and "warp" in x.modifiers:
                k = OP
            self.kind.append(k)
            self.target.append(func.labels[x.srcs[0].name] if k == BRA else -1)
            if k == BRX:
                self.brx_tables[i] = _branch_table(m, func, x)
            elif k == BAR:
                self.bars[i] = barrier_operands(x)
            self.guard.append(None if x.guard is None else (x.guard.name, x.guard_neg))
            h = None
            if k == OP and (needed is None or i in needed or (x.root in MEMORY_ROOTS and m.memory)):
                h = _compile(m, x, full=needed is None or i in needed)
                self.emulated[i] = needed is None or i in needed
            elif k != OP:
                self.emulated[i] = needed is None or k in (BRA, BRX, CALL) or x.guard is not None
            self.handler.append(h)
            self.cost.append(ATOMIC_STEP if h is not None and x.root in ("atom", "red") else 1)


def _branch_table(m: Any, func: Function, x: Instruction):
    """``brx.idx``'s (index register, target PCs), or a handler raising why it has none."""
    table = func.branch_tables.get(x.srcs[1].name) if len(x.srcs) > 1 else None
    if table is None:
        return raiser(m, x, f"brx.idx table {x.srcs[1] if len(x.srcs) > 1 else '?'} "
                            f"is not a .branchtargets list of this function")
    return (x.srcs[0].name, np.array([func.labels[t] for t in table]))


def barrier_operands(x: Instruction) -> tuple[Any, Any, bool]:
    """(barrier id, thread count or None, arrives only) of a ``bar``/``barrier`` instruction:
    the hardware counts arrivals per barrier id, whichever instruction makes them (PTX ISA
    "bar, barrier"); ``bar.red``'s last source is its predicate, not a count."""
    srcs = x.srcs
    n_ops = 2 if "red" in x.modifiers else 1
    return srcs[0], (srcs[1] if len(srcs) > n_ops else None), "arrive" in x.modifiers


def _compile(m: Any, x: Instruction, full: bool) -> Handler:
    """The instruction's handler; an unsupported one raises only when it is reached, operands
    of a shape no builder takes are an error of the file now."""
    try:
        return build(x, m, full)
    except Unsupported as exc:
        why = str(exc)
        why = why[len(x.opcode):].strip() if why.startswith(x.opcode) else f"({why})"
        why = f" {why}" if why else ""
        return raiser(m, x, f"unsupported instruction {x.opcode}{why}")
    except PipeperfError as exc:
        if exc.line is not None:
            raise
        raise PipeperfError(f"kernel {m.kernel.name}: {x.opcode}: {exc.message}", file=m.file,
                            line=x.line) from None
    except (IndexError, AttributeError, TypeError, KeyError, ValueError, StopIteration) as exc:
        # operands of a shape the builder cannot take (a missing destination, an
        # immediate where a register or address belongs): ptxas would refuse the file
        raise PipeperfError(f"kernel {m.kernel.name}: cannot emulate this {x.opcode}: its operands "
                            f"are not what it takes ({type(exc).__name__})",
                            file=m.file, line=x.line) from None


def raiser(m: Any, x: Instruction, msg: str) -> Handler:
    """A handler that raises ``msg`` as an emulation error at ``x``'s line."""
    def h(st, ix):
        raise EmulationError(f"kernel {m.kernel.name}: {msg}", file=m.file, line=x.line)
    return h
