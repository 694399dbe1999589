"""Per-source-line data of an analysed kernel: the CUDA source beside what the analysis knows of
each line (the HTML report's source view).

Every PTX instruction of the kernel is placed on its CUDA line by nvcc's ``.loc``
(:class:`pipeperf.ptx.source_map.SourceMap`); a line gets its static PTX instructions and, per
GPU, mapper g's memory rows of that line (dynamic: requests, sectors, conflicts, DRAM bytes)
and its share of the simulated time with its top stall reasons (the analysis' per-line
attribution, :mod:`pipeperf.analysis.stalls`; nothing is estimated here).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeperf.errors import PipeperfError

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis

#: source lines shown around the kernel's first and last mapped line
CONTEXT_LINES = 2


@dataclass
class SourceLine:
    """One line of a user source file and the kernel's data on it."""

    file: str
    line: int
    text: str | None                   # None where the file cannot be read
    ptx: list[tuple[int, str, str]] = field(default_factory=list)   # (PTX line, opcode, instruction)
    memory: dict[str, list[dict]] = field(default_factory=dict)  # GPU -> mapper g's rows of this line
    time_share: dict[str, tuple[float, str]] = field(default_factory=dict)   # GPU -> (share, top reason)
    ptx_share: dict[str, dict[int, tuple[float, str]]] = field(default_factory=dict)  # GPU -> PTX line -> same

    @property
    def opcodes(self) -> Counter:
        return Counter(op for _, op, _ in self.ptx)


@dataclass
class SourceView:
    """The lines of each user file that hold kernel code (and a few around them)."""

    target: str                            # the build whose PTX lines are listed
    files: dict[str, list[SourceLine]]
    unmapped: int = 0                      # PTX instructions without a source line
    note: str = ""


def source_view(analysis: Analysis, path: str | Path) -> SourceView:
    """The source view of the analysed kernel of launch file ``path`` (.cu or .ptx): the PTX lines
    of its default build the analysis kept (:class:`~pipeperf.analysis.results.PtxLines`) and each
    prediction's memory rows and per-line time; nothing is compiled again."""
    ptx = analysis.ptx_lines
    if ptx is None:
        raise PipeperfError("the analysis kept no PTX lines for the source view")
    by_line, unmapped = ptx.by_line, ptx.unmapped
    predictions = analysis.predictions
    mem: dict[tuple[str, int], dict[str, list[dict]]] = {}
    share: dict[tuple[str, int], dict[str, tuple[float, str]]] = {}
    ptx_share: dict[tuple[str, int], dict[str, dict[int, tuple[float, str]]]] = {}
    for p in predictions:
        for t in getattr(p, "source_lines", None) or []:
            if t.file is not None:
                share.setdefault((t.file, int(t.line)), {})[p.gpu] = (t.share, t.top_reason)
                ptx_share.setdefault((t.file, int(t.line)), {})[p.gpu] = {n: (v, r) for n, v, r in t.ptx}
        for row in p.memory:
            if row.get("source_file") and row.get("source_line"):
                key = (row["source_file"], int(row["source_line"]))
                mem.setdefault(key, {}).setdefault(p.gpu, []).append(row)
    files: dict[str, list[SourceLine]] = {}
    for name in dict.fromkeys(f for f, _ in [*by_line, *mem, *share]):
        numbers = [n for f, n in [*by_line, *mem, *share] if f == name]
        text = _read_lines(name, path)
        lo = max(1, min(numbers) - CONTEXT_LINES)
        hi = max(numbers) + CONTEXT_LINES
        if text is not None:
            hi = min(hi, len(text))
        files[name] = [SourceLine(name, n, None if text is None or n > len(text) else text[n - 1],
                                  by_line.get((name, n), []), mem.get((name, n), {}), share.get((name, n), {}),
                                  ptx_share.get((name, n), {}))
                       for n in range(lo, hi + 1)]
    note = "" if files else ("the PTX has no .loc line information (compile with nvcc -lineinfo, "
                             "as pipeperf does for a .cu file)")
    return SourceView(ptx.target, files, unmapped, note)


def _read_lines(name: str, launch_file: str | Path) -> list[str] | None:
    """The lines of source file ``name`` as the report names it (relative to the working folder,
    or beside the launch's file), None when it cannot be read."""
    for candidate in (Path(name), Path(launch_file).parent / Path(name).name):
        try:
            return candidate.read_text(errors="replace").splitlines()
        except OSError:
            continue
    return None
