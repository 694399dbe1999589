"""CUDA names of PTX things: a kernel's name under C++ mangling, its parameters' names in the ``.cu``.

Why: PTX keeps a C++ kernel only as its mangled entry (``_Z8stencil5PKfPfii``) and its
parameters only as positions (``_Z8stencil5PKfPfii_param_3``); users know ``stencil5`` and
``ny``. These helpers recover the CUDA names so that ``--kernel`` and ``--arg NAME=`` take them
and errors and reports show them. Pure Python (no ``c++filt``): only the name part of a mangled
entry is decoded, which is all a kernel's name needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeperf.errors import PipeperfError


def demangle_name(entry: str) -> str | None:
    """The qualified name of an Itanium-mangled function (``_Z8stencil5IfEvPKT_PS0_ii`` ->
    ``stencil5``, ``_ZN2ns6kernelEPf`` -> ``ns::kernel``); None if ``entry`` is not mangled.
    Template arguments and parameter types are not decoded."""
    if not entry.startswith("_Z"):
        return None
    i = 2
    if entry.startswith("L", i):               # internal linkage (a static function)
        i += 1
    nested = entry.startswith("N", i)
    if nested:
        i += 1
        while i < len(entry) and entry[i] in "rVK":   # cv-qualifiers of a member function
            i += 1
    parts: list[str] = []
    while i < len(entry):
        if entry.startswith("St", i) and not parts:      # ::std::
            parts.append("std")
            i += 2
            continue
        m = re.match(r"\d+", entry[i:])
        if not m:
            break
        n = int(m.group())
        name = entry[i + len(m.group()):i + len(m.group()) + n]
        if len(name) < n:
            return None
        parts.append("(anonymous namespace)" if name.startswith("_GLOBAL__N") else name)
        i += len(m.group()) + n
        if not nested:
            break
    return "::".join(parts) or None


def base_name(entry: str) -> str:
    """The unqualified CUDA name of a kernel entry (``stencil5``); ``entry`` if not mangled."""
    name = demangle_name(entry)
    return name.rsplit("::", 1)[-1] if name else entry


def display_name(entry: str) -> str:
    """How reports name a kernel: ``stencil5 (_Z8stencil5PKfPfii)`` when mangled, else the name."""
    name = demangle_name(entry)
    return f"{name} ({entry})" if name else entry


def resolve_entry(entries: Sequence[str], name: str | None, file: str | None = None) -> str:
    """The entry ``--kernel NAME`` means, as people write it: an exact (mangled or ``extern "C"``)
    entry name, else the one whose demangled signature (``axpy<__half>(int, __half, const
    __half*, __half*)``, as c++filt writes it or with ``const`` first), ``name<args>``
    (``axpy<__half>``), qualified name (``ns::k``) or base name (``k``) is ``name``; with no name,
    the only kernel. Ambiguity (overloads, several template instances) is an error listing the
    candidates by signature."""
    if name is None:
        if len(entries) == 1:
            return entries[0]
        if not entries:
            raise PipeperfError("no .entry kernel in the module", file=file)
        raise PipeperfError("several kernels (" + ", ".join(display_name(e) for e in entries)
                            + "): choose one with --kernel", file=file)
    if name in entries:
        return name
    want = _normal(name)
    hits = [e for e in entries if want in _spellings(e)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise PipeperfError(f"kernel '{name}' is ambiguous (overloaded or several template instances): pass one of "
                            + ", ".join(f"{signature(e) or e} ({e})" for e in hits), file=file)
    raise PipeperfError(f"no kernel '{name}' (kernels: "
                        + (", ".join(display_name(e) for e in entries) or "none") + ")", file=file)


def signature(entry: str) -> str | None:
    """The demangled signature of a kernel entry without its return type
    (``_Z4axpyI6__halfEviT_PKS1_PS1_`` -> ``axpy<__half>(int, __half, const __half*, __half*)``);
    None if ``entry`` is not mangled or :class:`_Mangled` cannot read it."""
    parsed = _parse_mangled(entry)
    if parsed is None:
        return None
    name, types = parsed
    return re.sub(r"\(([a-z][\w ]*)\)(n?)(\d+)", _literal, f"{name}({', '.join(types)})")


def _literal(m: re.Match) -> str:
    """A template literal as c++filt writes it: ``(int)128`` -> ``128``, ``(bool)1`` -> ``true``."""
    typ, sign, digits = m.groups()
    if typ == "bool":
        return "true" if digits != "0" else "false"
    suffix = {"unsigned int": "u", "long": "l", "unsigned long": "ul"}.get(typ, "")
    return ("-" if sign else "") + digits + suffix if typ in ("int", "unsigned int", "long", "unsigned long") \
        else m.group(0)


#: cv-qualifiers, which a kernel name matches without (c++filt puts them after the type)
_QUALIFIERS = re.compile(r"\b(?:const|volatile|__restrict__|__restrict|restrict)\b")
#: typedef names users write for CUDA's 16-bit types (mangling says the class)
_TYPEDEF_NAMES = {"half": "__half", "half2": "__half2", "nv_bfloat16": "__nv_bfloat16",
                  "nv_bfloat162": "__nv_bfloat162"}


def _normal(text: str) -> str:
    """A kernel name or signature in one spelling: no cv-qualifiers, return type or spaces;
    template literals as plain numbers (``(int)128``, ``128u`` -> ``128``, ``true`` -> ``1``)."""
    text = _QUALIFIERS.sub(" ", text.strip())
    text = re.sub(r"^void\s+(?=[\w:]+(?:<|\())", "", text)        # void axpy<float>(...)
    text = re.sub(r"\([a-z_][\w ]*\)(n?)(\d+)", lambda m: ("-" if m.group(1) else "") + m.group(2), text)
    text = re.sub(r"\b(\d+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU])\b", r"\1", text)
    text = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", text))
    text = re.sub(r"\b\w+\b", lambda m: _TYPEDEF_NAMES.get(m.group(), m.group()), text)
    return re.sub(r"\s+", "", text)


def _spellings(entry: str) -> set[str]:
    """Every spelling (:func:`_normal`) that names ``entry``: its qualified and base name, with
    and without template arguments and parameter list."""
    out = {entry}
    qualified = demangle_name(entry)
    if qualified:
        out |= {qualified, base_name(entry)}
    parsed = _parse_mangled(entry)
    if parsed:
        name, types = parsed
        short = re.sub(r"^(?:[^<:]+::)+", "", name)          # ns::axpy<T> -> axpy<T>
        params = f"({', '.join(types)})"
        out |= {name, short, name + params, short + params}
        plain = qualified or name
        out |= {plain + params, base_name(entry) + params}
    return {_normal(s) for s in out}


# ---------------------------------------------------------------- parameter names in the source

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
#: words that end a parameter's type, never its name
_NOT_NAMES = {"const", "volatile", "__restrict__", "__restrict", "restrict", "unsigned", "signed", "int",
              "char", "short", "long", "float", "double", "bool", "void", "size_t", "struct", "class",
              "typename", "auto", "half", "__half", "__nv_bfloat16"}
_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}


def _blank(m: re.Match) -> str:
    text = m.group()
    if text.startswith(("\"", "'")):
        return '""'                              # a string's commas and parentheses are not C++
    return " " * len(text) if "\n" not in text else "\n" * text.count("\n")


def _match(text: str, i: int) -> int:
    """Index just past the bracket that closes the one at ``i``; -1 if unbalanced. Angle brackets
    count only as template brackets (inside them, ``(``..``)`` still nest)."""
    stack = [_CLOSE[text[i]]]
    j = i + 1
    while j < len(text) and stack:
        c = text[j]
        if c in "([{" or (c == "<" and stack[-1] == ">"):
            stack.append(_CLOSE[c])
        elif c == stack[-1]:
            stack.pop()
        elif c in ")]}" and stack[-1] == ">":   # an unbalanced '<' was a comparison
            stack.pop()
            continue
        j += 1
    return j if not stack else -1


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside any brackets."""
    parts, depth, start = [], 0, 0
    for j, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            parts.append(text[start:j])
            start = j + 1
    parts.append(text[start:])
    return parts


