"""nvdisasm's SASS listing (``nvdisasm -gi -c``) -> typed instructions, basic blocks and the CFG.

The GPU runs SASS, not PTX: ptxas widens loads (four ``ld.shared.f32`` into one ``LDS.128``),
folds address arithmetic into addressing modes, fuses integer operations, unrolls loops and
schedules loads early. This module reads what ptxas made, per function: every instruction with its
guard, opcode, modifiers, operands and source line (``//## File "...", line N`` markers, from a
``-lineinfo`` build; with ``-gi`` one marker per inlining level, innermost first, each ``inlined at``
the next), the basic blocks (leaders: the entry, branch targets, the instruction after a
branch or an ``EXIT``) and their successors. A function with an indirect branch (``BRX``, ``JMX``)
or a call to anything but one of ptxas' own subroutines has no CFG this module can give
(:attr:`SassFunction.unsupported` says why).

ptxas appends the subroutines it calls (``$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath``:
the special-operand path of an IEEE division) to the kernel's section after a ``$name:`` label;
they are listed apart (:attr:`SassFunction.calls`: name and length), and a ``CALL`` to one ends its block
and returns to the next instruction. A call is a block of its own kind: the walk times the call
site, not the subroutine (its instructions run only where the fast path's check fails). An
absolute call (``CALL.ABS``: ``__assertfail`` of a failed ``assert``, ``vprintf``) is a call site
the same way: the function is the driver's, not in the listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FUNC = re.compile(r"^\.text\.([\w$.]+):\s*$")
_LABEL = re.compile(r"^(\.L_x_\d+):\s*$")
_LINE = re.compile(r'^\s*//## File "([^"]*)", line (\d+)')
_INSTR = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*(.*?)\s*;?\s*$")
_TARGET = re.compile(r"`\((\.L_x_\d+|\$[\w$.]+)\)")
_SUBROUTINE = re.compile(r"^(\$[\w$.]+):\s*$")
#: the name :attr:`SassFunction.calls` gives an absolute call (``CALL.ABS.NOINC R2``): a system
#: function whose address the driver patches in (``__assertfail``, ``vprintf``), not in the listing
ABSOLUTE_CALL = "CALL.ABS"

#: opcodes that end a basic block
BRANCHES = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL", "KILL"}
_UNSUPPORTED = {"BRX": "an indirect branch (BRX)", "JMX": "an indirect jump (JMX)",
                "CALL": "a call (CALL)", "RET": "a return (RET)"}


@dataclass(frozen=True)
class SassInstr:
    """One SASS instruction: ``index`` in its function, byte ``offset``, ``guard`` (``P0``, ``!P1``,
    ``UP0``; empty when always executed), ``opcode`` (``LDS``), ``modifiers`` (``("128",)``), the
    operand texts, the source ``file`` and ``line`` (0 without line information; the innermost for
    inlined code), for a branch its ``target`` label, and ``inlined``: the call sites (file, line)
    the line is inlined at, innermost first (empty for a ``-g`` listing or code not inlined)."""

    index: int
    offset: int
    guard: str
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[str, ...]
    file: str
    line: int
    target: str = ""
    inlined: tuple[tuple[str, int], ...] = ()

    @property
    def full_opcode(self) -> str:
        return ".".join((self.opcode, *self.modifiers))


@dataclass(frozen=True)
class SassBlock:
    """Instructions ``start`` .. ``end - 1`` of a function, and the blocks control may go to next
    (-1: the function's exit)."""

    index: int
    start: int
    end: int
    successors: tuple[int, ...]


@dataclass(frozen=True)
class SassFunction:
    name: str
    instructions: tuple[SassInstr, ...]
    blocks: tuple[SassBlock, ...] = ()
    unsupported: str = ""                 # why this function has no CFG ("" when it has one)
    block_of: tuple[int, ...] = field(default=(), repr=False)   # instruction index -> block index
    calls: tuple[tuple[str, int], ...] = ()   # ptxas' subroutines this function calls, with their lengths


def split_operands(text: str) -> tuple[str, ...]:
    """Operands at top-level commas (``c[0x0][0x168]``, ``desc[UR4][R2.64]`` and ``{...}`` stay whole)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return tuple(out)


def parse_listing(text: str) -> dict[str, SassFunction]:
    """Every function of an ``nvdisasm -g -c`` or ``-gi -c`` listing, by name."""
    funcs: dict[str, SassFunction] = {}
    name = ""
    instrs: list[SassInstr] = []
    labels: dict[str, int] = {}
    subs: dict[str, int] = {}
    sub = ""                              # the subroutine being read ("" while in the function)
    file, line = "", 0
    inlined: list[tuple[str, int]] = []
    marker = False                        # the previous line was a line marker (-gi: the chain goes on)

    def close() -> None:
        if name:
            funcs[name] = _with_cfg(name, tuple(instrs), labels, subs)

    for raw in text.splitlines():
        m = _FUNC.match(raw)
        if m:
            close()
            name, instrs, labels, subs, sub, file, line = m.group(1), [], {}, {}, "", "", 0
            continue
        if not name:
            continue
        if (sm := _SUBROUTINE.match(raw)) is not None:
            sub = sm.group(1)
            subs[sub] = 0
            continue
        if sub:
            if _INSTR.match(raw) is not None:
                subs[sub] += 1
            continue
        if (lm := _LINE.match(raw)) is not None:
            if marker:
                inlined.append((lm.group(1), int(lm.group(2))))
            else:
                file, line, inlined = lm.group(1), int(lm.group(2)), []
            marker = True
            continue
        marker = False
        if (lb := _LABEL.match(raw)) is not None:
            labels[lb.group(1)] = len(instrs)
            continue
        im = _INSTR.match(raw)
        if im is None:
            continue
        opcode, *mods = im.group(3).split(".")
        ops = im.group(4).rstrip(";").strip()
        target = _TARGET.search(ops)
        instrs.append(SassInstr(len(instrs), int(im.group(1), 16), (im.group(2) or "").strip().lstrip("@"),
                                opcode, tuple(mods), split_operands(_TARGET.sub(r"\1", ops)), file, line,
                                target.group(1) if target else "", tuple(inlined)))
    close()
    return funcs


def is_jump(x: SassInstr) -> bool:
    """A branch to a label: ``BRA``, and ``CALL.REL.NOINC`` to a label of the same function (ptxas
    uses it as a jump: NOINC leaves the call stack alone)."""
    return x.opcode == "BRA" or (x.opcode == "CALL" and "NOINC" in x.modifiers and x.target.startswith(".L_x_"))


def _with_cfg(name: str, instrs: tuple[SassInstr, ...], labels: dict[str, int],
              subs: dict[str, int] | None = None) -> SassFunction:
    """Basic blocks and successors; the trailing ``BRA`` to itself after the last ``EXIT`` (ptxas'
    padding) is unreachable and left in a block of its own with no predecessor. A call to one of
    ``subs`` (ptxas' subroutines of this section) returns to the next instruction."""
    subs = dict(subs or {})
    calls: dict[str, int] = {}
    for x in instrs:
        if x.opcode == "CALL" and x.target in subs:
            calls[x.target] = subs[x.target]
            continue
        if x.opcode == "CALL" and "ABS" in x.modifiers:        # a system function through a register
            calls[ABSOLUTE_CALL] = 0
            continue
        if x.opcode in _UNSUPPORTED and not is_jump(x):
            return SassFunction(name, instrs, unsupported=f"{name} has {_UNSUPPORTED[x.opcode]}")
        if is_jump(x) and x.target not in labels:
            return SassFunction(name, instrs, unsupported=f"{name}: branch to unknown label {x.target!r}")
    leaders = {0} | set(labels.values())
    for x in instrs:
        if x.opcode in BRANCHES:
            leaders.add(x.index + 1)
    starts = sorted(i for i in leaders if i < len(instrs))
    block_at = {s: k for k, s in enumerate(starts)}
    blocks, block_of = [], [0] * len(instrs)
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(instrs)
        last = instrs[e - 1]
        succ: list[int] = []
        nxt = block_at.get(e, -1) if e < len(instrs) else -1
        if is_jump(last):
            succ.append(block_at[labels[last.target]])
            if last.guard and nxt not in succ:
                succ.append(nxt)
        elif last.opcode in ("EXIT", "KILL"):
            succ.append(-1)
            if last.guard:
                succ.append(nxt)
        else:
            succ.append(nxt)
        blocks.append(SassBlock(k, s, e, tuple(succ)))
        for i in range(s, e):
            block_of[i] = k
    return SassFunction(name, instrs, tuple(blocks), "", tuple(block_of), tuple(calls.items()))


def mma_shape(x: SassInstr) -> tuple[int, int, int] | None:
    """(m, n, k) of an HMMA/IMMA/DMMA from its shape modifier: ``16816`` m16 n8 k16, ``1684`` m16 n8
    k4, ``884`` m8 n8 k4, ``8816`` m8 n8 k16 (n is always one digit)."""
    shape = next((m for m in x.modifiers if m.isdigit() and len(m) >= 3), "")
    if not shape:
        return None
    m = 16 if shape.startswith("16") else int(shape[0])
    rest = shape[len(str(m)):]
    return m, int(rest[0]), int(rest[1:])
