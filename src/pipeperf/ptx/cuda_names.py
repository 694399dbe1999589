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
    """The entry ``--kernel NAME`` means: an exact (mangled or ``extern "C"``) entry name, else the
    one whose demangled name (``ns::k``) or base name (``k``) is ``name``; with no name, the only
    kernel. Ambiguity (overloads, several template instances) is an error listing the entries."""
    if name is None:
        if len(entries) == 1:
            return entries[0]
        if not entries:
            raise PipeperfError("no .entry kernel in the module", file=file)
        raise PipeperfError("several kernels (" + ", ".join(display_name(e) for e in entries)
                            + "): choose one with --kernel", file=file)
    if name in entries:
        return name
    hits = [e for e in entries if name in (demangle_name(e), base_name(e))]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise PipeperfError(f"kernel '{name}' is overloaded: pass one of {', '.join(hits)}", file=file)
    raise PipeperfError(f"no kernel '{name}' (kernels: "
                        + (", ".join(display_name(e) for e in entries) or "none") + ")", file=file)


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


def _declarations(source: str, name: str) -> list[tuple[bool, list[str]]]:
    """(is a definition, parameter names) of every ``__global__`` function called ``name``."""
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
        params = [] if inner in ("", "void") else [_param_name(p) for p in _split_top(inner)]
        out.append((rest.startswith("{"), params))
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
        found = {tuple(p) for is_def, p in decls if is_def == want_definition and any(p)}
        if len(found) == 1:
            return list(found.pop())
        if len(found) > 1:
            return []
    return []
