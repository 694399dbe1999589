"""Conversions and moves: cvt (f32 to tf32 too), mov (with vector packing), cvta (PTX ISA 9.0,
9.7.9)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate.memory import CONST_BASE, LOCAL_BASE, SHARED_BASE
from pipeperf.emulate.numerics import canonical_nan, pack, round_f32, rounding_mode
from pipeperf.emulate.operands import (
    F16,
    F32,
    F64,
    Handler,
    Unsupported,
    getter,
    setter,
)
from pipeperf.emulate.state import NP, RAW
from pipeperf.ptx.ir import Instruction, Vector


def _cvt_f16x2(ins: Instruction, m: Any) -> Handler:
    """``cvt.rn{.relu}.f16x2.f32 d, a, b``: a rounded into the upper lane, b into the lower."""
    if ins.types[1:] != ("f32",) or rounding_mode(ins) != "rn" or "satfinite" in ins.modifiers:
        raise Unsupported(f"{ins.opcode} (only cvt.rn{{.relu}}.f16x2.f32 packs halves)")
    ga, gb = getter(ins.srcs[0], F32, m), getter(ins.srcs[1], F32, m)
    dst = setter(ins.dsts[0], NP["b32"])
    relu = "relu" in ins.modifiers

    def h(st, ix):
        hi = np.atleast_1d(np.asarray(ga(st, ix), F32).astype(F16))
        lo = np.atleast_1d(np.asarray(gb(st, ix), F32).astype(F16))
        r = np.stack(np.broadcast_arrays(lo, hi), axis=-1)
        if relu:
            r = canonical_nan(np.where(r < 0, F16.type(0), r).astype(F16))
        dst(st, ix, pack(r))
    return h


def _cvt_tf32(ins: Instruction, m: Any) -> Handler:
    """``cvt.rna{.satfinite}.tf32.f32`` and ``cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32`` (PTX ISA
    9.0, cvt in sec. 9.7.9): f32 rounded to tf32's 10 mantissa bits, held in a .b32 whose low 13
    bits are zero (``.rna`` rounds ties away from zero, ``.rn`` to even, ``.rz`` truncates).
    A NaN gives the canonical NaN 0x7FFFFFFF; ``.satfinite`` turns an infinite result into the
    largest finite tf32 of its sign; ``.relu`` a negative one into +0."""
    mode = next((r for r in ("rna", "rn", "rz") if r in ins.modifiers), None)
    if ins.types[1:] != ("f32",) or mode is None:
        raise Unsupported(f"{ins.opcode} (only cvt.{{rna,rn,rz}}.tf32.f32)")
    g = getter(ins.srcs[0], F32, m)
    dst = setter(ins.dsts[0], NP["b32"])
    sat, relu = "satfinite" in ins.modifiers, "relu" in ins.modifiers
    u32 = np.uint32

    def h(st, ix):
        x = np.atleast_1d(np.asarray(g(st, ix), F32))
        bits = x.view(u32)
        if mode == "rna":
            r = bits + u32(0x1000)
        elif mode == "rn":
            r = bits + u32(0xFFF) + ((bits >> u32(13)) & u32(1))
        else:
            r = bits
        r = r & u32(0xFFFFE000)
        if sat:
            r = np.where((r & u32(0x7FFFFFFF)) == u32(0x7F800000),
                         (r & u32(0x80000000)) | u32(0x7F7FE000), r)
        if relu:
            r = np.where(r >> u32(31) == 1, u32(0), r)
        r = np.where(np.isnan(x), u32(0x7FFFFFFF), r).astype(u32)
        dst(st, ix, r)
    return h


def convert(ins: Instruction, m: Any) -> Handler:
    """cvt between integer and float types, with rounding modes and .sat."""
    if ins.types and ins.types[0] == "f16x2":
        return _cvt_f16x2(ins, m)
    if ins.types and ins.types[0] == "tf32":
        return _cvt_tf32(ins, m)
    dt_d, dt_s = NP[ins.types[0]], NP[ins.types[1]]
    a = getter(ins.srcs[0], dt_s, m)
    dst = setter(ins.dsts[0], dt_d)
    mode = rounding_mode(ins)
    sat = "sat" in ins.modifiers

    def h(st, ix):
        x = np.asarray(a(st, ix))
        if dt_d.kind == "f":
            if dt_s.kind == "f" and dt_d == F32 and dt_s == F64 and mode in ("rz", "rm", "rp"):
                r = round_f32(x, mode)
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


def move(ins: Instruction, m: Any) -> Handler:
    """mov: a copy, or the packing/unpacking of a vector of narrower parts."""
    dt = NP[ins.types[-1] if ins.types else "b32"]
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


def convert_address(ins: Instruction, m: Any) -> Handler:
    """cvta: a state space's address to a generic one (``.to``: back), by its window's base."""
    dt = NP[ins.types[-1] if ins.types else "b32"]
    g = getter(ins.srcs[0], dt, m)
    dst = setter(ins.dsts[0], dt)
    base = {"global": 0, "shared": SHARED_BASE, "local": LOCAL_BASE,
            "const": CONST_BASE, "param": 0}.get(ins.space or "global", 0)
    if "to" in ins.modifiers:
        base = -base
    b = np.asarray(base).astype(np.int64).astype(np.uint64).astype(dt)[()]
    return lambda st, ix: dst(st, ix, np.asarray(g(st, ix)) + b)
