"""Semantics of PTX instructions, compiled once per instruction into a closure.

Each closure ``h(st, g)`` executes its instruction for the thread group ``g``
(already filtered by the guard predicate) on :class:`State` ``st`` with one
vectorised NumPy operation per operand; decoding happens once, at compile
time, so the per-step cost is only NumPy work. Source: PTX ISA 9.0, ch. 9.7.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pipeperf.emulate.state import NP, RAW, State, cast
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import (Immediate, Instruction, NotPred, Register, Sink, SpecialRegister,
                             Symbol, Vector)

Handler = Callable[[State, Any], None]
Getter = Callable[[State, Any], Any]

F32, F64, F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)


class Unsupported(Exception):
    pass


# ----------------------------------------------------------------- operands
def imm_value(v: Immediate, dt: np.dtype):
    if dt.kind == "f":
        if isinstance(v.value, float):
            return dt.type(v.value)
        return np.asarray(int(v.value) & ((1 << (8 * dt.itemsize)) - 1),
                          RAW[dt.itemsize]).view(dt)[()]
    if dt == np.bool_:
        return np.bool_(v.value)
    if isinstance(v.value, float):
        raw = np.asarray(v.value, F64 if dt.itemsize == 8 else F32).view(RAW[dt.itemsize])
        return raw.view(dt)[()]
    return np.asarray(int(v.value) & ((1 << (8 * dt.itemsize)) - 1), RAW[dt.itemsize]).view(dt)[()]


def getter(op, dt: np.dtype, m) -> Getter:
    """Reader of source operand ``op`` as type ``dt``."""
    t = type(op)
    if t is Register:
        name = op.name

        def g(st, ix):
            return cast(st.reg(name, dt)[ix], dt)
        return g
    if t is NotPred:
        name = op.reg.name
        return lambda st, ix: ~st.reg(name, np.dtype(np.bool_))[ix]
    if t is Immediate:
        val = imm_value(op, dt)
        return lambda st, ix: val
    if t is SpecialRegister:
        name = op.name

        def g(st, ix):
            v = st.special.get(name)
            if v is None:
                raise PipeperfError(f"special register {name} is not supported by the emulator")
            return cast(v[ix] if isinstance(v, np.ndarray) else v, dt)
        return g
    if t is Symbol:
        addr = m.symbol_address(op.name)
        val = np.asarray(addr, np.uint64).astype(RAW[dt.itemsize]).view(dt)[()]
        return lambda st, ix: val
    raise Unsupported(f"operand {op}")


def setter(op, dt: np.dtype) -> Callable[[State, Any, Any], None]:
    """Writer of destination ``op`` from a value of type ``dt``."""
    if type(op) is Sink:
        return lambda st, ix, v: None
    if type(op) is not Register:
        raise Unsupported(f"destination {op}")
    name = op.name

    def s(st, ix, v):
        arr = st.reg(name, dt)
        if arr.dtype == np.bool_:
            arr[ix] = v
            return
        if not isinstance(v, np.ndarray):
            v = np.asarray(v, dt)
        if v.dtype.itemsize == arr.dtype.itemsize:
            arr[ix] = v.view(arr.dtype)
        elif v.dtype.kind == "f":
            arr[ix] = v.view(RAW[v.dtype.itemsize]).astype(arr.dtype)
        else:
            arr[ix] = v.astype(arr.dtype)
    return s


# ----------------------------------------------------------------- helpers
def _round_f32(x: np.ndarray, mode: str) -> np.ndarray:
    """float64 -> float32 with a PTX rounding mode (.rn .rz .rm .rp)."""
    f = x.astype(F32)
    if mode == "rn":
        return f
    back = f.astype(F64)
    if mode == "rm":
        return np.where(back > x, np.nextafter(f, F32.type(-np.inf)), f)
    if mode == "rp":
        return np.where(back < x, np.nextafter(f, F32.type(np.inf)), f)
    if mode == "rz":
        up = (back > x) & (x >= 0)
        dn = (back < x) & (x < 0)
        f = np.where(up, np.nextafter(f, F32.type(0)), f)
        return np.where(dn, np.nextafter(f, F32.type(0)), f)
    return f


def _fma64(a, b, c):
    """Fused multiply-add in float64 via error-free transformations (Dekker/Knuth)."""
    a = np.asarray(a, F64)
    b = np.asarray(b, F64)
    c = np.asarray(c, F64)
    p = a * b
    split = 134217729.0
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    r = s + (t + e)
    return np.where(np.isfinite(r), r, a * b + c)


def _mode(ins: Instruction) -> str:
    for m in ins.modifiers:
        if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"):
            return m
    return "rn"


def _halves(a) -> np.ndarray:
    """The two f16 lanes of packed f16x2 values (raw ``uint32``, per thread or one immediate) as a
    ``(n, 2)`` float16 array; column 0 is bits 0-15, column 1 bits 16-31 (PTX ISA 5.2.5)."""
    return np.ascontiguousarray(np.atleast_1d(np.asarray(a, np.uint32))).view(F16).reshape(-1, 2)


def _pack(h: np.ndarray) -> np.ndarray:
    """Inverse of :func:`_halves`: ``(n, 2)`` 16-bit lanes -> ``n`` raw ``uint32`` words."""
    return np.ascontiguousarray(h).view(np.uint32).reshape(-1)


#: PTX's canonical NaN (the result of min/max/fma.relu when it is NaN), by float width
_CANON_NAN = {2: np.uint16(0x7FFF).view(F16), 4: np.uint32(0x7FFFFFFF).view(F32)}
#: 1.0 as written by ``set`` into a float destination, raw bits per destination type
_ONE_BITS = {"f32": 0x3F800000, "f16": 0x3C00, "f16x2": 0x3C00}


def _canonical_nan(r: np.ndarray) -> np.ndarray:
    nan = _CANON_NAN.get(r.dtype.itemsize) if r.dtype.kind == "f" else None
    return r if nan is None else np.where(np.isnan(r), nan, r).astype(r.dtype)


def _min_max(ins: Instruction):
    """NumPy function of float ``min``/``max`` with its modifiers: a NaN input is ignored
    (``fmin``), or propagated with ``.NaN``; NaN results are canonical; -0.0 < +0.0 (as
    cuda_fp16.hpp's host versions of __hmin/__hmax spell out). ``.xorsign.abs`` is refused."""
    if "xorsign" in ins.modifiers:
        raise Unsupported(f"{ins.opcode} (.xorsign.abs)")
    if "relu" in ins.modifiers:
        raise Unsupported(f"{ins.opcode} (.relu)")
    lo = ins.root == "min"
    if "NaN" in ins.modifiers:
        f = np.minimum if lo else np.maximum
    else:
        f = np.fmin if lo else np.fmax

    def mm(a, b):
        r = np.asarray(f(a, b))
        zeros = (a == 0) & (b == 0)
        if np.any(zeros):
            neg_a = np.signbit(a)
            r = np.where(zeros, np.where(neg_a, a, b) if lo else np.where(neg_a, b, a), r)
        return _canonical_nan(np.asarray(r))
    return mm


def _packed_half(ins: Instruction, m) -> Handler:
    """f16x2 arithmetic: the two 16-bit lanes of each operand computed independently (PTX ISA
    9.7.4: add sub mul fma min max neg abs, with .sat, .relu and min/max .NaN)."""
    root, mods = ins.root, ins.modifiers
    if root in ("min", "max"):
        op = _min_max(ins)
    else:
        op = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "neg": np.negative,
              "abs": np.abs,
              "fma": lambda a, b, c: (np.asarray(a, F64) * b + c).astype(F16),
              }.get(root)
    if op is None:
        raise Unsupported(ins.opcode)
    srcs = [getter(s, NP["b32"], m) for s in ins.srcs]
    dst = setter(ins.dsts[0], NP["b32"])
    sat, relu = "sat" in mods, "relu" in mods

    def h(st, ix):
        r = np.asarray(op(*[_halves(g(st, ix)) for g in srcs]), F16)
        if sat:
            r = np.where(np.isnan(r), F16.type(0), np.clip(r, 0, 1)).astype(F16)
        elif relu:
            r = _canonical_nan(np.where(r < 0, F16.type(0), r).astype(F16))
        dst(st, ix, _pack(r))
    return h


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


