"""Where a PTX instruction comes from in the CUDA source, from nvcc ``-lineinfo``'s ``.loc``.

A PTX line number is not a source line, and a ``.loc``'s line is a line of the file its first
number indexes (``.file N "path"``), which for inlined code is often a CUDA header: nvcc writes,
before an ``atomicAdd`` of ``reduce.cu`` line 9::

    .loc 1 9 9
    .loc 2 84 3, function_name $L__info_string0, inlined_at 1 9 9

(file 2 is ``sm_20_atomic_functions.hpp``); a call inlined through several functions gives one
``.loc`` per level, each ``inlined_at`` the position of the one before. :class:`SourceMap`
rebuilds that chain for every instruction and reports the innermost position in a file the user
owns (any file outside the CUDA toolkit's and the system's include folders): the line the user
wrote. Toolkit frames below it are kept as ``inlined_from`` (``reduce.cu:9 (atomicAdd, inlined
from sm_20_atomic_functions.hpp:84)``); for code of a user header's inline function the header's
line is the one reported (that is the code to change), with the call sites as ``inlined_at``
(``myhdr.cuh:4 (in scale2, inlined at reduce.cu:7)``).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function, Instruction, Loc, Module, Section

#: folders of the CUDA toolkit's and the system's headers, wherever the toolkit is installed
#: (``/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include``, conda's ``targets/*/include``,
#: ``cuda/include`` as the test corpus spells it, ``/usr/include``, GCC's own headers)
_SYSTEM_HEADER = re.compile(r"(?:^|/)(?:cuda[^/]*/include|targets/[^/]+/include|usr/include"
                            r"|usr/lib/gcc|nvvm/include)/")


@dataclass(frozen=True, slots=True)
class Frame:
    """One level of an inlining chain: a position in ``file`` (as reports name it) inside
    ``function`` (the inlined function's name; None for the PTX function's own code)."""

    file: str
    line: int
    col: int
    function: str | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """The source line of one PTX instruction: ``file:line`` (col) is the innermost position in a
    user file; ``function`` the inlined function it lies in (None: the kernel's own code);
    ``inlined_from`` the toolkit frames below it, outermost first (``atomicAdd`` in
    ``sm_20_atomic_functions.hpp``); ``inlined_at`` the call sites of ``function``, innermost
    first; ``ptx_line`` the instruction's line in the PTX."""

    file: str
    line: int
    col: int
    ptx_line: int
    function: str | None = None
    inlined_from: tuple[Frame, ...] = ()
    inlined_at: tuple[Frame, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def detail(self) -> str:
        """What was inlined here, e.g. ``atomicAdd, inlined from sm_20_atomic_functions.hpp:84``."""
        parts = []
        if self.inlined_from:
            inner = self.inlined_from[-1]
            parts.append(f"{self.inlined_from[0].function or 'code'}, inlined from {inner}")
        if self.function is not None:
            at = ", ".join(str(f) for f in self.inlined_at)
            parts.append(f"in {self.function}" + (f", inlined at {at}" if at else ""))
        return "; ".join(parts)

    def __str__(self) -> str:
        d = self.detail
        return self.where + (f" ({d})" if d else "")


class SourceMap:
    """Source locations of a module's instructions (``.file`` table, ``.loc`` chains and the
    inlined functions' names from ``.debug_str``); chains are built once per function."""

    def __init__(self, module: Module):
        self.module = module
        self.files = module.files
        self._names: dict[str, str] | None = None
        self._chains: dict[int, list] = {}
        self._shown: dict[int, tuple[str, bool]] = {}

    # ------------------------------------------------------------------ lookups
    def location(self, func: Function, ins: Instruction) -> SourceLocation | None:
        """The source location of ``ins`` (an instruction of ``func``); None where the PTX gives
        none (no ``-lineinfo``, or nvcc's line 0 for code of no particular line)."""
        chains = self._chains.get(id(func))
        if chains is None:
            chains = self._chains[id(func)] = loc_chains(func)
        chain = chains[ins.index] if ins.index < len(chains) else None
        if not chain:
            return None
        frames = [self._frame(loc) for loc in chain]
        user = [k for k, loc in enumerate(chain) if self._file(loc.file)[1]]
        k = user[-1] if user else 0
        if frames[k].line <= 0:
            return None
        f = frames[k]
        return SourceLocation(f.file, f.line, f.col, ins.line, f.function,
                              tuple(frames[k + 1:]), tuple(reversed(frames[:k])))

    def at_ptx_line(self, line: int) -> tuple[Function, Instruction] | None:
        """The instruction on PTX line ``line`` (any function of the module)."""
        for func in self.module.functions:
            for x in func.instructions:
                if x.line == line:
                    return func, x
        return None

    def where(self, func: Function, ins: Instruction) -> str:
        """``PTX line N`` with the source location beside it when there is one, for messages."""
        loc = self.location(func, ins)
        return f"PTX line {ins.line}" + (f" ({loc})" if loc is not None else "")

    # ------------------------------------------------------------------ frames and names
    def _frame(self, loc: Loc) -> Frame:
        fn = None
        if loc.function_name is not None:
            fn = self.names().get(loc.function_name, loc.function_name)
        return Frame(self._file(loc.file)[0], loc.line, loc.col, fn)

    def _file(self, index: int) -> tuple[str, bool]:
        """(the name reports give file ``index``, whether the user owns it)."""
        got = self._shown.get(index)
        if got is None:
            got = self._shown[index] = _show(self.files.get(index), self.module.file)
        return got

    def names(self) -> dict[str, str]:
        """``.debug_str`` label -> the (unmangled) function name it holds."""
        if self._names is None:
            self._names = {}
            for s in self.module.items:
                if type(s) is Section and s.name == ".debug_str":
                    for label, data in _strings(s.text).items():
                        self._names[label] = plain_name(data)
        return self._names


def loc_chains(func: Function) -> list:
    """Per instruction of ``func`` the ``.loc`` chain in force, outermost first (tuples of Loc).

    A ``.loc`` with ``inlined_at F L C`` continues the chain at the level whose position is
    F L C; nvcc writes the levels one after the other, but may also resume a chain opened
    earlier (code moved between inlined calls), so the last chain ending at each position is
    remembered; a position never seen stands alone."""
    out: list = []
    chain: tuple = ()
    ends: dict[tuple[int, int, int], tuple] = {}
    for item in func.body:
        t = type(item)
        if t is Instruction:
            out.append(chain)
        elif t is Loc:
            at = item.inlined_at
            if at is None:
                chain = (item,)
            else:
                parent = None
                for k in range(len(chain) - 1, -1, -1):
                    c = chain[k]
                    if (c.file, c.line, c.col) == at:
                        parent = chain[:k + 1]
                        break
                if parent is None:
                    parent = ends.get(at) or (Loc(*at),)
                chain = parent + (item,)
            ends[(item.file, item.line, item.col)] = chain
    return out


def _show(name: str | None, compiled: str | None) -> tuple[str, bool]:
    """How reports name a ``.file`` entry, and whether it is the user's (not a toolkit or system
    header). The compiled ``.cu`` is named as the user gave it, files beside it relative to that
    name, toolkit headers by their base name."""
    if name is None:
        return "<unknown file>", False
    norm = os.path.normpath(name)
    if is_system_header(norm):
        return os.path.basename(norm), False
    if compiled and compiled.endswith(".cu"):
        cu = Path(compiled)
        try:
            real, home = Path(norm).resolve(), cu.resolve()
        except OSError:
            return norm, True
        if real == home:
            return compiled, True
        if real.is_relative_to(home.parent):
            return os.path.normpath(cu.parent / real.relative_to(home.parent)), True
    return norm, True


def is_system_header(path: str) -> bool:
    """Whether ``path`` is a header of the CUDA toolkit or the system, not one the user owns."""
    norm = os.path.normpath(path)
    if _SYSTEM_HEADER.search(norm):
        return True
    return any(norm.startswith(d + os.sep) for d in _toolkit_dirs())


@lru_cache(maxsize=1)
def _toolkit_dirs() -> tuple[str, ...]:
    """``include`` and ``targets`` of the toolkit whose nvcc is on PATH, $CUDA_HOME, $CUDA_PATH."""
    roots = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parent.parent)
    roots += [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    return tuple(os.path.normpath(r / sub) for r in roots for sub in ("include", "targets"))


_LABEL = re.compile(r"([\w$]+)\s*:")
_B8 = re.compile(r"\.b8\s+([\d,\s]+)")


def _strings(text: str) -> dict[str, bytes]:
    """Each label of a ``.debug_str`` section and its bytes up to the terminating zero."""
    out: dict[str, bytes] = {}
    marks = list(_LABEL.finditer(text))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        data = bytearray()
        for b in _B8.finditer(text, m.end(), end):
            data += bytes(int(v) for v in b.group(1).replace(",", " ").split())
        out[m.group(1)] = bytes(data.split(b"\0", 1)[0])
    return out


def plain_name(mangled: bytes | str) -> str:
    """The unqualified name of an Itanium-mangled function (``_Z6scale2ff`` -> ``scale2``,
    ``_ZN39_INTERNAL_..._reduce_cu_05d7363a9atomicAddEPff`` -> ``atomicAdd``); other spellings
    are returned as they are."""
    s = mangled.decode("latin-1") if isinstance(mangled, bytes) else mangled
    if not s.startswith("_Z"):
        return s
    i, nested = 2, False
    if s[i:i + 1] == "L":
        i += 1
    if s[i:i + 1] == "N":
        i, nested = i + 1, True
        while s[i:i + 1] in ("K", "V", "r", "L"):
            i += 1
    last = None
    while i < len(s) and s[i].isdigit():
        j = i
        while j < len(s) and s[j].isdigit():
            j += 1
        n = int(s[i:j])
        last, i = s[j:j + n], j + n
        if not nested:
            break
    return last or s


def at_source(e: PipeperfError, module: Module) -> PipeperfError:
    """An error at a PTX line of ``module``, told where it is in the source.

    For a compiled ``.cu`` (``module.file``) the PTX is not a file the user has, so the error
    moves to the source line (``reduce.cu:9: ... (atomicAdd, inlined from
    sm_20_atomic_functions.hpp:84; PTX line 50)``), or, with no ``.loc`` for it, names the PTX
    line as one of the ``.cu``'s PTX, never as a line of the ``.cu``. For a ``.ptx`` file the PTX
    line stays first and the source line is added."""
    if e.line is None or module.file is None or e.file != module.file:
        return e
    sm = SourceMap(module)
    hit = sm.at_ptx_line(e.line)
    loc = sm.location(*hit) if hit is not None else None
    if not module.file.endswith(".cu"):
        if loc is None:
            return e
        d = f", {loc.detail}" if loc.detail else ""
        return type(e)(f"{e.message} (at {loc.where}{d})", file=e.file, line=e.line)
    if loc is None:
        name = os.path.basename(module.file)
        return type(e)(f"{e.message} (PTX line {e.line} of {name}'s PTX, which gives no "
                             f"source line for it)", file=e.file)
    d = f"{loc.detail}; " if loc.detail else ""
    return type(e)(f"{e.message} ({d}PTX line {e.line})", file=loc.file, line=loc.line)
