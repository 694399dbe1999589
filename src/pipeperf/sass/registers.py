"""The registers a SASS instruction reads and writes, for the IDG's def-use edges.

SASS names 32-bit registers (``R0``-``R254``, uniform ``UR0``-``UR62``) and predicates (``P0``-``P6``,
``UP0``-``UP6``); ``RZ``, ``URZ``, ``PT``, ``UPT`` are constants. A 64-bit or vector value spans
consecutive registers from the one named: ``LDS.128 R4`` writes R4-R7, ``[R2.64]`` reads R2 and R3,
``DFMA`` reads and writes pairs, ``IMAD.WIDE`` writes a pair, an ``HMMA`` fragment is a run of
registers whose length follows from the shape. The first operands up to the first source are
destinations, except for stores, atomics without a result, branches and barriers, which write
nothing. What this cannot see (scoreboards, the branch stack) is not a register dependence.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pipeperf.sass.listing import SassInstr, mma_shape

_REG = re.compile(r"(?<![\w.])(U?R)(\d+)(?:\.(64|128))?")
_PRED = re.compile(r"(?<![\w.])(U?P)([0-6])\b")

#: opcodes that write no register (their first operand is a source)
NO_DEST = {"STG", "STS", "STL", "ST", "RED", "REDG", "BAR", "BRA", "EXIT", "BSSY", "BSYNC", "WARPSYNC", "NOP",
           "MEMBAR", "FENCE", "DEPBAR", "CALL", "RET", "ERRBAR", "CCTL", "CCTLL", "YIELD", "BMOV", "STSM",
           "SYNCS", "ARRIVES", "UTMASTG", "UBLKCP", "LDGDEPBAR", "BPT", "KILL", "NANOSLEEP", "WARPGROUP"}
#: opcodes whose register operands are all 64-bit pairs
_PAIRS = {"DFMA", "DADD", "DMUL", "DMNMX", "DSETP", "DMMA"}


def _width(x: SassInstr) -> int:
    """Registers per data value of a load/store/shuffle-like instruction, from its width modifier."""
    for m in x.modifiers:
        if m == "128":
            return 4
        if m == "64":
            return 2
    return 1


def _mma_lengths(x: SassInstr) -> tuple[int, int, int, int] | None:
    """(D, A, B, C) register counts of an HMMA/IMMA from its shape (``16816``: m16 n8 k16) and
    accumulator type: A holds m*k, B k*n, C and D m*n elements over 32 lanes."""
    mnk = mma_shape(x)
    if mnk is None:
        return None
    m, n, k = mnk
    bits = 8 if x.opcode == "IMMA" else 16
    ab = max(1, m * k * bits // (32 * 32))
    b = max(1, k * n * bits // (32 * 32))
    acc32 = x.opcode == "IMMA" or "F32" in x.modifiers
    cd = m * n // 32 if acc32 else m * n // 64
    return cd, ab, b, cd


def _regs(op: str, span: int) -> list[str]:
    out = []
    for kind, num, suffix in _REG.findall(op):
        n = int(num)
        if (kind == "R" and n == 255) or (kind == "UR" and n == 63):
            continue
        k = {"64": 2, "128": 4}.get(suffix, span if "[" not in op else 1)
        out += [f"{kind}{n + i}" for i in range(k)]
    out += [f"{kind}{num}" for kind, num in _PRED.findall(op)]
    return out


@lru_cache(maxsize=65536)
def registers(x: SassInstr) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(registers read, registers written) by ``x``, its guard predicate among those read."""
    ops = list(x.operands)
    reads: list[str] = []
    writes: list[str] = []
    if x.guard:
        reads += _regs(x.guard.lstrip("!"), 1)
    if x.opcode in NO_DEST or x.opcode == "BRA":
        dests: list[str] = []
    elif x.opcode in ("ATOMG", "ATOM", "ATOMS", "SHFL", "ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "VOTE",
                      "VOTEU", "LDGSTS", "R2P", "P2R", "PLOP3", "UISETP", "UPLOP3", "FCHK", "MATCH"):
        # leading predicate destinations, then (for some) one register destination
        dests = []
        while ops and (_PRED.fullmatch(ops[0].lstrip("!")) or ops[0] in ("PT", "UPT")):
            dests.append(ops.pop(0))
        if x.opcode in ("ATOMG", "ATOM", "ATOMS", "SHFL", "VOTE", "VOTEU", "MATCH", "P2R") and ops:
            dests.append(ops.pop(0))
    else:
        dests = [ops.pop(0)] if ops else []
        # carry/predicate outputs that follow the destination (IADD3 R4, P0, PT, ...; LEA R2, P0, ...)
        while ops and (_PRED.fullmatch(ops[0]) or ops[0] in ("PT", "UPT")) and x.opcode in (
                "IADD3", "LEA", "IMAD", "UIADD3", "ULEA", "IADD", "SHF", "IMNMX", "FMNMX", "LOP3", "ULOP3"):
            dests.append(ops.pop(0))
    mma = _mma_lengths(x) if x.opcode in ("HMMA", "IMMA", "DMMA") else None
    pair = x.opcode in _PAIRS
    width = _width(x)
    for i, d in enumerate(dests):
        if mma and i == 0:
            span = mma[0]
        elif pair or (x.opcode in ("IMAD", "UIMAD") and "WIDE" in x.modifiers) or x.opcode in ("CS2R",) or (
                x.opcode in ("F2F", "I2F", "MOV", "UMOV", "IMAD") and "F64" in x.modifiers[:1]):
            span = 2
        elif x.opcode in ("LDG", "LDS", "LDL", "LD", "LDC", "ULDC", "ATOMG", "ATOM", "ATOMS", "LDSM", "SHFL"):
            span = width if x.opcode != "LDSM" else int(next((m for m in x.modifiers if m in "124"), "1"))
        else:
            span = 1
        writes += _regs(d, span)
    for i, s in enumerate(ops):
        if mma:
            span = (mma[1], mma[2], mma[3])[min(i, 2)]
        elif pair or (x.opcode in ("IMAD", "UIMAD") and "WIDE" in x.modifiers and i == 2):
            span = 2
        elif x.opcode in ("STG", "STS", "STL", "ST", "RED", "REDG", "ATOMG", "ATOM", "ATOMS") and "[" not in s:
            span = width
        else:
            span = 1
        reads += _regs(s, span)
    return tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes))
