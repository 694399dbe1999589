"""WMMA (warp matrix multiply-accumulate) m16n16k16 with f16 inputs and f32 accumulators.

WMMA fragment layouts are opaque by specification (PTX ISA 9.0, sec. 9.7.14.4: "the
mapping of matrix elements to fragment registers is unspecified"), so any layout that
load, mma and store agree on is faithful. Ours: an A/B fragment (8 x .b32 = 16 halves)
of lane l holds row l mod 16 of the 16x16 tile; an f32 accumulator (8 registers) of
lane l holds row l // 2, columns 8 (l mod 2) .. +7. ``wmma.mma`` gathers each warp's
fragments into matrices, so it needs whole, converged warps.
"""

from __future__ import annotations

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.memops import count_access, resolve
from pipeperf.emulate.operands import getter
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Instruction, registers_in

F16, F32 = np.dtype(np.float16), np.dtype(np.float32)


def _shape_ok(x: Instruction) -> None:
    if "m16n16k16" not in x.modifiers:
        raise PipeperfError(f"{x.opcode}: only m16n16k16 WMMA shapes are emulated", line=x.line)


def _regs(op) -> list[str]:
    """A fragment operand's register names in order (ptx.ir.registers_in, the one walker)."""
    return [r.name for r in registers_in(op)]


