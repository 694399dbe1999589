"""The launch grammar of ``pipeperf profile``, ``analyze`` and ``measure`` (one for all three):
``--grid``/``--block`` sizes and ``--arg [NAME=]VALUE`` specs, parsed into one typed record.

Why here: the emulator turns an :class:`ArgSpec` into NumPy arrays and the measure launcher into
a command line for its C++ program; both read the same spelling through this module, so a spec
one command accepts the others accept too (README, "Kernel arguments"). Nothing here knows PTX:
fitting a spec to a kernel's parameter is :mod:`pipeperf.ptx.params`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Sequence
from typing import SupportsIndex

from pipeperf.errors import PipeperfError

#: element types of typed scalars and buffers, with their bytes
TYPES: dict[str, int] = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "i32": 4, "u32": 4, "f32": 4,
                         "i64": 8, "u64": 8, "f64": 8}
#: element types of a vector passed by value (``__nv_bfloat162``: bf16, which only these take)
ELEMENTS: dict[str, int] = {**TYPES, "bf16": 2}
#: buffer fills (canonical spelling first in each synonym pair of SYNONYMS)
FILLS = ("rand", "zeros", "ones", "arange")
#: other spellings of a fill: ``iota`` (the C++ name) is ``arange`` (NumPy's)
SYNONYMS = {"iota": "arange"}
#: where the grammar is documented; every error of this module points there
SEE = "see README, 'Kernel arguments'"
GRAMMAR = "NUMBER, NUMBER,NUMBER,..., TYPE:NUMBER, FILL:TYPE:COUNT[:LO:HI] or FILE.npy"

_LABEL = re.compile(r"[A-Za-z_]\w*|\d+")


@dataclass(frozen=True)
class ArgSpec:
    """One ``--arg``: a scalar (``512``, ``f32:2.5``), a tuple (``1.0,2.0``, ``f16:1,2``: a vector
    such as ``float2`` passed by value) or a buffer (``rand:f32:N[:LO:HI]``,
    ``zeros|ones|arange:TYPE:N``, ``FILE.npy``), optionally labelled ``NAME=``."""

    text: str                          # as written
    label: str                         # NAME before '=' (a CUDA or PTX name, or a position), or ""
    kind: str                          # "scalar" | "buffer"
    type: str = ""                     # a TYPES key (an ELEMENTS key once fitted to a vector); "" = untyped
    fill: str = ""                     # buffers: rand | zeros | ones | arange | npy
    value: str = ""                    # scalar literal as written, or the .npy path
    number: int | float | None = None  # the scalar's value (None for a tuple)
    numbers: tuple[int | float, ...] = ()   # a tuple's values (a vector's elements)
    count: int = 0                     # buffer elements
    lo: float | None = None            # rand's range [LO, HI) (default floats [0, 1), integers 0..99)
    hi: float | None = None

    @property
    def values(self) -> tuple[int | float, ...]:
        """A scalar's or tuple's numbers (one for a scalar)."""
        return self.numbers or ((self.number,) if self.number is not None else ())

    @property
    def nbytes(self) -> int | None:
        """A generated buffer's bytes (None for scalars and .npy files)."""
        return self.count * TYPES[self.type] if self.kind == "buffer" and self.fill != "npy" else None

    def labelled(self, label: str) -> ArgSpec:
        return replace(self, label=label)

    def canonical(self) -> str:
        """The canonical spelling (``NAME=f32:2.5``, ``NAME=arange:i32:16``): what the measure
        launcher's C++ parser is given."""
        head = f"{self.label}=" if self.label else ""
        if self.kind == "scalar":
            assert self.values                  # parse() gives every scalar its number(s)
            num = ",".join(repr(float(v)) if self.type.startswith(("f", "bf")) else str(int(v)) if self.type
                           else str(v) for v in self.values)
            return head + (f"{self.type}:{num}" if self.type else num)
        if self.fill == "npy":
            return head + self.value
        tail = f":{self.lo!r}:{self.hi!r}" if self.lo is not None else ""
        return f"{head}{self.fill}:{self.type}:{self.count}{tail}"

    def describe(self) -> str:
        """The launcher's ``--parse-only`` line for this spec (the two parsers must agree)."""
        if self.kind == "scalar":
            return f"scalar {self.type or 'auto'} {self.value}"
        if self.fill == "npy":
            return f"buffer npy {self.value}"
        tail = f" {self.lo:g} {self.hi:g}" if self.lo is not None else ""
        return f"buffer {self.fill} {self.type} {self.count}{tail}"


def buffer_bytes(args) -> int:
    """The bytes of the launch's buffers: generated ones by their spec, ``.npy`` files by their size
    on disk (header included, a few bytes over), NumPy arrays (API callers) by ``nbytes``; scalars
    and specs that do not parse count nothing (the emulator reports those at their source)."""
    total = 0
    for a in args:
        if isinstance(a, str):
            try:
                a = parse_arg(a)
            except PipeperfError:
                continue
        if isinstance(a, ArgSpec):
            if a.fill == "npy":
                total += Path(a.value).stat().st_size
            else:
                total += a.nbytes or 0
        elif hasattr(a, "nbytes") and getattr(a, "ndim", 0) > 0:
            total += int(a.nbytes)
    return total