def _param_name(decl: str) -> str:
    """``const T* __restrict__ in`` -> ``in``; ``int n = 4`` -> ``n``; ``float*`` -> ``""``."""
    depth, cut = 0, len(decl)
    for j, c in enumerate(decl):                  # drop a default argument
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "=" and depth == 0:
            cut = j
            break
    decl = re.sub(r"\[[^\]]*\]", " ", decl[:cut]).strip()     # int a[4]
    inner = re.search(r"\(\s*[*&]+\s*(?:__restrict__\s*|const\s*)*([A-Za-z_]\w*)\s*\)", decl)
    if inner:                                      # float (*rows)[4], void (*f)(int)
        return inner.group(1)
    m = re.search(r"([A-Za-z_]\w*)\s*$", decl)
    if not m or m.group(1) in _NOT_NAMES or not decl[:m.start()].strip():
        return ""
    return m.group(1)


def _param_type(decl: str, name: str) -> str:
    """The type of a declaration ``decl`` of parameter ``name`` without its cv-qualifiers and
    ``struct``/``class`` (``const __half alpha`` -> ``__half``); an array (a pointer) keeps ``[]``."""
    decl = decl.split("=", 1)[0]
    if name:
        decl = decl[:decl.rfind(name)] + decl[decl.rfind(name) + len(name):]
    decl = re.sub(r"\b(?:const|volatile|__restrict__|__restrict|restrict|struct|class|typename)\b", " ", decl)
    return re.sub(r"\s*([*&\[\](),<>:])\s*", r"\1", " ".join(decl.split())).removeprefix("::")


