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
ptxas refuses and this lets through) are listed in docs/packages/ptx.md, "PTX checked like ptxas".
"""

from __future__ import annotations

import re

from pipeperf.errors import PipeperfError
from pipeperf.ptx.forms import DESTINATIONS
from pipeperf.ptx.ir import (
    Address,
    Function,
    Immediate,
    Instruction,
    Label,
    Loc,
    Module,
    NotPred,
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
from pipeperf.ptx.names import VisibleNames
from pipeperf.ptx.opcode_rules import (
    BARRIERS,
    BOOL_OPS,
    MEMORY,
    ResolvedOpcode,
    Slot,
    resolve_opcode,
)
from pipeperf.ptx.opcodes import SPACES
from pipeperf.ptx.regtypes import REG_TYPES, SIZES, expect_register, kind

#: special registers of 64 bits (the others read as .u32); those a mov.u16 may also read
_SPECIAL64 = frozenset({"%clock64", "%gridid", "%globaltimer", "%current_graph_exec"} |
                       {f"%pm{i}_64" for i in range(8)})
_SPECIAL16 = frozenset({"%tid", "%ntid", "%ctaid", "%nctaid"})
_MIN64, _MAX64 = -(1 << 63), 1 << 64
_SECTION_LABEL = re.compile(r"\s*([\w$]+)\s*:")


class Refusal(Exception):
    """A check failure before it is placed: message, line and the text to find the column by."""

    def __init__(self, message: str, line: int, needle: str | None = None, in_opcode: bool = False):
        super().__init__(message)
        self.message, self.line, self.needle, self.in_opcode = message, line, needle, in_opcode
        self.second_label = False       # the line is that of the second definition of label `needle`


# --------------------------------------------------------------------------- the check


_OPCODES: dict[str, ResolvedOpcode] = {}


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
                for ln in sec.text.split("\n"):                 # (a regex over the text is 4x slower)
                    m = _SECTION_LABEL.match(ln) if ":" in ln else None
                    if m is None:
                        continue
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
        sc = VisibleNames()
        self.scope = sc
        self.types = sc.types
        self.func = f
        for p in f.params + f.returns:
            if sc.declared_here(p.name):
                raise Refusal(f"parameter '{p.name}' of '{f.name}' is declared twice", f.line, p.name)
            if p.space == "reg":
                sc.add_register(p.name, p.type)
            else:
                sc.add_var(p.name, p)
        self.returns = {p.name for p in f.returns}
        closely, undo, here, types, opcodes = self.closely, sc.undo, sc.here, sc.types, _OPCODES
        address = self.address
        for item in f.body:
            t = type(item)
            if t is Instruction:
                # the common case, inline (the check's hot path): a known row, operands in number, each
                # a register of an allowed type, a fitting integer, a label or an address; anything
                # else, and every refusal, is for closely()
                op = opcodes.get(item.op.text)
                if op is None:
                    op = opcodes[item.op.text] = resolve_opcode(item.op)
                fast, dsts, g = op.fast, item.dsts, item.guard
                if fast is None or len(dsts) == 2 or (g is not None and types.get(g.name) != "pred"):
                    closely(item, op)
                    continue
                ops = dsts + item.srcs
                if not op.least <= len(ops) <= op.most:
                    closely(item, op)
                    continue
                if op.extra:
                    self.rules(item, op, ops)
                for o, ok, imm, sl in zip(ops, fast, op.ints, op.slots):
                    t = type(o)
                    if t is Register:
                        if types.get(o.name) in ok:
                            continue
                    elif t is Immediate:
                        if imm and type(o.value) is int and _MIN64 <= o.value < _MAX64:
                            continue
                    elif t is Label:                       # a branch target: the parser checked it
                        continue
                    elif t is Address and ok is MEMORY:
                        address(o, item, op)
                        continue
                    elif t is SpecialRegister:             # mov %r1, %tid.x: in every kernel
                        self.special(o, sl, item)
                        continue
                    closely(item, op)
                    break
            elif t is Loc:
                continue
            elif t is ScopeBegin:                        # sc.open(), inline: blocks are many
                undo.append(None)
                here.append(None)
            elif t is ScopeEnd:
                sc.close()
            elif t is RegDecl:
                self.reg_decl(item)
            elif t is Variable:
                _check_init(item)
                if sc.declared_here(item.name) or item.name in f.labels:
                    raise Refusal(f"'{item.name}' is declared twice in this scope: expected a new name", item.line,
                                  item.name)
                sc.add_var(item.name, item)

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
    def closely(self, ins: Instruction, op: ResolvedOpcode) -> None:
        """Every rule, operand by operand: what the inline check of :meth:`function` did not settle,
        or the refusal."""
        info = ins.op
        if ins.guard is not None:
            self.guard(ins)
        form = op.form
        if form is None:
            if op.error is not None:
                raise Refusal(op.error, ins.line, op.needle, True)
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
        if op.extra:
            self.rules(ins, op, ops)
        for i in range(n):
            self.operand(ops[i], op.slots[i], ins, op, i)

    def guard(self, ins: Instruction) -> None:
        g = ins.guard
        t = self.scope.register_type(g.name)  # type: ignore[union-attr]  # a guarded instruction
        if t != "pred":
            what = "is not declared" if t is None else f"is a .{t} register"
            raise Refusal(f"guard '{g}' {what}: expected a .pred register", ins.line, str(g))

    def rules(self, ins: Instruction, op: ResolvedOpcode, ops: tuple) -> None:
        """What a few instructions add to their row: the target, barrier numbers, operand c."""
        info = ins.op
        n = len(ops)
        if op.sm[0] > self.sm:
            raise Refusal(f"'.{op.sm[1]}' of '{info.text}' needs .target sm_{op.sm[0]} or newer, the module's is "
                          f"{self.module.arch}", ins.line, op.sm[1], True)
        if info.root in BARRIERS and type(ops[0]) is Immediate and not 0 <= ops[0].value <= 15:
            raise Refusal(f"barrier {ops[0]} in '{info.text}': expected 0 to 15", ins.line, str(ops[0]))
        if n == 4 and info.root in ("min", "max") and self.sm < 100:
            raise Refusal(f"'{info.text}' with three sources needs .target sm_100 or newer: expected two", ins.line,
                          str(ops[3]))
        if info.root in ("setp", "set"):
            has_bool = any(m in BOOL_OPS for m in info.modifiers)
            if has_bool != (n == 4):
                raise Refusal(f"'{info.text}' " + ("needs a predicate operand c with its boolean operation"
                                                   if has_bool else "takes a fourth operand only with .and/.or/.xor"),
                              ins.line, str(ops[-1]))

    def count_error(self, ins: Instruction, op: ResolvedOpcode, n: int) -> None:
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

    def operand(self, op: object, slot: Slot, ins: Instruction, opc: ResolvedOpcode, i: int) -> None:
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
                raise Refusal(f".{rt} register '{op}' as {role} {i + 1} of '{ins.op.text}': expected {expect_register(regs)}",
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

    def vector(self, op: Vector, slot: Slot, ins: Instruction) -> None:
        items = op.items
        if slot.code == "*":
            self.generic_operand(op, ins, None)
            return
        if ins.root == "mov" and slot.code in "dx":            # pack/unpack: bit types, sizes add up
            t = ins.type
            if t is None or kind(t) != "b":
                raise Refusal(f"vector '{op}' in '{ins.op.text}': packing needs a bit type (.b32, .b64)", ins.line,
                              str(items[0]))
            total, known = 0, True
            for it in items:
                if type(it) is Register:
                    rt = self.scope.register_type(it.name)
                    if rt is None:
                        raise self.undeclared(it.name, ins)
                    total += SIZES.get(rt, 0)
                else:                                          # '_' or a constant: any size
                    known = False
            if known and total != SIZES[t]:
                raise Refusal(f"vector '{op}' holds {total} bits, '{ins.op.text}' moves {SIZES[t]}", ins.line,
                              str(items[0]))
            return
        if not slot.vector:
            raise Refusal(f"vector '{op}' as an operand of '{ins.op.text}': expected a single register"
                          + (" (or a .v2/.v4 opcode)" if ins.root in ("ld", "st") else ""), ins.line, str(items[0]))
        if len(items) != slot.vector:
            raise Refusal(f"vector of {len(items)} in '{ins.op.text}': expected {slot.vector} items", ins.line,
                          str(items[0]))
        inner = Slot("d" if slot.code == "R" else "a", slot.regs, slot.ints, slot.floats, 0)
        for k, it in enumerate(items):
            if type(it) is Sink and slot.code == "R":
                continue
            self.operand(it, inner, ins, _OPCODE_NONE, k)

    def special(self, op: SpecialRegister, slot: Slot, ins: Instruction) -> None:
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
        if not ok or (ins.type is not None and kind(ins.type) == "f" and ins.root == "mov"):
            raise Refusal(f"special register '{name}' (.{st}) in '{ins.op.text}': expected an instruction type of "
                          f"{SIZES[st]} bits, .b/.u/.s", ins.line, name)

    def symbol(self, op: Symbol, slot: Slot, ins: Instruction, i: int) -> None:
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

    def address(self, a: Address, ins: Instruction, opc: ResolvedOpcode) -> None:
        base = a.base
        if base is None:
            return
        space = opc.space
        if type(base) is Register:
            rt = self.scope.register_type(base.name)
            if rt is None:
                raise self.undeclared(base.name, ins)
            k = kind(rt)
            if k in "fp":
                raise Refusal(f".{rt} register '{base.name}' as an address in '{ins.op.text}': expected an integer "
                              "register (.b64/.u64/.s64, or 32 bits for shared/local)", ins.line, base.name)
            if self.a64 and space in (None, "global") and SIZES[rt] == 32 and ins.root in _ADDRESSED:
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


def _check_init(v: Variable) -> None:
    """Integer initialisers must fit the variable's type (ptxas: "Value out of range for type")."""
    n = SIZES.get(v.type)
    if not v.init_values or n is None or kind(v.type) not in "bsu":
        return
    lo, hi = -(1 << (n - 1)), 1 << n
    for x in v.init_values:
        if type(x) is Immediate and not x.is_float and not lo <= x.value < hi:
            raise Refusal(f"initial value {x} of '{v.name}' does not fit its type .{v.type}: expected {lo} to {hi - 1}",
                          v.line, str(x))


#: roots whose memory operand is an address of their state space (checked against variables)
_ADDRESSED = frozenset({"ld", "ldu", "st", "atom", "red"})
_OPCODE_NONE = ResolvedOpcode(None, (), None)


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