def parse_number(text: str) -> int | float | None:
    """An integer (decimal, ``0x``, ``0o``, ``0b``; ``010`` is ten) or a floating literal; None if neither."""
    s = text.strip()
    if not s or s != text:
        return None
    for base in (0, 10):
        try:
            return int(s, base)
        except ValueError:
            pass
    try:
        return float(s)
    except ValueError:
        return None


def _error(text: str, why: str) -> PipeperfError:
    return PipeperfError(f"--arg '{text}': {why}")


def parse_arg(text: str) -> ArgSpec:
    """``[NAME=]VALUE`` -> :class:`ArgSpec`; a misspelt spec is a one-line error naming it and
    what was expected."""
    label, sep, body = text.partition("=")
    if not sep:
        label, body = "", text
    elif not _LABEL.fullmatch(label):
        raise _error(text, f"'{label}' before '=' is not a parameter name or position "
                           f"(expected [NAME=]VALUE; {SEE})")
    if not body:
        raise _error(text, f"no value (expected {GRAMMAR}; {SEE})")
    if body.endswith(".npy"):
        if not Path(body).is_file():
            raise PipeperfError(f"--arg '{text}': no such file", file=body)
        return ArgSpec(text, label, "buffer", fill="npy", value=body)
    parts = body.split(":")
    if len(parts) == 1:
        number = parse_number(body)
        if number is None and "," in body:
            return ArgSpec(text, label, "scalar", value=body, numbers=_tuple(text, body))
        if number is None:
            raise _error(text, f"'{body}' is not a number, a buffer spec (FILL:TYPE:COUNT) or a .npy file "
                               f"(expected {GRAMMAR}; {SEE})")
        return ArgSpec(text, label, "scalar", value=body, number=number)
    if len(parts) == 2:
        return _typed_scalar(text, label, *parts)
    return _buffer(text, label, parts)


def _tuple(text: str, body: str) -> tuple[int | float, ...]:
    """``1.0,2.0`` -> its numbers (a vector passed by value: ``float2``, ``half2``, ``int4``...)."""
    numbers = [parse_number(x.strip()) for x in body.split(",")]
    bad = next((x for x, n in zip(body.split(","), numbers) if n is None), None)
    if bad is not None:
        raise _error(text, f"'{bad.strip()}' in '{body}' is not a number (a vector passed by value takes "
                           f"NUMBER,NUMBER,...; {SEE})")
    return tuple(n for n in numbers if n is not None)


def _typed_scalar(text: str, label: str, typ: str, literal: str) -> ArgSpec:
    if typ not in TYPES:
        hint = " (a buffer needs FILL:TYPE:COUNT)" if typ in FILLS or typ in SYNONYMS else ""
        raise _error(text, f"unknown type '{typ}' (expected TYPE:NUMBER with TYPE one of "
                           f"{', '.join(TYPES)}){hint}")
    if "," in literal:
        numbers = tuple(typed_value(n, typ, text) for n in _tuple(text, literal))
        return ArgSpec(text, label, "scalar", type=typ, value=literal, numbers=numbers)
    number = parse_number(literal)
    if number is None:
        raise _error(text, f"'{literal}' is not a number (expected {typ}:NUMBER)")
    return ArgSpec(text, label, "scalar", type=typ, value=literal, number=typed_value(number, typ, text))


def typed_value(number: int | float, typ: str, text: str) -> int | float:
    """``number`` as a value of ``typ`` (an :data:`ELEMENTS` key): integers must be whole and in
    range; floats must not overflow to infinity (a silently wrong number otherwise)."""
    bits = 8 * ELEMENTS[typ]
    if typ == "bf16":
        if math.isfinite(float(number)) and bf16_bits(number) & 0x7F80 == 0x7F80:
            raise _error(text, f"{number} overflows bf16")
        return float(number)
    if typ.startswith("f"):
        import numpy as np

        with np.errstate(over="ignore"):
            converted = float(np.dtype(typ.replace("f", "float")).type(number))
        if math.isfinite(float(number)) and not math.isfinite(converted):
            raise _error(text, f"{number} overflows {typ}")
        return float(number)
    if isinstance(number, float):
        if not number.is_integer():
            raise _error(text, f"{number!r} is not an integer ({typ} holds integers)")
        number = int(number)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if typ.startswith("i") else (0, (1 << bits) - 1)
    if not lo <= number <= hi:
        raise _error(text, f"{number} is out of range for {typ} ({lo}..{hi})")
    return number


