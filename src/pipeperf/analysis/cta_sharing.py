"""Which CTAs of a wave touch the same global memory at one instruction, from the PTX alone.

Why: mapper g's cache model sees only the traced CTAs (a few clusters of neighbours), but on a
GPU a whole wave of consecutive CTAs runs at once, and an access whose address does not depend
on ``blockIdx.x`` (a tiled matmul's rows of A) is the same for every CTA of a grid row; one that
does not depend on ``blockIdx.y`` (its columns of B) is the same down a grid column. The backward
slice of the address register says which of ``%ctaid.x/y/z`` it depends on; counting the CTAs of
one wave that agree on those dimensions gives how many share each sector. Assumed: CTAs of a
wave progress roughly in lockstep, so the first one's sectors are still in L2 when the others
ask (the same assumption as the Pipeline model's identical warps). Addresses that come from
memory (index arrays, pointer chasing) are taken to depend on everything: no sharing assumed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import Address, Function, Immediate, Register, SpecialRegister
from pipeperf.ptx.slices import address_registers

DIMS = ("x", "y", "z")
_LOADS = frozenset({"ld", "ldu", "atom", "ldmatrix", "suld", "tex", "tld4"})


def address_cta_dims(func: Function, pc: int, defuse: DefUse) -> frozenset[str]:
    """The ``%ctaid`` dimensions the address of instruction ``pc`` depends on (all three when
    it depends on a value loaded from non-constant memory)."""
    ins = func.instructions
    reaching = defuse.reaching[pc]
    dims: set[str] = set()
    for i in defuse.backward(w for b in _global_address_registers(ins[pc]) for w in reaching.get(b, ())):
        y = ins[i]
        if y.op.root in _LOADS and y.op.space not in ("param", "const"):
            return frozenset(DIMS)
        for op in y.operands:
            if type(op) is SpecialRegister and op.name.startswith("%ctaid."):
                dims.add(op.name[-1])
            elif type(op) is SpecialRegister and op.name.startswith(("%clusterid", "%cluster_ctaid", "%smid")):
                return frozenset(DIMS)
    return frozenset(dims)


def _global_address_registers(x) -> set[str]:
    """The registers of ``x``'s global address: a ``cp.async`` copy's source only (its first
    operand is the shared destination), else every address base (:func:`address_registers`)."""
    if x.op.root == "cp.async" and len(x.srcs) > 1:
        op = x.srcs[1]
        return {op.base.name} if type(op) is Address and op.base is not None and \
            getattr(op.base, "name", "").startswith("%") else set()
    return address_registers(x)


def ctas_sharing(dims: Iterable[str], grid: tuple[int, int, int], wave_ctas: int) -> float:
    """Mean number of CTAs among the first ``wave_ctas`` (in launch order, x fastest) that agree on
    the ``dims`` coordinates, i.e. that read the same sectors at an access depending only on them."""
    n = max(1, min(int(wave_ctas), math.prod(grid)))
    c = np.arange(n)
    coords = {"x": c % grid[0], "y": (c // grid[0]) % grid[1], "z": c // (grid[0] * grid[1])}
    keys = [coords[d] for d in DIMS if d in set(dims)]
    if not keys:
        return float(n)
    distinct = len(np.unique(np.stack(keys, axis=1), axis=0))
    return n / distinct


def sharing_by_pc(func: Function, pcs: Iterable[int], grid: tuple[int, int, int], wave_ctas: int
                  ) -> dict[int, tuple[frozenset[str], float]]:
    """(``%ctaid`` dimensions of the address, CTAs of a wave sharing it) per global memory PC."""
    pcs = list(pcs)
    if not pcs:
        return {}
    du = DefUse.of(func)
    out = {}
    for pc in pcs:
        d = address_cta_dims(func, pc, du)
        out[pc] = (d, ctas_sharing(d, grid, wave_ctas))
    return out


# --- CTA keys: which CTAs touch the same addresses, by evaluating the address's CTA-uniform part

_NONUNIFORM = object()        # a value that differs between threads of a CTA (or over time)
_FROM_MEMORY = object()       # a value loaded from (non-parameter) memory

_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "min": np.minimum, "max": np.maximum,
}


def _int_div(a, b):
    return np.where(b != 0, np.floor_divide(a, np.where(b != 0, b, 1)), 0)


def _int_rem(a, b):
    return np.where(b != 0, np.remainder(a, np.where(b != 0, b, 1)), 0)


class _CtaEvaluator:
    """Evaluates, for the CTAs of ``ctas`` (n x 3 coordinates), the values of an instruction's
    address that are the same for every thread of a CTA and depend on ``%ctaid`` (e.g.
    ``(blockIdx.x % blockRun) * 1024``): equal values mean the CTAs address the same memory at that
    instruction for the same thread and iteration. Integer arithmetic on such values is evaluated
    with NumPy; anything else (thread indices, loop-carried registers, loads) ends the uniform
    part, and the uniform ctaid-dependent values feeding it form the key."""

    def __init__(self, func: Function, defuse: DefUse, ctas: np.ndarray, grid: tuple[int, int, int],
                 block: tuple[int, int, int], params: dict[str, int | float]):
        self.func, self.du, self.params = func, defuse, params
        self.special: dict[str, np.ndarray | int] = {f"%ctaid.{d}": ctas[:, k].astype(np.int64) for k, d in enumerate(DIMS)}
        self.special.update({f"%nctaid.{d}": int(grid[k]) for k, d in enumerate(DIMS)})
        self.special.update({f"%ntid.{d}": int(block[k]) for k, d in enumerate(DIMS)})
        self.memo: dict[int, object] = {}
        self.keys: dict[int, np.ndarray] = {}      # defining pc -> ctaid-dependent uniform value
        self.from_memory = False

    def key_of(self, pc: int) -> list[np.ndarray] | None:
        """The key arrays of instruction ``pc``'s address (empty: no CTA dependence; None: the
        address comes from memory, nothing can be said)."""
        x = self.func.instructions[pc]
        for op in x.srcs[1:2] if x.op.root == "cp.async" else x.srcs:     # (a copy: its global source)
            if type(op) is Address and op.base is not None and getattr(op.base, "name", "").startswith("%"):
                v = self._reg(pc, op.base.name)
                if isinstance(v, np.ndarray):
                    self.keys[-1] = v
        if self.from_memory:
            return None
        return list(self.keys.values())

    def _reg(self, at: int, name: str):
        defs = self.du.reaching[at].get(name, ())
        if len(defs) != 1:
            for j in defs:                    # a loop-carried value: not uniform, but its inputs may be
                self._ins(j)                  # (a persistent CTA's tile, pos = blockIdx.x + k gridDim.x,
            return _NONUNIFORM                # is not keyed: docs/experiments/2026-11-28-cp-async-memory.md)
        return self._ins(defs[0])

    def _operand(self, at: int, op):
        t = type(op)
        if t is Immediate:
            return op.value
        if t is SpecialRegister:
            return self.special.get(op.name, _NONUNIFORM)
        if t is Register:
            return self._reg(at, op.name)
        return _NONUNIFORM

    def _ins(self, j: int):
        if j in self.memo:
            return self.memo[j]
        self.memo[j] = _NONUNIFORM            # cycles through loops end here
        x = self.func.instructions[j]
        root, space = x.op.root, x.op.space
        if root in ("ld", "ldu") and space == "param":
            a = next((o for o in x.srcs if type(o) is Address), None)
            name = getattr(a.base, "name", None) if a is not None else None
            v = self.params.get(name, _NONUNIFORM) if name else _NONUNIFORM
            self.memo[j] = v
            return v
        if root in _LOADS:
            self.from_memory = True
            return _NONUNIFORM
        vals = [self._operand(j, o) for o in x.srcs]
        v = _apply(x, vals)
        if v is _NONUNIFORM:                  # the uniform ctaid-dependent inputs become the key
            for o, val in zip(x.srcs, vals):
                if isinstance(val, np.ndarray) and type(o) is Register:
                    self.keys[hash((j, o.name))] = val
        self.memo[j] = v
        return v


def _apply(x, vals: list):
    """The value of instruction ``x`` from uniform operand values, or _NONUNIFORM."""
    if any(v is _NONUNIFORM for v in vals) or not vals:
        return _NONUNIFORM
    if any(isinstance(v, float) for v in vals):
        return _NONUNIFORM
    root = x.op.root
    if "hi" in x.op.modifiers:                # the upper half of a product: not evaluated here
        return _NONUNIFORM
    v = [np.int64(a) if not isinstance(a, np.ndarray) else a for a in vals]
    if root in ("mov", "cvt", "cvta") and len(v) == 1:
        return vals[0]
    if root in _BINARY and len(v) == 2:
        return _BINARY[root](v[0], v[1])
    if root == "mad" and len(v) == 3:
        return v[0] * v[1] + v[2]
    if root == "div" and len(v) == 2:
        return _int_div(v[0], v[1])
    if root == "rem" and len(v) == 2:
        return _int_rem(v[0], v[1])
    if root == "shl" and len(v) == 2:
        return np.left_shift(v[0], v[1])
    if root == "shr" and len(v) == 2:
        return np.right_shift(v[0], v[1])
    if root == "neg" and len(v) == 1:
        return -v[0]
    return _NONUNIFORM


def cta_keys(func: Function, pcs: Iterable[int], grid: tuple[int, int, int], block: tuple[int, int, int],
             params: dict[str, int | float], n_ctas: int, *, defuse: DefUse | None = None
             ) -> dict[int, np.ndarray | None]:
    """Per global memory PC, an int64 key for each of the first ``n_ctas`` CTAs (launch order):
    CTAs with equal keys address the same memory there (for the same thread and iteration);
    None when the address depends on loaded values."""
    du = defuse or DefUse.of(func)
    c = np.arange(min(int(n_ctas), math.prod(grid)), dtype=np.int64)
    ctas = np.stack([c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1])], axis=1)
    out: dict[int, np.ndarray | None] = {}
    for pc in pcs:
        ev = _CtaEvaluator(func, du, ctas, grid, block, params)
        parts = ev.key_of(pc)
        if parts is None:
            out[pc] = None
            continue
        parts = [np.broadcast_to(p, c.shape) for p in parts]
        if not parts:
            out[pc] = np.zeros(len(c), np.int64)
            continue
        _, key = np.unique(np.stack(parts, axis=1), axis=0, return_inverse=True)
        out[pc] = key.reshape(-1).astype(np.int64)
    return out


def random_replacement_hit_rate(footprint_over_capacity: float) -> float:
    """Steady-state hit rate of a cyclic working set ``x`` times the cache's size under random
    replacement: a line survives the (1 - h) x C misses between two of its uses with probability
    exp(-(1 - h) x), so h = exp(-(1 - h) x); 1 when it fits (x <= 1), falling smoothly past it
    (x = 1.02 -> 0.96, 1.5 -> 0.42, 2 -> 0.20). GPU L2s are not LRU (their hit rate falls
    gradually past the capacity, te42kyfo/gpu-benches gpu-l2-cache), so this replaces LRU's cliff."""
    x = float(footprint_over_capacity)
    if x <= 1.0:
        return 1.0
    lo, hi = 0.0, 1.0 - 1e-12           # the root below 1: f(h) = exp(-(1-h)x) - h, f(lo) > 0 > f(hi-)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if math.exp(-(1.0 - mid) * x) - mid > 0:
            lo = mid
        else:
            hi = mid
    return lo


def reuse_within(keys: np.ndarray, distance_limit: float) -> float:
    """Share of the CTAs that find their data still in the cache: each CTA reuses what the
    previous CTA with the same key (in launch order) brought in, with the probability that it
    survived the ``d`` CTAs launched in between (:func:`random_replacement_hit_rate` of d over
    ``distance_limit``, the CTAs whose data fills the cache)."""
    n = len(keys)
    if n < 2:
        return 0.0
    order = np.lexsort((np.arange(n), keys))
    k, pos = keys[order], order
    same = k[1:] == k[:-1]
    if not same.any():
        return 0.0
    d = (pos[1:] - pos[:-1])[same].astype(float)
    if not math.isfinite(distance_limit):
        return float(same.sum()) / n
    x = d / max(distance_limit, 1e-12)
    # the hit rate depends only on the distance: evaluate it once per distinct value
    ux, inv = np.unique(np.round(x, 4), return_inverse=True)
    h = np.array([random_replacement_hit_rate(v) for v in ux])[inv]
    return float(h.sum()) / n