def _declarations(source: str, name: str) -> list[tuple[bool, list[str], list[str]]]:
    """(is a definition, parameter names, their types) of every ``__global__`` function called ``name``."""
    text = _COMMENTS.sub(_blank, source)
    out = []
    for m in re.finditer(r"(?<![\w:.>])" + re.escape(name) + r"\s*(?=[<(])", text):
        j = m.end()
        if text.startswith("<<<", j):            # a launch, not a declaration
            continue
        if text[j] == "<":                         # explicit template arguments
            j = _match(text, j)
            if j < 0:
                continue
            j = len(text) - len(text[j:].lstrip())
            if j >= len(text) or text[j] != "(":
                continue
        close = _match(text, j)
        if close < 0:
            continue
        start = max(text.rfind(c, 0, m.start()) for c in ";}{")
        head = text[start + 1:m.start()]
        if not re.search(r"\b__global__\b", head):
            continue
        rest = text[close:].lstrip()
        inner = text[j + 1:close - 1].strip()
        decls = [] if inner in ("", "void") else _split_top(inner)
        params = [_param_name(p) for p in decls]
        out.append((rest.startswith("{"), params, [_param_type(d, n) for d, n in zip(decls, params)]))
    return out


def cuda_param_names(source: str, kernel: str, count: int | None = None) -> list[str]:
    """Parameter names of ``kernel`` (an entry name, mangled or not) in CUDA source text, as PTX
    lists its parameters (``""`` for an unnamed one); ``[]`` when the source does not say (no
    such ``__global__`` function, or overloads with ``count`` parameters that name them differently).
    Handles templates, ``__restrict__``, default arguments, ``extern "C"``, ``__launch_bounds__``
    and signatures over several lines."""
    decls = _declarations(source, base_name(kernel))
    if count is not None:
        decls = [d for d in decls if len(d[1]) == count]
    for want_definition in (True, False):
        found = {tuple(p) for is_def, p, _ in decls if is_def == want_definition and any(p)}
        if len(found) == 1:
            return list(found.pop())
        if len(found) > 1:
            return []
    return []


def cuda_param_types(entry: str, source: str | None, count: int) -> list[str]:
    """The C++ types of a kernel's ``count`` parameters (``__half``, ``float4``, ``ns::S``,
    ``float*``): from the mangled entry's parameter list (:func:`mangled_param_types`), or, for an
    ``extern "C"`` kernel, from its declaration in ``source`` with cv-qualifiers dropped (its
    typedef names, ``half``, as written); ``[]`` when neither says."""
    if entry.startswith("_Z"):
        types = mangled_param_types(entry)
        return types if types is not None and len(types) == count else []
    if not source:
        return []
    decls = [d for d in _declarations(source, entry) if len(d[1]) == count]
    for want_definition in (True, False):
        found = {tuple(t) for is_def, _, t in decls if is_def == want_definition}
        if len(found) == 1:
            return list(found.pop())
        if len(found) > 1:
            return []
    return []


