"""Number formats PTX has and NumPy lacks: rounding modes, fused multiply-add, packed halves,
canonical NaNs, 64-bit high products and bit counts (PTX ISA 9.0, ch. 9.7)."""

from __future__ import annotations

import numpy as np

from pipeperf.emulate.operands import F16, F32, F64, Unsupported
from pipeperf.ptx.ir import Instruction

#: PTX's canonical NaN (the result of min/max/fma.relu when it is NaN), by float width
_CANON_NAN: dict[int, np.floating] = {2: np.uint16(0x7FFF).view(F16), 4: np.uint32(0x7FFFFFFF).view(F32)}


def rounding_mode(ins: Instruction) -> str:
    """The instruction's rounding modifier (``rn`` when it names none)."""
    for m in ins.modifiers:
        if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"):
            return m
    return "rn"


def round_f32(x: np.ndarray, mode: str) -> np.ndarray:
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


def fma64(a, b, c):
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


def halves(a) -> np.ndarray:
    """The two f16 lanes of packed f16x2 values (raw ``uint32``, per thread or one immediate) as a
    ``(n, 2)`` float16 array; column 0 is bits 0-15, column 1 bits 16-31 (PTX ISA 5.2.5)."""
    return np.ascontiguousarray(np.atleast_1d(np.asarray(a, np.uint32))).view(F16).reshape(-1, 2)


def pack(h: np.ndarray) -> np.ndarray:
    """Inverse of :func:`halves`: ``(n, 2)`` 16-bit lanes -> ``n`` raw ``uint32`` words."""
    return np.ascontiguousarray(h).view(np.uint32).reshape(-1)


def canonical_nan(r: np.ndarray) -> np.ndarray:
    """``r`` with every NaN replaced by PTX's canonical NaN of its width."""
    nan = _CANON_NAN.get(r.dtype.itemsize) if r.dtype.kind == "f" else None
    return r if nan is None else np.where(np.isnan(r), nan, r).astype(r.dtype)


def float_min_max(ins: Instruction):
    """NumPy function of float ``min``/``max`` with its modifiers: a NaN input is ignored
    (``fmin``), or propagated with ``.NaN``; NaN results are canonical; -0.0 < +0.0 (as
    cuda_fp16.hpp's host versions of __hmin/__hmax spell out). ``.xorsign.abs`` is refused."""
    if "xorsign" in ins.modifiers:
        raise Unsupported(f"{ins.opcode} (.xorsign.abs)")
    if "relu" in ins.modifiers:
        raise Unsupported(f"{ins.opcode} (.relu)")
    lo = ins.root == "min"
    f: np.ufunc
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
        return canonical_nan(np.asarray(r))
    return mm


def flush_subnormals(x: np.ndarray) -> np.ndarray:
    """``.ftz``: subnormal float inputs read as zero of the same sign."""
    x = np.asarray(x)
    return np.where(np.abs(x) < np.finfo(x.dtype).tiny, np.copysign(x.dtype.type(0), x), x)


def mulhi(a, b, dt: np.dtype):
    """The high half of the double-width product ``a * b`` of type ``dt`` (``mul.hi``)."""
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


def low_bits(n) -> np.ndarray:
    """uint64 masks of the ``n`` (0..64) lowest bits."""
    n = np.asarray(n, np.int64)
    m = (np.uint64(1) << np.minimum(n, 63).astype(np.uint64)) - np.uint64(1)
    return np.where(n >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), m).astype(np.uint64)


def popc64(a: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (SWAR population count)."""
    a = a - ((a >> np.uint64(1)) & np.uint64(0x5555555555555555))
    a = (a & np.uint64(0x3333333333333333)) + ((a >> np.uint64(2)) & np.uint64(0x3333333333333333))
    a = (a + (a >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (a * np.uint64(0x0101010101010101)) >> np.uint64(56)


def bit_length(a: np.ndarray) -> np.ndarray:
    """Number of significant bits of each uint64."""
    n = np.zeros(np.shape(a), np.int64)
    a = np.array(a, np.uint64)
    for s in (32, 16, 8, 4, 2, 1):
        big = a >= (np.uint64(1) << np.uint64(s))
        n += np.where(big, s, 0)
        a = np.where(big, a >> np.uint64(s), a)
    return n + (a > 0)