def _flush_subnormals(x: np.ndarray) -> np.ndarray:
    """``.ftz``: subnormal float inputs read as zero of the same sign."""
    x = np.asarray(x)
    return np.where(np.abs(x) < np.finfo(x.dtype).tiny, np.copysign(x.dtype.type(0), x), x)


def _cmp(ins: Instruction, m) -> Handler:
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
            a, b = _halves(a), _halves(b)
        if ftz:
            a, b = _flush_subnormals(a), _flush_subnormals(b)
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

    def h(st, ix):
        t, cc = compare(st, ix)
        if bool_op is not None:
            t = bool_op(t, cc)
        r = np.where(t, one, raw.type(0)).astype(raw)
        dst(st, ix, _pack(r) if packed else r)
    return h


# ----------------------------------------------------------------- compile
def compile_instruction(ins: Instruction, m) -> Handler:
    """Closure executing ``ins``; ``m`` is the machine (memory, symbols, counters)."""
    root = ins.root
    fn = _BUILDERS.get(root)
    if fn is None:
        raise Unsupported(ins.opcode)
    try:
        return fn(ins, m)
    except KeyError as exc:  # a type the emulator has no NumPy view of (NP), e.g. bf16x2
        if exc.args and exc.args[0] in ins.types:
            raise Unsupported(f"{ins.opcode} (type .{exc.args[0]})") from None
        raise


