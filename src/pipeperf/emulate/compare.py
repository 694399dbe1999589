"""Comparisons: ``set`` and ``setp`` (PTX ISA 9.0, 9.7.3.x, and 9.7.4.x for f16/f16x2)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate.numerics import flush_subnormals, halves, pack
from pipeperf.emulate.operands import Handler, Unsupported, getter, setter
from pipeperf.emulate.state import NP, RAW
from pipeperf.ptx.ir import Instruction

#: 1.0 as written by ``set`` into a float destination, raw bits per destination type
_ONE_BITS = {"f32": 0x3F800000, "f16": 0x3C00, "f16x2": 0x3C00}

CMP = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal,
    "hi": np.greater, "hs": np.greater_equal,
}


def _compare(c: str, a, b, is_float: bool):
    if c in CMP:
        r = CMP[c](a, b)
        if c == "ne" and is_float:
            r = r & ~(np.isnan(a) | np.isnan(b))
        return r
    if c == "num":
        return ~(np.isnan(a) | np.isnan(b))
    if c == "nan":
        return np.isnan(a) | np.isnan(b)
    if c.endswith("u") and c[:-1] in CMP:
        return CMP[c[:-1]](a, b) | np.isnan(a) | np.isnan(b)
    raise Unsupported(f"setp comparison .{c}")


_BOOL_OPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def _known_comparison(c: str) -> bool:
    return c in CMP or c in ("num", "nan") or (c.endswith("u") and c[:-1] in CMP)


def comparison(ins: Instruction, m: Any) -> Handler:
    """``set`` and ``setp`` (PTX ISA 9.7.3.x, and 9.7.4.x for f16/f16x2): compare a with b -- each
    16-bit lane separately for f16x2 -- and combine the result t with predicate c when a
    .and/.or/.xor is given. setp writes p = BoolOp(t, c) and q = BoolOp(!t, c), but for f16x2
    p = BoolOp(t[lo], c) and q = BoolOp(t[hi], c). set writes, per result (per 16-bit lane for
    f16x2), all ones to an integer destination and 1.0 to a float one (f16x2: 0x3C00 per
    lane), zero otherwise."""
    mods = ins.modifiers
    c = mods[0] if mods else ""
    if not _known_comparison(c):
        raise Unsupported(f"{ins.opcode} (comparison .{c})")
    stype = ins.types[-1] if ins.types else "b32"
    if stype in ("bf16", "bf16x2"):
        raise Unsupported(f"{ins.opcode} (bf16 comparisons)")
    packed = stype == "f16x2"
    sdt = NP["b32"] if packed else NP[stype]
    is_f = packed or sdt.kind == "f"
    ftz = "ftz" in mods and is_f
    bool_op = next((_BOOL_OPS[x] for x in mods if x in _BOOL_OPS), None)
    if (bool_op is None) != (len(ins.srcs) == 2):
        raise Unsupported(f"{ins.opcode} (needs a .and/.or/.xor with a third, predicate source)")
    a_g, b_g = getter(ins.srcs[0], sdt, m), getter(ins.srcs[1], sdt, m)
    c_g = getter(ins.srcs[2], np.dtype(np.bool_), m) if bool_op is not None else None

    def compare(st, ix):
        a, b = a_g(st, ix), b_g(st, ix)
        if packed:
            a, b = halves(a), halves(b)
        if ftz:
            a, b = flush_subnormals(a), flush_subnormals(b)
        t = np.asarray(_compare(c, a, b, is_f))
        if bool_op is None:
            return t, None
        cc = np.asarray(c_g(st, ix))
        return t, (cc[..., None] if packed and cc.ndim else cc)

    if ins.root == "setp":
        d0 = setter(ins.dsts[0], np.dtype(np.bool_))
        d1 = setter(ins.dsts[1], np.dtype(np.bool_)) if len(ins.dsts) > 1 else None

        def h(st, ix):
            t, cc = compare(st, ix)
            if packed:
                p, q = t[:, 0], t[:, 1]
            else:
                p, q = t, ~t
            if bool_op is not None:
                cc = cc[:, 0] if packed and cc.ndim else cc
                p, q = bool_op(p, cc), bool_op(q, cc)
            d0(st, ix, p)
            if d1:
                d1(st, ix, q)
        return h

    dtype = ins.types[0] if len(ins.types) == 2 else ""
    allowed = ("f16x2", "u32", "s32") if packed else ("u32", "s32", "f32", "u16", "s16", "f16")
    if dtype not in allowed:
        raise Unsupported(f"{ins.opcode} (set needs a destination type among .{', .'.join(allowed)})")
    width = 2 if packed else NP[dtype].itemsize
    raw = RAW[width]
    one = raw.type(_ONE_BITS.get(dtype, (1 << (8 * width)) - 1))
    dst = setter(ins.dsts[0], NP["b32"] if packed else raw)

    def h(st, ix):  # type: ignore[no-redef]  # one handler per form
        t, cc = compare(st, ix)
        if bool_op is not None:
            t = bool_op(t, cc)
        r = np.where(t, one, raw.type(0)).astype(raw)
        dst(st, ix, pack(r) if packed else r)
    return h
