"""PTX text -> :class:`pipeperf.ptx.ir.Module`.

The parser works on statements, not lines: one compiled regular expression
(:data:`_TOKEN`) is matched at the current position and recognises the next
instruction (up to its ``;``, so a ``call`` spanning several lines is one
statement), directive, label or brace. Speed comes from doing one regex match
per statement and caching everything that repeats: decoded opcodes, operand
lists and ``.loc`` records are parsed once per distinct spelling (caches live
for one parse, so timings are honest).

Errors are :class:`PipeperfError` with the file and line of the statement.

(About 550 lines: the statement loop and the readers it calls for every statement --
operands, guards, branch targets, ``.loc``, body directives -- share the intern tables and
stay together; declarations are read in :mod:`pipeperf.ptx.declarations`.)
"""

from __future__ import annotations

import gc
import re
from pathlib import Path
from typing import ClassVar

from pipeperf.errors import PipeperfError
from pipeperf.ptx.check import check_module
from pipeperf.ptx.declarations import (
    _DECLCACHE,
    LINKAGES,
    VAR_SPACES,
    DeclarationParser,
    _normalise,
)
from pipeperf.ptx.ir import (
    BranchTargets,
    CallPrototype,
    FileDirective,
    Function,
    Instruction,
    Label,
    LabelDef,
    Loc,
    Module,
    ParamList,
    Pragma,
    Register,
    Scope,
    ScopeBegin,
    ScopeEnd,
    Section,
    Sink,
    Symbol,
    Vector,
)
from pipeperf.ptx.opcodes import UnknownOpcode, decode_opcode
from pipeperf.ptx.operands import (
    SPECIAL_REGISTERS,
    BadOperand,
    parse_operand,
    split_operands,
)

_TOKEN = re.compile(r"""
([ \t\r\n]*)
(?:
  (?P<INS>
    (?:@(?P<neg>!?)(?P<guard>[%\w$]+)[ \t\r\n]+)?
    (?P<op>[a-z]\w*(?:\.\w+(?:::\w+)*)*)
    (?P<args>[^;{}:"]*(?:\{[^;{}]*\}[^;{}:"]*)*)
    ;)
 |(?P<LOC>\.loc[ \t]+(?P<locargs>[^\n;]*);?)
 |(?P<LDIR>(?P<ldname>\.(?:version|target|address_size|file))\b(?P<ldargs>[^\n;]*);?)
 |(?P<SEC>\.section[ \t]+(?P<secname>[^\s{]+)\s*\{(?P<secbody>[^{}]*)\})
 |(?P<HDR>(?P<hdr>(?:\.(?:visible|extern|weak)\s+)*\.(?:entry|func)\b[^;{]*)(?P<hend>[;{]))
 |(?P<DIR>(?P<dname>\.\w+)(?P<dargs>[^;{}"]*(?:(?:"[^"\n]*"|\{[^;{}]*(?:\{[^;{}]*\}[^;{}]*)*\})[^;{}"]*)*);)
 |(?P<LBL>(?P<label>[\w$%]+)[ \t]*:(?!:))
 |(?P<BRACE>[{}])
)""", re.VERBOSE)

_COMMENT_RE = re.compile(r'"[^"\n]*"|//[^\n]*|/\*[\s\S]*?\*/')
_LOC_RE = re.compile(
    r"(\d+)\s+(\d+)\s+(\d+)(?:\s*,\s*function_name\s+([\w$.]+))?"
    r"(?:\s*,\s*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?\s*\Z")
_FILE_RE = re.compile(r'\s*(\d+)\s+"([^"]*)"\s*(?:,\s*(.*?))?\s*\Z', re.DOTALL)
_NEWSTMT_RE = re.compile(r"\n\s*(?:@!?[%\w$]+\s+)?[a-z]\w*(?:\.\w+)+\s")
# a directive's text running into the next line's statement (missing ';')
_RUNON_RE = re.compile(r"\n\s*(?:[.@$%]|[a-z]\w*(?:\.\w+)*\s)")