def _dt(ins: Instruction, k: int = -1) -> np.dtype:
    t = ins.types[k] if ins.types else "b32"
    return NP[t]


def _arith(ins: Instruction, m) -> Handler:
    root = ins.root
    t = ins.types[-1] if ins.types else "b32"
    dt = NP[t]
    mods = ins.modifiers
    if t == "f16x2":
        return _packed_half(ins, m)
    wide = "wide" in mods
    hi = "hi" in mods
    if "cc" in mods:
        raise Unsupported(f"{ins.opcode} (carry chains)")
    if "sat" in mods and dt.kind != "f":
        raise Unsupported(f"{ins.opcode} (integer saturation)")
    srcs = [getter(s, dt, m) for s in ins.srcs]
    out_dt = NP[{"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}[t]] if wide else dt
    dst = setter(ins.dsts[0], out_dt)
    is_f = dt.kind == "f"
    mode = _mode(ins)
    bits = dt.itemsize * 8

    if root in ("add", "sub", "mul") and not (wide or hi):
        ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[root]
        if is_f and dt == F32 and mode != "rn":
            def h(st, ix):
                a, b = srcs[0](st, ix), srcs[1](st, ix)
                dst(st, ix, _round_f32(ufunc(np.asarray(a, F64), np.asarray(b, F64)), mode))
            return h
        if is_f and "sat" in mods:
            def h(st, ix):
                dst(st, ix, np.clip(ufunc(srcs[0](st, ix), srcs[1](st, ix)), 0, 1))
            return h
        a_g, b_g = srcs

        def h(st, ix):
            dst(st, ix, ufunc(a_g(st, ix), b_g(st, ix)))
        return h
    if root == "mul" and wide:
        def h(st, ix):
            dst(st, ix, np.multiply(np.asarray(srcs[0](st, ix)).astype(out_dt),
                                    np.asarray(srcs[1](st, ix)).astype(out_dt)))
        return h
    if root in ("mul", "mad") and hi:
        def h(st, ix):
            r = _mulhi(srcs[0](st, ix), srcs[1](st, ix), dt)
            if root == "mad":
                r = r + srcs[2](st, ix)
            dst(st, ix, r)
        return h
    if root == "mad" and wide:
        def h(st, ix):
            p = np.multiply(np.asarray(srcs[0](st, ix)).astype(out_dt),
                            np.asarray(srcs[1](st, ix)).astype(out_dt))
            dst(st, ix, p + np.asarray(srcs[2](st, ix), out_dt))
        return h
    if root in ("fma", "mad"):
        if not is_f:
            def h(st, ix):
                dst(st, ix, srcs[0](st, ix) * srcs[1](st, ix) + srcs[2](st, ix))
            return h
        if dt == F64:
            def h(st, ix):
                dst(st, ix, _fma64(srcs[0](st, ix), srcs[1](st, ix), srcs[2](st, ix)))
            return h
        if dt == F16:
            def h(st, ix):
                r = np.asarray(srcs[0](st, ix), F64) * srcs[1](st, ix) + srcs[2](st, ix)
                dst(st, ix, np.asarray(r).astype(F16))
            return h

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix), F64)
            r = a * srcs[1](st, ix) + np.asarray(srcs[2](st, ix), F64)
            r = _round_f32(np.asarray(r), mode)
            if "sat" in mods:
                r = np.clip(r, 0, 1)
            dst(st, ix, r)
        return h
    if root == "div":
        if is_f:
            def h(st, ix):
                dst(st, ix, np.divide(srcs[0](st, ix), srcs[1](st, ix)).astype(dt))
            return h

        def h(st, ix):
            a, b = np.asarray(srcs[0](st, ix)), np.asarray(srcs[1](st, ix))
            bz = np.where(b == 0, 1, b)
            if dt.kind == "i":
                q = np.abs(a.astype(np.int64)) // np.abs(bz.astype(np.int64))
                q = np.where((a < 0) ^ (bz < 0), -q, q)
            else:
                q = a // bz
            dst(st, ix, np.where(b == 0, np.asarray(-1).astype(dt), np.asarray(q).astype(dt)))
        return h
    if root == "rem":
        def h(st, ix):
            a, b = np.asarray(srcs[0](st, ix)), np.asarray(srcs[1](st, ix))
            bz = np.where(b == 0, 1, b)
            r = np.fmod(a, bz) if dt.kind == "i" else a % bz
            dst(st, ix, np.where(b == 0, a, r).astype(dt))
        return h
    if root in ("min", "max"):
        if is_f:
            f = _min_max(ins)
        elif "relu" in mods:
            raise Unsupported(f"{ins.opcode} (.relu)")
        else:
            f = np.minimum if root == "min" else np.maximum

        def h(st, ix):
            dst(st, ix, f(srcs[0](st, ix), srcs[1](st, ix)))
        return h
    if root == "abs":
        return lambda st, ix: dst(st, ix, np.abs(srcs[0](st, ix)))
    if root == "neg":
        return lambda st, ix: dst(st, ix, np.negative(srcs[0](st, ix)))
    if root in ("and", "or", "xor"):
        f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[root]
        return lambda st, ix: dst(st, ix, f(srcs[0](st, ix), srcs[1](st, ix)))
    if root == "not":
        if dt == np.bool_:
            return lambda st, ix: dst(st, ix, np.logical_not(srcs[0](st, ix)))
        return lambda st, ix: dst(st, ix, np.invert(srcs[0](st, ix)))
    if root in ("shl", "shr"):
        sh = getter(ins.srcs[1], NP["u32"], m)

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix))
            b = np.asarray(sh(st, ix)).astype(np.int64)
            big = b >= bits
            bb = np.minimum(b, bits - 1).astype(dt)
            if root == "shl":
                r = np.where(big, dt.type(0), np.left_shift(a, bb))
            elif dt.kind == "i":
                r = np.right_shift(a, bb)
            else:
                r = np.where(big, dt.type(0), np.right_shift(a, bb))
            dst(st, ix, np.asarray(r).astype(dt))
        return h
    if root == "selp":
        p = getter(ins.srcs[2], np.dtype(np.bool_), m)

        def h(st, ix):
            dst(st, ix, np.where(p(st, ix), srcs[0](st, ix), srcs[1](st, ix)).astype(dt))
        return h
    if root == "popc":
        def h(st, ix):
            a = np.asarray(srcs[0](st, ix)).astype(np.uint64)
            dst(st, ix, _popc64(a).astype(np.uint32))
        dst = setter(ins.dsts[0], NP["u32"])
        return h
    if root == "clz":
        dst = setter(ins.dsts[0], NP["u32"])

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix)).astype(np.uint64)
            nb = _bitlen(a)
            dst(st, ix, (bits - nb).astype(np.uint32))
        return h
    if root == "bfind":
        dst = setter(ins.dsts[0], NP["u32"])

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix))
            if dt.kind == "i":
                a = np.where(a < 0, ~a, a)
            nb = _bitlen(a.astype(np.uint64))
            pos = nb - 1
            if "shiftamt" in mods:
                pos = np.where(nb == 0, -1, bits - 1 - pos)
            dst(st, ix, np.where(nb == 0, 0xFFFFFFFF, pos).astype(np.int64).astype(np.uint32))
        return h
    if root == "brev":
        def h(st, ix):
            a = np.asarray(srcs[0](st, ix)).astype(np.uint64)
            r = np.zeros_like(a)
            for k in range(bits):
                r |= ((a >> np.uint64(k)) & np.uint64(1)) << np.uint64(bits - 1 - k)
            dst(st, ix, r.astype(dt))
        return h
    if root == "bfi":
        pos_g = getter(ins.srcs[2], NP["u32"], m)
        len_g = getter(ins.srcs[3], NP["u32"], m)

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix)).astype(np.uint64)
            b = np.asarray(srcs[1](st, ix)).astype(np.uint64)
            pos = np.asarray(pos_g(st, ix)).astype(np.uint64) & np.uint64(0xFF)
            ln = np.asarray(len_g(st, ix)).astype(np.uint64) & np.uint64(0xFF)
            mask = ((np.uint64(1) << np.minimum(ln, 63)) - np.uint64(1))
            mask = np.where(ln >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), mask)
            mask = np.where(pos >= bits, np.uint64(0), mask << np.minimum(pos, 63))
            r = (b & ~mask) | ((a << np.minimum(pos, 63)) & mask)
            dst(st, ix, r.astype(dt))
        return h
    if root == "bfe":
        pos_g = getter(ins.srcs[1], NP["u32"], m)
        len_g = getter(ins.srcs[2], NP["u32"], m)
        signed, raw = dt.kind == "i", RAW[dt.itemsize]
        dst = setter(ins.dsts[0], raw)

        def h(st, ix):       # PTX ISA bfe: d[i] = a[pos+i] for i < len, pos+i <= msb; else sbit
            a = np.asarray(srcs[0](st, ix)).astype(raw).astype(np.uint64)
            pos = np.asarray(pos_g(st, ix)).astype(np.int64) & 0xFF
            ln = np.asarray(len_g(st, ix)).astype(np.int64) & 0xFF
            inside = np.clip(np.minimum(ln, bits - pos), 0, bits)      # field bits taken from a
            low = _low_bits(inside)
            r = (a >> np.minimum(pos, 63).astype(np.uint64)) & low
            if signed:       # sbit = a[min(pos+len-1, msb)], 0 when len == 0
                top = np.clip(np.minimum(pos + ln - 1, bits - 1), 0, bits - 1).astype(np.uint64)
                sbit = (((a >> top) & np.uint64(1)) == 1) & (ln > 0)
                r = np.where(sbit, r | ~low, r)
            dst(st, ix, np.asarray(r & _low_bits(bits)).astype(raw))
        return h
    if root == "prmt":
        if len(ins.modifiers) > 1:
            raise Unsupported(f"{ins.opcode} (only the default prmt mode)")
        sel_g = getter(ins.srcs[2], NP["u32"], m)

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix)).astype(np.uint64)
            b = np.asarray(srcs[1](st, ix)).astype(np.uint64)
            sel = np.asarray(sel_g(st, ix)).astype(np.uint64)
            both = (b << np.uint64(32)) | a
            r = np.zeros(np.broadcast(both, sel).shape, np.uint64)
            for k in range(4):
                nib = (sel >> np.uint64(4 * k)) & np.uint64(15)
                byte = (both >> ((nib & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
                sign = np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0))
                byte = np.where(nib & np.uint64(8), sign, byte)
                r |= byte << np.uint64(8 * k)
            dst(st, ix, r.astype(np.uint32))
        return h
    if root == "shf":
        sh_g = getter(ins.srcs[2], NP["u32"], m)
        left = "l" in mods
        clamp = "clamp" in mods

        def h(st, ix):
            a = np.asarray(srcs[0](st, ix)).astype(np.uint64)
            b = np.asarray(srcs[1](st, ix)).astype(np.uint64)
            n = np.asarray(sh_g(st, ix)).astype(np.uint64)
            n = np.minimum(n, np.uint64(32)) if clamp else n & np.uint64(31)
            both = (b << np.uint64(32)) | a
            r = (both << n) >> np.uint64(32) if left else both >> n
            dst(st, ix, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32))
        return h
    raise Unsupported(ins.opcode)