def bf16_bits(number: int | float) -> int:
    """The bfloat16 bits of ``number``: float32's top 16 bits, rounded to nearest even (as
    ``__float2bfloat16`` rounds); a NaN stays a (quiet) NaN."""
    import numpy as np

    with np.errstate(over="ignore"):
        u = int(np.float32(number).view(np.uint32))
    if math.isnan(float(number)):
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def element_bytes(numbers: tuple[int | float, ...], typ: str) -> bytes:
    """``numbers`` (checked by :func:`typed_value`) as consecutive little-endian ``typ`` values:
    the bytes of a vector passed by value (``float4``, ``__half``: f16 rounds to nearest even)."""
    import numpy as np

    if typ == "bf16":
        return np.array([bf16_bits(v) for v in numbers], "<u2").tobytes()
    size = ELEMENTS[typ]
    if typ.startswith("f"):
        return np.array(numbers, f"<f{size}").tobytes()
    return np.array([int(v) & ((1 << (8 * size)) - 1) for v in numbers], f"<u{size}").tobytes()


def _buffer(text: str, label: str, parts: list[str]) -> ArgSpec:
    fill, typ, count = parts[:3]
    fill = SYNONYMS.get(fill, fill)
    if fill not in FILLS:
        if fill in TYPES:
            raise _error(text, f"a typed scalar is TYPE:NUMBER (e.g. {fill}:2.5); "
                               f"a buffer FILL:TYPE:COUNT with FILL one of {', '.join(FILLS)}")
        raise _error(text, f"unknown buffer fill '{parts[0]}' (expected FILL:TYPE:COUNT with FILL one of "
                           f"{', '.join(FILLS)}, iota = arange)")
    if typ not in TYPES:
        raise _error(text, f"unknown buffer type '{typ}' (expected one of {', '.join(TYPES)})")
    n = parse_number(count)
    if not isinstance(n, int) or n < 1:
        raise _error(text, f"count '{count}' must be a positive integer")
    if len(parts) == 3:
        return ArgSpec(text, label, "buffer", type=typ, fill=fill, count=n)
    if len(parts) == 5 and fill == "rand":
        lo, hi = parse_number(parts[3]), parse_number(parts[4])
        if lo is None or hi is None or not float(hi) > float(lo) or not math.isfinite(float(hi) - float(lo)):
            raise _error(text, "range needs two finite numbers LO < HI (rand:TYPE:COUNT:LO:HI)")
        return ArgSpec(text, label, "buffer", type=typ, fill=fill, count=n, lo=float(lo), hi=float(hi))
    raise _error(text, "expected FILL:TYPE:COUNT (only rand may add :LO:HI)")


# ---------------------------------------------------------------- grid and block

#: CUDA's launch limits (CUDA C++ Programming Guide, Compute Capabilities table: maximum x-
#: dimension of a grid 2^31-1, y and z 65535; block x and y 1024, z 64, at most 1024 threads)
GRID_LIMITS = (2**31 - 1, 65535, 65535)
BLOCK_LIMITS = (1024, 1024, 64)
MAX_BLOCK_THREADS = 1024


#: a grid or block as callers give it: ``256``, ``"64,64"``, ``(16, 16)``
Dim3Like = int | str | SupportsIndex | Sequence[int]


def dim3(value: Dim3Like, what: str) -> tuple[int, int, int]:
    """``256``, ``"64,64"`` (or ``"64x64"``), ``(16, 16)`` -> a 3-tuple of positive ints."""
    if isinstance(value, str):
        parts = value.strip().replace("x", ",").split(",")      # "64,64" or "64x64"
        try:
            vals = [int(p) for p in parts]                        # an empty part ("2,", "2,x") fails
        except ValueError:
            raise PipeperfError(f"{_flag(what)} {value!r}: expected X[,Y[,Z]] positive integers, "
                                "e.g. 256 or 64,64") from None
    elif isinstance(value, int) or hasattr(value, "__index__"):
        vals = [int(value)]
    else:
        try:
            vals = [int(v) for v in value]          # int("x"), int(None) or int(2.5) from a YAML list
            if any(isinstance(v, (float, bool)) or v is None for v in value):
                raise ValueError
        except (TypeError, ValueError):
            raise PipeperfError(f"{_flag(what)} {value!r}: expected one to three positive integers, "
                                "e.g. 256 or 64,64") from None
    if not 1 <= len(vals) <= 3 or any(v < 1 for v in vals):
        raise PipeperfError(f"{_flag(what)} {value!r}: expected one to three positive integers, e.g. 256 or 64,64")
    vals += [1] * (3 - len(vals))
    return (vals[0], vals[1], vals[2])


def _flag(what: str) -> str:
    return what if what.startswith("-") else f"--{what}"


def check_cuda_limits(grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    """Refuse a launch CUDA itself would refuse, in one line naming the limit."""
    for what, dims, limits in (("grid", grid, GRID_LIMITS), ("block", block, BLOCK_LIMITS)):
        for axis, v, lim in zip("xyz", dims, limits):
            if v > lim:
                raise PipeperfError(f"{what} dimension {axis} = {v} exceeds CUDA's limit of {lim} "
                                    f"({what}Dim.{axis} <= {lim})")
    if block[0] * block[1] * block[2] > MAX_BLOCK_THREADS:
        raise PipeperfError(f"block of {block[0] * block[1] * block[2]} threads exceeds CUDA's limit of "
                            f"{MAX_BLOCK_THREADS} threads per block")
