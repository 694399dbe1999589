"""Launch description: grid, block, kernel arguments, dynamic shared memory.

Why separate: the Python API and the CLI describe launches differently (NumPy
arrays vs ``--arg x=rand:f32:1048576`` strings); both end here as one
:class:`Launch` whose arguments are in ``.param`` order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function
from pipeperf.ptx.params import ParamNames, bind, fit, fit_array
from pipeperf.util.launch_args import (BLOCK_LIMITS, GRID_LIMITS, MAX_BLOCK_THREADS, SYNONYMS, TYPES,  # noqa: F401
                                       ArgSpec, check_cuda_limits, dim3, element_bytes, parse_arg)

#: the grammar's element types as NumPy dtypes
SPEC_DTYPES = {t: np.dtype({"i": "int", "u": "uint", "f": "float"}[t[0]] + t[1:]) for t in TYPES}


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
    differ. The distributions are unchanged: floats uniform in [0, 1), integers in 0..99;
    ``rand:TYPE:N:LO:HI`` (``lo``, ``hi``) draws uniformly in [LO, HI), integers rounded down,
    as the measure launcher does. ``np.asarray(buf)`` makes the whole array, with the same values."""

    generated = True

    def __init__(self, kind: str, dtype: Any, count: int, seed: int = 0,
                 lo: float | None = None, hi: float | None = None):
        self.kind = SYNONYMS.get(kind, kind)             # iota is arange
        self.dtype, self.count, self.seed = np.dtype(dtype), int(count), int(seed)
        self.lo, self.hi = lo, hi
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
        if self.lo is not None:
            vals = self.lo + (self.hi - self.lo) * rng.random(n)  # type: ignore[operator]  # hi comes with lo
            return (vals if self.dtype.kind == "f" else np.floor(vals)).astype(self.dtype)
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


def parse_arg_value(text: str, rng: np.random.Generator | None = None, lazy: bool = False,
                    seed: int = 0) -> Any:
    """One ``--arg`` value (:func:`~pipeperf.util.launch_args.parse_arg`'s grammar) as the emulator
    takes it: a number, a buffer or a ``.npy`` array. A generated buffer is a
    :class:`GeneratedBuffer` (made on first touch by the emulator) when ``lazy``, else its whole
    NumPy array (the same values). ``rand`` values come from ``seed`` (or one drawn from ``rng``)
    and the index."""
    if rng is not None:
        seed = int(rng.integers(0, 2**63))
    return spec_value(parse_arg(text), lazy, seed)


def spec_value(spec: ArgSpec, lazy: bool = True, seed: int = 0) -> Any:
    """The emulator's value of a parsed spec: a Python number, a buffer or a loaded ``.npy``."""
    if spec.kind == "scalar":
        return spec.number
    if spec.fill == "npy":
        try:
            return np.load(spec.value, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise PipeperfError(f"--arg '{spec.text}': cannot read it as a .npy array "
                                f"({getattr(exc, 'strerror', None) or exc})", file=spec.value) from None
    buf = GeneratedBuffer(spec.fill, SPEC_DTYPES[spec.type], spec.count, seed, spec.lo, spec.hi)
    return buf if lazy else np.asarray(buf)


@dataclass
class Launch:
    """A kernel launch: ``args`` are in the kernel's ``.param`` order; ``names`` their PTX names,
    ``param_names`` their CUDA names too (for messages)."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: list[Any]
    names: list[str] = field(default_factory=list)
    shared: int = 0
    param_names: ParamNames | None = None

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def num_blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    def label(self, k: int, ptx_name: str) -> str:
        """Parameter ``k`` as messages name it: ``ny (PTX stencil5_param_3)``, else its PTX name."""
        return self.param_names.label(k) if self.param_names else ptx_name


def bind_args(func: Function, args: Any, file: str | None = None,
              names: ParamNames | None = None, allow_dtype_mismatch: bool = False) -> tuple[list[Any], list[str]]:
    """Match ``args`` (a sequence in parameter order, a dict by name, or CLI strings
    ``[NAME=]VALUE``) to ``func``'s parameters (:func:`pipeperf.ptx.params.bind`: by CUDA name
    when ``names`` has them, PTX name or position); each spec, number or tuple of numbers (a
    vector such as ``float2`` passed by value) is checked against its parameter's type, and a
    vector's numbers become its bytes; a ``.npy`` file must hold its pointer's element type unless
    ``allow_dtype_mismatch`` (:func:`pipeperf.ptx.params.check_dtype`; a NumPy array likewise,
    :func:`~pipeperf.ptx.params.fit_array`). Returns the values in parameter order and the PTX names."""
    names = names or ParamNames.of(func)
    if isinstance(args, dict):
        items: list[tuple[Any, Any]] = [(str(k), v) for k, v in args.items()]
    else:
        items = [(None, a) for a in (args or [])]
    parsed = []
    for name, value in items:
        if isinstance(value, str):
            value = parse_arg(value)
            name = name or value.label or None
        parsed.append((name, value))
    values = bind(names, parsed, file)
    for k, (p, v) in enumerate(zip(func.params, values)):
        if _is_number(v):
            number = v.item() if isinstance(v, np.number) else v
            v = ArgSpec(repr(number), "", "scalar", value=repr(number), number=number)
        elif isinstance(v, (tuple, list)) and v and all(_is_number(x) for x in v):
            numbers = tuple(x.item() if isinstance(x, np.number) else x for x in v)
            text = ",".join(map(repr, numbers))
            v = ArgSpec(text, "", "scalar", value=text, numbers=numbers)
        elif isinstance(v, np.ndarray):      # the API's buffers, checked as a .npy file is
            fit_array(v, p, names.label(k), names.kernel, file, names.type(k), func, allow_dtype_mismatch)
        if isinstance(v, ArgSpec):
            spec = fit(v, p, names.label(k), names.kernel, file, names.type(k), func, allow_dtype_mismatch)
            if spec.kind == "scalar" and p.dims:     # a vector passed by value: its bytes
                values[k] = np.frombuffer(element_bytes(spec.values, spec.type), np.uint8).copy()
            else:
                values[k] = _bits(spec, p.type) if spec.kind == "scalar" else spec_value(spec, lazy=True)
    return values, [p.name for p in func.params]


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))


def _bits(spec: ArgSpec, ptx_type: str) -> int | float:
    """A typed float given for an untyped-bits parameter (``f32:2.5`` for ``.b32``) as its bit pattern."""
    if spec.type.startswith("f") and not ptx_type.startswith("f"):
        return int.from_bytes(np.asarray(spec.number, SPEC_DTYPES[spec.type]).tobytes(), "little")
    assert spec.number is not None               # a scalar
    return spec.number
