"""The names visible at a point of a PTX function body: registers (single names and ``%r<N>``
ranges) and variables, as ``{ }`` blocks declare and undeclare them.

Why a module: the PTX check (:mod:`pipeperf.ptx.check`) asks for a register's type at every
operand, so the lookup is one dict access (ranges are spelled out) and a block undoes exactly
what it declared.
"""

from __future__ import annotations

from pipeperf.ptx.ir import Param, Variable

_MISSING = object()


class VisibleNames:
    """Names visible at a point of a function body: registers (single names and ``%r<N>``
    ranges) and variables, with what each ``{ }`` block declared undone at its ``}``.

    ``types`` maps every visible register name to its type, ranges spelled out (up to
    :data:`_SPELLED` names a range), so an operand costs one dict lookup: the check's hot
    path. Blocks are many (nvcc wraps inline asm and call sequences in them) and mostly
    declare nothing, so a block's undo list and own names are made on its first declaration."""

    def __init__(self) -> None:
        self.singles: dict[str, str] = {}
        self.ranges: dict[str, tuple[int, str]] = {}
        self.vars: dict[str, Variable | Param] = {}
        self.types: dict[str, str] = {}
        self.undo: list[list[tuple[dict, str, object]] | None] = [None]
        self.here: list[tuple[set[str], dict[str, int]] | None] = [None]

    def open(self) -> None:
        self.undo.append(None)
        self.here.append(None)

    def close(self) -> None:
        self.here.pop()
        undo = self.undo.pop()
        if undo is None:
            return
        respell = False
        for d, k, old in reversed(undo):
            respell = respell or d is self.ranges
            if old is _MISSING:
                del d[k]
            else:
                d[k] = old
        if respell:                                  # a block's own range: rare, spell all again
            self.types.clear()
            for prefix, (count, typ) in self.ranges.items():
                self.types.update(dict.fromkeys(_spelled(prefix, count), typ))
            self.types.update(self.singles)

    def _set(self, d: dict, k: str, v: object) -> None:
        undo = self.undo[-1]
        if undo is None:
            undo = self.undo[-1] = []
        undo.append((d, k, d.get(k, _MISSING)))
        d[k] = v

    def _here(self) -> tuple[set[str], dict[str, int]]:
        h = self.here[-1]
        if h is None:
            h = self.here[-1] = (set(), {})
        return h

    def declared_here(self, name: str) -> bool:
        h = self.here[-1]
        if h is None:
            return False
        names, ranges = h
        if name in names:
            return True
        base, prefix, index = _SPLIT.get(name) or split_name(name)
        return 0 <= index < ranges.get(prefix, 0)

    def add_register(self, name: str, typ: str) -> None:
        self._here()[0].add(name)
        self._set(self.singles, name, typ)
        self._set(self.types, name, typ)

    def add_range(self, prefix: str, count: int, typ: str) -> bool:
        """Declare prefix0..prefix{count-1}; False if the range or one of its names is here already."""
        names, ranges = self._here()
        if prefix in ranges or prefix in names:
            return False
        for n in names:
            base, p, index = _SPLIT.get(n) or split_name(n)
            if p == prefix and 0 <= index < count:
                return False
        ranges[prefix] = count
        self._set(self.ranges, prefix, (count, typ))
        self.types.update(dict.fromkeys(_spelled(prefix, count), typ))
        return True

    def add_var(self, name: str, var: Variable | Param) -> None:
        self._here()[0].add(name)
        self._set(self.vars, name, var)

    def register_type(self, name: str) -> str | None:
        """The declared type of register ``name`` visible here, or None if it is not declared."""
        t = self.types.get(name)
        if t is not None:
            return t
        base, prefix, index = _SPLIT.get(name) or split_name(name)   # %v.x, %r01, a range too long to spell
        t = self.singles.get(base)
        if t is None:
            r = self.ranges.get(prefix)
            if r is not None and 0 <= index < r[0]:
                t = r[1]
        return t


#: a range's first names spelled out in ``VisibleNames.types`` (longer ones are looked up by number)
_SPELLED = 1 << 15
#: prefix -> its names spelled, prefix0, prefix1 ... (shared: every function declares %r<N>)
_NAMES: dict[str, list[str]] = {}


def _spelled(prefix: str, count: int) -> list[str]:
    names = _NAMES.get(prefix)
    if names is None:
        if len(_NAMES) > 1000:
            _NAMES.clear()
        names = _NAMES[prefix] = []
    count = min(count, _SPELLED)
    if len(names) < count:
        names.extend(f"{prefix}{i}" for i in range(len(names), count))
    return names[:count]


#: register name -> (name without a .x/.y suffix, the part before its number, the number or -1)
_SPLIT: dict[str, tuple[str, str, int]] = {}


def split_name(name: str) -> tuple[str, str, int]:
    """``%r12`` -> ('%r12', '%r', 12); ``%v.x`` -> ('%v', '%v', -1)."""
    base = name.split(".", 1)[0] if "." in name else name
    prefix = base.rstrip("0123456789")
    out = (base, prefix, int(base[len(prefix):]) if len(prefix) < len(base) else -1)
    if len(_SPLIT) > 500_000:
        _SPLIT.clear()
    _SPLIT[name] = out
    return out