# ---------------------------------------------------------------- parameter types of a mangled entry

_BUILTIN = {"v": "void", "w": "wchar_t", "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char",
            "s": "short", "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long",
            "m": "unsigned long", "x": "long long", "y": "unsigned long long", "n": "__int128",
            "o": "unsigned __int128", "f": "float", "d": "double", "e": "long double", "g": "__float128",
            "z": "...", "Dh": "half", "Dn": "decltype(nullptr)", "Di": "char32_t", "Ds": "char16_t",
            "Du": "char8_t", "Da": "auto", "Dc": "decltype(auto)"}
_STD = {"Sa": "std::allocator", "Sb": "std::basic_string", "Ss": "std::string", "Si": "std::istream",
        "So": "std::ostream", "Sd": "std::iostream"}


class _Mangled:
    """A reader of the Itanium C++ ABI's ``<type>`` grammar (5.1.5), as far as kernel parameter
    lists need it: builtin, class (plain, nested, template-id), pointer, reference, cv-qualified,
    array and function types, template parameters (``T_``) and substitutions (``S_``, 5.1.8-10).
    Anything else (local names such as lambdas, expressions, argument packs) raises ValueError."""

    def __init__(self, text: str):
        self.s, self.i = text, 0
        self.subs: list[str] = []           # substitution candidates, in the ABI's order
        self.targs: list[str] = []          # the function template's arguments (what T_ means)

    def _take(self, token: str) -> bool:
        if self.s.startswith(token, self.i):
            self.i += len(token)
            return True
        return False

    def _number(self) -> int:
        m = re.compile(r"n?\d+").match(self.s, self.i)
        if not m:
            raise ValueError(self.s[self.i:])
        self.i = m.end()
        return int(m.group().replace("n", "-"))

    def _index(self) -> int:
        """``_`` -> 0, ``<base 36>_`` -> that + 1 (substitutions and template parameters)."""
        m = re.compile(r"([0-9A-Z]*)_").match(self.s, self.i)
        if not m:
            raise ValueError(self.s[self.i:])
        self.i = m.end()
        return int(m.group(1), 36) + 1 if m.group(1) else 0

    def _source_name(self) -> str:
        n = self._number()
        name = self.s[self.i:self.i + n]
        if len(name) < n or n <= 0:
            raise ValueError(self.s)
        self.i += n
        while self._take("B"):              # ABI tags: name[abi:cxx11]
            self._source_name()
        return "(anonymous namespace)" if name.startswith("_GLOBAL__N") else name

    def _template_args(self) -> list[str]:
        assert self._take("I")
        args = []
        while not self._take("E"):
            if self._take("L"):              # a literal: L<type><value>E
                if self.s.startswith("_Z", self.i):
                    raise ValueError(self.s)
                t = self._type()
                j = self.s.index("E", self.i)
                args.append(f"({t}){self.s[self.i:j]}")
                self.i = j + 1
            elif self.s.startswith(("X", "J"), self.i):
                raise ValueError(self.s)     # expressions, argument packs
            else:
                args.append(self._type())
        return args

    def name(self, function: bool = False) -> str:
        """A (possibly nested) name. Its prefixes and template prefixes are substitution
        candidates, and so is the whole name unless it is the ``function``'s own; the function's
        template arguments are what ``T_`` means in its parameters."""
        nested = self._take("N")
        while nested and self.s[self.i:self.i + 1] in ("r", "V", "K"):
            self.i += 1
        parts: list[str] = []
        while True:
            sub = False
            if not parts and self._take("St"):
                parts.append("std::" + self._source_name())
            elif not parts and self.s.startswith("S", self.i):
                parts.append(self._substitution())
                sub = True
            elif self.s[self.i:self.i + 1].isdigit():
                parts.append(self._source_name())
            elif nested and self.s.startswith("T", self.i):
                parts.append(self._template_param())
            else:
                raise ValueError(self.s[self.i:])
            whole = "::".join(parts)
            if self.s.startswith("I", self.i):
                if not sub:
                    self.subs.append(whole)          # the template prefix
                args = self._template_args()
                parts[-1] += "<" + ", ".join(args) + ">"
                whole = "::".join(parts)
                last = not nested or self.s.startswith("E", self.i)
                if function and last:
                    self.targs = args
                else:
                    self.subs.append(whole)
            else:
                last = not nested or self.s.startswith("E", self.i)
                if not sub and not (function and last):
                    self.subs.append(whole)
            if last:
                if nested:
                    self._take("E")
                return whole

    def _substitution(self) -> str:
        for code, name in _STD.items():
            if self._take(code):
                return name
        assert self._take("S")
        k = self._index()
        if k >= len(self.subs):
            raise ValueError(self.s)
        return self.subs[k]

    def _template_param(self) -> str:
        assert self._take("T")
        k = self._index()
        if k >= len(self.targs):
            raise ValueError(self.s)
        return self.targs[k]

    def _type(self) -> str:
        s, i = self.s, self.i
        for code in (s[i:i + 2], s[i:i + 1]):
            if code in _BUILTIN:
                self.i += len(code)
                return _BUILTIN[code]
        if self._take("DF"):                 # _Float16, std::bfloat16_t
            n = self._number()
            t = "std::bfloat16_t" if self._take("b") else f"_Float{n}"
            if not t.startswith("std"):
                self._take("_")
            return t
        c = s[i:i + 1]
        if c in ("P", "R", "O"):
            self.i += 1
            t = self._type() + {"P": "*", "R": "&", "O": "&&"}[c]
        elif c in ("r", "V", "K"):
            quals = []
            while s[self.i:self.i + 1] in ("r", "V", "K"):
                quals.append({"r": "__restrict__", "V": "volatile", "K": "const"}[s[self.i]])
                self.i += 1
            t = " ".join(reversed(quals)) + " " + self._type()
        elif c == "A":
            self.i += 1
            dim = str(self._number()) if s[self.i:self.i + 1].isdigit() else ""
            if not self._take("_"):
                raise ValueError(s[self.i:])
            t = f"{self._type()}[{dim}]"
        elif c == "F":
            self.i += 1
            self._take("Y")
            ret, params = self._type(), []
            while not self._take("E"):
                if self._take("RE") or self._take("OE"):
                    break
                params.append(self._type())
            t = f"{ret}({', '.join(params)})"
        elif c == "M":
            self.i += 1
            cls = self._type()
            t = f"{self._type()} {cls}::*"
        elif c == "T":
            t = self._template_param()
            if s.startswith("I", self.i):
                self.subs.append(t)
                t += "<" + ", ".join(self._template_args()) + ">"
        elif c == "S" and not s.startswith("St", i):
            t = self._substitution()
            if not s.startswith("I", self.i):
                return t                     # a substitution is not a new candidate
            t += "<" + ", ".join(self._template_args()) + ">"
        else:
            return self.name()               # a class type: name() records its candidates
        self.subs.append(t)
        return t


def mangled_param_types(entry: str) -> list[str] | None:
    """The parameter types of an Itanium-mangled kernel (``_Z4gemmI6__halfEvmmmT_PKS1_...`` ->
    ``['unsigned long', 'unsigned long', 'unsigned long', '__half', 'const __half*', ...]``),
    template parameters replaced by their arguments; None if ``entry`` is not mangled or uses
    what :class:`_Mangled` does not read."""
    parsed = _parse_mangled(entry)
    return None if parsed is None else parsed[1]


def _parse_mangled(entry: str) -> tuple[str, list[str]] | None:
    """(the name with its template arguments, ``ns::axpy<__half>``; the parameter types) of a
    mangled entry; None if it is not mangled or :class:`_Mangled` cannot read it."""
    if not entry.startswith("_Z"):
        return None
    m = _Mangled(entry)
    m.i = 2
    m._take("L")                             # internal linkage
    try:
        name = m.name(function=True)
        types = []
        while m.i < len(entry):
            types.append(m._type())
    except (ValueError, IndexError):
        return None
    if m.targs and types:                    # a template's encoding starts with its return type
        types = types[1:]
    return name, [] if types == ["void"] else types
