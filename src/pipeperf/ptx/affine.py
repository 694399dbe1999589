"""Addresses as affine functions of the thread and block indices, and a proof that two memory
instructions never touch the same bytes from different CTAs.

Why: emulating only a sample of a grid's CTAs is sound when no skipped CTA can write what a
sampled CTA reads and branches on (:func:`pipeperf.emulate.sampling.sampling_safe`). The common
read-then-write kernels are safe for a simple reason that the alias rule alone cannot see: every
CTA reads and writes only its own slice of the buffer (mixbench's ``if (x == impossible) g[i] =
x`` guard, in-place updates ``a[i] = f(a[i])``). Here an address register is followed through its
definitions (``mov``, ``add``, ``sub``, ``mul``/``mad`` by a constant, ``shl``, integer ``cvt``,
``cvta``, ``ld.param``) into ``base + sum(coefficient x atom) + constant``, where atoms are
``%tid.*``, ``%ctaid.*``, the pointer parameter (the base) and loop counters (a register set once
before a loop and stepped by a constant in it: ``i += blockDim.x * gridDim.x``). Launch constants
(``%ntid``, ``%nctaid``, integer parameters) are folded with the launch's values.

Two such addresses with the same base and the same coefficients differ by ``sum(c_j x d_j) +
delta`` where ``d_j`` is the difference of atom j between the two accesses (at most its range - 1)
and ``delta`` the difference of constants. Ordered by coefficient, if each atom from the lowest
``%ctaid`` one upward has a coefficient larger than everything below it can add up to (the lower
atoms' spans, ``|delta|`` and the access width), the difference is zero only when every
``%ctaid`` atom is equal: the two accesses never meet across CTAs (a mixed-radix argument; the
topmost atom may be an unbounded loop counter). Assumed, as CUDA C++ does: index arithmetic does
not overflow.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence

from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import Address, Function, Immediate, Register, SpecialRegister, Symbol

_DIM = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class Affine:
    """``const + sum(coef[atom] * atom)``; atoms: ``%tid.x``.., ``%ctaid.x``.., ``base:P``, ``loop:R@pc``."""

    coef: tuple[tuple[str, int], ...]
    const: int = 0

    @staticmethod
    def of(coef: Mapping[str, int], const: int = 0) -> Affine:
        return Affine(tuple(sorted((k, int(v)) for k, v in coef.items() if v)), int(const))

    @property
    def terms(self) -> dict[str, int]:
        return dict(self.coef)

    def plus(self, o: Affine, sign: int = 1) -> Affine:
        t = self.terms
        for k, v in o.coef:
            t[k] = t.get(k, 0) + sign * v
        return Affine.of(t, self.const + sign * o.const)

    def times(self, k: int) -> Affine:
        return Affine.of({a: v * k for a, v in self.coef}, self.const * k)

    @property
    def constant(self) -> int | None:
        return self.const if not self.coef else None


class AffineAddresses:
    """Affine forms of the registers of one kernel under one launch (memoised)."""

    def __init__(self, func: Function, grid: Sequence[int], block: Sequence[int],
                 params: Mapping[str, object] | None = None):
        self.func, self.ins = func, func.instructions
        self.du = DefUse.of(func)
        self.grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        self.block = tuple(int(b) for b in block) + (1,) * (3 - len(block))
        self.params = dict(params or {})
        self.pointers = {p.name for p in func.params if not p.dims and p.type in ("u64", "s64", "b64")}
        self._memo: dict[tuple[int, str], Affine | None] = {}
        self._busy: set[tuple[int, str]] = set()

    # -- ranges ------------------------------------------------------------------------------
    def range_of(self, atom: str) -> int | None:
        """Values an atom takes (0..n-1); None: unbounded (loop counters) or unknown."""
        if atom.startswith("%tid."):
            return self.block[_DIM[atom[-1]]]
        if atom.startswith("%ctaid."):
            return self.grid[_DIM[atom[-1]]]
        return None

    # -- evaluation --------------------------------------------------------------------------
    def address(self, pc: int) -> Affine | None:
        """The affine form of instruction ``pc``'s (first) memory address, or None."""
        a = next((o for o in self.ins[pc].operands if type(o) is Address), None)
        if a is None or a.base is None:
            return None
        base: Affine | None
        if type(a.base) is Symbol:
            base = Affine.of({f"sym:{a.base.name}": 1})
        else:
            base = self.register(pc, a.base.name)
        return None if base is None else base.plus(Affine.of({}, a.offset))

    def register(self, pc: int, name: str) -> Affine | None:
        """The value register ``name`` has when instruction ``pc`` reads it."""
        key = self._key(pc, name)
        if key is None:
            return None
        defs = self.du.reaching[pc].get(key, ())
        if len(defs) == 1:
            return self._def(defs[0], key)
        if len(defs) > 1:
            return self._induction(defs, key)
        return None

    def _key(self, pc: int, name: str) -> str | None:
        for k in self.du.uses[pc]:
            if k == name or k.startswith(name + "@"):
                return k
        return None

    def operand(self, pc: int, o) -> Affine | None:
        """The affine form of source operand ``o`` of instruction ``pc`` (a register's value
        there, an immediate, a thread/block index or a launch constant), or None."""
        return self._operand(pc, o)

    def _operand(self, pc: int, o) -> Affine | None:
        t = type(o)
        if t is Immediate:
            return Affine.of({}, o.value) if isinstance(o.value, int) else None
        if t is Register:
            return self.register(pc, o.name)
        if t is SpecialRegister:
            n = o.name
            if n.startswith(("%tid.", "%ctaid.")) and n[-1] in _DIM:
                return Affine.of({n: 1})
            if n.startswith("%ntid.") and n[-1] in _DIM:
                return Affine.of({}, self.block[_DIM[n[-1]]])
            if n.startswith("%nctaid.") and n[-1] in _DIM:
                return Affine.of({}, self.grid[_DIM[n[-1]]])
        return None

    def _def(self, j: int, key: str) -> Affine | None:
        k = (j, key)
        if k in self._memo:
            return self._memo[k]
        if k in self._busy:
            return None
        self._busy.add(k)
        try:
            v = self._evaluate(j)
        finally:
            self._busy.discard(k)
        self._memo[k] = v
        return v

    def _evaluate(self, j: int) -> Affine | None:
        x = self.ins[j]
        r, mods, s = x.op.root, x.op.modifiers, x.srcs
        ev = lambda o: self._operand(j, o)
        if r == "ld" and x.op.space == "param":
            a = next((o for o in s if type(o) is Address), None)
            if a is None or type(a.base) is not Symbol:
                return None
            name = a.base.name
            if name in self.pointers:
                return Affine.of({f"base:{name}": 1})
            v = self.params.get(name)
            return Affine.of({}, v) if isinstance(v, int) and not isinstance(v, bool) else None
        if r in ("mov", "cvta") or (r == "cvt" and all(t[0] in "subr" for t in x.op.types)):
            return ev(s[-1]) if len(s) >= 1 else None
        if r in ("add", "sub") and len(s) == 2 and "cc" not in mods:
            u, v = ev(s[0]), ev(s[1])
            return None if u is None or v is None else u.plus(v, 1 if r == "add" else -1)
        if r == "mul" and len(s) == 2 and ("lo" in mods or "wide" in mods):
            return self._product(ev(s[0]), ev(s[1]))
        if r == "mad" and len(s) == 3 and ("lo" in mods or "wide" in mods) and "cc" not in mods:
            p, c = self._product(ev(s[0]), ev(s[1])), ev(s[2])
            return None if p is None or c is None else p.plus(c)
        if r == "shl" and len(s) == 2:
            u, v = ev(s[0]), ev(s[1])
            if u is None or v is None or v.constant is None or not 0 <= v.constant < 64:
                return None
            return u.times(1 << v.constant)
        return None

    @staticmethod
    def _product(a: Affine | None, b: Affine | None) -> Affine | None:
        if a is None or b is None:
            return None
        if a.constant is not None:
            return b.times(a.constant)
        if b.constant is not None:
            return a.times(b.constant)
        return None

    def _induction(self, defs: Sequence[int], key: str) -> Affine | None:
        """A loop counter: one definition from outside the loop (``init``) and the others
        ``key = key + step`` with one constant step: ``init + step x loop:key``."""
        init, steps = [], set()
        for j in defs:
            x = self.ins[j]
            src = [self._key(j, o.name) if type(o) is Register else None for o in x.srcs]
            if x.op.root == "add" and len(x.srcs) == 2 and key in src and x.guard is None:
                other = x.srcs[1 - src.index(key)]
                v = self._operand(j, other)
                if v is None or v.constant is None:
                    return None
                steps.add(v.constant)
            else:
                init.append(j)
        if len(init) != 1 or len(steps) != 1:
            return None
        start = self._def(init[0], key)
        step = steps.pop()
        if start is None or step <= 0:
            return None
        return start.plus(Affine.of({f"loop:{key}": step}))


