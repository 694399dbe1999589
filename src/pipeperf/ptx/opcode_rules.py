"""From an opcode's text to how its operands are checked: the row of :mod:`pipeperf.ptx.forms` it
matches, per operand position the registers and constants it takes, or why it is refused
(unknown modifier or type, a missing rounding, rules across modifiers the table cannot say).

Why a module: an opcode text is resolved once per process (:func:`resolve_opcode`, cached by
:mod:`pipeperf.ptx.check`), so the check of an instruction is a walk over prepared slots.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeperf.ptx.forms import DESTINATIONS, FORMS, MACROS, MIN_SM, Form
from pipeperf.ptx.ir import OpInfo
from pipeperf.ptx.opcodes import SPACES
from pipeperf.ptx.regtypes import PACKED, REG_TYPES, RELAXED_ROOTS, SIZES, WIDE, allowed, kind, type_list

_SCOPES = frozenset(MACROS["$SCOPE"].split())
_CMP = frozenset(MACROS["$CMP"].split())
BOOL_OPS = frozenset(MACROS["$BOOL"].split())
_RND = frozenset(MACROS["$RND"].split()) | {"rna", "rs"}
_IRND = frozenset(MACROS["$IRND"].split())
VECTORS = {"v2": 2, "v4": 4, "v8": 8}
#: the ``fast`` set of a memory operand's slot (no register fits there; marks it for the inline check)
MEMORY: frozenset[str] = frozenset({"[memory]"})
BARRIERS = frozenset({"bar", "barrier"})
#: roots whose instructions get the checker's own rules (besides those needing a newer target)
RULED = BARRIERS | {"min", "max", "setp", "set"}


@dataclass(frozen=True, slots=True)
class Slot:
    """What one operand position takes: ``regs`` the register types (None: any), whether integer
    and float constants fit (a bit type takes ``0f3F800000`` but not ``1.5``), how many items a
    vector holds there (0: no vector)."""

    code: str
    regs: frozenset[str] | None
    ints: bool
    floats: int                 # 0 none, 1 bit patterns (0f..., 0d...) only, 2 any
    vector: int


@dataclass(frozen=True, slots=True)
class ResolvedOpcode:
    """An opcode text resolved once: its row and per-position slots, or why it is refused."""

    form: Form | None
    slots: tuple[Slot, ...]
    space: str | None
    error: str | None = None
    needle: str | None = None
    least: int = 0              # operands: at least, at most
    most: int = 0
    sm: tuple[int, str] = (0, "")   # the oldest target taking it, and what needs it
    fast: tuple[frozenset[str], ...] | None = None  # per slot: register types taken without a closer
    ints: tuple[bool, ...] = ()                      # look, integer constants too (None: always look)
    extra: bool = False         # the checker's per-instruction rules have something to say


def slot(code: str, root: str, t1: str | None, t2: str | None, vec: int) -> Slot:
    relaxed = root in RELAXED_ROOTS
    if code in "dQxa":
        t = t1
    elif code in "DA":
        t = WIDE.get(t1 or "")
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
        return Slot(code, None, True, 2, 0)
    if code not in "RSZ":
        relaxed = False
    k = kind(t) if t in SIZES else "b"  # (None or unknown: any register)
    packed = t in PACKED and root not in RELAXED_ROOTS
    floats = 0 if k in "sup" or packed else (2 if k == "f" else 1)
    return Slot(code, allowed(t, relaxed), k != "f" and not packed, floats, vec if code in "RS" else 0)


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
        if len(r.types) == len(types) and all(t in ts for t, ts in zip(types, r.types)):
            return r, None, None
    shapes = {len(r.types) for r in fitting if r.types is not None}
    if len(shapes) == 1 and (n := shapes.pop()) != len(types):
        if n == 0:
            return None, f"it takes no type, got {type_list(frozenset(types))}", types[0]
        return None, f"expected {n} type{'s' if n > 1 else ''}, got {len(types) or 'none'}", \
            types[n] if len(types) > n else None
    pos = next((i for i in range(len(types)) if not any(r.types and len(r.types) == len(types) and
                                                        types[i] in r.types[i] for r in fitting)), 0)
    union = frozenset().union(*(r.types[pos] for r in fitting if r.types and len(r.types) > pos))
    bad = types[pos] if pos < len(types) else None
    return None, f"type '.{bad}' is not allowed: expected {type_list(union)}", bad


def _rules(root: str, mods: tuple[str, ...], types: tuple[str, ...]) -> tuple[str, str] | None:
    """The rules across modifiers and types the table cannot say: (message, modifier to point at)."""
    ms = set(mods)
    if root in ("setp", "set"):
        cmps = [m for m in mods if m in _CMP]
        if len(cmps) > 1:
            return f"two comparisons '.{cmps[0]}' and '.{cmps[1]}'", cmps[1]
        t = types[-1]
        k = kind(t)
        c = cmps[0]
        if c in ("lt", "le", "gt", "ge") and k == "b":
            return f"comparison '.{c}' does not apply to '.{t}': expected .eq or .ne for bit types", c
        if c in ("lo", "ls", "hi", "hs") and k not in "ub":
            return f"comparison '.{c}' is for unsigned types, not '.{t}': expected .lt, .le, .gt or .ge", c
        if c in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan") and k != "f":
            return f"comparison '.{c}' is for floating-point types, not '.{t}'", c
        if "ftz" in ms and k != "f":
            return f"'.ftz' applies to floating-point types, not '.{t}'", "ftz"
        if len([m for m in mods if m in BOOL_OPS]) > 1:
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
    vecs = [m for m in mods if m in VECTORS]
    if len(vecs) > 1:
        return f"two vector sizes '.{vecs[0]}' and '.{vecs[1]}'", vecs[1]
    return None


def _cvt_rule(mods: tuple[str, ...], types: tuple[str, ...]) -> tuple[str, str] | None:
    """cvt's rounding (PTX ISA 9.7.9.21): float results of a narrowing or an integer take .rn-style
    rounding, integer results of a float take .rni-style; other conversions take none."""
    d, a = types
    fd, fa = kind(d) == "f", kind(a) == "f"
    rnd = [m for m in mods if m in _RND or m in _IRND]
    if len(rnd) > 1:
        return f"two rounding modifiers '.{rnd[0]}' and '.{rnd[1]}'", rnd[1]
    r = rnd[0] if rnd else None
    if fd and fa:
        if d == a or (SIZES[d] > SIZES[a] and not d.endswith("x2")):
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


def resolve_opcode(info: OpInfo) -> ResolvedOpcode:
    """Match ``info`` against its rows: the slots its operands are checked with, or the refusal."""
    space = None
    for m in info.modifiers:
        s = SPACES.get(m)
        if s is not None:
            space = s
            break
    rows = FORMS.get(info.root)
    if rows is None:
        return ResolvedOpcode(None, (), space)
    form, why, bad = _pick(rows, info.modifiers, info.types)
    if form is None:
        return ResolvedOpcode(None, (), space, f"'{info.text}': {why}", bad)
    if form.modifiers is not None:
        seen: set[str] = set()
        for m in info.modifiers:
            if m in seen and m not in info.types:
                return ResolvedOpcode(None, (), space, f"modifier '.{m}' is written twice in '{info.text}'", m)
            seen.add(m)
            if m not in form.modifiers and m not in info.types:
                others = sorted(form.modifiers - form.when)
                hint = ("expected one of " + ", ".join("." + a for a in others)) if others else "it takes none"
                return ResolvedOpcode(None, (), space, f"modifier '.{m}' is not allowed for '{info.root}': {hint}", m)
    if form.needs and not form.needs & set(info.modifiers):
        return ResolvedOpcode(None, (), space, f"'{info.text}' needs one of " +
                       ", ".join("." + n for n in sorted(form.needs)), None)
    if form.types is not None and form.types:
        rule = _rules(info.root, info.modifiers, info.types)
        if rule is not None:
            return ResolvedOpcode(None, (), space, rule[0], rule[1])
    t1 = info.types[0] if info.types else None
    t2 = info.types[1] if len(info.types) > 1 else None
    if info.root == "set":
        t2 = info.types[-1] if info.types else None
    vec = next((VECTORS[m] for m in info.modifiers if m in VECTORS), 0)
    slots = tuple(slot(c, info.root, t1, t2, vec) for c in form.operands)
    least, most = form.required, len(form.operands)
    if info.root == "cvt":                              # a pair (.f16x2, .e4m3x2 ...) from two scalars
        least = most = 2 + (t1 is not None and t1.endswith("x2") and not (t2 or "").endswith("x2")) + ("rs" in info.modifiers)
    if form.operands and form.operands[-1] == "h":      # the policy operand comes with .L2::cache_hint
        if "L2::cache_hint" in info.modifiers:
            least = most
        else:
            most -= 1
    need = max(((MIN_SM.get(m, 0), m) for m in (*info.modifiers, *info.types)), default=(0, ""))
    fast = tuple(MEMORY if sl.code == "m" else frozenset() if sl.code == "*" or sl.vector
                 else (REG_TYPES if sl.regs is None else sl.regs) for sl in slots)
    ints = tuple(sl.ints and sl.code not in DESTINATIONS and sl.code not in "mPp*" and not sl.vector for sl in slots)
    extra = need[0] > 0 or info.root in RULED
    return ResolvedOpcode(form, slots, space, least=least, most=most, sm=need, fast=fast, ints=ints, extra=extra)
