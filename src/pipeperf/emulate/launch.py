"""Launch description: grid, block, kernel arguments, dynamic shared memory.

Why separate: the Python API and the CLI describe launches differently (NumPy
arrays vs ``--arg x=rand:f32:1048576`` strings); both end here as one
:class:`Launch` whose arguments are in ``.param`` order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function

_SPEC_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8,
                "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
                "u32": np.uint32, "i64": np.int64, "u64": np.uint64}


def dim3(value: Any, what: str) -> tuple[int, int, int]:
    """``256``, ``"64,64"``, ``(16, 16)`` -> a 3-tuple of positive ints."""
    if isinstance(value, str):
        parts = value.strip().replace("x", ",").split(",")      # "64,64" or "64x64"
        try:
            vals = [int(p) for p in parts]                        # an empty part ("2,", "2,x") fails
        except ValueError:
            raise PipeperfError(f"--{what} {value!r}: expected X[,Y[,Z]] integers")
    elif isinstance(value, (int, np.integer)):
        vals = [int(value)]
    else:
        vals = [int(v) for v in value]
    if not 1 <= len(vals) <= 3 or any(v < 1 for v in vals):
        raise PipeperfError(f"{what} {value!r}: expected 1 to 3 positive sizes")
    vals += [1] * (3 - len(vals))
    return (vals[0], vals[1], vals[2])


def parse_arg_value(text: str, rng: np.random.Generator | None = None) -> Any:
    """One CLI argument value: a number, ``rand:f32:N``, ``zeros:f32:N``, ``ones:T:N``,
    ``arange:T:N`` or ``file.npy``."""
    if text.endswith(".npy"):
        try:
            return np.load(text)
        except OSError as exc:
            raise PipeperfError(f"cannot read {text}: {exc.strerror or exc}")
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3 or parts[1] not in _SPEC_DTYPES:
            raise PipeperfError(f"--arg {text!r}: expected KIND:TYPE:COUNT with TYPE in "
                                + ", ".join(_SPEC_DTYPES))
        kind, t, count = parts
        try:
            n = int(count)
        except ValueError:
            raise PipeperfError(f"--arg {text!r}: COUNT must be an integer")
        dt = np.dtype(_SPEC_DTYPES[t])
        rng = rng or np.random.default_rng(0)
        if kind == "zeros":
            return np.zeros(n, dt)
        if kind == "ones":
            return np.ones(n, dt)
        if kind == "arange":
            return np.arange(n).astype(dt)
        if kind == "rand":
            if dt.kind == "f":
                return rng.random(n).astype(dt)
            return rng.integers(0, 100, n).astype(dt)
        raise PipeperfError(f"--arg {text!r}: unknown kind {kind!r} (zeros, ones, arange, rand)")
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise PipeperfError(f"--arg value {text!r} is neither a number, KIND:TYPE:N nor .npy")


@dataclass
class Launch:
    """A kernel launch: ``args`` are in the kernel's ``.param`` order."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: list[Any]
    names: list[str] = field(default_factory=list)
    shared: int = 0

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def num_blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


def bind_args(func: Function, args: Any, file: str | None = None,
              aliases: Sequence[str] = ()) -> tuple[list[Any], list[str]]:
    """Match ``args`` (a sequence in parameter order, a dict by name, or CLI strings
    ``name=value`` / ``value``) to ``func``'s parameters; PTX names like
    ``saxpy_param_2`` also answer to their position."""
    params = func.params
    n = len(params)
    out: list[Any] = [None] * n
    if isinstance(args, dict):
        items: Sequence = list(args.items())
    else:
        items = [(None, a) for a in (args or [])]
    pos = 0
    for name, value in items:
        if name is None and isinstance(value, str) and re.match(r"^[A-Za-z_]\w*=", value):
            name, value = value.split("=", 1)
        if isinstance(value, str):
            value = parse_arg_value(value)
        if name is None:
            if pos >= n:
                raise PipeperfError(f"kernel {func.name} takes {n} arguments, got more", file=file)
            k = pos
            pos += 1
        else:
            if str(name) in aliases:
                k = list(aliases).index(str(name))
            else:
                k = _param_index(func, str(name), file)
        out[k] = value
    missing = [p.name for p, v in zip(params, out) if v is None]
    if missing:
        raise PipeperfError(f"kernel {func.name}: no value for parameter(s) {', '.join(missing)}",
                            file=file)
    return out, [p.name for p in params]


def cuda_param_names(source: str, kernel: str) -> list[str]:
    """Parameter names of ``kernel`` in CUDA source text (PTX keeps only positions)."""
    m = re.search(r"\b" + re.escape(kernel) + r"\s*\(([^)]*)\)\s*\{", source)
    if not m:
        return []
    names = []
    for part in m.group(1).split(","):
        ids = re.findall(r"[A-Za-z_]\w*", part.split("=")[0])
        names.append(ids[-1] if ids else "")
    return names


def _param_index(func: Function, name: str, file: str | None) -> int:
    for i, p in enumerate(func.params):
        if p.name == name or p.name == f"{func.name}_param_{name}":
            return i
    if name.isdigit() and int(name) < len(func.params):
        return int(name)
    raise PipeperfError(f"kernel {func.name} has no parameter {name!r} (parameters: "
                        + ", ".join(p.name for p in func.params)
                        + "; CUDA names are not in PTX: use positions 0.. or name=value in order)",
                        file=file)
