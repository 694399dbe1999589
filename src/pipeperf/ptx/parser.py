"""PTX text -> :class:`pipeperf.ptx.ir.Module`.

The parser works on statements, not lines: one compiled regular expression
(:data:`_TOKEN`) is matched at the current position and recognises the next
instruction (up to its ``;``, so a ``call`` spanning several lines is one
statement), directive, label or brace. Speed comes from doing one regex match
per statement and caching everything that repeats: decoded opcodes, operand
lists and ``.loc`` records are parsed once per distinct spelling (caches live
for one parse, so timings are honest).

Errors are :class:`PipeperfError` with the file and line of the statement.
"""

from __future__ import annotations

import gc
import re
from pathlib import Path

from pipeperf.errors import PipeperfError
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
    Param,
    ParamList,
    Pragma,
    Register,
    RegDecl,
    Scope,
    ScopeBegin,
    ScopeEnd,
    Section,
    Sink,
    Symbol,
    Variable,
    Vector,
)
from pipeperf.ptx.opcodes import UnknownOpcode, decode_opcode
from pipeperf.ptx.operands import SPECIAL_REGISTERS, BadOperand, parse_immediate, parse_operand, split_operands

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
)""", re.X)

_COMMENT_RE = re.compile(r'"[^"\n]*"|//[^\n]*|/\*[\s\S]*?\*/')
_LOC_RE = re.compile(
    r"(\d+)\s+(\d+)\s+(\d+)(?:\s*,\s*function_name\s+([\w$.]+))?"
    r"(?:\s*,\s*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?\s*\Z")
_REG_DECL_RE = re.compile(r"\s*(?:\.(v2|v4|v8)\s+)?\.(\w+)\s+(.+?)\s*\Z", re.S)
_REG_NAME_RE = re.compile(r"\s*([%\w$]+)\s*(?:<\s*(\d+)\s*>)?\s*\Z")
_HDR_RE = re.compile(r"""
    ((?:\.(?:visible|extern|weak)\s+)*)\.(entry|func)\s*
    (?:\(\s*([^)]*?)\s*\)\s*)?
    ([\w$]+)\s*
    (?:\(\s*([^)]*?)\s*\))?
    (.*)\Z""", re.X | re.S)
_SIMPLE_PARAM_RE = re.compile(r"\s*\.(param|reg)\s+\.(?!align\b|ptr\b)(\w+)\s+([\w$%]+)\s*\Z")
_PERF_RE = re.compile(r'\s*\.(\w+)((?:\s*(?:\d+|"[^"]*")\s*,?)*)')
_DECL_HEAD_RE = re.compile(r"\s*(\.align\s+\d+|\.attribute\s*\([^)]*\)|\.[\w:]+)")
_DECL_NAME_RE = re.compile(r"\s*([\w$%]+)((?:\s*\[\s*[^\]]*\])*)\s*(?:=\s*(.*?))?\s*\Z", re.S)
_DIM_RE = re.compile(r"\[\s*([^\]]*?)\s*\]")
_INIT_ITEM_RE = re.compile(r"generic\s*\(\s*[\w$]+\s*\)(?:\s*\+\s*\d+)?|[^,{}\s][^,{}]*")
_FILE_RE = re.compile(r'\s*(\d+)\s+"([^"]*)"\s*(?:,\s*(.*?))?\s*\Z', re.S)
_NEWSTMT_RE = re.compile(r"\n\s*(?:@!?[%\w$]+\s+)?[a-z]\w*(?:\.\w+)+\s")
_WS = re.compile(r"\s+")
# a directive's text running into the next line's statement (missing ';')
_RUNON_RE = re.compile(r"\n\s*(?:[.@$%]|[a-z]\w*(?:\.\w+)*\s)")

VAR_SPACES = frozenset({"global", "shared", "local", "const", "param", "tex"})
LINKAGES = frozenset({"visible", "extern", "weak", "common"})

# How an instruction's first operand is treated.
_FIRST_MAY_BE_DST, _NO_DST, _BRANCH, _CALL = 0, 1, 2, 3
_SRC_FIRST_ROOTS = frozenset({
    "nanosleep", "bar.warp", "barrier.cluster", "stackrestore", "pmevent", "setmaxnreg",
    "trap", "ret", "exit", "brkpt", "tcgen05.dealloc", "griddepcontrol", "membar", "fence",
})
_DST_KINDS = (Register, Vector, Sink, tuple)


def _normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


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
#: registers one ``%r<N>`` range may declare: every one becomes a name, so a mutated or hostile
#: file with N = 2^32 would exhaust memory; nvcc's largest kernels declare about 10^5 (a limit of ours, said as such)
MAX_REGISTER_RANGE = 1 << 20
_DECLCACHE: dict[str, tuple] = {}
_CACHES = (_OPCACHE, _ARGCACHE, _OPNDCACHE, _LOCCACHE, _REGCACHE, _LABELCACHE, _DECLCACHE)


def clear_caches() -> None:
    """Empty the intern tables (benchmarks use this to time a cold parse)."""
    for c in _CACHES:
        c.clear()


def _trim_caches() -> None:
    for c in _CACHES:
        if len(c) > _CACHE_LIMIT:
            c.clear()


def _decode(opt: str, line: int, parser: "_Parser") -> tuple:
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


class _Parser:
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

    # ------------------------------------------------------------------ errors
    def error(self, message: str, line: int) -> PipeperfError:
        return PipeperfError(_normalise(message), file=self.file, line=line)

    # ------------------------------------------------------------------ main loop
    def parse(self) -> Module:
        text = self.text
        n = len(text)
        match = _TOKEN.match
        pos = 0
        lpos = 0
        line = 1
        module = Module(version="", target=(), file=self.file)
        items = module.items
        func: Function | None = None
        body: list = []
        instructions: list = []
        scope_stack: list[int] = [0]
        scope = 0
        loc = None
        opcache = self.opcache
        argcache = self.argcache
        loccache = self.loccache
        bare_regs = self.bare_regs
        gi = _TOKEN.groupindex
        g_guard, g_neg, g_op, g_args = gi["guard"], gi["neg"], gi["op"], gi["args"]
        func_line = 0
        seen_version = False

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

            if kind == "INS":
                if func is None:
                    raise self.error(
                        f"instruction '{m.group('op')}' outside a function body", line)
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
                else:  # call: (rets), func, (args)
                    o = ops[0]
                    if o and type(o[0]) is ParamList:
                        dsts = o[:1]
                        srcs = o[1:]
                    else:
                        dsts = ()
                        srcs = o
                if guard is not None:
                    g = None if bare_regs else self.regcache.get(guard)
                    if g is None:
                        g = self._guard(guard, line)
                    ins = Instruction(info, dsts, srcs, g, neg == "!", len(instructions),
                                      scope, loc, line)
                else:
                    ins = Instruction(info, dsts, srcs, None, False, len(instructions),
                                      scope, loc, line)
                instructions.append(ins)
                body.append(ins)
            elif kind == "LOC":
                a = m.group("locargs")
                loc = loccache.get(a)
                if loc is None:
                    loc = self._loc(a, line)
                if func is not None:
                    body.append(loc)
            elif kind == "LBL":
                name = m.group("label")
                if func is None:
                    raise self.error(f"label '{name}' outside a function body", line)
                if name in func.labels or name in func.branch_tables:
                    raise self.error(f"label '{name}' defined twice", line)
                func.labels[name] = len(instructions)
                body.append(LabelDef(name, line))
            elif kind == "BRACE":
                if m.group("BRACE") == "{":
                    if func is None:
                        raise self.error("unexpected '{' outside a function", line)
                    scope = len(func.scopes)
                    func.scopes.append(Scope(scope, scope_stack[-1]))
                    scope_stack.append(scope)
                    body.append(ScopeBegin(scope, line))
                else:
                    if func is None:
                        raise self.error("unexpected '}' outside a function", line)
                    if len(scope_stack) > 1:
                        closed = scope_stack.pop()
                        body.append(ScopeEnd(closed, line))
                        scope = scope_stack[-1]
                        if self.bare_regs:
                            self._drop_bare(closed)
                    else:
                        self._finish_function(func)
                        func = None
                        self.bare_regs.clear()
            elif kind == "DIR":
                d, dargs = m.group("dname", "dargs")
                if "\n" in dargs and _RUNON_RE.search(dargs.split("=", 1)[0]):
                    raise self.error(f"expected ';' after '{d}' directive", line)
                if func is not None:
                    self._body_directive(func, body, d, dargs, scope, line)
                else:
                    self._module_directive(module, d, dargs, line)
            elif kind == "LDIR":
                d, a = m.group("ldname", "ldargs")
                if func is not None:
                    raise self.error(f"directive '{d}' inside a function body", line)
                if d == ".version":
                    module.version = a.strip()
                    seen_version = True
                elif d == ".target":
                    module.target = tuple(t.strip() for t in a.split(","))
                elif d == ".address_size":
                    try:
                        module.address_size = int(a)
                    except ValueError:
                        raise self.error(f"expected 32 or 64 after .address_size, got '{a.strip()}'",
                                         line) from None
                else:
                    fm = _FILE_RE.match(a)
                    if not fm:
                        raise self.error('expected .file N "name"', line)
                    items.append(FileDirective(int(fm.group(1)), fm.group(2),
                                               _normalise(fm.group(3) or ""), line))
            elif kind == "HDR":
                if func is not None:
                    raise self.error("function definition inside a function body "
                                     "(missing '}'?)", line)
                if not seen_version:
                    raise self.error("expected .version directive before the first function",
                                     line)
                f = self._header(m.group("hdr"), line)
                items.append(f)
                if m.group("hend") == "{":
                    func = f
                    func_line = line
                    body = f.body
                    instructions = f.instructions
                    scope_stack = [0]
                    scope = 0
                    loc = None
                else:
                    f.has_body = False
            else:  # SEC
                if func is not None:
                    raise self.error(".section inside a function body", line)
                items.append(Section(m.group("secname"), m.group("secbody"), line))

        if func is not None:
            line += text.count("\n", lpos)
            raise self.error(f"unexpected end of file: expected '}}' to close function "
                             f"'{func.name}' opened at line {func_line}", line)
        if not seen_version:
            raise self.error("expected .version directive", 1)
        if not module.target:
            raise self.error("expected .target directive", 1)
        return module

    # ------------------------------------------------------------------ helpers
    def _no_statement(self, text: str, start: int, line: int, func) -> PipeperfError:
        rest = text[start:start + 200]
        first = rest.split("\n", 1)[0].strip()
        if rest.startswith("@"):
            g = re.match(r"@!?\S*", rest).group()
            return self.error(f"bad guard predicate '{g}': expected @%p or @!%p", line)
        if re.match(r"(?:@!?[%\w$]+\s+)?[a-z]\w*(?:\.\w+(?:::\w+)*)*(?:\s|$)", rest):
            if ";" not in rest.split("\n", 1)[0] and (func is not None):
                return self.error(f"expected ';' after instruction '{first}'", line)
            return self.error(f"malformed instruction '{first}'", line)
        if rest.startswith("."):
            d = re.match(r"\.\w*", rest).group()
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

    def _reg_decl(self, dargs: str, scope: int, line: int) -> RegDecl:
        key = ".reg" + dargs
        hit = _DECLCACHE.get(key)
        if hit is not None:
            return RegDecl(*hit, scope, line)
        m = _REG_DECL_RE.match(dargs)
        if not m:
            raise self.error(f"bad .reg declaration '.reg{_normalise(dargs)}'", line)
        vec, typ, names = m.groups()
        out = []
        count = None
        for i, part in enumerate(names.split(",")):
            nm = _REG_NAME_RE.match(part)
            if not nm:
                raise self.error(f"bad register name '{part.strip()}' in .reg", line)
            c = int(nm.group(2)) if nm.group(2) is not None else None
            if c is not None and c > MAX_REGISTER_RANGE:
                raise self.error(f"'.reg {nm.group(1)}<{c}>' declares {c:,} registers, more than pipeperf takes in "
                                 f"one range ({MAX_REGISTER_RANGE:,}; nvcc's largest kernels declare ~10^5)", line)
            if i and c != count:
                raise self.error("mixed register ranges in one .reg declaration", line)
            count = c
            out.append(nm.group(1))
        fields = (typ, tuple(out), count, vec)
        _DECLCACHE[key] = fields
        return RegDecl(*fields, scope, line)

    def _decl_parts(self, text: str, line: int, what: str):
        """Split a declaration into its dotted head tokens and name/dims/init."""
        pos = 0
        head: list[str] = []
        while True:
            hm = _DECL_HEAD_RE.match(text, pos)
            if not hm:
                break
            head.append(hm.group(1))
            pos = hm.end()
        nm = _DECL_NAME_RE.match(text, pos)
        if not nm or not head:
            raise self.error(f"bad {what} '{_normalise(text)}'", line)
        name, dims_text, init = nm.groups()
        dims: list[int | None] = []
        for dt in _DIM_RE.findall(dims_text or ""):
            if dt == "":
                dims.append(None)
            else:
                imm = parse_immediate(dt)
                if imm is None or not isinstance(imm.value, int):
                    raise self.error(f"bad array size '[{dt}]' in {what}", line)
                dims.append(imm.value)
        return head, name, tuple(dims), init

    def _variable(self, text: str, line: int) -> Variable:
        hit = _DECLCACHE.get(text)
        if hit is not None:
            return Variable(*hit, 0, line)
        var = self._parse_variable(text, line)
        _DECLCACHE[text] = (var.space, var.name, var.type, var.align, var.vector, var.dims,
                            var.linkage, var.attributes, var.init, var.init_values)
        return var

    def _parse_variable(self, text: str, line: int) -> Variable:
        head, name, dims, init = self._decl_parts(text, line, "variable declaration")
        linkage: list[str] = []
        attrs: list[str] = []
        space = typ = vector = None
        align = None
        for tok in head:
            t = tok[1:]
            if t in LINKAGES:
                linkage.append(t)
            elif tok.startswith(".align"):
                align = int(tok.split()[1])
            elif tok.startswith(".attribute"):
                attrs.append(_normalise(tok))
            elif space is None and t in VAR_SPACES:
                space = t
            elif t in ("v2", "v4", "v8"):
                vector = t
            elif typ is None:
                typ = t
            else:
                raise self.error(f"unexpected '{tok}' in declaration of '{name}'", line)
        if space is None or typ is None:
            raise self.error(f"declaration of '{name}' lacks a state space or type", line)
        values: tuple = ()
        if init is not None:
            init = _normalise(init)
            vals = []
            for item in _INIT_ITEM_RE.findall(init):
                item = item.strip()
                imm = parse_immediate(item)
                if imm is not None:
                    vals.append(imm)
                elif re.fullmatch(r"[\w$]+", item):
                    vals.append(Symbol(item))
                else:
                    vals.append(_normalise(item))
            values = tuple(vals)
        return Variable(space, name, typ, align, vector, dims, tuple(linkage), tuple(attrs),
                        init, values, 0, line)

    def _param(self, text: str, line: int) -> Param:
        m = _SIMPLE_PARAM_RE.match(text)
        if m:  # the common '.param .u64 name' form
            space, typ, name = m.groups()
            return Param(name, typ, space)
        head, name, dims, init = self._decl_parts(text, line, "parameter")
        if init is not None:
            raise self.error(f"parameter '{name}' cannot have an initialiser", line)
        space = head[0][1:]
        if space not in ("param", "reg"):
            raise self.error(f"expected .param or .reg before parameter '{name}'", line)
        p = Param(name, "", space)
        after_ptr = False
        for tok in head[1:]:
            t = tok[1:]
            if tok.startswith(".align"):
                a = int(tok.split()[1])
                if after_ptr:
                    p.ptr_align = a
                else:
                    p.align = a
            elif t == "ptr":
                p.ptr = True
                after_ptr = True
            elif after_ptr and t in VAR_SPACES:
                p.ptr_space = t
            elif not p.type:
                p.type = t
            else:
                raise self.error(f"unexpected '{tok}' in parameter '{name}'", line)
        if not p.type:
            raise self.error(f"parameter '{name}' lacks a type", line)
        p.dims = dims
        return p

    def _header(self, hdr: str, line: int) -> Function:
        m = _HDR_RE.match(hdr)
        if not m:
            raise self.error(f"bad function header '{_normalise(hdr)[:80]}'", line)
        link, kind, rets, name, params, rest = m.groups()
        f = Function(name, kind, tuple(t[1:] for t in link.split()), line=line)
        if rets is not None:
            if kind == "entry":
                # '.entry (x) name' is not PTX
                raise self.error("a .entry cannot have return parameters", line)
            f.returns = [self._param(p, line) for p in rets.split(",") if p.strip()]
        if params:
            f.params = [self._param(p, line) for p in params.split(",") if p.strip()]
        pos = 0
        rest = rest.rstrip()
        while pos < len(rest):
            pm = _PERF_RE.match(rest, pos)
            if not pm or pm.end() == pos:
                raise self.error(f"unexpected '{rest[pos:].strip()[:40]}' after header of "
                                 f"'{name}'", line)
            f.directives.append((pm.group(1), _normalise(pm.group(2))))
            pos = pm.end()
            while pos < len(rest) and rest[pos].isspace():
                pos += 1
        return f

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


def parse_ptx(text: str, file: str | Path | None = None) -> Module:
    """Parse PTX text; ``file`` only names the source in error messages."""
    # The IR holds no reference cycles, so the cyclic garbage collector has
    # nothing to find while we allocate hundreds of thousands of objects; its
    # repeated full scans would otherwise cost a third of the time on big files.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Parser(text, str(file) if file is not None else None).parse()
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
