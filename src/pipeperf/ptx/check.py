"""Semantic check of parsed PTX: what the grammar lets through and ptxas refuses (issue 38).

Why: the emulator runs what it is given, so PTX that ptxas would refuse must be refused here, or
``profile`` reports counts of a program that cannot exist (an undeclared register reads as 0).
:func:`check_module` runs after every parse (:func:`pipeperf.ptx.parser.parse_ptx`) and raises a
one-line :class:`PipeperfError` ``FILE:LINE:COLUMN: what was wrong, what was expected`` for:

* a register used before a ``.reg`` declares it in the scope (or a guard that is not a predicate),
* an operand whose register type, constant or kind the instruction does not take (PTX ISA 5.4.1:
  a ``.bN`` register fits any type of N bits, ``.sN``/``.uN`` fit each other, ``.fN`` only
  floats; ``ld``, ``st`` and ``cvt`` take wider registers), per the table of
  :mod:`pipeperf.ptx.forms` (operand count and kinds, types, modifiers, state spaces),
* a symbol nobody declared, or one of the wrong state space in an address,
* a name declared twice in one scope (registers, variables, parameters, functions).

It is faithful rather than strict: an instruction with no row in the table is only checked for
its registers and symbols, so valid PTX is never refused for want of a row. Known gaps (what
ptxas refuses and this lets through) are listed in docs/DESIGN.md, "PTX checked like ptxas".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeperf.errors import PipeperfError
from pipeperf.ptx.forms import DESTINATIONS, FORMS, MACROS, MIN_SM, Form
from pipeperf.ptx.ir import (
    Address,
    Function,
    Immediate,
    Instruction,
    Module,
    NotPred,
    OpInfo,
    Param,
    RegDecl,
    Register,
    ScopeBegin,
    ScopeEnd,
    Section,
    Sink,
    SpecialRegister,
    Symbol,
    Variable,
    Vector,
    registers_in,
)
from pipeperf.ptx.opcodes import SPACES

# --------------------------------------------------------------------------- types (PTX ISA 5.4.1)

_SIZES = {"pred": 1, "b128": 128}
for _t in ("b", "s", "u", "f"):
    for _n in (8, 16, 32, 64):
        _SIZES[f"{_t}{_n}"] = _n
_SIZES.update({"f16x2": 32, "bf16": 16, "bf16x2": 32, "tf32": 32, "e4m3x2": 16, "e5m2x2": 16, "e2m3x2": 16,
               "e3m2x2": 16, "e2m1x2": 8, "ue8m0x2": 16, "u16x2": 32, "s16x2": 32})
#: register types a ``.reg`` may declare (and that allowed-type sets are drawn from)
REG_TYPES = frozenset({"pred", "b128", "f16", "f16x2", "f32", "f64"} | {f"{k}{n}" for k in "bsu" for n in (8, 16, 32, 64)})


def _kind(t: str) -> str:
    if t == "pred":
        return "p"
    if t in ("u16x2", "s16x2"):
        return t[0]
    if t[0] in "bsu":
        return t[0]
    return "f"


def compatible(itype: str, rtype: str, relaxed: bool) -> bool:
    """Whether a register of ``rtype`` may be an operand of an instruction of ``itype``: PTX ISA
    "Operand type checking" (strict), or its relaxed rules for ``ld``/``st``/``cvt`` data."""
    if itype == "pred" or rtype == "pred":
        return itype == rtype
    if itype in _PACKED:                       # half/packed floats live in bit registers
        return rtype == itype or (rtype[0] == "b" and (_SIZES[rtype] >= _SIZES[itype] if relaxed
                                                       else _SIZES[rtype] == _SIZES[itype]))
    ik, rk = _kind(itype), _kind(rtype)
    if rtype in _PACKED and ik == "f":         # a .f16/.f16x2 register: its own type (above) only
        return False
    if not (ik == "b" or rk == "b" or (ik in "su" and rk in "su") or (ik == "f" and rk == "f")):
        return False
    isz, rsz = _SIZES[itype], _SIZES[rtype]
    if relaxed and not (ik == "f" and rk == "f"):
        return rsz >= isz
    return rsz == isz


#: floating-point types held in bit registers (ptxas refuses a .f32 register for .f16x2)
_PACKED = frozenset({"f16", "f16x2", "bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2",
                     "ue8m0x2"})
_WIDE = {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}
#: roots whose data operands follow the relaxed rules (PTX ISA 5.4.1.2)
_RELAXED = frozenset({"ld", "ldu", "st", "cvt"})
#: special registers of 64 bits (the others read as .u32); those a mov.u16 may also read
_SPECIAL64 = frozenset({"%clock64", "%gridid", "%globaltimer", "%current_graph_exec"} |
                       {f"%pm{i}_64" for i in range(8)})
_SPECIAL16 = frozenset({"%tid", "%ntid", "%ctaid", "%nctaid"})
_SCOPES = frozenset(MACROS["$SCOPE"].split())
_CMP = frozenset(MACROS["$CMP"].split())
_BOOL = frozenset(MACROS["$BOOL"].split())
_RND = frozenset(MACROS["$RND"].split()) | {"rna", "rs"}
_IRND = frozenset(MACROS["$IRND"].split())
_VEC = {"v2": 2, "v4": 4, "v8": 8}
_MIN64, _MAX64 = -(1 << 63), 1 << 64
_DIGITS = re.compile(r"(.*?)(\d+)\Z")
_SECTION_LABEL = re.compile(r"^\s*([\w$]+)\s*:", re.M)


def _type_list(types: frozenset[str]) -> str:
    return ", ".join("." + t for t in sorted(types, key=lambda t: (_kind(t), _SIZES.get(t, 0), t)))


def _expect(allowed: frozenset[str]) -> str:
    return "a " + " or ".join("." + t for t in sorted(allowed, key=lambda t: (_kind(t), _SIZES.get(t, 0), t))) \
        + " register"


# --------------------------------------------------------------------------- resolved opcodes


@dataclass(frozen=True, slots=True)
class _Slot:
    """What one operand position takes: ``regs`` the register types (None: any), whether integer
    and float constants fit (a bit type takes ``0f3F800000`` but not ``1.5``), how many items a
    vector holds there (0: no vector)."""

    code: str
    regs: frozenset[str] | None
    ints: bool
    floats: int                 # 0 none, 1 bit patterns (0f..., 0d...) only, 2 any
    vector: int


@dataclass(frozen=True, slots=True)
class _Opcode:
    """An opcode text resolved once: its row and per-position slots, or why it is refused."""

    form: Form | None
    slots: tuple[_Slot, ...]
    space: str | None
    error: str | None = None
    needle: str | None = None
    least: int = 0              # operands: at least, at most
    most: int = 0
    sm: tuple[int, str] = (0, "")   # the oldest target taking it, and what needs it


class Refusal(Exception):
    """A check failure before it is placed: message, line and the text to find the column by."""

    def __init__(self, message: str, line: int, needle: str | None = None, in_opcode: bool = False):
        super().__init__(message)
        self.message, self.line, self.needle, self.in_opcode = message, line, needle, in_opcode
        self.second_label = False       # the line is that of the second definition of label `needle`


def _allowed(itype: str | None, relaxed: bool) -> frozenset[str] | None:
    if itype is None or itype not in _SIZES:
        return None
    return frozenset(t for t in REG_TYPES if compatible(itype, t, relaxed))


def _slot(code: str, root: str, t1: str | None, t2: str | None, vec: int) -> _Slot:
    relaxed = root in _RELAXED
    if code in "dQxa":
        t = t1
    elif code in "DA":
        t = _WIDE.get(t1 or "")
    elif code in "RS":
        t = t1
    elif code in "ou":
        t, relaxed = "u32", False
    elif code in "Pp":
        t = "pred"
    elif code in "BZ":
        t, relaxed = t2, code == "Z"
    elif code == "h":                          # cache policy of .L2::cache_hint
        t, relaxed = "b64", False
    else:
        return _Slot(code, None, True, 2, 0)
    if code not in "RSZ":
        relaxed = False
    kind = _kind(t) if t in _SIZES else "b"  # (None or unknown: any register)
    packed = t in _PACKED and root not in _RELAXED
    floats = 0 if kind in "sup" or packed else (2 if kind == "f" else 1)
    return _Slot(code, _allowed(t, relaxed), kind != "f" and not packed, floats, vec if code in "RS" else 0)


def _pick(rows: tuple[Form, ...], mods: tuple[str, ...],
          types: tuple[str, ...]) -> tuple[Form | None, str | None, str | None]:
    """The row for these modifiers and types, or (None, why none fits, the modifier to point at)."""
    ms = set(mods)
    fitting = [r for r in rows if not r.when or r.when & ms]
    if not fitting:
        whens = sorted(set().union(*(r.when for r in rows)))
        return None, "expected one of " + ", ".join("." + w for w in whens), None
    for r in fitting:
        if r.types is None:
            return r, None, None
        if len(r.types) == len(types) and all(t in allowed for t, allowed in zip(types, r.types)):
            return r, None, None
    shapes = {len(r.types) for r in fitting if r.types is not None}
    if len(shapes) == 1 and (n := shapes.pop()) != len(types):
        if n == 0:
            return None, f"it takes no type, got {_type_list(frozenset(types))}", types[0]
        return None, f"expected {n} type{'s' if n > 1 else ''}, got {len(types) or 'none'}", \
            types[n] if len(types) > n else None
    pos = next((i for i in range(len(types)) if not any(r.types and len(r.types) == len(types) and
                                                        types[i] in r.types[i] for r in fitting)), 0)
    union = frozenset().union(*(r.types[pos] for r in fitting if r.types and len(r.types) > pos))
    bad = types[pos] if pos < len(types) else None
    return None, f"type '.{bad}' is not allowed: expected {_type_list(union)}", bad


def _rules(root: str, mods: tuple[str, ...], types: tuple[str, ...]) -> tuple[str, str] | None:
    """The rules across modifiers and types the table cannot say: (message, modifier to point at)."""
    ms = set(mods)
    if root in ("setp", "set"):
        cmps = [m for m in mods if m in _CMP]
        if len(cmps) > 1:
            return f"two comparisons '.{cmps[0]}' and '.{cmps[1]}'", cmps[1]
        t = types[-1]
        k = _kind(t)
        c = cmps[0]
        if c in ("lt", "le", "gt", "ge") and k == "b":
            return f"comparison '.{c}' does not apply to '.{t}': expected .eq or .ne for bit types", c
        if c in ("lo", "ls", "hi", "hs") and k not in "ub":
            return f"comparison '.{c}' is for unsigned types, not '.{t}': expected .lt, .le, .gt or .ge", c
        if c in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan") and k != "f":
            return f"comparison '.{c}' is for floating-point types, not '.{t}'", c
        if "ftz" in ms and k != "f":
            return f"'.ftz' applies to floating-point types, not '.{t}'", "ftz"
        if len([m for m in mods if m in _BOOL]) > 1:
            return "two boolean operations: expected one of .and, .or, .xor", mods[-1]
    elif root == "cvt":
        return _cvt_rule(mods, types)
    elif root in ("ld", "st"):
        if "nc" in ms and "global" not in ms:
            return "'.nc' needs the .global state space", "nc"
        if "volatile" in ms and ms & {"nc", "relaxed", "acquire", "release", "weak", "mmio"}:
            other = next(m for m in mods if m in {"nc", "relaxed", "acquire", "release", "weak", "mmio"})
            return f"'.volatile' cannot be combined with '.{other}'", other
        sem = ms & {"relaxed", "acquire", "release"}
        if sem and not ms & _SCOPES:
            return f"'.{sem.pop()}' needs a scope: expected one of .cta, .cluster, .gpu, .sys", mods[0]
        if ms & _SCOPES and not sem:
            s = next(m for m in mods if m in _SCOPES)
            return f"scope '.{s}' needs .relaxed, .acquire or .release", s
    spaces = [m for m in mods if m in SPACES and m != "generic"]
    if len(spaces) > 1 and root in FORMS:
        return f"two state spaces '.{spaces[0]}' and '.{spaces[1]}': expected at most one", spaces[1]
    vecs = [m for m in mods if m in _VEC]
    if len(vecs) > 1:
        return f"two vector sizes '.{vecs[0]}' and '.{vecs[1]}'", vecs[1]
    return None


def _cvt_rule(mods: tuple[str, ...], types: tuple[str, ...]) -> tuple[str, str] | None:
    """cvt's rounding (PTX ISA 9.7.9.21): float results of a narrowing or an integer take .rn-style
    rounding, integer results of a float take .rni-style; other conversions take none."""
    d, a = types
    fd, fa = _kind(d) == "f", _kind(a) == "f"
    rnd = [m for m in mods if m in _RND or m in _IRND]
    if len(rnd) > 1:
        return f"two rounding modifiers '.{rnd[0]}' and '.{rnd[1]}'", rnd[1]
    r = rnd[0] if rnd else None
    if fd and fa:
        if d == a or (_SIZES[d] > _SIZES[a] and not d.endswith("x2")):
            if r is not None and r not in _IRND:
                return f"rounding '.{r}' is not allowed converting .{a} to .{d}: expected none or .rni/.rzi/.rmi/.rpi", r
            if r is not None and d != a:
                return f"rounding '.{r}' is not allowed converting .{a} to the wider .{d}", r
        elif r is None or r in _IRND:
            return f"converting .{a} to .{d} needs a rounding modifier: expected .rn, .rz, .rm or .rp", d
    elif fd:
        if r is None or r in _IRND:
            return f"converting .{a} to .{d} needs a rounding modifier: expected .rn, .rz, .rm or .rp", d
    elif fa:
        if r is None or r not in _IRND:
            return f"converting .{a} to .{d} needs an integer rounding modifier: expected .rni, .rzi, .rmi or .rpi", \
                r or d
    elif r is not None:
        return f"rounding '.{r}' is not allowed converting .{a} to .{d}", r
    return None


def resolve_opcode(info: OpInfo) -> _Opcode:
    """Match ``info`` against its rows: the slots its operands are checked with, or the refusal."""
    space = None
    for m in info.modifiers:
        s = SPACES.get(m)
        if s is not None:
            space = s
            break
    rows = FORMS.get(info.root)
    if rows is None:
        return _Opcode(None, (), space)
    form, why, bad = _pick(rows, info.modifiers, info.types)
    if form is None:
        return _Opcode(None, (), space, f"'{info.text}': {why}", bad)
    if form.modifiers is not None:
        seen: set[str] = set()
        for m in info.modifiers:
            if m in seen and m not in info.types:
                return _Opcode(None, (), space, f"modifier '.{m}' is written twice in '{info.text}'", m)
            seen.add(m)
            if m not in form.modifiers and m not in info.types:
                allowed = sorted(form.modifiers - form.when)
                hint = ("expected one of " + ", ".join("." + a for a in allowed)) if allowed else "it takes none"
                return _Opcode(None, (), space, f"modifier '.{m}' is not allowed for '{info.root}': {hint}", m)
    if form.needs and not form.needs & set(info.modifiers):
        return _Opcode(None, (), space, f"'{info.text}' needs one of " +
                       ", ".join("." + n for n in sorted(form.needs)), None)
    if form.types is not None and form.types:
        rule = _rules(info.root, info.modifiers, info.types)
        if rule is not None:
            return _Opcode(None, (), space, rule[0], rule[1])
    t1 = info.types[0] if info.types else None
    t2 = info.types[1] if len(info.types) > 1 else None
    if info.root == "set":
        t2 = info.types[-1] if info.types else None
    vec = next((_VEC[m] for m in info.modifiers if m in _VEC), 0)
    slots = tuple(_slot(c, info.root, t1, t2, vec) for c in form.operands)
    least, most = form.required, len(form.operands)
    if info.root == "cvt":                              # a pair (.f16x2, .e4m3x2 ...) from two scalars
        least = most = 2 + (t1 is not None and t1.endswith("x2") and not (t2 or "").endswith("x2")) + ("rs" in info.modifiers)
    if form.operands and form.operands[-1] == "h":      # the policy operand comes with .L2::cache_hint
        if "L2::cache_hint" in info.modifiers:
            least = most
        else:
            most -= 1
    need = max(((MIN_SM.get(m, 0), m) for m in (*info.modifiers, *info.types)), default=(0, ""))
    return _Opcode(form, slots, space, least=least, most=most, sm=need)


# --------------------------------------------------------------------------- scopes


_MISSING = object()


class _Scoped:
    """Names visible at a point of a function body: registers (single names and ``%r<N>``
    ranges) and variables, with what each ``{ }`` block declared undone at its ``}``."""

    def __init__(self) -> None:
        self.singles: dict[str, str] = {}
        self.ranges: dict[str, tuple[int, str]] = {}
        self.vars: dict[str, Variable | Param] = {}
        self.undo: list[list[tuple[dict, str, object]]] = [[]]
        self.here: list[tuple[set[str], dict[str, int]]] = [(set(), {})]
        self.cache: dict[str, str | None] = {}

    def open(self) -> None:
        self.undo.append([])
        self.here.append((set(), {}))

    def close(self) -> None:
        for d, k, old in reversed(self.undo.pop()):
            if old is _MISSING:
                del d[k]
            else:
                d[k] = old
        self.here.pop()
        self.cache.clear()

    def _set(self, d: dict, k: str, v: object) -> None:
        self.undo[-1].append((d, k, d.get(k, _MISSING)))
        d[k] = v

    def declared_here(self, name: str) -> bool:
        names, ranges = self.here[-1]
        if name in names:
            return True
        m = _DIGITS.match(name)
        return bool(m and int(m.group(2)) < ranges.get(m.group(1), 0))

    def add_register(self, name: str, typ: str) -> None:
        self.here[-1][0].add(name)
        self._set(self.singles, name, typ)
        self.cache.clear()

    def add_range(self, prefix: str, count: int, typ: str) -> bool:
        """Declare prefix0..prefix{count-1}; False if the range or one of its names is here already."""
        names, ranges = self.here[-1]
        if prefix in ranges or prefix in names:
            return False
        for n in names:
            m = _DIGITS.match(n)
            if m and m.group(1) == prefix and int(m.group(2)) < count:
                return False
        ranges[prefix] = count
        self._set(self.ranges, prefix, (count, typ))
        self.cache.clear()
        return True

    def add_var(self, name: str, var: Variable | Param) -> None:
        self.here[-1][0].add(name)
        self._set(self.vars, name, var)

    def register_type(self, name: str) -> str | None:
        """The declared type of register ``name`` visible here, or None if it is not declared."""
        t = self.cache.get(name, _MISSING)
        if t is not _MISSING:
            return t  # type: ignore[return-value]  # a cached str | None
        t = self.singles.get(name)
        if t is None:
            base = name.split(".", 1)[0]
            if base != name:
                t = self.singles.get(base)
            if t is None:
                m = _DIGITS.match(base)
                if m:
                    r = self.ranges.get(m.group(1))
                    if r is not None and int(m.group(2)) < r[0]:
                        t = r[1]
        self.cache[name] = t
        return t


# --------------------------------------------------------------------------- the check


_OPCODES: dict[str, _Opcode] = {}


class _Checker:
    """One module's check; :meth:`run` raises :class:`Refusal` at the first problem."""

    def __init__(self, module: Module):
        self.module = module
        self.a64 = module.address_size != 32
        digits = re.sub(r"\D", "", module.target[0]) if module.target else ""
        self.sm = int(digits) if digits else 0
        self.globals: dict[str, Variable] = {}
        self.functions: dict[str, Function] = {}

    def run(self) -> None:
        defined: set[str] = set()
        for item in self.module.items:
            if type(item) is Variable:
                _check_init(item)
                if (item.name in self.globals or item.name in self.functions) and "extern" not in item.linkage:
                    raise Refusal(f"'{item.name}' is declared twice at module scope: expected one declaration",
                                  item.line, item.name)
                self.globals[item.name] = item
            elif type(item) is Function:
                if item.has_body:
                    if item.name in defined:
                        raise Refusal(f"function '{item.name}' is defined twice: expected one body", item.line,
                                      item.name)
                    defined.add(item.name)
                if item.name in self.globals:
                    raise Refusal(f"'{item.name}' names a variable and a function", item.line, item.name)
                self.functions[item.name] = item
        seen: set[str] = set()
        for sec in self.module.items:
            if type(sec) is Section:
                for m in _SECTION_LABEL.finditer(sec.text):
                    if m.group(1) in seen:
                        r = Refusal(f"label '{m.group(1)}' is defined twice in the .section directives", sec.line,
                                    m.group(1))
                        r.second_label = True
                        raise r
                    seen.add(m.group(1))
        for f in self.module.functions:
            if f.has_body:
                self.function(f)

    # ------------------------------------------------------------------ declarations
    def function(self, f: Function) -> None:
        sc = _Scoped()
        self.scope = sc
        self.func = f
        for p in f.params + f.returns:
            if sc.declared_here(p.name):
                raise Refusal(f"parameter '{p.name}' of '{f.name}' is declared twice", f.line, p.name)
            if p.space == "reg":
                sc.add_register(p.name, p.type)
            else:
                sc.add_var(p.name, p)
        self.returns = {p.name for p in f.returns}
        check = self.instruction
        for item in f.body:
            t = type(item)
            if t is Instruction:
                check(item)
            elif t is RegDecl:
                self.reg_decl(item)
            elif t is Variable:
                _check_init(item)
                if sc.declared_here(item.name) or item.name in f.labels:
                    raise Refusal(f"'{item.name}' is declared twice in this scope: expected a new name", item.line,
                                  item.name)
                sc.add_var(item.name, item)
            elif t is ScopeBegin:
                sc.open()
            elif t is ScopeEnd:
                sc.close()

    def reg_decl(self, d: RegDecl) -> None:
        sc = self.scope
        typ = d.type
        if typ not in REG_TYPES:
            raise Refusal(f"'.{typ}' is not a register type: expected .pred, .b16, .b32, .b64, .u32, .f32, .f64 ...",
                          d.line, "." + typ)
        for name in d.names:
            if d.count is not None:
                if not sc.add_range(name, d.count, typ):
                    raise Refusal(f"registers '{name}<{d.count}>' are declared twice in this scope: "
                                  "expected new names", d.line, name)
            else:
                if sc.declared_here(name) or name in self.func.labels:
                    raise Refusal(f"register '{name}' is declared twice in this scope: expected a new name",
                                  d.line, name)
                sc.add_register(name, typ)

    # ------------------------------------------------------------------ instructions
    def instruction(self, ins: Instruction) -> None:
        sc = self.scope
        g = ins.guard
        if g is not None:
            t = sc.register_type(g.name)
            if t != "pred":
                what = "is not declared" if t is None else f"is a .{t} register"
                raise Refusal(f"guard '{g.name}' {what}: expected a .pred register", ins.line, g.name)
        info = ins.op
        op = _OPCODES.get(info.text)
        if op is None:
            op = _OPCODES[info.text] = resolve_opcode(info)
        if op.error is not None:
            raise Refusal(op.error, ins.line, op.needle, True)
        form = op.form
        if form is None:
            self.generic(ins, op.space)
            return
        dsts = ins.dsts
        if len(dsts) == 2:                                   # 'p|q' or 'd|p'
            if not form.operands or form.operands[0] not in "PQ":
                raise Refusal(f"'{info.text}' has one destination, not a pair '{dsts[0]}|{dsts[1]}'", ins.line,
                              str(dsts[1]))
            self.pair_half(dsts[1], ins)
            ops = (dsts[0], *ins.srcs)
        else:
            ops = dsts + ins.srcs
        n = len(ops)
        if n < op.least or n > op.most:
            self.count_error(ins, op, n)
        if op.sm[0] > self.sm:
            raise Refusal(f"'.{op.sm[1]}' of '{info.text}' needs .target sm_{op.sm[0]} or newer, the module's is "
                          f"{self.module.arch}", ins.line, op.sm[1], True)
        if info.root in _BARRIERS and type(ops[0]) is Immediate and not 0 <= ops[0].value <= 15:
            raise Refusal(f"barrier {ops[0]} in '{info.text}': expected 0 to 15", ins.line, str(ops[0]))
        if n == 4 and info.root in ("min", "max") and self.sm < 100:
            raise Refusal(f"'{info.text}' with three sources needs .target sm_100 or newer: expected two", ins.line,
                          str(ops[3]))
        if info.root in ("setp", "set"):
            has_bool = any(m in _BOOL for m in info.modifiers)
            if has_bool != (n == 4):
                raise Refusal(f"'{info.text}' " + ("needs a predicate operand c with its boolean operation"
                                                   if has_bool else "takes a fourth operand only with .and/.or/.xor"),
                              ins.line, str(ops[-1]))
        slots = op.slots
        for i in range(n):
            self.operand(ops[i], slots[i], ins, op, i)

    def count_error(self, ins: Instruction, op: _Opcode, n: int) -> None:
        lo, hi = op.least, op.most
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise Refusal(f"'{ins.op.text}' takes {want} operand{'s' if hi != 1 else ''}, got {n}", ins.line,
                      str(ins.operands[-1]) if ins.operands else None)

    def pair_half(self, op: object, ins: Instruction) -> None:
        if type(op) is Sink:
            return
        if type(op) is Register:
            t = self.scope.register_type(op.name)
            if t == "pred":
                return
            if t is None:
                raise self.undeclared(op.name, ins)
        raise Refusal(f"'{op}' after '|' in '{ins.op.text}' is not a predicate: expected a .pred register", ins.line,
                      str(op))

    def undeclared(self, name: str, ins: Instruction) -> Refusal:
        return Refusal(f"register '{name}' is not declared: expected a register declared by .reg before this use",
                       ins.line, name)

    def operand(self, op: object, slot: _Slot, ins: Instruction, opc: _Opcode, i: int) -> None:
        t = type(op)
        code = slot.code
        if t is Register:
            rt = self.scope.register_type(op.name)  # type: ignore[attr-defined]
            if rt is None:
                raise self.undeclared(op.name, ins)  # type: ignore[attr-defined]
            if code == "m":
                raise Refusal(f"register '{op}' where '{ins.op.text}' takes a memory operand: expected [{op}]",
                              ins.line, str(op))
            regs = slot.regs
            if regs is not None and rt not in regs:
                if slot.vector:
                    raise Refusal(f"'{op}' where '{ins.op.text}' takes a vector of {slot.vector}: "
                                  f"expected {{...}} with {slot.vector} registers", ins.line, str(op))
                role = "destination" if code in DESTINATIONS else "operand"
                raise Refusal(f".{rt} register '{op}' as {role} {i + 1} of '{ins.op.text}': expected {_expect(regs)}",
                              ins.line, str(op))
            return
        if t is Immediate:
            if code in DESTINATIONS:
                raise Refusal(f"constant '{op}' as the destination of '{ins.op.text}': expected a register",
                              ins.line, str(op))
            if code == "m":
                raise Refusal(f"constant '{op}' where '{ins.op.text}' takes a memory operand: expected [address]",
                              ins.line, str(op))
            if code == "P" or code == "p":
                raise Refusal(f"constant '{op}' as operand {i + 1} of '{ins.op.text}': expected a predicate",
                              ins.line, str(op))
            if not op.is_float and not _MIN64 <= op.value < _MAX64:  # type: ignore[attr-defined]
                raise Refusal(f"constant '{op}' does not fit in 64 bits", ins.line, str(op))
            if code == "*":
                return
            if op.is_float and (not slot.floats or (slot.floats == 1 and op.text.lstrip("+-")[1:2] not in  # type: ignore[attr-defined]
                                                                  ("f", "F", "d", "D"))):
                raise Refusal(f"floating-point constant '{op}' as operand {i + 1} of '{ins.op.text}': expected an "
                              "integer constant or a register", ins.line, str(op))
            if not op.is_float and not slot.ints:  # type: ignore[attr-defined]
                raise Refusal(f"integer constant '{op}' as operand {i + 1} of '{ins.op.text}': expected a "
                              "floating-point constant (e.g. 0f3F800000) or a register", ins.line, str(op))
            if slot.vector:
                raise Refusal(f"'{op}' where '{ins.op.text}' takes a vector of {slot.vector}", ins.line, str(op))
            return
        if t is Address:
            if code != "m" and code != "*":
                raise Refusal(f"memory operand '{op}' as operand {i + 1} of '{ins.op.text}': expected a register",
                              ins.line, str(op))
            self.address(op, ins, opc)  # type: ignore[arg-type]
            return
        if t is Vector:
            self.vector(op, slot, ins)  # type: ignore[arg-type]
            return
        if t is SpecialRegister:
            self.special(op, slot, ins)  # type: ignore[arg-type]
            return
        if t is Symbol:
            self.symbol(op, slot, ins, i)  # type: ignore[arg-type]
            return
        if t is NotPred:
            if code != "p":
                raise Refusal(f"negated predicate '{op}' as operand {i + 1} of '{ins.op.text}'", ins.line, str(op))
            self.operand(op.reg, slot, ins, opc, i)  # type: ignore[attr-defined]
            return
        if t is Sink:
            if code not in DESTINATIONS:
                raise Refusal(f"'_' as source operand {i + 1} of '{ins.op.text}': expected a register", ins.line, "_")
            return
        if code != "*":
            raise Refusal(f"'{op}' as operand {i + 1} of '{ins.op.text}': expected a register", ins.line, str(op))
        self.generic_operand(op, ins, opc.space)

    def vector(self, op: Vector, slot: _Slot, ins: Instruction) -> None:
        items = op.items
        if slot.code == "*":
            self.generic_operand(op, ins, None)
            return
        if ins.root == "mov" and slot.code in "dx":            # pack/unpack: bit types, sizes add up
            t = ins.type
            if t is None or _kind(t) != "b":
                raise Refusal(f"vector '{op}' in '{ins.op.text}': packing needs a bit type (.b32, .b64)", ins.line,
                              str(items[0]))
            total, known = 0, True
            for it in items:
                if type(it) is Register:
                    rt = self.scope.register_type(it.name)
                    if rt is None:
                        raise self.undeclared(it.name, ins)
                    total += _SIZES.get(rt, 0)
                else:                                          # '_' or a constant: any size
                    known = False
            if known and total != _SIZES[t]:
                raise Refusal(f"vector '{op}' holds {total} bits, '{ins.op.text}' moves {_SIZES[t]}", ins.line,
                              str(items[0]))
            return
        if not slot.vector:
            raise Refusal(f"vector '{op}' as an operand of '{ins.op.text}': expected a single register"
                          + (" (or a .v2/.v4 opcode)" if ins.root in ("ld", "st") else ""), ins.line, str(items[0]))
        if len(items) != slot.vector:
            raise Refusal(f"vector of {len(items)} in '{ins.op.text}': expected {slot.vector} items", ins.line,
                          str(items[0]))
        inner = _Slot("d" if slot.code == "R" else "a", slot.regs, slot.ints, slot.floats, 0)
        for k, it in enumerate(items):
            if type(it) is Sink and slot.code == "R":
                continue
            self.operand(it, inner, ins, _OPCODE_NONE, k)

    def special(self, op: SpecialRegister, slot: _Slot, ins: Instruction) -> None:
        name = op.name
        if name == "WARP_SZ":
            if slot.code in DESTINATIONS or slot.code == "m" or not slot.ints:
                raise Refusal(f"'WARP_SZ' as an operand of '{ins.op.text}': expected a register", ins.line, name)
            return
        if slot.code == "*":
            return
        if slot.code not in "xZ" or ins.root not in ("mov", "cvt"):
            raise Refusal(f"special register '{name}' as an operand of '{ins.op.text}': only mov and cvt read special "
                          "registers", ins.line, name)
        base = name.split(".", 1)[0]
        st = "u64" if base in _SPECIAL64 else "u32"
        regs = slot.regs
        ok = regs is None or st in regs or (base in _SPECIAL16 and "u16" in regs)
        if not ok or (ins.type is not None and _kind(ins.type) == "f" and ins.root == "mov"):
            raise Refusal(f"special register '{name}' (.{st}) in '{ins.op.text}': expected an instruction type of "
                          f"{_SIZES[st]} bits, .b/.u/.s", ins.line, name)

    def symbol(self, op: Symbol, slot: _Slot, ins: Instruction, i: int) -> None:
        name = op.name
        rt = self.scope.register_type(name)
        if rt is not None:                                   # a '.reg' parameter named without '%'
            self.operand(Register(name), slot, ins, _OPCODE_NONE, i)
            return
        code = slot.code
        if code == "*":
            return
        if name in self.functions and code not in DESTINATIONS and code != "m" and slot.ints and not slot.vector:
            return                                           # a function's address: an integer constant
        if code != "x":
            raise Refusal(f"'{name}' as operand {i + 1} of '{ins.op.text}' is not a register: expected a register "
                          "or a constant" + (" (use [name] for memory)" if self.lookup(name) else ""), ins.line, name)
        var = self.lookup(name)
        if var is None:
            raise Refusal(f"unknown symbol '{name}' in '{ins.op.text}': expected a declared variable, parameter or "
                          "function", ins.line, name)
        if not slot.ints:
            raise Refusal(f"address of '{name}' in '{ins.op.text}': expected an integer or bit type (.u64, .b32 ...)",
                          ins.line, name)
        if ins.root == "cvta" and var.space != "param" and SPACES.get(var.space, var.space) != self.space_of(ins):
            raise Refusal(f".{var.space} variable '{name}' in '{ins.op.text}': expected a variable of its state space",
                          ins.line, name)

    @staticmethod
    def space_of(ins: Instruction) -> str | None:
        return next((SPACES[m] for m in ins.op.modifiers if m in SPACES), None)

    def lookup(self, name: str) -> Variable | Param | None:
        v = self.scope.vars.get(name)
        return v if v is not None else self.globals.get(name)

    def address(self, a: Address, ins: Instruction, opc: _Opcode) -> None:
        base = a.base
        if base is None:
            return
        space = opc.space
        if type(base) is Register:
            rt = self.scope.register_type(base.name)
            if rt is None:
                raise self.undeclared(base.name, ins)
            k = _kind(rt)
            if k in "fp":
                raise Refusal(f".{rt} register '{base.name}' as an address in '{ins.op.text}': expected an integer "
                              "register (.b64/.u64/.s64, or 32 bits for shared/local)", ins.line, base.name)
            if self.a64 and space in (None, "global") and _SIZES[rt] == 32 and ins.root in _ADDRESSED:
                raise Refusal(f"32-bit register '{base.name}' as a {space or 'generic'} address in '{ins.op.text}' of a "
                              ".address_size 64 module: expected a 64-bit register", ins.line, base.name)
            return
        name = base.name
        var = self.lookup(name)
        if var is None:
            if self.scope.register_type(name) is not None or name in self.functions:
                return
            raise Refusal(f"unknown symbol '{name}' in '{ins.op.text}': expected a declared variable or parameter",
                          ins.line, name)
        if ins.root not in _ADDRESSED:
            return
        vspace = var.space
        vspace = SPACES.get(vspace, vspace)
        if type(var) is Param and var.space == "param":
            if space != "param":
                raise Refusal(f"parameter '{name}' in '{ins.op.text}': expected ld.param (state space mismatch)",
                              ins.line, name)
            if ins.root == "st" and name not in self.returns:
                raise Refusal(f"'{ins.op.text}' writes input parameter '{name}': expected a .param declared in the "
                              "body or a return parameter", ins.line, name)
            return
        if space is not None and space != vspace:
            raise Refusal(f".{vspace} variable '{name}' in '{ins.op.text}': expected .{space} "
                          "(state space mismatch)", ins.line, name)

    def generic(self, ins: Instruction, space: str | None) -> None:
        """An instruction with no row: its registers declared, its address symbols known."""
        for op in ins.dsts:
            self.generic_operand(op, ins, space)
        for op in ins.srcs:
            self.generic_operand(op, ins, space)

    def generic_operand(self, op: object, ins: Instruction, space: str | None) -> None:
        t = type(op)
        if t is Symbol or t is SpecialRegister or t is Immediate or t is Sink:
            return
        rtype = self.scope.register_type
        for r in registers_in(op):  # type: ignore[arg-type]
            if rtype(r.name) is None:
                raise self.undeclared(r.name, ins)
        if t is Address and type(op.base) is Symbol:  # type: ignore[attr-defined]
            name = op.base.name  # type: ignore[attr-defined]
            if self.lookup(name) is None and rtype(name) is None and name not in self.functions:
                raise Refusal(f"unknown symbol '{name}' in '{ins.op.text}': expected a declared variable or "
                              "parameter", ins.line, name)


