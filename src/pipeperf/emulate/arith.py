"""Arithmetic opcodes as tables (PTX ISA 9.0, 9.7.1-9.7.4): each opcode names the builder of
its family, and a family names its NumPy function per opcode, so an opcode's semantics is one
table row and its family's rules, not a branch of one long chain.

Builders run once per instruction; the handlers they return do only NumPy work per step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pipeperf.emulate.numerics import (
    canonical_nan,
    float_min_max,
    fma64,
    halves,
    mulhi,
    pack,
    round_f32,
)
from pipeperf.emulate.operands import (
    F16,
    F32,
    F64,
    Handler,
    Unsupported,
    getter,
    setter,
)
from pipeperf.emulate.state import NP
from pipeperf.emulate.typed import Family, Typed
from pipeperf.ptx.ir import Instruction

#: two-operand opcodes that are one ufunc (without .wide/.hi)
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply}
BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
UNARY = {"abs": np.abs, "neg": np.negative}
#: f16x2: each 16-bit lane computed independently (PTX ISA 9.7.4; min/max: :func:`float_min_max`)
HALF2 = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "neg": np.negative,
         "abs": np.abs, "fma": lambda a, b, c: (np.asarray(a, F64) * b + c).astype(F16)}
#: special-function-unit opcodes, computed in float64 and rounded to the instruction's type
SFU: dict[str, Callable[[Any], Any]] = {"sin": np.sin, "cos": np.cos, "lg2": np.log2, "ex2": np.exp2, "tanh": np.tanh,
       "rsqrt": lambda x: 1 / np.sqrt(x)}


def _binary(a: Typed, m: Any) -> Handler:
    """add, sub, mul; mul.wide and mul.hi (add/sub take neither)."""
    if a.wide or a.hi:
        if a.root != "mul":
            raise Unsupported(a.ins.opcode)
        return _wide_product(a) if a.wide else _high_product(a)
    ufunc, srcs, dst, mode = BINARY[a.root], a.srcs, a.dst, a.mode
    if a.is_f and a.dt == F32 and mode != "rn":
        def h(st, ix):
            x, y = srcs[0](st, ix), srcs[1](st, ix)
            dst(st, ix, round_f32(ufunc(np.asarray(x, F64), np.asarray(y, F64)), mode))
        return h
    if a.is_f and "sat" in a.mods:
        def h(st, ix):
            dst(st, ix, np.clip(ufunc(srcs[0](st, ix), srcs[1](st, ix)), 0, 1))
        return h
    a_g, b_g = srcs

    def h(st, ix):  # type: ignore[no-redef]  # one handler per form
        dst(st, ix, ufunc(a_g(st, ix), b_g(st, ix)))
    return h


def _wide_product(a: Typed) -> Handler:
    srcs, dst, out_dt = a.srcs, a.dst, a.out_dt

    def h(st, ix):
        dst(st, ix, np.multiply(np.asarray(srcs[0](st, ix)).astype(out_dt),
                                np.asarray(srcs[1](st, ix)).astype(out_dt)))
    return h


def _high_product(a: Typed) -> Handler:
    """mul.hi and mad.hi: the high half of the product (plus the addend)."""
    srcs, dst, dt, root = a.srcs, a.dst, a.dt, a.root

    def h(st, ix):
        r = mulhi(srcs[0](st, ix), srcs[1](st, ix), dt)
        if root == "mad":
            r = r + srcs[2](st, ix)
        dst(st, ix, r)
    return h


def _multiply_add(a: Typed, m: Any) -> Handler:
    """mad and fma: integer wrap-around, float64 FMA, f16 through float64, f32 rounded once."""
    if a.root == "mad" and a.hi:
        return _high_product(a)
    srcs, dst, dt, mode, mods = a.srcs, a.dst, a.dt, a.mode, a.mods
    if a.root == "mad" and a.wide:
        out_dt = a.out_dt

        def h(st, ix):
            p = np.multiply(np.asarray(srcs[0](st, ix)).astype(out_dt),
                            np.asarray(srcs[1](st, ix)).astype(out_dt))
            dst(st, ix, p + np.asarray(srcs[2](st, ix), out_dt))
        return h
    if not a.is_f:
        def h(st, ix):
            dst(st, ix, srcs[0](st, ix) * srcs[1](st, ix) + srcs[2](st, ix))
        return h
    if dt == F64:
        def h(st, ix):
            dst(st, ix, fma64(srcs[0](st, ix), srcs[1](st, ix), srcs[2](st, ix)))
        return h
    if dt == F16:
        def h(st, ix):
            r = np.asarray(srcs[0](st, ix), F64) * srcs[1](st, ix) + srcs[2](st, ix)
            dst(st, ix, np.asarray(r).astype(F16))
        return h

    def h(st, ix):  # type: ignore[no-redef]  # one handler per form
        x = np.asarray(srcs[0](st, ix), F64)
        r = x * srcs[1](st, ix) + np.asarray(srcs[2](st, ix), F64)
        r = round_f32(np.asarray(r), mode)
        if "sat" in mods:
            r = np.clip(r, 0, 1)
        dst(st, ix, r)
    return h


def _divide(a: Typed, m: Any) -> Handler:
    """div: float division; integers truncate toward zero and give -1 (all ones) for x / 0."""
    srcs, dst, dt = a.srcs, a.dst, a.dt
    if a.is_f:
        def h(st, ix):
            dst(st, ix, np.divide(srcs[0](st, ix), srcs[1](st, ix)).astype(dt))
        return h

    def h(st, ix):  # type: ignore[no-redef]  # one handler per form
        x, y = np.asarray(srcs[0](st, ix)), np.asarray(srcs[1](st, ix))
        yz = np.where(y == 0, 1, y)
        if dt.kind == "i":
            q = np.abs(x.astype(np.int64)) // np.abs(yz.astype(np.int64))
            q = np.where((x < 0) ^ (yz < 0), -q, q)
        else:
            q = x // yz
        dst(st, ix, np.where(y == 0, np.asarray(-1).astype(dt), np.asarray(q).astype(dt)))
    return h


def _remainder(a: Typed, m: Any) -> Handler:
    """rem: the sign of the dividend (C's %); x rem 0 is x."""
    srcs, dst, dt = a.srcs, a.dst, a.dt

    def h(st, ix):
        x, y = np.asarray(srcs[0](st, ix)), np.asarray(srcs[1](st, ix))
        yz = np.where(y == 0, 1, y)
        r = np.fmod(x, yz) if dt.kind == "i" else x % yz
        dst(st, ix, np.where(y == 0, x, r).astype(dt))
    return h


def _min_max(a: Typed, m: Any) -> Handler:
    if a.is_f:
        f = float_min_max(a.ins)
    elif "relu" in a.mods:
        raise Unsupported(f"{a.ins.opcode} (.relu)")
    else:
        f = np.minimum if a.root == "min" else np.maximum
    srcs, dst = a.srcs, a.dst

    def h(st, ix):
        dst(st, ix, f(srcs[0](st, ix), srcs[1](st, ix)))
    return h


def _unary(a: Typed, m: Any) -> Handler:
    f, srcs, dst = UNARY[a.root], a.srcs, a.dst
    return lambda st, ix: dst(st, ix, f(srcs[0](st, ix)))


def _bitwise(a: Typed, m: Any) -> Handler:
    f, srcs, dst = BITWISE[a.root], a.srcs, a.dst
    return lambda st, ix: dst(st, ix, f(srcs[0](st, ix), srcs[1](st, ix)))


def _not(a: Typed, m: Any) -> Handler:
    srcs, dst = a.srcs, a.dst
    if a.dt == np.bool_:
        return lambda st, ix: dst(st, ix, np.logical_not(srcs[0](st, ix)))
    return lambda st, ix: dst(st, ix, np.invert(srcs[0](st, ix)))


def _select(a: Typed, m: Any) -> Handler:
    """selp d, a, b, p: a where p, else b."""
    srcs, dst, dt = a.srcs, a.dst, a.dt
    p = getter(a.ins.srcs[2], np.dtype(np.bool_), m)

    def h(st, ix):
        dst(st, ix, np.where(p(st, ix), srcs[0](st, ix), srcs[1](st, ix)).astype(dt))
    return h


#: opcode -> builder of its family (the f16x2 forms: :func:`packed_half`)
FAMILY: dict[str, Family] = {
    **dict.fromkeys(BINARY, _binary), "mad": _multiply_add, "fma": _multiply_add,
    "div": _divide, "rem": _remainder, "min": _min_max, "max": _min_max,
    **dict.fromkeys(UNARY, _unary), **dict.fromkeys(BITWISE, _bitwise), "not": _not,
    "selp": _select,
}


def packed_half(ins: Instruction, m: Any) -> Handler:
    """f16x2 arithmetic: the two 16-bit lanes of each operand computed independently (PTX ISA
    9.7.4: add sub mul fma min max neg abs, with .sat, .relu and min/max .NaN)."""
    root, mods = ins.root, ins.modifiers
    op = float_min_max(ins) if root in ("min", "max") else HALF2.get(root)
    if op is None:
        raise Unsupported(ins.opcode)
    srcs = [getter(s, NP["b32"], m) for s in ins.srcs]
    dst = setter(ins.dsts[0], NP["b32"])
    sat, relu = "sat" in mods, "relu" in mods

    def h(st, ix):
        r = np.asarray(op(*[halves(g(st, ix)) for g in srcs]), F16)
        if sat:
            r = np.where(np.isnan(r), F16.type(0), np.clip(r, 0, 1)).astype(F16)
        elif relu:
            r = canonical_nan(np.where(r < 0, F16.type(0), r).astype(F16))
        dst(st, ix, pack(r))
    return h


def special_function(ins: Instruction, m: Any) -> Handler:
    """sin cos lg2 ex2 tanh rsqrt (and their .f16x2 forms, lane by lane)."""
    dt = NP[ins.types[-1] if ins.types else "b32"]
    f = SFU[ins.root]
    if ins.types and ins.types[-1] == "f16x2":   # ex2/tanh.approx.f16x2: each lane
        a2, d2 = getter(ins.srcs[0], NP["b32"], m), setter(ins.dsts[0], NP["b32"])
        return lambda st, ix: d2(st, ix, pack(f(halves(a2(st, ix)).astype(F64)).astype(F16)))
    a = getter(ins.srcs[0], dt, m)
    dst = setter(ins.dsts[0], dt)

    def h(st, ix):
        x = a(st, ix)
        dst(st, ix, np.asarray(f(np.asarray(x, F64) if dt != F64 else x)).astype(dt))
    return h


def sqrt_rcp(ins: Instruction, m: Any) -> Handler:
    """sqrt and rcp in the instruction's own type (IEEE-rounded forms, not .approx's float64)."""
    dt = NP[ins.types[-1] if ins.types else "b32"]
    a = getter(ins.srcs[0], dt, m)
    dst = setter(ins.dsts[0], dt)
    if ins.root == "sqrt":
        return lambda st, ix: dst(st, ix, np.sqrt(a(st, ix)))
    one = dt.type(1)
    return lambda st, ix: dst(st, ix, np.divide(one, a(st, ix)).astype(dt))
