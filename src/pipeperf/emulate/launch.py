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


#: CUDA's launch limits (CUDA C++ Programming Guide, Compute Capabilities table: maximum x-
#: dimension of a grid 2^31-1, y and z 65535; block x and y 1024, z 64, at most 1024 threads)
GRID_LIMITS = (2**31 - 1, 65535, 65535)
BLOCK_LIMITS = (1024, 1024, 64)
MAX_BLOCK_THREADS = 1024


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


PAGE_BYTES = 1 << 16   # generated buffers are made in pages of this many bytes, on first touch


class GeneratedBuffer:
    """A ``KIND:TYPE:N`` buffer (``zeros``, ``ones``, ``arange``, ``rand``) whose values are
    made page by page (:data:`PAGE_BYTES`) when the emulated kernel first touches them, so a
    1 GiB input of which a few sampled CTAs read a megabyte costs a megabyte.

    Element ``i`` lies in page ``q = i // (PAGE_BYTES // itemsize)``; a ``rand`` page is drawn
    from its own generator seeded with ``(seed, q)``, so every value depends only on the
    buffer's seed and its index, never on which CTAs ran or in which order pages were touched.
    Before pages, one ``default_rng(0)`` drew the whole buffer: with seed 0, page 0's generator
    is that one (NumPy's seed sequence treats ``(0, 0)`` as ``0``), so a buffer of at most one
    page holds the same values as before and a larger one the same first page; later pages
    differ. The distributions are unchanged: floats uniform in [0, 1), integers in 0..99.
    ``np.asarray(buf)`` makes the whole array, with the same values."""

    generated = True

    def __init__(self, kind: str, dtype: Any, count: int, seed: int = 0):
        self.kind, self.dtype, self.count, self.seed = kind, np.dtype(dtype), int(count), int(seed)
        self.page_elems = PAGE_BYTES // self.dtype.itemsize

    shape = property(lambda self: (self.count,))
    size = property(lambda self: self.count)
    nbytes = property(lambda self: self.count * self.dtype.itemsize)
    ndim = 1

    @property
    def n_pages(self) -> int:
        return -(-self.count // self.page_elems)

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"GeneratedBuffer({self.kind}:{self.dtype.name}:{self.count}, seed={self.seed})"

    def page(self, q: int) -> np.ndarray:
        """The values of page ``q`` (the last page may be short)."""
        lo = q * self.page_elems
        n = min(self.page_elems, self.count - lo)
        if self.kind == "zeros":
            return np.zeros(n, self.dtype)
        if self.kind == "ones":
            return np.ones(n, self.dtype)
        if self.kind == "arange":
            return np.arange(lo, lo + n).astype(self.dtype)
        rng = np.random.default_rng((self.seed, q))
        if self.dtype.kind == "f":
            return rng.random(n).astype(self.dtype)
        return rng.integers(0, 100, n).astype(self.dtype)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.empty(self.count, self.dtype)
        for q in range(self.n_pages):
            lo = q * self.page_elems
            out[lo:lo + self.page_elems] = self.page(q)
        return out if dtype is None else out.astype(dtype)

    def tolist(self) -> list:
        return np.asarray(self).tolist()


_KINDS = ("zeros", "ones", "arange", "rand")


def parse_arg_value(text: str, rng: np.random.Generator | None = None, lazy: bool = False,
                    seed: int = 0) -> Any:
    """One CLI argument value: a number, ``rand:f32:N``, ``zeros:f32:N``, ``ones:T:N``,
    ``arange:T:N`` or ``file.npy``. A ``KIND:TYPE:N`` buffer is a :class:`GeneratedBuffer`
    (made on first touch by the emulator) when ``lazy``, else its whole NumPy array (the same
    values). ``rand`` values come from ``seed`` (or one drawn from ``rng``) and the index."""
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
        if n < 0:
            raise PipeperfError(f"--arg {text!r}: COUNT must not be negative")
        if kind not in _KINDS:
            raise PipeperfError(f"--arg {text!r}: unknown kind {kind!r} (zeros, ones, arange, rand)")
        if rng is not None:
            seed = int(rng.integers(0, 2**63))
        buf = GeneratedBuffer(kind, _SPEC_DTYPES[t], n, seed)
        return buf if lazy else np.asarray(buf)
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
    cuda_names: list[str] = field(default_factory=list)   # the parameters' CUDA names, when known

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
            value = parse_arg_value(value, lazy=True)
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
