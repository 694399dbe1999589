"""Per-batch thread state: registers as NumPy arrays over threads, special registers.

Registers hold raw bits (``uint8/16/32/64``, ``bool`` for predicates); an
instruction views them as its own type (``.view(np.float32)``), which costs
nothing, so one register file serves typed and untyped (``.b32``) accesses.
"""

from __future__ import annotations

import numpy as np

from pipeperf.ptx.ir import TYPE_BYTES, Function

RAW: dict[int, np.dtype] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
       8: np.dtype(np.uint64)}

#: NumPy dtype of each PTX scalar type.
_SCALARS: dict[str, type] = {"s8": np.int8, "u8": np.uint8, "b8": np.uint8, "s16": np.int16, "u16": np.uint16,
      "b16": np.uint16, "f16": np.float16, "bf16": np.uint16, "s32": np.int32, "u32": np.uint32,
      "b32": np.uint32, "f32": np.float32, "f16x2": np.uint32, "s64": np.int64,
      "u64": np.uint64, "b64": np.uint64, "f64": np.float64, "pred": np.bool_}
NP: dict[str, np.dtype] = {k: np.dtype(v) for k, v in _SCALARS.items()}


def cast(a, dt: np.dtype):
    """Reinterpret (same width) or resize (integer widths) ``a`` as ``dt``."""
    if a.dtype == dt:
        return a
    if dt == np.bool_:
        return a != 0
    if a.dtype == np.bool_:
        return a.astype(dt)
    if a.dtype.itemsize == dt.itemsize:
        return a.view(dt) if isinstance(a, np.ndarray) else np.asarray(a).view(dt)[()]
    if a.dtype.kind == "f" or dt.kind == "f":
        # e.g. an f16 value in a 32-bit register: use the low bits
        raw = a.view(RAW[a.dtype.itemsize]) if a.dtype.kind == "f" else a
        raw = raw.astype(RAW[dt.itemsize])
        return raw.view(dt) if isinstance(raw, np.ndarray) else np.asarray(raw).view(dt)[()]
    return a.astype(RAW[a.dtype.itemsize]).astype(RAW[dt.itemsize]).view(dt) \
        if isinstance(a, np.ndarray) else np.asarray(a).astype(dt)[()]


class Registers(dict):
    """Register name -> its array over the threads. A declared register is there from the start,
    zeros of its declared width, but its array is made on first use: a kernel declares thousands
    that a hybrid run never touches (a persistent GEMM's fragments: 1.1 GB at 8 192 threads).
    Iterating lists only those made."""

    def __init__(self, n: int, declared: dict[str, np.dtype | None]):
        super().__init__()
        self._n = n
        self._declared = declared

    def __missing__(self, name: str) -> np.ndarray:
        if name not in self._declared:
            raise KeyError(name)
        a = self[name] = np.zeros(self._n, self._declared[name])
        return a

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in self._declared

    def get(self, name: str, default: np.ndarray | None = None) -> np.ndarray | None:  # type: ignore[override]
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        return self[name] if name in self._declared else default


class State:
    """Registers and thread coordinates of ``n`` threads (a batch of whole CTAs, or the
    threads that entered a device function)."""

    def __init__(self, func: Function, n: int):
        self.func = func
        self.n = n
        declared: dict[str, np.dtype | None] = {}    # (None: an unknown width, float64 as np.zeros makes)
        for d in func.reg_decls:
            dt = np.dtype(np.bool_) if d.type == "pred" else RAW.get(TYPE_BYTES.get(d.type, 4))
            for r in d.registers():
                declared[r] = dt
        for p in func.params:
            if p.space == "reg":
                declared[p.name] = RAW[TYPE_BYTES.get(p.type, 4)]
        self.regs: dict[str, np.ndarray] = Registers(n, declared)
        self.params: dict[tuple[str, int], np.ndarray] = {}
        self.special: dict[str, np.ndarray | np.generic] = {}
        # filled by the machine
        self.wid: np.ndarray = np.zeros(n, np.int64)   # launch-wide warp id (contiguous)
        self.cta: np.ndarray = np.zeros(n, np.int64)   # CTA index within the batch
        self.tix: np.ndarray = np.arange(n, dtype=np.int64)  # thread index in the batch
        self.lane: np.ndarray = np.zeros(n, np.int64)
        self.smem_base: np.ndarray = np.zeros(n, np.int64)  # byte offset of the CTA's shared
        self.trace_wid: np.ndarray | None = None  # launch-wide warp id if traced, else -1
        self.traced_any = False
        self.top = True  # a kernel's state (not a device function's)

    def reg(self, name: str, dt: np.dtype) -> np.ndarray:
        try:
            return self.regs[name]              # (a declared one is made on first use: Registers)
        except KeyError:
            a = self.regs[name] = np.zeros(self.n, np.bool_ if dt == np.bool_ else RAW[dt.itemsize])
            return a

    def param_store(self, key: tuple[str, int], dt: np.dtype) -> np.ndarray:
        a = self.params.get(key)
        if a is None:
            a = self.params[key] = np.zeros(self.n, RAW[dt.itemsize])
        return a