def load(m, x: Instruction):
    """wmma.load.{a,b,c}: each lane's fragment from a 16x16 tile of memory (row or column major)."""
    _shape_ok(x)
    col = "col" in x.modifiers
    frag = x.modifiers[0]
    dt = F16 if x.types[0] == "f16" else F32
    names = _regs(x.dsts[0])
    ag = m.layout.address(x.srcs[0], x.space or "generic")
    stride_g = getter(x.srcs[1], np.dtype(np.uint32), m) if len(x.srcs) > 1 else None
    space = x.space or "generic"
    per_lane = 16 if dt == F16 else 8

    def h(st, ix):
        lane = st.lane[ix]
        base = np.asarray(ag(st, ix), np.uint64)
        stride = np.asarray(stride_g(st, ix)).astype(np.int64) if stride_g else 16
        if dt == F16 or frag != "c":
            r = lane % 16
            c0 = np.zeros_like(lane)
        else:
            r, c0 = lane // 2, (lane % 2) * 8
        cols = c0[:, None] + np.arange(per_lane)[None, :]
        rows = np.broadcast_to(r[:, None], cols.shape)
        el = cols * np.asarray(stride)[..., None] + rows if col else \
            rows * np.asarray(stride)[..., None] + cols
        addr = (np.broadcast_to(base, (G.size(ix),))[:, None]
                + (el * dt.itemsize).astype(np.uint64))
        flat = addr.reshape(-1)
        arena, bidx, sp = resolve(m, st, np.repeat(G.as_array(ix), per_lane), flat, space,
                                  dt.itemsize, x)
        count_access(m, st, np.repeat(G.as_array(ix), per_lane), flat, sp, dt.itemsize, True)
        vals = arena.view(dt)[bidx // dt.itemsize].reshape(-1, per_lane)
        raw = np.ascontiguousarray(vals).view(np.uint32)  # (n, 8)
        for k, nme in enumerate(names):
            st.reg(nme, np.dtype(np.uint32))[ix] = raw[:, k]
    return h


def store(m, x: Instruction):
    """wmma.store.d (f32): each lane's accumulator fragment to its tile of memory."""
    _shape_ok(x)
    col = "col" in x.modifiers
    ag = m.layout.address(x.srcs[0], x.space or "generic")
    names = _regs(x.srcs[1])
    stride_g = getter(x.srcs[2], np.dtype(np.uint32), m) if len(x.srcs) > 2 else None
    space = x.space or "generic"
    dt = F32 if x.types[0] == "f32" else F16
    if dt != F32:
        raise PipeperfError(f"{x.opcode}: only f32 accumulators are emulated", line=x.line)

    def h(st, ix):
        lane = st.lane[ix]
        base = np.asarray(ag(st, ix), np.uint64)
        stride = np.asarray(stride_g(st, ix)).astype(np.int64) if stride_g else 16
        r, c0 = lane // 2, (lane % 2) * 8
        cols = c0[:, None] + np.arange(8)[None, :]
        rows = np.broadcast_to(r[:, None], cols.shape)
        el = cols * np.asarray(stride)[..., None] + rows if col else \
            rows * np.asarray(stride)[..., None] + cols
        addr = np.broadcast_to(base, (G.size(ix),))[:, None] + (el * 4).astype(np.uint64)
        flat = addr.reshape(-1)
        rep = np.repeat(G.as_array(ix), 8)
        arena, bidx, sp = resolve(m, st, rep, flat, space, 4, x)
        count_access(m, st, rep, flat, sp, 4, False)
        vals = np.stack([st.reg(nme, F32)[ix].view(F32) for nme in names], axis=1)
        arena.view(F32)[bidx // 4] = vals.reshape(-1)
    return h


def mma(m, x: Instruction):
    """wmma.mma (f16 inputs, f32 accumulators): D = A B + C per warp."""
    _shape_ok(x)
    d, a, b, c = (_regs(op) for op in (x.dsts[0], x.srcs[0], x.srcs[1], x.srcs[2]))
    if x.types != ("f32", "f32"):
        raise PipeperfError(f"{x.opcode}: only f32.f32 accumulation is emulated",
                            line=x.line)

    def h(st, ix):
        t = G.as_array(ix)
        if len(t) % 32 or np.any(st.lane[t] != np.tile(np.arange(32), len(t) // 32)):
            raise PipeperfError("wmma.mma needs all 32 lanes of each warp active",
                                line=x.line)
        nw = len(t) // 32

        def frag(names):
            raw = np.stack([st.reg(n, np.dtype(np.uint32))[ix] for n in names], axis=1)
            h16 = np.ascontiguousarray(raw).view(F16).reshape(nw, 32, 16)[:, :16, :]
            return h16.astype(F32)
        A, B = frag(a), frag(b)
        C = np.stack([st.reg(n, F32)[ix].view(F32) for n in c], axis=1).reshape(nw, 16, 16)
        D = np.matmul(A, B).astype(F32) + C
        D = D.reshape(nw, 32, 8).reshape(-1, 8)
        for k, n in enumerate(d):
            st.reg(n, F32)[ix] = D[:, k].view(np.uint32)
    return h


def _lane_map():
    """Fragment coordinates of mma.m16n8k16 (PTX ISA 9.0, sec. 9.7.14.5.8, f16 A/B, f32 C/D):
    g = lane >> 2, t = lane & 3."""
    lane = np.arange(32)
    g, t = lane >> 2, lane & 3
    i8, i4 = np.arange(8), np.arange(4)
    a_row = g[:, None] + 8 * ((i8[None, :] >> 1) & 1)
    a_col = 2 * t[:, None] + (i8[None, :] & 1) + 8 * (i8[None, :] >= 4)
    b_row = 2 * t[:, None] + (i4[None, :] & 1) + 8 * (i4[None, :] >= 2)
    b_col = np.broadcast_to(g[:, None], (32, 4))
    c_row = g[:, None] + 8 * (i4[None, :] >= 2)
    c_col = 2 * t[:, None] + (i4[None, :] & 1)
    return a_row, a_col, b_row, b_col, c_row, c_col


def build_mma(m, x: Instruction):
    """mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 with the ISA's fragment layout."""
    if "m16n8k16" not in x.modifiers or x.types != ("f32", "f16", "f16", "f32") or \
            "row" not in x.modifiers or "col" not in x.modifiers:
        raise PipeperfError(f"{x.opcode}: only mma.m16n8k16.row.col.f32.f16.f16.f32 is emulated",
                            line=x.line)
    d, a, b, c = (_regs(op) for op in (x.dsts[0], x.srcs[0], x.srcs[1], x.srcs[2]))
    a_row, a_col, b_row, b_col, c_row, c_col = _lane_map()

    def h(st, ix):
        t = G.as_array(ix)
        if len(t) % 32 or np.any(st.lane[t] != np.tile(np.arange(32), len(t) // 32)):
            raise PipeperfError("mma.sync needs all 32 lanes of each warp active", line=x.line)
        nw = len(t) // 32
        w = np.arange(nw)[:, None, None]

        def halves(names, k):
            raw = np.stack([st.reg(n, np.dtype(np.uint32))[ix] for n in names], axis=1)
            return np.ascontiguousarray(raw).view(F16).reshape(nw, 32, k).astype(F32)
        A = np.zeros((nw, 16, 16), F32)
        A[w, a_row[None], a_col[None]] = halves(a, 8)
        B = np.zeros((nw, 16, 8), F32)
        B[w, b_row[None], b_col[None]] = halves(b, 4)
        C = np.zeros((nw, 16, 8), F32)
        C[w, c_row[None], c_col[None]] = np.stack(
            [st.reg(n, F32)[ix].view(F32) for n in c], axis=1).reshape(nw, 32, 4)
        D = (np.matmul(A, B) + C).astype(F32)
        out = D[w, c_row[None], c_col[None]].reshape(-1, 4)
        for k, n in enumerate(d):
            st.reg(n, F32)[ix] = out[:, k].view(np.uint32)
    return h
