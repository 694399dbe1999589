"""Shift and bit-manipulation opcodes as a table (PTX ISA 9.0, 9.7.1.x and 9.7.8): shl shr
popc clz bfind brev bfi bfe prmt shf. Each builder takes the decoded :class:`Typed` of
:mod:`~pipeperf.emulate.typed` and runs once per instruction."""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate.numerics import bit_length, low_bits, popc64
from pipeperf.emulate.operands import Handler, Unsupported, getter, setter
from pipeperf.emulate.state import NP, RAW
from pipeperf.emulate.typed import Family, Typed


def _shift(a: Typed, m: Any) -> Handler:
    """shl, shr: amounts past the width give 0 (shr of a negative signed value: all ones)."""
    srcs, dst, dt, bits, left = a.srcs, a.dst, a.dt, a.bits, a.root == "shl"
    sh = getter(a.ins.srcs[1], NP["u32"], m)

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix))
        b = np.asarray(sh(st, ix)).astype(np.int64)
        big = b >= bits
        bb = np.minimum(b, bits - 1).astype(dt)
        if left:
            r = np.where(big, dt.type(0), np.left_shift(x, bb))
        elif dt.kind == "i":
            r = np.right_shift(x, bb)
        else:
            r = np.where(big, dt.type(0), np.right_shift(x, bb))
        dst(st, ix, np.asarray(r).astype(dt))
    return h


def _popc(a: Typed, m: Any) -> Handler:
    srcs = a.srcs
    dst = setter(a.ins.dsts[0], NP["u32"])

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix)).astype(np.uint64)
        dst(st, ix, popc64(x).astype(np.uint32))
    return h


def _clz(a: Typed, m: Any) -> Handler:
    srcs, bits = a.srcs, a.bits
    dst = setter(a.ins.dsts[0], NP["u32"])

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix)).astype(np.uint64)
        dst(st, ix, (bits - bit_length(x)).astype(np.uint32))
    return h


def _bfind(a: Typed, m: Any) -> Handler:
    """bfind: the most significant non-sign bit (0xFFFFFFFF when none); .shiftamt from the top."""
    srcs, dt, bits, shiftamt = a.srcs, a.dt, a.bits, "shiftamt" in a.mods
    dst = setter(a.ins.dsts[0], NP["u32"])

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix))
        if dt.kind == "i":
            x = np.where(x < 0, ~x, x)
        nb = bit_length(x.astype(np.uint64))
        pos = nb - 1
        if shiftamt:
            pos = np.where(nb == 0, -1, bits - 1 - pos)
        dst(st, ix, np.where(nb == 0, 0xFFFFFFFF, pos).astype(np.int64).astype(np.uint32))
    return h


def _brev(a: Typed, m: Any) -> Handler:
    srcs, dst, dt, bits = a.srcs, a.dst, a.dt, a.bits

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix)).astype(np.uint64)
        r = np.zeros_like(x)
        for k in range(bits):
            r |= ((x >> np.uint64(k)) & np.uint64(1)) << np.uint64(bits - 1 - k)
        dst(st, ix, r.astype(dt))
    return h


def _bfi(a: Typed, m: Any) -> Handler:
    """bfi d, a, b, pos, len: b with bits pos..pos+len-1 replaced by a's low bits."""
    srcs, dst, dt, bits = a.srcs, a.dst, a.dt, a.bits
    pos_g = getter(a.ins.srcs[2], NP["u32"], m)
    len_g = getter(a.ins.srcs[3], NP["u32"], m)

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix)).astype(np.uint64)
        b = np.asarray(srcs[1](st, ix)).astype(np.uint64)
        pos = np.asarray(pos_g(st, ix)).astype(np.uint64) & np.uint64(0xFF)
        ln = np.asarray(len_g(st, ix)).astype(np.uint64) & np.uint64(0xFF)
        mask = ((np.uint64(1) << np.minimum(ln, 63)) - np.uint64(1))
        mask = np.where(ln >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), mask)
        mask = np.where(pos >= bits, np.uint64(0), mask << np.minimum(pos, 63))
        r = (b & ~mask) | ((x << np.minimum(pos, 63)) & mask)
        dst(st, ix, r.astype(dt))
    return h


