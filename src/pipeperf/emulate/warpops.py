"""Warp-wide operations: shuffles, votes and reductions, over each warp's threads in a group.

A thread group holds whole or partial warps in thread order (:mod:`~pipeperf.emulate.groups`),
so a warp's lanes are one contiguous segment of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.errors import EmulationError
from pipeperf.emulate.operands import Handler, getter, setter
from pipeperf.emulate.state import NP
from pipeperf.ptx.ir import Instruction, Register


def shuffle(x: Instruction, m: Any) -> Handler:
    """shfl.sync.{up,down,bfly,idx}: each lane reads a register of another lane of its warp
    (PTX ISA 9.7.8.6: the c operand packs the clamp value and the segment mask)."""
    mode = next(mm for mm in x.modifiers if mm in ("up", "down", "bfly", "idx"))
    dt = NP["b32"]
    src = x.srcs[0]
    gb = getter(x.srcs[1], NP["u32"], m)
    gc = getter(x.srcs[2], NP["u32"], m)
    d = setter(x.dsts[0], dt)
    dp = setter(x.dsts[1], np.dtype(np.bool_)) if len(x.dsts) > 1 else None
    ga = getter(src, dt, m)

    def h(st, ix):
        if not st.top:
            raise EmulationError("shfl in device functions is not emulated", file=m.file,
                                 line=x.line)
        lane = st.lane[ix]
        b = np.asarray(gb(st, ix)).astype(np.int64) & 31
        c = np.asarray(gc(st, ix)).astype(np.int64)
        cval, mask = c & 31, (c >> 8) & 31
        max_lane = (lane & mask) | (cval & ~mask)
        min_lane = lane & mask
        if mode == "up":
            j = lane - b
            ok = j >= max_lane
        elif mode == "down":
            j = lane + b
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ b
            ok = j <= max_lane
        else:
            j = min_lane | (b & ~mask)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        t = G.as_array(ix)
        srcthread = t - lane + j
        valid = (srcthread < st.n)
        srcthread = np.where(valid, srcthread, t)
        valid &= st.wid[srcthread] == st.wid[t]
        srcthread = np.where(valid, srcthread, t)
        if type(src) is Register:
            full = st.reg(src.name, dt)
            val = full[srcthread]
            d(st, ix, val)
        else:
            d(st, ix, ga(st, ix))
        if dp:
            dp(st, ix, ok)
    return h

def vote(x: Instruction, m: Any) -> Handler:
    """vote.sync.{all,any,uni,ballot} and redux.sync.{add,min,max,and,or,xor}: one value per
    warp from its active lanes, given to each of them."""
    mode = next(mm for mm in x.modifiers if mm in ("all", "any", "uni", "ballot", "add", "min",
                                                "max", "and", "or", "xor"))
    red = x.root == "redux"
    dt = NP[x.types[-1]] if red else np.dtype(np.bool_)
    g = getter(x.srcs[0], dt, m)
    out_dt = dt if red else (NP["b32"] if mode == "ballot" else np.dtype(np.bool_))
    d = setter(x.dsts[0], out_dt)

    def h(st, ix):
        t = G.as_array(ix)
        starts, lengths = G.segments(st.wid[t])
        v = np.broadcast_to(np.asarray(g(st, ix)), (len(t),))
        if mode == "ballot":
            bits = np.where(v, np.left_shift(np.uint64(1), st.lane[t].astype(np.uint64)),
                            np.uint64(0))
            r = np.add.reduceat(bits, starts).astype(np.uint32)
        elif mode in ("all", "any", "uni"):
            cnt = np.add.reduceat(v.astype(np.int64), starts)
            r = cnt == lengths if mode == "all" else (
                cnt > 0 if mode == "any" else (cnt == 0) | (cnt == lengths))
        elif mode == "add":
            r = np.add.reduceat(v.astype(np.int64), starts).astype(dt)
        elif mode in ("min", "max"):
            r = (np.minimum if mode == "min" else np.maximum).reduceat(v, starts)
        else:
            f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[mode]
            r = f.reduceat(v, starts)
        d(st, ix, np.repeat(r, lengths))
    return h