def cta_disjoint(a: Affine | None, b: Affine | None, width: int, ranges, budget: int = 20000) -> bool:
    """True when accesses of ``width`` bytes at ``a`` and ``b`` from different CTAs can never
    overlap (module doc); ``ranges(atom)`` gives an atom's number of values (None: unbounded).

    Exact on the affine forms: it searches, atom by atom from the largest coefficient down, for
    differences ``d_j`` (within the atoms' ranges) with ``sum(c_j d_j)`` within ``width - 1`` of
    the constants' difference and some ``%ctaid`` difference non-zero; the lower atoms' span
    prunes every step to a few candidates. More than ``budget`` steps: not proven (False)."""
    if a is None or b is None:
        return False
    ta, tb = a.terms, b.terms
    bases = {k for k in ta if k.startswith(("base:", "sym:"))}
    if bases != {k for k in tb if k.startswith(("base:", "sym:"))} or any(ta[k] != 1 or tb[k] != 1 for k in bases):
        return False
    for k in bases:
        del ta[k], tb[k]
    if ta != tb or any(v <= 0 for v in ta.values()):
        return False
    order = sorted((k for k in ta if ranges(k) != 1), key=lambda k: -ta[k])
    if not any(k.startswith("%ctaid.") for k in order):
        return False                       # every CTA touches the same addresses
    if sum(ranges(k) is None for k in order) > 1:
        return False
    coef = [ta[k] for k in order]
    limit = [None if ranges(k) is None else ranges(k) - 1 for k in order]
    cta = [k.startswith("%ctaid.") for k in order]
    span = [0] * (len(order) + 1)          # span[i]: what atoms i.. can add up to
    for i in range(len(order) - 1, -1, -1):
        lim = limit[i]
        if lim is None:
            span[i] = -1                   # unbounded: only the topmost, never below another
        else:
            span[i] = span[i + 1] + coef[i] * lim
    delta = b.const - a.const
    steps = [0]

    def collision(i: int, lo: int, hi: int, moved: bool) -> bool:
        steps[0] += 1
        if steps[0] > budget:
            raise OverflowError
        if i == len(order):
            return moved and lo <= 0 <= hi
        rest = span[i + 1]
        c = coef[i]
        first = -((rest - lo) // c)        # ceil((lo - rest) / c)
        last = (hi + rest) // c
        lim = limit[i]
        if lim is not None:
            first, last = max(first, -lim), min(last, lim)
        return any(collision(i + 1, lo - c * d, hi - c * d, moved or (cta[i] and d != 0))
                   for d in range(first, last + 1))

    w = max(1, int(width)) - 1
    try:
        return not collision(0, delta - w, delta + w, False)
    except (OverflowError, RecursionError):
        return False
