"""A tuning space: the parameters and their values, what they set (``-D`` macros, template
arguments, the launch) and the constraints that exclude combinations.

Why a record of its own: the space comes from a YAML file or from the command line
(:mod:`pipeperf.tune.spacefile`) and is enumerated the same way for both; every expression in it
has been parsed and its names checked (:mod:`pipeperf.tune.expr`), so enumeration can only fail
on values (a division by zero), with the file and line of the expression that did.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator

from pipeperf.errors import PipeperfError
from pipeperf.tune.expr import Expr, Where


@dataclass(frozen=True)
class Param:
    """A swept parameter and its values, in the order given."""

    name: str
    values: tuple[Any, ...]
    where: Where = field(default_factory=Where)


@dataclass(frozen=True)
class ArgTemplate:
    """A kernel argument with ``{expression}`` parts: ``A=rand:f32:{N*N}``."""

    text: str
    parts: tuple[str | Expr, ...]        # literal text and expressions, alternating as written
    where: Where = field(default_factory=Where)


@dataclass
class Space:
    """Everything a variant is made from; :meth:`variants` enumerates them."""

    source: str                                   # the .cu file, absolute
    kernel: str | None
    sizes: dict[str, Any]                         # fixed problem sizes (N: 512)
    params: tuple[Param, ...]
    grid: Expr
    block: Expr
    shared: Expr | None = None
    defines: tuple[tuple[str, Expr | None], ...] = ()     # -D NAME[=expression]
    template: tuple[Expr, ...] = ()               # template arguments, in order
    args: tuple[ArgTemplate, ...] = ()
    constraints: tuple[Expr, ...] = ()
    gpus: tuple[str, ...] = ()
    nvcc_flags: tuple[str, ...] = ()              # -I (absolute) and other flags, as given
    include_dirs: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)   # analysis options (trace_warps, mode)
    origin: str = "command line"                  # the space file, for messages

    @property
    def size(self) -> int:
        n = 1
        for p in self.params:
            n *= len(p.values)
        return n

    def variants(self) -> Iterator[Variant]:
        """Every combination of the parameters' values, in order (the last parameter varies
        fastest), each with the first constraint it breaks ('' when it satisfies them all)."""
        names = [p.name for p in self.params]
        for i, values in enumerate(itertools.product(*(p.values for p in self.params))):
            params = dict(zip(names, values))
            env = {**self.sizes, **params}
            broken = next((c for c in self.constraints if not c(env)), None)
            yield Variant(i, params, f"constraint {broken.text} is false" if broken is not None else "")


@dataclass(frozen=True)
class Variant:
    """One point of the space: its index in enumeration order and its parameters' values."""

    index: int
    params: dict[str, Any]
    excluded: str = ""                 # the constraint that excludes it, if any

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params.items())


_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:([*+])\s*(\d+))?\s*$")


def parse_values(text: Any, where: Where) -> tuple[Any, ...]:
    """A parameter's values: a YAML list, or text ``8,16,32``, ``1..8`` (every integer),
    ``1..64*2`` (1, 2, 4, ..., 64: times 2) or ``0..64+16`` (0, 16, ..., 64); each item a
    number or a word (a type for a template argument: ``float``)."""
    if isinstance(text, (list, tuple)):
        items = list(text)
    elif isinstance(text, bool) or text is None:
        raise where.error(f"{text!r}: expected a list of values, e.g. [8, 16, 32], '8,16,32' or '1..64*2'")
    elif isinstance(text, (int, float)):
        items = [text]
    else:
        m = _RANGE.match(str(text))
        if m:
            items = _range(int(m[1]), int(m[2]), m[3], int(m[4]) if m[4] else None, str(text), where)
        else:
            items = [t.strip() for t in str(text).split(",")]
    out = []
    for v in items:
        out.append(_scalar(v, where))
    if not out:
        raise where.error("no values: expected at least one")
    if len(set(map(repr, out))) != len(out):
        dup = next(v for v in out if sum(repr(v) == repr(w) for w in out) > 1)
        raise where.error(f"value {dup!r} is listed twice")
    return tuple(out)


def _range(lo: int, hi: int, op: str | None, step: int | None, text: str, where: Where) -> list[int]:
    if hi < lo:
        raise where.error(f"{text!r}: empty range (expected LO..HI with LO <= HI)")
    if op == "*":
        if step is None or step < 2 or lo < 1:
            raise where.error(f"{text!r}: expected LO..HI*K with LO >= 1 and K >= 2")
        out, v = [], lo
        while v <= hi:
            out.append(v)
            v *= step
        return out
    inc = step if op == "+" else 1
    if inc is None or inc < 1:
        raise where.error(f"{text!r}: expected LO..HI+K with K >= 1")
    if (hi - lo) // inc > 100_000:
        raise where.error(f"{text!r}: more than 100000 values")
    return list(range(lo, hi + 1, inc))


def _scalar(v: Any, where: Where) -> Any:
    """A value as given (YAML's int/float/str) or read from text: int, float, else a word."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    if not isinstance(v, str):
        raise where.error(f"{v!r}: expected a number or a word (a C++ type for a template argument)")
    t = v.strip()
    if not t:
        raise where.error("an empty value: expected a number or a word")
    for conv in (lambda x: int(x, 0), float):
        try:
            return conv(t)
        except ValueError:
            pass
    if not re.fullmatch(r"[A-Za-z_][\w:<>, ]*", t):
        raise where.error(f"{t!r}: expected a number or a C++ name (float, double, MyType)")
    return t


def check_names(names: list[str], where: Where) -> None:
    """Parameter and size names must be identifiers (they are read in expressions and -D)."""
    from pipeperf.tune.expr import FUNCTIONS

    for n in names:
        if not re.fullmatch(r"[A-Za-z_]\w*", str(n)):
            raise where.error(f"{n!r}: expected a parameter name (letters, digits, _)")
        if n in FUNCTIONS:
            raise where.error(f"{n!r}: is a function of the expressions; expected another parameter name")


def duplicate(name: str, where: Where) -> PipeperfError:
    return where.error(f"{name!r} is defined twice (a parameter or size name must be unique)")
