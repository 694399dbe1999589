"""Readers and writers of instruction operands, built once per instruction.

A getter ``g(st, ix)`` returns a source operand's value for the thread group ``ix`` as the
instruction's type; a setter ``s(st, ix, v)`` writes a destination. Decoding (which register,
which immediate bits, which symbol address) happens when they are built, so each step pays
only the NumPy work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pipeperf.emulate import clocks
from pipeperf.emulate.state import RAW, State, cast
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Immediate, NotPred, Register, Sink, SpecialRegister, Symbol

Handler = Callable[[State, Any], None]
Getter = Callable[[State, Any], Any]
Setter = Callable[[State, Any, Any], None]

F32, F64, F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)


class Unsupported(Exception):
    """An instruction (or operand) the emulator has no semantics for; the program compiles it
    to a handler that raises only if the instruction is reached."""


def imm_value(v: Immediate, dt: np.dtype):
    """The immediate ``v`` as a scalar of ``dt`` (integer spellings of floats are raw bits)."""
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
    """Reader of source operand ``op`` as type ``dt``; ``m`` places symbols (its layout)."""
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
    if t is SpecialRegister and op.name in clocks.CLOCKS:
        name = op.name
        return lambda st, ix: cast(clocks.value(name, st.regs[clocks.ISSUED][ix]), dt)
    if t is SpecialRegister:
        name = op.name

        def g(st, ix):
            v = st.special.get(name)
            if v is None:
                raise PipeperfError(f"special register {name} is not supported by the emulator")
            return cast(v[ix] if isinstance(v, np.ndarray) else v, dt)
        return g
    if t is Symbol:
        addr = m.layout.symbol_address(op.name)
        val = np.asarray(addr, np.uint64).astype(RAW[dt.itemsize]).view(dt)[()]
        return lambda st, ix: val
    raise Unsupported(f"operand {op}")


def setter(op, dt: np.dtype) -> Setter:
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