_BARRIERS = frozenset({"bar", "barrier"})
def _check_init(v: Variable) -> None:
    """Integer initialisers must fit the variable's type (ptxas: "Value out of range for type")."""
    n = _SIZES.get(v.type)
    if not v.init_values or n is None or _kind(v.type) not in "bsu":
        return
    lo, hi = -(1 << (n - 1)), 1 << n
    for x in v.init_values:
        if type(x) is Immediate and not x.is_float and not lo <= x.value < hi:
            raise Refusal(f"initial value {x} of '{v.name}' does not fit its type .{v.type}: expected {lo} to {hi - 1}",
                          v.line, str(x))


#: roots whose memory operand is an address of their state space (checked against variables)
_ADDRESSED = frozenset({"ld", "ldu", "st", "atom", "red"})
_OPCODE_NONE = _Opcode(None, (), None)


# --------------------------------------------------------------------------- entry point


def column_of(text: str, line: int, needle: str | None, opcode: str | None, in_opcode: bool) -> int:
    """The 1-based column of ``needle`` on ``line`` of ``text``: searched after the opcode for an
    operand, inside it for a modifier; the first non-blank column when not found."""
    lines = text.split("\n", line)
    if line < 1 or line > len(lines):
        return 1
    src = lines[line - 1]
    first = len(src) - len(src.lstrip()) + 1
    if needle is None:
        return first
    start = 0
    if opcode:
        k = src.find(opcode)
        if k >= 0:
            start = k if in_opcode else k + len(opcode)
    if in_opcode:
        m = re.search(r"\." + re.escape(needle) + r"(?![\w:])", src[start:])
        if m:
            return start + m.start() + 1
        k = src.find(needle, start)
        return k + 1 if k >= 0 else first
    m = re.search(r"(?<![\w$%.])" + re.escape(needle) + r"(?![\w$])", src[start:])
    if m:
        return start + m.start() + 1
    m = re.search(r"(?<![\w$%.])" + re.escape(needle) + r"(?![\w$])", src)
    return m.start() + 1 if m else first


def check_module(module: Module, text: str | None = None) -> None:
    """Raise a one-line :class:`PipeperfError` ``FILE:LINE:COLUMN: ...`` for the first thing in
    ``module`` that ptxas would refuse and the parser let through; ``text`` (the PTX the module
    was parsed from) places the column."""
    try:
        _Checker(module).run()
    except Refusal as r:
        col = None
        if text is not None and r.second_label and r.needle:
            defs = list(re.finditer(r"^[ \t]*" + re.escape(r.needle) + r"[ \t]*:", text, re.M))
            if len(defs) > 1:
                r.line = text.count("\n", 0, defs[1].start()) + 1
        if text is not None:
            opcode = _opcode_at(module, r.line)
            col = column_of(text, r.line, r.needle, opcode, r.in_opcode)
        raise PipeperfError(r.message, file=module.file, line=r.line, column=col) from None
    if len(_OPCODES) > 50_000:
        _OPCODES.clear()


def _opcode_at(module: Module, line: int) -> str | None:
    for f in module.functions:
        for ins in f.instructions:
            if ins.line == line:
                return ins.op.text
    return None