def _low_bits(n) -> np.ndarray:
    """uint64 masks of the ``n`` (0..64) lowest bits."""
    n = np.asarray(n, np.int64)
    m = (np.uint64(1) << np.minimum(n, 63).astype(np.uint64)) - np.uint64(1)
    return np.where(n >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), m).astype(np.uint64)


def _popc64(a: np.ndarray) -> np.ndarray:
    a = a - ((a >> np.uint64(1)) & np.uint64(0x5555555555555555))
    a = (a & np.uint64(0x3333333333333333)) + ((a >> np.uint64(2)) & np.uint64(0x3333333333333333))
    a = (a + (a >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (a * np.uint64(0x0101010101010101)) >> np.uint64(56)


def _bitlen(a: np.ndarray) -> np.ndarray:
    """Number of significant bits of each uint64."""
    n = np.zeros(np.shape(a), np.int64)
    a = np.array(a, np.uint64)
    for s in (32, 16, 8, 4, 2, 1):
        big = a >= (np.uint64(1) << np.uint64(s))
        n += np.where(big, s, 0)
        a = np.where(big, a >> np.uint64(s), a)
    return n + (a > 0)


def _mulhi(a, b, dt: np.dtype):
    if dt.itemsize <= 4:
        w = np.int64 if dt.kind == "i" else np.uint64
        r = (np.asarray(a).astype(w) * np.asarray(b).astype(w)) >> (dt.itemsize * 8)
        return np.asarray(r).astype(dt)
    a = np.asarray(a).astype(np.uint64)
    b = np.asarray(b).astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    al, ah, bl, bh = a & m32, a >> s32, b & m32, b >> s32
    ll = al * bl
    lh = al * bh
    hl = ah * bl
    hh = ah * bh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if dt.kind == "i":
        sa, sb = np.asarray(a).view(np.int64) < 0, np.asarray(b).view(np.int64) < 0
        hi = hi - np.where(sa, b, 0).astype(np.uint64) - np.where(sb, a, 0).astype(np.uint64)
    return np.asarray(hi).view(dt) if isinstance(hi, np.ndarray) else np.asarray(hi).view(dt)[()]


def _sfu(ins: Instruction, m) -> Handler:
    dt = _dt(ins)
    root = ins.root
    f = {"sin": np.sin, "cos": np.cos, "lg2": np.log2, "ex2": np.exp2, "tanh": np.tanh,
         "rsqrt": lambda x: 1 / np.sqrt(x), "sqrt": np.sqrt, "rcp": lambda x: 1 / x}[root]
    if ins.types and ins.types[-1] == "f16x2":   # ex2/tanh.approx.f16x2: each lane
        a2, d2 = getter(ins.srcs[0], NP["b32"], m), setter(ins.dsts[0], NP["b32"])
        return lambda st, ix: d2(st, ix, _pack(f(_halves(a2(st, ix)).astype(F64)).astype(F16)))
    a = getter(ins.srcs[0], dt, m)
    dst = setter(ins.dsts[0], dt)

    def h(st, ix):
        x = a(st, ix)
        dst(st, ix, np.asarray(f(np.asarray(x, F64) if dt != F64 else x)).astype(dt))
    return h


def _cvt_f16x2(ins: Instruction, m) -> Handler:
    """``cvt.rn{.relu}.f16x2.f32 d, a, b``: a rounded into the upper lane, b into the lower."""
    if ins.types[1:] != ("f32",) or _mode(ins) != "rn" or "satfinite" in ins.modifiers:
        raise Unsupported(f"{ins.opcode} (only cvt.rn{{.relu}}.f16x2.f32 packs halves)")
    ga, gb = getter(ins.srcs[0], F32, m), getter(ins.srcs[1], F32, m)
    dst = setter(ins.dsts[0], NP["b32"])
    relu = "relu" in ins.modifiers

    def h(st, ix):
        hi = np.atleast_1d(np.asarray(ga(st, ix), F32).astype(F16))
        lo = np.atleast_1d(np.asarray(gb(st, ix), F32).astype(F16))
        r = np.stack(np.broadcast_arrays(lo, hi), axis=-1)
        if relu:
            r = _canonical_nan(np.where(r < 0, F16.type(0), r).astype(F16))
        dst(st, ix, _pack(r))
    return h


def _cvt(ins: Instruction, m) -> Handler:
    if ins.types and ins.types[0] == "f16x2":
        return _cvt_f16x2(ins, m)
    dt_d, dt_s = NP[ins.types[0]], NP[ins.types[1]]
    a = getter(ins.srcs[0], dt_s, m)
    dst = setter(ins.dsts[0], dt_d)
    mode = _mode(ins)
    sat = "sat" in ins.modifiers

    def h(st, ix):
        x = np.asarray(a(st, ix))
        if dt_d.kind == "f":
            if dt_s.kind == "f" and dt_d == F32 and dt_s == F64 and mode in ("rz", "rm", "rp"):
                r = _round_f32(x, mode)
            else:
                r = x.astype(dt_d)
            if sat:
                r = np.where(np.isnan(r), 0, np.clip(r, 0, 1)).astype(dt_d)
            dst(st, ix, r)
            return
        if dt_s.kind == "f":
            xf = x.astype(F64)
            xf = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(mode,
                                                                                       np.trunc)(xf)
            info = np.iinfo(dt_d)
            xf = np.where(np.isnan(xf), 0, np.clip(xf, info.min, info.max))
            dst(st, ix, xf.astype(dt_d))
            return
        if sat:
            info = np.iinfo(dt_d)
            x = np.clip(x.astype(np.int64) if dt_s.kind == "i" else x.astype(np.uint64),
                        info.min, info.max)
        dst(st, ix, x.astype(dt_d))
    return h


def _mov(ins: Instruction, m) -> Handler:
    dt = _dt(ins)
    d, s = ins.dsts[0], ins.srcs[0]
    if type(d) is Vector:  # unpack {lo, hi}, wide
        parts = d.items
        pdt = RAW[dt.itemsize // len(parts)]
        sets = [setter(p, pdt) for p in parts]
        g = getter(s, RAW[dt.itemsize], m)

        def h(st, ix):
            v = np.ascontiguousarray(np.atleast_1d(g(st, ix))).view(pdt).reshape(-1, len(parts))
            for k, st_ in enumerate(sets):
                st_(st, ix, v[:, k] if v.shape[0] > 1 else v[0, k])
        return h
    if type(s) is Vector:  # pack
        parts = s.items
        pdt = RAW[dt.itemsize // len(parts)]
        gets = [getter(p, pdt, m) for p in parts]
        dst = setter(d, RAW[dt.itemsize])

        def h(st, ix):
            vals = [np.atleast_1d(np.asarray(g(st, ix), pdt)) for g in gets]
            n = max(len(v) for v in vals)
            arr = np.empty((n, len(parts)), pdt)
            for k, v in enumerate(vals):
                arr[:, k] = v
            r = arr.reshape(-1).view(RAW[dt.itemsize])
            dst(st, ix, r if n > 1 else r[0])
        return h
    g = getter(s, dt, m)
    dst = setter(d, dt)
    return lambda st, ix: dst(st, ix, g(st, ix))


def _cvta(ins: Instruction, m) -> Handler:
    from pipeperf.emulate.memory import LOCAL_BASE, SHARED_BASE, CONST_BASE
    dt = _dt(ins)
    g = getter(ins.srcs[0], dt, m)
    dst = setter(ins.dsts[0], dt)
    base = {"global": 0, "shared": SHARED_BASE, "local": LOCAL_BASE,
            "const": CONST_BASE, "param": 0}.get(ins.space or "global", 0)
    if "to" in ins.modifiers:
        base = -base
    b = np.asarray(base).astype(np.int64).astype(np.uint64).astype(dt)[()]
    return lambda st, ix: dst(st, ix, np.asarray(g(st, ix)) + b)


def _nop(ins: Instruction, m) -> Handler:
    return lambda st, ix: None


_BUILDERS: dict[str, Callable[[Instruction, Any], Handler]] = {}
for _r in ("add sub mul mad fma div rem min max abs neg and or xor not shl shr selp popc "
           "clz bfind brev bfi bfe shf prmt").split():
    _BUILDERS[_r] = _arith
for _r in ("sin", "cos", "lg2", "ex2", "tanh", "rsqrt"):
    _BUILDERS[_r] = _sfu
_BUILDERS["set"] = _BUILDERS["setp"] = _cmp


def _sqrt_rcp(ins: Instruction, m) -> Handler:
    dt = _dt(ins)
    a = getter(ins.srcs[0], dt, m)
    dst = setter(ins.dsts[0], dt)
    if ins.root == "sqrt":
        return lambda st, ix: dst(st, ix, np.sqrt(a(st, ix)))
    one = dt.type(1)
    return lambda st, ix: dst(st, ix, np.divide(one, a(st, ix)).astype(dt))


_BUILDERS.update(sqrt=_sqrt_rcp, rcp=_sqrt_rcp, cvt=_cvt, mov=_mov, cvta=_cvta,
                 membar=_nop, fence=_nop)


def register_builder(root: str, fn) -> None:
    _BUILDERS[root] = fn


__all__ = ["compile_instruction", "getter", "setter", "Unsupported", "register_builder"]