# How an instruction's first operand is treated.
_FIRST_MAY_BE_DST, _NO_DST, _BRANCH, _CALL = 0, 1, 2, 3
_SRC_FIRST_ROOTS = frozenset({
    "nanosleep", "bar.warp", "barrier.cluster", "stackrestore", "pmevent", "setmaxnreg",
    "trap", "ret", "exit", "brkpt", "tcgen05.dealloc", "griddepcontrol", "membar", "fence",
})
_DST_KINDS = (Register, Vector, Sink, tuple)


def strip_comments(text: str) -> str:
    """Remove ``//`` and ``/* */`` comments, keeping strings and line numbers."""
    if "/" not in text:
        return text

    def repl(m: re.Match) -> str:
        s = m.group()
        if s[0] == '"':
            return s
        if s[1] == "*":
            return "\n" * s.count("\n")
        return ""

    return _COMMENT_RE.sub(repl, text)


# Intern tables. Decoded opcodes, operands, operand lists and .loc records are
# pure functions of their text (outside scopes with '%'-less registers, where
# they are bypassed), so all parses share them; each is cleared when it grows
# past _CACHE_LIMIT entries to bound memory.
_CACHE_LIMIT = 200_000
_OPCACHE: dict[str, tuple] = {}
_ARGCACHE: dict[str, tuple] = {}
_OPNDCACHE: dict[str, object] = {}
_LOCCACHE: dict[str, Loc] = {}
_REGCACHE: dict[str, Register] = {}
_LABELCACHE: dict[str, Label] = {}
_CACHES = (_OPCACHE, _ARGCACHE, _OPNDCACHE, _LOCCACHE, _REGCACHE, _LABELCACHE, _DECLCACHE)


def clear_caches() -> None:
    """Empty the intern tables (benchmarks use this to time a cold parse)."""
    for c in _CACHES:
        c.clear()


def _trim_caches() -> None:
    for c in _CACHES:
        if len(c) > _CACHE_LIMIT:
            c.clear()


def _decode(opt: str, line: int, parser: _Parser) -> tuple:
    try:
        info = decode_opcode(opt)
    except UnknownOpcode:
        raise parser.error(f"unknown PTX opcode '{opt}'", line) from None
    root = info.root
    if root in ("bra", "brx"):
        mode = _BRANCH
    elif root == "call":
        mode = _CALL
    elif root in _SRC_FIRST_ROOTS or (root in ("bar", "barrier") and "red" not in info.modifiers):
        mode = _NO_DST
    else:
        mode = _FIRST_MAY_BE_DST
    ent = (info, mode)
    _OPCACHE[opt] = ent
    return ent