def _bfe(a: Typed, m: Any) -> Handler:
    srcs, bits = a.srcs, a.bits
    pos_g = getter(a.ins.srcs[1], NP["u32"], m)
    len_g = getter(a.ins.srcs[2], NP["u32"], m)
    signed, raw = a.dt.kind == "i", RAW[a.dt.itemsize]
    dst = setter(a.ins.dsts[0], raw)

    def h(st, ix):       # PTX ISA bfe: d[i] = a[pos+i] for i < len, pos+i <= msb; else sbit
        x = np.asarray(srcs[0](st, ix)).astype(raw).astype(np.uint64)
        pos = np.asarray(pos_g(st, ix)).astype(np.int64) & 0xFF
        ln = np.asarray(len_g(st, ix)).astype(np.int64) & 0xFF
        inside = np.clip(np.minimum(ln, bits - pos), 0, bits)      # field bits taken from a
        low = low_bits(inside)
        r = (x >> np.minimum(pos, 63).astype(np.uint64)) & low
        if signed:       # sbit = a[min(pos+len-1, msb)], 0 when len == 0
            top = np.clip(np.minimum(pos + ln - 1, bits - 1), 0, bits - 1).astype(np.uint64)
            sbit = (((x >> top) & np.uint64(1)) == 1) & (ln > 0)
            r = np.where(sbit, r | ~low, r)
        dst(st, ix, np.asarray(r & low_bits(bits)).astype(raw))
    return h


def _prmt(a: Typed, m: Any) -> Handler:
    """prmt (default mode): each result byte picked from {b, a} by a selector nibble, or its
    sign replicated when the nibble's top bit is set."""
    if len(a.mods) > 1:
        raise Unsupported(f"{a.ins.opcode} (only the default prmt mode)")
    srcs, dst = a.srcs, a.dst
    sel_g = getter(a.ins.srcs[2], NP["u32"], m)

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix)).astype(np.uint64)
        b = np.asarray(srcs[1](st, ix)).astype(np.uint64)
        sel = np.asarray(sel_g(st, ix)).astype(np.uint64)
        both = (b << np.uint64(32)) | x
        r = np.zeros(np.broadcast(both, sel).shape, np.uint64)
        for k in range(4):
            nib = (sel >> np.uint64(4 * k)) & np.uint64(15)
            byte = (both >> ((nib & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
            sign = np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0))
            byte = np.where(nib & np.uint64(8), sign, byte)
            r |= byte << np.uint64(8 * k)
        dst(st, ix, r.astype(np.uint32))
    return h


def _funnel_shift(a: Typed, m: Any) -> Handler:
    """shf.{l,r}{.clamp,.wrap}: the 64-bit {b, a} shifted, its upper (l) or lower (r) word."""
    srcs, dst = a.srcs, a.dst
    sh_g = getter(a.ins.srcs[2], NP["u32"], m)
    left = "l" in a.mods
    clamp = "clamp" in a.mods

    def h(st, ix):
        x = np.asarray(srcs[0](st, ix)).astype(np.uint64)
        b = np.asarray(srcs[1](st, ix)).astype(np.uint64)
        n = np.asarray(sh_g(st, ix)).astype(np.uint64)
        n = np.minimum(n, np.uint64(32)) if clamp else n & np.uint64(31)
        both = (b << np.uint64(32)) | x
        r = (both << n) >> np.uint64(32) if left else both >> n
        dst(st, ix, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    return h


#: opcode -> builder
FAMILY: dict[str, Family] = {
    "shl": _shift, "shr": _shift, "popc": _popc, "clz": _clz, "bfind": _bfind, "brev": _brev,
    "bfi": _bfi, "bfe": _bfe, "prmt": _prmt, "shf": _funnel_shift,
}
