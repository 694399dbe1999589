"""Parsing of single PTX operands and numeric literals.

Operand text is parsed once per distinct spelling and cached by the parser,
so this module favours clarity over speed.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Container

from pipeperf.ptx.ir import (
    Address,
    HandleRef,
    Immediate,
    NotPred,
    ParamList,
    Register,
    Sink,
    SpecialRegister,
    Symbol,
    Vector,
)

# PTX special registers (PTX ISA chapter 10), without their .x/.y/.z suffix.
SPECIAL_REGISTERS = frozenset("""
    %tid %ntid %laneid %warpid %nwarpid %ctaid %nctaid %smid %nsmid %gridid
    %is_explicit_cluster %clusterid %nclusterid %cluster_ctaid %cluster_nctaid
    %cluster_ctarank %cluster_nctarank %lanemask_eq %lanemask_le %lanemask_lt %lanemask_ge
    %lanemask_gt %clock %clock_hi %clock64 %pm0 %pm1 %pm2 %pm3 %pm4 %pm5 %pm6 %pm7
    %pm0_64 %pm1_64 %pm2_64 %pm3_64 %pm4_64 %pm5_64 %pm6_64 %pm7_64 %globaltimer
    %globaltimer_lo %globaltimer_hi %total_smem_size %aggr_smem_size %dynamic_smem_size
    %current_graph_exec %reserved_smem_offset_begin %reserved_smem_offset_end
    %reserved_smem_offset_cap %reserved_smem_offset_0 %reserved_smem_offset_1
""".split()) | frozenset(f"%envreg{i}" for i in range(32)) | frozenset({"WARP_SZ"})  # noqa: SIM905 -- a word list
#: Predefined identifiers without a ``%`` (PTX ISA 4.4 / 10): ``WARP_SZ``, the warp size as a
#: run-time constant (what CUDA's ``warpSize`` compiles to). Read like a special register.
PREDEFINED_CONSTANTS = frozenset({"WARP_SZ"})

IDENT = r"(?:[A-Za-z][\w$]*|[_$%][\w$]+)"
_REG_RE = re.compile(r"%[\w$]+(?:\.[xyzw])?\Z")
_IDENT_RE = re.compile(IDENT + r"\Z")
_INT_RE = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uU]?\Z")
_HEXF_RE = re.compile(r"[+-]?0([fFdD])([0-9a-fA-F]+)\Z")
_DECF_RE = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z|[+-]?[0-9]+[eE][+-]?[0-9]+\Z")
_ADDR_RE = re.compile(
    r"\s*(?:(" + IDENT + r")\s*)?(?:([+-])?\s*([+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)))?\s*\Z")
_SPLIT_RE = re.compile(r"\s*((?:[^,(\[{]|\([^)]*\)|\[[^\]]*\]|\{[^}]*\})+?)\s*(?:,|\Z)")

_WS_RE = re.compile(r"\s+")
SINK = Sink()


class BadOperand(ValueError):
    """Operand text that is not PTX; carries the offending text."""


def parse_int(text: str) -> int:
    """A PTX integer literal: decimal, 0x hex, 0b binary, 0-prefixed octal, optional U."""
    t = text.rstrip("uU")
    neg = t.startswith("-")
    if t[:1] in "+-":
        t = t[1:]
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif t[:2] in ("0b", "0B"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t[0] == "0":
        v = int(t, 8)
    else:
        v = int(t)
    return -v if neg else v


def parse_immediate(text: str) -> Immediate | None:
    """An :class:`Immediate` for a numeric literal, or None if ``text`` is not one."""
    m = _HEXF_RE.match(text)
    if m:
        kind, digits = m.groups()
        if kind in "fF" and len(digits) == 8:
            v = struct.unpack("<f", int(digits, 16).to_bytes(4, "little"))[0]
        elif kind in "dD" and len(digits) == 16:
            v = struct.unpack("<d", int(digits, 16).to_bytes(8, "little"))[0]
        else:
            return None
        if text.startswith("-"):
            v = -v
        return Immediate(float(v), text)
    if _INT_RE.match(text):
        try:
            return Immediate(parse_int(text), text)
        except ValueError:
            return None
    if _DECF_RE.match(text):
        return Immediate(float(text), text)
    return None


def split_operands(text: str) -> list[str]:
    """Split at top-level commas, keeping ``{..}``, ``[..]`` and ``(..)`` together."""
    if "{" not in text and "(" not in text:
        i = text.find("[")
        while i >= 0:  # a comma inside [..] (texture operand) needs the slow path
            j = text.find("]", i)
            k = text.find(",", i)
            if j < 0 or 0 <= k < j:
                break
            i = text.find("[", j)
        else:
            return [t.strip() for t in text.split(",")]
    parts = _SPLIT_RE.findall(text)
    # findall silently skips text it cannot match: check that nothing was lost.
    if _WS_RE.sub("", text) != ",".join(_WS_RE.sub("", p) for p in parts):
        raise BadOperand(text.strip())
    return parts


def parse_operand(text: str, regs_without_percent: Container[str] = frozenset()):
    """Parse one operand's text into an IR operand object (raises :class:`BadOperand`)."""
    c = text[:1]
    if c == "%":
        if not _REG_RE.match(text):
            raise BadOperand(text)
        base = text.split(".", 1)[0]
        if base in SPECIAL_REGISTERS:
            return SpecialRegister(text)
        return Register(text)
    if c == "[":
        if not text.endswith("]"):
            raise BadOperand(text)
        inner = text[1:-1]
        if "," in inner:
            return HandleRef(tuple(parse_operand(t, regs_without_percent)
                                   for t in split_operands(inner)))
        m = _ADDR_RE.match(inner)
        if not m or (m.group(1) is None and m.group(3) is None):
            raise BadOperand(text)
        name, sign, off = m.groups()
        offset = parse_int(off) if off is not None else 0
        if sign == "-":
            offset = -offset
        if name is None:
            return Address(None, offset)
        if name[0] == "%" or name in regs_without_percent:
            if name.split(".", 1)[0] in SPECIAL_REGISTERS:
                raise BadOperand(text)
            return Address(Register(name), offset)
        return Address(Symbol(name), offset)
    if c == "{":
        if not text.endswith("}"):
            raise BadOperand(text)
        inner = text[1:-1].strip()
        if not inner:
            raise BadOperand(text)
        return Vector(tuple(parse_operand(t, regs_without_percent)
                            for t in split_operands(inner)))
    if c == "(":
        if not text.endswith(")"):
            raise BadOperand(text)
        inner = text[1:-1].strip()
        if not inner:
            return ParamList(())
        return ParamList(tuple(parse_operand(t, regs_without_percent)
                               for t in split_operands(inner)))
    if c == "!":
        inner = parse_operand(text[1:].strip(), regs_without_percent)
        if type(inner) is not Register:
            raise BadOperand(text)
        return NotPred(inner)
    if text == "_":
        return SINK
    imm = parse_immediate(text)
    if imm is not None:
        return imm
    if _IDENT_RE.match(text):
        if text in regs_without_percent:
            return Register(text)
        if text in PREDEFINED_CONSTANTS:
            return SpecialRegister(text)
        return Symbol(text)
    raise BadOperand(text)
