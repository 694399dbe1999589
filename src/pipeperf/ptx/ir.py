"""Typed intermediate representation of a PTX module.

Everything later stages (SIMT emulator, IDG builder) need is kept here, and
nothing is dropped: a module printed back with :mod:`pipeperf.ptx.printer` and
parsed again compares equal (``==`` ignores source line numbers only).

Operands are small frozen, slotted dataclasses so the parser can share one
object for every occurrence of the same operand text (``%r1`` appears
thousands of times); instructions are mutable-free by convention but not
frozen, because frozen dataclasses are slower to build.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from collections.abc import Iterator

# --------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class Register:
    """A virtual register such as ``%r12`` or ``%rd3`` (or a scoped ``temp``)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class SpecialRegister:
    """A read-only special register: ``%tid.x``, ``%laneid``, ``%clock64`` ..."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Immediate:
    """An integer or floating-point constant; ``text`` keeps its spelling
    (``0f3F800000``, ``0d3FF0000000000000``, ``-1``, ``0xffffffff``)."""

    value: int | float
    text: str

    @property
    def is_float(self) -> bool:
        return isinstance(self.value, float)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Symbol:
    """A named variable, parameter or function used as an operand."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Label:
    """A branch target (``$L__BB0_2``) or a ``.branchtargets`` table name."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Sink:
    """The bit bucket ``_`` used where a result is discarded."""

    def __str__(self) -> str:
        return "_"


@dataclass(frozen=True, slots=True)
class NotPred:
    """A negated predicate source operand, ``!%p1``."""

    reg: Register

    def __str__(self) -> str:
        return "!" + self.reg.name


@dataclass(frozen=True, slots=True)
class Address:
    """A memory operand ``[base+offset]``; base is a register, a symbol, or
    ``None`` for an absolute address ``[offset]``."""

    base: Register | Symbol | None
    offset: int = 0

    def __str__(self) -> str:
        if self.base is None:
            return f"[{self.offset}]"
        if self.offset:
            return f"[{self.base}+{self.offset}]"
        return f"[{self.base}]"


@dataclass(frozen=True, slots=True)
class Vector:
    """A brace-enclosed operand list ``{%f1, %f2, _}`` (vector ld/st, mma fragments)."""

    items: tuple

    def __str__(self) -> str:
        return "{" + ", ".join(map(str, self.items)) + "}"


@dataclass(frozen=True, slots=True)
class HandleRef:
    """A bracketed comma list: texture/surface access ``[tex, {%f1, %f2}]``."""

    items: tuple

    def __str__(self) -> str:
        return "[" + ", ".join(map(str, self.items)) + "]"


@dataclass(frozen=True, slots=True)
class ParamList:
    """A parenthesised ``call`` argument or return list ``(param0, param1)``."""

    items: tuple

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.items)) + ")"


Operand = (Register | SpecialRegister | Immediate | Symbol | Label | Sink | NotPred |
           Address | Vector | HandleRef | ParamList)


def registers_in(op: Operand | tuple) -> Iterator[Register]:
    """All registers an operand names (address bases, vector items, ``%r|%p`` pairs...), in
    order: the one walker over operands, so every pass agrees on what an operand reads."""
    t = type(op)
    if t is Register:
        yield op  # type: ignore[misc]
    elif t is Address:
        if type(op.base) is Register:  # type: ignore[union-attr]
            yield op.base  # type: ignore[union-attr]
    elif t is NotPred:
        yield op.reg  # type: ignore[union-attr]
    elif t is Vector or t is HandleRef or t is ParamList:
        for item in op.items:  # type: ignore[union-attr]
            yield from registers_in(item)
    elif t is tuple:
        for item in op:  # type: ignore[union-attr]
            yield from registers_in(item)


# --------------------------------------------------------------------------- opcodes


@dataclass(frozen=True, slots=True)
class OpInfo:
    """Decoded opcode text, shared by all instructions with the same spelling.

    ``root`` is the PTX instruction name (``add``, ``cp.async``, ``wmma.load``),
    ``modifiers`` every following dot-component in order, ``types`` the data
    types among them (``cvt.rn.f32.s32`` has two), ``space`` the first state
    space (``shared::cta`` reads as ``shared``) and ``category`` the static
    instruction class used for counts (see :mod:`pipeperf.ptx.opcodes`).
    """

    text: str
    root: str
    modifiers: tuple[str, ...]
    types: tuple[str, ...]
    space: str | None
    category: str


# --------------------------------------------------------------------------- body statements


@dataclass(frozen=True, slots=True)
class Loc:
    """A ``.loc file line col [, function_name X, inlined_at f l c]`` directive."""

    file: int
    line: int
    col: int
    function_name: str | None = None
    inlined_at: tuple[int, int, int] | None = None

    def __str__(self) -> str:
        s = f".loc\t{self.file} {self.line} {self.col}"
        if self.function_name is not None:
            s += f", function_name {self.function_name}"
        if self.inlined_at is not None:
            s += ", inlined_at {} {} {}".format(*self.inlined_at)
        return s


@dataclass(slots=True)
class Instruction:
    """One PTX instruction (HyPA Eq. 1: ``ins = (id, dr, sr_1..sr_m, ...)``).

    ``dsts`` are the written operands (two for ``setp``/``shfl`` ``%r|%p``
    pairs), ``srcs`` the others, in source order; the printed operand list is
    ``dsts + srcs``. ``guard``/``guard_neg`` give the ``@%p`` / ``@!%p``
    predicate. ``index`` is the position in the function's instruction list,
    ``scope`` the id of the innermost ``{ }`` block (0 = function body), ``loc``
    the last ``.loc`` seen. ``line`` is ignored by ``==``.
    """

    op: OpInfo
    dsts: tuple
    srcs: tuple
    guard: Register | None = None
    guard_neg: bool = False
    index: int = 0
    scope: int = 0
    loc: Loc | None = None
    line: int = field(default=0, compare=False)

    @property
    def opcode(self) -> str:
        return self.op.text

    @property
    def root(self) -> str:
        return self.op.root

    @property
    def modifiers(self) -> tuple[str, ...]:
        return self.op.modifiers

    @property
    def types(self) -> tuple[str, ...]:
        return self.op.types

    @property
    def type(self) -> str | None:
        return self.op.types[0] if self.op.types else None

    @property
    def space(self) -> str | None:
        return self.op.space

    @property
    def category(self) -> str:
        return self.op.category

    @property
    def operands(self) -> tuple:
        return self.dsts + self.srcs

    @property
    def callee(self) -> str | None:
        """The function a ``call`` names (its first symbol operand); None for an indirect call."""
        return next((op.name for op in self.srcs if type(op) is Symbol), None)

    def __str__(self) -> str:
        return format_instruction(self)


def _operand(op) -> str:
    if type(op) is tuple:  # %r|%p destination pair
        return "|".join(map(str, op))
    return str(op)


def format_instruction(ins: Instruction) -> str:
    """One instruction without indentation, e.g. ``@!%p1 bra $L__BB0_2;``."""
    guard = ""
    if ins.guard is not None:
        guard = ("@!" if ins.guard_neg else "@") + ins.guard.name + " "
    ops = ins.dsts + ins.srcs
    if ins.op.root == "call":
        # call's operand list: (rets), func, (args), prototype
        text = ", ".join(_operand(o) for o in ops)
    else:
        text = ", ".join(_operand(o) for o in ins.dsts) if len(ins.dsts) != 2 else \
            "|".join(_operand(o) for o in ins.dsts)
        if ins.srcs:
            text = (text + ", " if text else "") + ", ".join(_operand(o) for o in ins.srcs)
    if text:
        return f"{guard}{ins.op.text} \t{text};"
    return f"{guard}{ins.op.text};"


@dataclass(slots=True)
class LabelDef:
    """``name:`` in a function body; it names the next instruction."""

    name: str
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class ScopeBegin:
    """An opening ``{`` of a nested block (inline asm, call sequences)."""

    scope: int
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class ScopeEnd:
    scope: int
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class Pragma:
    """``.pragma "text";`` (e.g. ``"nounroll"``)."""

    text: str
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class BranchTargets:
    """``name: .branchtargets L1, L2, ...;`` -- the label table of ``brx.idx``."""

    name: str
    targets: tuple[str, ...]
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class CallPrototype:
    """``name: .callprototype ...;`` / ``.calltargets`` for indirect calls (kept as text)."""

    name: str
    kind: str  # "callprototype" or "calltargets"
    text: str
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class RegDecl:
    """``.reg .b32 %r<36>;`` (count=36 declares %r0..%r35) or ``.reg .b16 lo, hi;``."""

    type: str
    names: tuple[str, ...]
    count: int | None = None
    vector: str | None = None
    scope: int = 0
    line: int = field(default=0, compare=False)

    def registers(self) -> Iterator[str]:
        if self.count is None:
            yield from self.names
        else:
            for base in self.names:
                for i in range(self.count):
                    yield f"{base}{i}"

    @property
    def num_registers(self) -> int:
        return len(self.names) * (self.count if self.count is not None else 1)


TYPE_BYTES: dict[str, int] = {
    "b8": 1, "s8": 1, "u8": 1, "b16": 2, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
    "b32": 4, "s32": 4, "u32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "tf32": 4,
    "b64": 8, "s64": 8, "u64": 8, "f64": 8, "b128": 16, "pred": 1,
    "e4m3": 1, "e5m2": 1, "e4m3x2": 2, "e5m2x2": 2,
    "texref": 8, "samplerref": 8, "surfref": 8,
}

_STRUCT_FMT = {
    1: "B", 2: "H", 4: "I", 8: "Q",
}


@dataclass(slots=True)
class Variable:
    """A state-space variable: module ``.global``/``.const``, body ``.shared``/``.local``,
    or a ``.param`` inside a call sequence.

    ``dims`` holds array extents (``None`` for an unsized ``[]``); ``init`` the
    initialiser as written (whitespace normalised), ``init_values`` its flat
    parsed items (:class:`Immediate` / :class:`Symbol` / ``str`` for
    ``generic(sym)`` and other expressions).
    """

    space: str
    name: str
    type: str
    align: int | None = None
    vector: str | None = None
    dims: tuple[int | None, ...] = ()
    linkage: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    init: str | None = None
    init_values: tuple = ()
    scope: int = 0
    line: int = field(default=0, compare=False)

    @property
    def element_bytes(self) -> int:
        n = TYPE_BYTES.get(self.type, 0)
        if self.vector:
            n *= int(self.vector[1:])
        return n

    @property
    def size_bytes(self) -> int:
        """Total size; 0 for an unsized extern array (dynamic shared memory)."""
        n = self.element_bytes
        for d in self.dims:
            if d is None:
                return 0
            n *= d
        return n

    def init_bytes(self) -> bytes:
        """The initialiser as little-endian bytes, zero-padded to the size.

        Raises ValueError for initialisers holding addresses (``generic(sym)``),
        which only a loader can resolve.
        """
        size = self.element_bytes if not self.vector else TYPE_BYTES.get(self.type, 0)
        out = bytearray()
        for v in self.init_values:
            if not isinstance(v, Immediate):
                raise ValueError(f"initialiser of {self.name} holds an address: {v}")
            if isinstance(v.value, float):
                out += struct.pack("<d" if size == 8 else ("<f" if size == 4 else "<e"), v.value)
            else:
                out += struct.pack("<" + _STRUCT_FMT[size], v.value & ((1 << (8 * size)) - 1))
        total = self.size_bytes
        if len(out) < total:
            out += bytes(total - len(out))
        return bytes(out)


@dataclass(slots=True)
class Param:
    """A kernel/function parameter: ``.param .u64 .ptr .global .align 8 name``."""

    name: str
    type: str
    space: str = "param"  # "param", or "reg" for old-style .reg parameters
    align: int | None = None
    dims: tuple[int | None, ...] = ()
    ptr: bool = False
    ptr_space: str | None = None
    ptr_align: int | None = None

    @property
    def size_bytes(self) -> int:
        n = TYPE_BYTES.get(self.type, 0)
        for d in self.dims:
            n *= d or 0
        return n


@dataclass(slots=True)
class Scope:
    """A ``{ }`` block; ``parent`` is -1 for the function body (scope 0)."""

    id: int
    parent: int


BodyItem = (Instruction | Loc | LabelDef | ScopeBegin | ScopeEnd | Pragma | BranchTargets |
            CallPrototype | RegDecl | Variable)


@dataclass(slots=True)
class Function:
    """A ``.entry`` kernel or a ``.func`` device function (possibly only declared).

    ``body`` keeps every statement in source order for printing;
    ``instructions`` is the flat instruction list, ``labels`` maps each label
    to the index of the instruction it precedes (== len(instructions) at the end).
    """

    name: str
    kind: str  # "entry" or "func"
    linkage: tuple[str, ...] = ()
    params: list[Param] = field(default_factory=list)
    returns: list[Param] = field(default_factory=list)
    directives: list[tuple[str, str]] = field(default_factory=list)
    has_body: bool = True
    body: list = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    branch_tables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    scopes: list[Scope] = field(default_factory=lambda: [Scope(0, -1)])
    line: int = field(default=0, compare=False)
    _types: dict | None = field(default=None, compare=False, repr=False)

    @property
    def is_kernel(self) -> bool:
        return self.kind == "entry"

    @property
    def reg_decls(self) -> list[RegDecl]:
        return [b for b in self.body if type(b) is RegDecl]

    @property
    def variables(self) -> list[Variable]:
        return [b for b in self.body if type(b) is Variable]

    def register_type(self, name: str) -> str | None:
        """The declared type of register ``name`` (e.g. ``%r12`` -> ``b32``).

        Computed once; a register redeclared in nested scopes reports its last
        declaration's type."""
        if self._types is None:
            self._types = self._reg_types()
        return self._types.get(name)

    def _reg_types(self) -> dict[str, str]:
        types: dict[str, str] = {}
        for d in self.reg_decls:
            for r in d.registers():
                types[r] = d.type
        for p in self.params + self.returns:
            if p.space == "reg":
                types[p.name] = p.type
        return types


@dataclass(slots=True)
class FileDirective:
    """``.file N "name" [, timestamp, size]``."""

    index: int
    name: str
    extra: str = ""
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class Section:
    """A DWARF ``.section`` kept verbatim (its labels are referenced by ``.loc``)."""

    name: str
    text: str
    line: int = field(default=0, compare=False)


ModuleItem = Function | Variable | FileDirective | Section | Pragma


@dataclass(slots=True)
class Module:
    """A parsed PTX file. ``items`` keeps top-level statements in source order."""

    version: str
    target: tuple[str, ...]
    address_size: int | None = None
    items: list = field(default_factory=list)
    file: str | None = field(default=None, compare=False)

    @property
    def functions(self) -> list[Function]:
        return [i for i in self.items if type(i) is Function]

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.kind == "entry" and f.has_body]

    @property
    def globals(self) -> list[Variable]:
        return [i for i in self.items if type(i) is Variable]

    @property
    def files(self) -> dict[int, str]:
        return {i.index: i.name for i in self.items if type(i) is FileDirective}

    @property
    def arch(self) -> str:
        """The first ``.target`` entry, e.g. ``sm_90``."""
        return self.target[0] if self.target else ""

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name and f.has_body:
                return f
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)