class _Parser(DeclarationParser):
    def __init__(self, text: str, file: str | None):
        self.file = file or "<ptx>"
        self.text = strip_comments(text).rstrip()
        _trim_caches()
        self.opcache = _OPCACHE
        self.argcache = _ARGCACHE
        self.loccache = _LOCCACHE
        self.labelcache = _LABELCACHE
        self.regcache = _REGCACHE
        self.opndcache = _OPNDCACHE
        # Registers declared without '%' (inline asm 'low', call 'temp_param_reg'): name ->
        # declaring scope. While any is live the operand caches are bypassed, since the same
        # text then reads as a register rather than a symbol; they are rare and short-lived.
        self.bare_regs: dict[str, int] = {}

    # ------------------------------------------------------------------ main loop
    def parse(self) -> Module:
        """The statement loop: one regex match per statement; instructions (most statements)
        are built here, with the open function's state in local variables, and every other
        kind of statement by its step (:attr:`_STEPS`), after which those locals are re-read."""
        text = self.text
        n = len(text)
        match = _TOKEN.match
        pos = lpos = 0
        line = 1
        self.module = Module(version="", target=(), file=self.file)
        self.func: Function | None = None
        self.body: list = []
        self.instructions: list = []
        self.scope_stack: list[int] = [0]
        self.scope = 0
        self.loc: Loc | None = None
        self.func_line = 0
        self.seen_version = False
        func, body, instructions, scope, loc = None, self.body, self.instructions, 0, None
        opcache, argcache, bare_regs = self.opcache, self.argcache, self.bare_regs
        gi = _TOKEN.groupindex
        g_guard, g_neg, g_op, g_args = gi["guard"], gi["neg"], gi["op"], gi["args"]
        steps = {kind: getattr(self, step) for kind, step in self._STEPS.items()}
        while pos < n:
            m = match(text, pos)
            if m is None:
                start = pos + len(text[pos:]) - len(text[pos:].lstrip())
                line += text.count("\n", lpos, start)
                raise self._no_statement(text, start, line, func)
            start = m.end(1)
            line += text.count("\n", lpos, start)
            lpos = start
            pos = m.end()
            kind = m.lastgroup
            if kind != "INS":
                steps[kind](m, line)  # type: ignore[index]  # lastgroup: the pattern is all named groups
                func, body, instructions, scope, loc = self.func, self.body, self.instructions, self.scope, self.loc
                continue
            if func is None:
                raise self.error(f"instruction '{m.group('op')}' outside a function body", line)
            guard, neg, opt, args = m.group(g_guard, g_neg, g_op, g_args)
            ent = opcache.get(opt)
            if ent is None:
                ent = _decode(opt, line, self)
            info, mode = ent
            ops = None if bare_regs else argcache.get(args)
            if ops is None:
                ops = self._operands(args, line)
            if mode < 2:  # _FIRST_MAY_BE_DST or _NO_DST: precomputed split
                dsts, srcs = ops[mode + 1]
            elif mode == _BRANCH:
                dsts = ()
                srcs = self._branch_operands(ops[0], line)
            else:
                dsts, srcs = _call_operands(ops[0])
            if guard is not None:
                g = None if bare_regs else self.regcache.get(guard)
                if g is None:
                    g = self._guard(guard, line)
                ins = Instruction(info, dsts, srcs, g, neg == "!", len(instructions), scope, loc, line)
            else:
                ins = Instruction(info, dsts, srcs, None, False, len(instructions), scope, loc, line)
            instructions.append(ins)
            body.append(ins)
        return self._end_of_file(text, lpos, line)

    #: statement kind (a group of :data:`_TOKEN`) -> the method parsing it (but instructions)
    _STEPS: ClassVar[dict[str, str]] = {"LOC": "_loc_statement", "LBL": "_label", "BRACE": "_brace", "DIR": "_directive",
              "LDIR": "_line_directive", "HDR": "_function_header", "SEC": "_section"}

    # ------------------------------------------------------------------ statements
    def _loc_statement(self, m: re.Match, line: int) -> None:
        a = m.group("locargs")
        loc = self.loccache.get(a)
        if loc is None:
            loc = self._loc(a, line)
        self.loc = loc
        if self.func is not None:
            self.body.append(loc)

    def _label(self, m: re.Match, line: int) -> None:
        name = m.group("label")
        func = self.func
        if func is None:
            raise self.error(f"label '{name}' outside a function body", line)
        if name in func.labels or name in func.branch_tables:
            start = m.start("label")
            first = self._label_line(name)
            raise self.error(f"label '{name}' defined twice: expected a new name"
                             + (f" (first defined at line {first})" if first else ""),
                             line, start - self.text.rfind("\n", 0, start))
        func.labels[name] = len(self.instructions)
        self.body.append(LabelDef(name, line))

    def _label_line(self, name: str) -> int:
        return next((b.line for b in self.body if type(b) in (LabelDef, BranchTargets) and b.name == name), 0)

    def _brace(self, m: re.Match, line: int) -> None:
        """``{`` opens a scope; ``}`` closes one, or the function at its outermost level."""
        func = self.func
        if m.group("BRACE") == "{":
            if func is None:
                raise self.error("unexpected '{' outside a function", line)
            self.scope = len(func.scopes)
            func.scopes.append(Scope(self.scope, self.scope_stack[-1]))
            self.scope_stack.append(self.scope)
            self.body.append(ScopeBegin(self.scope, line))
            return
        if func is None:
            raise self.error("unexpected '}' outside a function", line)
        if len(self.scope_stack) > 1:
            closed = self.scope_stack.pop()
            self.body.append(ScopeEnd(closed, line))
            self.scope = self.scope_stack[-1]
            if self.bare_regs:
                self._drop_bare(closed)
        else:
            self._finish_function(func)
            self.func = None
            self.bare_regs.clear()

    def _directive(self, m: re.Match, line: int) -> None:
        d, dargs = m.group("dname", "dargs")
        if "\n" in dargs and _RUNON_RE.search(dargs.split("=", 1)[0]):
            raise self.error(f"expected ';' after '{d}' directive", line)
        if self.func is not None:
            self._body_directive(self.func, self.body, d, dargs, self.scope, line)
        else:
            self._module_directive(self.module, d, dargs, line)

    def _line_directive(self, m: re.Match, line: int) -> None:
        """.version, .target, .address_size and .file: module-level, one line each."""
        d, a = m.group("ldname", "ldargs")
        module = self.module
        if self.func is not None:
            raise self.error(f"directive '{d}' inside a function body", line)
        if d == ".version":
            if self.seen_version or module.target or module.items:
                raise self.error(".version must be the first directive of the file, and only one", line)
            module.version = a.strip()
            self.seen_version = True
        elif d == ".target":
            if not self.seen_version or module.target or module.items:
                raise self.error(".target must follow .version, once, before anything else", line)
            module.target = tuple(t.strip() for t in a.split(","))
        elif d == ".address_size":
            try:
                module.address_size = int(a)
            except ValueError:
                module.address_size = None
            if module.address_size not in (32, 64):
                raise self.error(f"expected 32 or 64 after .address_size, got '{a.strip()}'", line)
        else:
            fm = _FILE_RE.match(a)
            if not fm:
                raise self.error('expected .file N "name"', line)
            module.items.append(FileDirective(int(fm.group(1)), fm.group(2),
                                              _normalise(fm.group(3) or ""), line))

    def _function_header(self, m: re.Match, line: int) -> None:
        """``.entry``/``.func`` header: a declaration (``;``) or the start of a body (``{``)."""
        if self.func is not None:
            raise self.error("function definition inside a function body "
                             "(missing '}'?)", line)
        if not self.seen_version:
            raise self.error("expected .version directive before the first function", line)
        f = self._header(m.group("hdr"), line)
        self.module.items.append(f)
        if m.group("hend") == "{":
            self.func = f
            self.func_line = line
            self.body = f.body
            self.instructions = f.instructions
            self.scope_stack = [0]
            self.scope = 0
            self.loc = None
        else:
            f.has_body = False

    def _section(self, m: re.Match, line: int) -> None:
        if self.func is not None:
            raise self.error(".section inside a function body", line)
        self.module.items.append(Section(m.group("secname"), m.group("secbody"), line))

    def _end_of_file(self, text: str, lpos: int, line: int) -> Module:
        """The module, once no function is left open and the header directives were seen."""
        if self.func is not None:
            line += text.count("\n", lpos)
            raise self.error(f"unexpected end of file: expected '}}' to close function "
                             f"'{self.func.name}' opened at line {self.func_line}", line)
        if not self.seen_version:
            raise self.error("expected .version directive", 1)
        if not self.module.target:
            raise self.error("expected .target directive", 1)
        return self.module

    # ------------------------------------------------------------------ helpers
    def _no_statement(self, text: str, start: int, line: int, func) -> PipeperfError:
        rest = text[start:start + 200]
        first = rest.split("\n", 1)[0].strip()
        if rest.startswith("@"):
            g = re.match(r"@!?\S*", rest).group()  # type: ignore[union-attr]  # rest starts with @
            return self.error(f"bad guard predicate '{g}': expected @%p or @!%p", line)
        if re.match(r"(?:@!?[%\w$]+\s+)?[a-z]\w*(?:\.\w+(?:::\w+)*)*(?:\s|$)", rest):
            if ";" not in rest.split("\n", 1)[0] and (func is not None):
                return self.error(f"expected ';' after instruction '{first}'", line)
            return self.error(f"malformed instruction '{first}'", line)
        if rest.startswith("."):
            d = re.match(r"\.\w*", rest).group()  # type: ignore[union-attr]  # rest starts with .
            return self.error(f"malformed or unterminated directive '{d}': expected ';'", line)
        return self.error(f"expected a PTX statement, found '{first[:60]}'", line)

    def _operands(self, args: str, line: int) -> tuple:
        stripped = args.strip()
        bare = self.bare_regs
        cache = self.opndcache
        try:
            if not stripped:
                ops: tuple = ()
            else:
                out = []
                for p in split_operands(stripped):
                    o = None if bare else cache.get(p)
                    if o is None:
                        if not p:
                            raise BadOperand(stripped)
                        if "|" in p and p[0] != "[":
                            a, _, b = p.partition("|")
                            o = (parse_operand(a.strip(), bare), parse_operand(b.strip(), bare))
                        else:
                            o = parse_operand(p, bare)
                        if not bare:
                            cache[p] = o
                    out.append(o)
                ops = tuple(out)
        except BadOperand as exc:
            if "\n" in args and _NEWSTMT_RE.search(args):
                raise self.error("expected ';' after instruction", line) from None
            raise self.error(f"bad operand '{_normalise(str(exc))}'", line) from None
        # (operands, split if the first may be a destination, split with no destination)
        no_dst = ((), ops)
        if ops and isinstance(ops[0], _DST_KINDS):
            first = ops[0]
            ent = (ops, (first if type(first) is tuple else (first,), ops[1:]), no_dst)
        else:
            ent = (ops, no_dst, no_dst)
        if not bare:
            self.argcache[args] = ent
        return ent

    def _drop_bare(self, closed: int) -> None:
        for name in [k for k, v in self.bare_regs.items() if v == closed]:
            del self.bare_regs[name]

    def _branch_operands(self, ops: tuple, line: int) -> tuple:
        if not ops:
            raise self.error("branch without a target", line)
        last = ops[-1]
        if type(last) is not Symbol:
            raise self.error(f"bad branch target '{last}'", line)
        lab = self.labelcache.get(last.name)
        if lab is None:
            lab = self.labelcache[last.name] = Label(last.name)
        return ops[:-1] + (lab,)

    def _guard(self, guard: str, line: int) -> Register:
        if guard[0] != "%" and guard not in self.bare_regs:
            raise self.error(f"bad guard predicate '@{guard}'", line)
        if guard.split(".", 1)[0] in SPECIAL_REGISTERS:
            raise self.error(f"bad guard predicate '@{guard}'", line)
        g = Register(guard)
        if not self.bare_regs:
            self.regcache[guard] = g
        return g

    def _loc(self, a: str, line: int) -> Loc:
        lm = _LOC_RE.match(a)
        if not lm:
            raise self.error(f"bad .loc directive '.loc {a.strip()}'", line)
        f, ln, col, fn, i1, i2, i3 = lm.groups()
        loc = Loc(int(f), int(ln), int(col), fn,
                  (int(i1), int(i2), int(i3)) if i1 is not None else None)
        self.loccache[a] = loc
        return loc

    # ------------------------------------------------------------------ directives
    def _body_directive(self, func: Function, body: list, d: str, dargs: str, scope: int,
                        line: int) -> None:
        if d == ".reg":
            decl = self._reg_decl(dargs, scope, line)
            body.append(decl)
            for nm in decl.names:
                if nm[0] != "%":
                    if decl.count is not None:
                        raise self.error(f"register range '{nm}<{decl.count}>' needs a % name",
                                         line)
                    self.bare_regs[nm] = scope
            return
        if d == ".pragma":
            body.append(Pragma(self._pragma(dargs, line), line))
            return
        if d in (".branchtargets", ".callprototype", ".calltargets"):
            if not body or type(body[-1]) is not LabelDef:
                raise self.error(f"'{d}' must follow a label", line)
            lab = body.pop()
            func.labels.pop(lab.name, None)
            if d == ".branchtargets":
                targets = tuple(t.strip() for t in dargs.split(","))
                if not all(re.fullmatch(r"[\w$]+", t) for t in targets):
                    raise self.error(f"bad .branchtargets list '{_normalise(dargs)}'", line)
                func.branch_tables[lab.name] = targets
                body.append(BranchTargets(lab.name, targets, line))
            else:
                body.append(CallPrototype(lab.name, d[1:], _normalise(dargs), line))
            return
        if d[1:] in VAR_SPACES or d[1:] in LINKAGES:
            var = self._variable(d + dargs, line)
            var.scope = scope
            body.append(var)
            return
        raise self.error(f"unknown directive '{d}' in function body", line)

    def _module_directive(self, module: Module, d: str, dargs: str, line: int) -> None:
        if d == ".pragma":
            module.items.append(Pragma(self._pragma(dargs, line), line))
            return
        if d[1:] in VAR_SPACES or d[1:] in LINKAGES:
            module.items.append(self._variable(d + dargs, line))
            return
        raise self.error(f"unknown directive '{d}'", line)

    def _pragma(self, dargs: str, line: int) -> str:
        t = dargs.strip()
        if not (len(t) >= 2 and t[0] == '"' and t[-1] == '"'):
            raise self.error('expected .pragma "text";', line)
        return t[1:-1]

    def _finish_function(self, func: Function) -> None:
        """Check that every branch target exists (the CFG relies on it)."""
        labels = func.labels
        tables = func.branch_tables
        for ins in func.instructions:
            root = ins.op.root
            if root == "bra":
                t = ins.srcs[-1].name
                if t not in labels:
                    raise self.error(f"branch to undefined label '{t}'", ins.line)
            elif root == "brx":
                t = ins.srcs[-1].name
                if t not in tables:
                    raise self.error(f"brx.idx table '{t}' is not a .branchtargets label",
                                     ins.line)
        for name, targets in tables.items():
            for t in targets:
                if t not in labels:
                    raise self.error(f"undefined label '{t}' in .branchtargets '{name}'",
                                     func.line)


def _call_operands(o: tuple) -> tuple[tuple, tuple]:
    """(dsts, srcs) of ``call``: ``(rets), func, (args)``, the first list optional."""
    if o and type(o[0]) is ParamList:
        return o[:1], o[1:]
    return (), o


def parse_ptx(text: str, file: str | Path | None = None, check: bool = True) -> Module:
    """Parse PTX text; ``file`` only names the source in error messages. ``check``: refuse what
    ptxas would refuse though it parses (:func:`pipeperf.ptx.check.check_module`)."""
    # The IR holds no reference cycles, so the cyclic garbage collector has
    # nothing to find while we allocate hundreds of thousands of objects; its
    # repeated full scans would otherwise cost a third of the time on big files.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        module = _Parser(text, str(file) if file is not None else None).parse()
        if check:
            check_module(module, text)
        return module
    finally:
        if was_enabled:
            gc.enable()


def parse_file(path: str | Path) -> Module:
    """Parse a ``.ptx`` file (errors name it)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PipeperfError(f"cannot read PTX file: {exc.strerror}", file=str(p)) from None
    return parse_ptx(text, str(p))
