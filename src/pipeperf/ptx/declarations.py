"""PTX declarations: ``.reg`` lines, variables (module and function scope), parameters and
function headers (PTX ISA 9.0, ch. 5 and 11).

The statement parser (:mod:`pipeperf.ptx.parser`) recognises a declaration; the methods here
read its text. Declarations repeat across kernels and files, so their parsed fields are
interned in ``_DECLCACHE`` (cleared with the parser's other intern tables).
"""

from __future__ import annotations

import re
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function, Immediate, Param, RegDecl, Symbol, Variable
from pipeperf.ptx.operands import parse_immediate

_REG_DECL_RE = re.compile(r"\s*(?:\.(v2|v4|v8)\s+)?\.(\w+)\s+(.+?)\s*\Z", re.DOTALL)
_REG_NAME_RE = re.compile(r"\s*([%\w$]+)\s*(?:<\s*(\d+)\s*>)?\s*\Z")
_HDR_RE = re.compile(r"""
    ((?:\.(?:visible|extern|weak)\s+)*)\.(entry|func)\s*
    (?:\(\s*([^)]*?)\s*\)\s*)?
    ([\w$]+)\s*
    (?:\(\s*([^)]*?)\s*\))?
    (.*)\Z""", re.VERBOSE | re.DOTALL)
_SIMPLE_PARAM_RE = re.compile(r"\s*\.(param|reg)\s+\.(?!align\b|ptr\b)(\w+)\s+([\w$%]+)\s*\Z")
_PERF_RE = re.compile(r'\s*\.(\w+)((?:\s*(?:\d+|"[^"]*")\s*,?)*)')
_DECL_HEAD_RE = re.compile(r"\s*(\.align\s+\d+|\.attribute\s*\([^)]*\)|\.[\w:]+)")
_DECL_NAME_RE = re.compile(r"\s*([\w$%]+)((?:\s*\[\s*[^\]]*\])*)\s*(?:=\s*(.*?))?\s*\Z", re.DOTALL)
_DIM_RE = re.compile(r"\[\s*([^\]]*?)\s*\]")
_INIT_ITEM_RE = re.compile(r"generic\s*\(\s*[\w$]+\s*\)(?:\s*\+\s*\d+)?|[^,{}\s][^,{}]*")
_WS = re.compile(r"\s+")

VAR_SPACES = frozenset({"global", "shared", "local", "const", "param", "tex"})
LINKAGES = frozenset({"visible", "extern", "weak", "common"})
#: registers one ``%r<N>`` range may declare: every one becomes a name, so a mutated or hostile
#: file with N = 2^32 would exhaust memory; nvcc's largest kernels declare about 10^5 (a limit of ours, said as such)
MAX_REGISTER_RANGE = 1 << 20
_DECLCACHE: dict[str, tuple[Any, ...]] = {}


def _normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


class DeclarationParser:
    """Readers of declarations; the statement parser is one (it sets ``file``)."""

    file: str

    def error(self, message: str, line: int, column: int | None = None) -> PipeperfError:
        """The error to raise for ``message`` at ``line`` (and ``column``) of the file."""
        return PipeperfError(_normalise(message), file=self.file, line=line, column=column)

    def _reg_decl(self, dargs: str, scope: int, line: int) -> RegDecl:
        key = ".reg" + dargs
        hit = _DECLCACHE.get(key)
        if hit is not None:
            return RegDecl(*hit, scope, line)  # type: ignore[call-arg]  # hit: the leading fields
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
            return Variable(*hit, 0, line)  # type: ignore[call-arg]  # hit: the leading fields
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
            vals: list[Immediate | Symbol | str] = []
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
