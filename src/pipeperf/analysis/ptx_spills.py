"""PTX IDGs: the register spills ptxas adds, taken from the SASS.

The PTX has no spill code: ptxas decides what does not fit in the registers and writes it to
local memory (``STL``) and reads it back (``LDL``), and a build that spills 2.4-5.5 KiB per
thread (Kernel Tuner's convolution, 32x8 blocks of 12 or more outputs per thread on sm_90) runs
4x what its PTX IDGs predict. The PTX path already has the build's
:class:`~pipeperf.analysis.sass_trace.SassView`; for each warp's PTX trace its block counts
(:meth:`SassView.solve`, the SASS path's, from the work the trace does per source line) say how
often each ``LDL``/``STL`` ran. Each is added on its source line (nvdisasm's line markers and the
PTX's ``.loc`` name the same lines), spread evenly over that line's instructions in the trace: a
reload just before one of them, which then reads it (the IDG builder's load hoisting moves it up
as ptxas' schedule would), a spill store just after one, reading what it wrote. Their classes are
the SASS path's local classes (:mod:`pipeperf.hardware.local_memory`: L1/L2 capacity shares, the
misses charged as global accesses), so mapper g's L2 and DRAM costs apply to them too.

Approximations, said in the report: which instruction of a line a reload feeds and a store
follows is not known (the SASS's registers are not the PTX's); a local access at a line no traced
PTX instruction has (or none) is spread over the whole trace, feeding nothing. Only builds ptxas
reports spills for get any; a line where the PTX itself may access local memory (a stack array:
``ld.local``/``st.local`` or generic) keeps the PTX's accesses and adds none.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pipeperf.hardware.local_memory import LOCAL_OPCODES
from pipeperf.hardware.sass_mapper import access_bytes

if TYPE_CHECKING:
    from pipeperf.analysis.sass_trace import LineKey, SassView
    from pipeperf.ptx.ir import Function

#: one kind of spill access on a line: (SASS opcode, class name, bytes per thread)
Kind = tuple[str, str, int]


def has_spill_code(view: SassView, func: Function, resources: Mapping[str, int]) -> bool:
    """Whether ptxas reports spills (``resources``: its ``-v`` figures for this build) and the SASS
    has local accesses at lines where the PTX has none: a stack array's accesses are the PTX's
    own (``ld.local``, or generic ones into the ``cvta.local`` frame: lm_gemm_v02_vec's 32 B)."""
    if not resources.get("spill_stores") and not resources.get("spill_loads"):
        return False
    own = _ptx_local_lines(view, func)
    return any(x.opcode in LOCAL_OPCODES and view.sass_keys[i] not in own
               for i, x in enumerate(view.sass.instructions))


def _ptx_local_lines(view: SassView, func: Function) -> frozenset[LineKey | None]:
    """The lines where the PTX may access local memory: ``.local`` and generic loads and stores."""
    return frozenset(k for x, k in zip(func.instructions, view.ptx_keys)
                     if x.op.root in ("ld", "st") and x.op.space in ("local", None))


@dataclass
class PtxSpills:
    """``insert(entries)``: a warp's PTX trace with the SASS's spill loads and stores added (module
    docstring), in the form :func:`~pipeperf.idg.build.inserted_entries` reads. Counts what it
    added over the warps it was given (the report's note)."""

    view: SassView
    func: Function
    class_of: Callable[[Any], str]          # SASS instruction -> its local class on this GPU
    resources: Mapping[str, int] = field(default_factory=dict)   # ptxas' (local_bytes, spill_stores, ...)
    added: dict[str, int] = field(default_factory=lambda: defaultdict(int))   # opcode -> accesses
    spread: int = 0                         # of those, at a line no traced instruction has
    ptx_instructions: int = 0               # the traced PTX instructions they were added to
    warps: int = 0
    relaxed: bool = False

    def __post_init__(self) -> None:
        own = _ptx_local_lines(self.view, self.func)
        ins = self.view.sass.instructions
        block_of = {i: b.index for b in self.view.sass.blocks for i in range(b.start, b.end)}
        #: per SASS spill access: (block, line, kind)
        self.sites: list[tuple[int, LineKey | None, Kind]] = [
            (block_of[i], self.view.sass_keys[i], (x.opcode, self.class_of(x), access_bytes(x)))
            for i, x in enumerate(ins)
            if x.opcode in LOCAL_OPCODES and self.view.sass_keys[i] not in own and i in block_of]

    def insert(self, entries: Sequence[Mapping]) -> list:
        if not self.sites or not entries:
            return list(entries)
        counts, _flows, relaxed = self.view.solve(self.view.demand(entries)[0])
        self.relaxed |= relaxed
        per_line: dict[LineKey | None, dict[Kind, int]] = defaultdict(lambda: defaultdict(int))
        for b, key, kind in self.sites:
            n = int(round(counts[b]))
            if n > 0:
                per_line[key][kind] += n
        keys = self.view.ptx_keys
        at: dict[LineKey, list[int]] = defaultdict(list)       # line -> positions of its entries
        for j, e in enumerate(entries):
            pc = e["pc"]
            k = keys[pc] if pc < len(keys) else None
            if k is not None and k in per_line:
                at[k].append(j)
        before: dict[int, list[tuple[Kind, bool]]] = defaultdict(list)     # (kind, feeds the entry)
        after: dict[int, list[Kind]] = defaultdict(list)
        everywhere = list(range(len(entries)))
        for key, kinds in per_line.items():
            pos = at.get(key) if key is not None else None
            feeds = bool(pos)
            if not pos:
                self.spread += sum(kinds.values())
                pos = everywhere
            for place, kind in _spread(kinds, len(pos)):
                if kind[0] == "LDL":
                    before[pos[place]].append((kind, feeds))
                else:
                    after[pos[place]].append(kind)
                self.added[kind[0]] += 1
        self.warps += 1
        self.ptx_instructions += len(entries)
        out: list = []
        seq = 0
        for j, e in enumerate(entries):
            reloads = before.get(j)
            if reloads:
                names = []
                for (op, cls, width), feeds in reloads:
                    name = f"%spill.{seq}"
                    seq += 1
                    if feeds:
                        names.append(name)
                    out.append({"pc": e["pc"], "opcode": op, "cls": cls, "regs": ((), (name,)), "local": (1, width)})
                if names:
                    e = {**e, "also_reads": tuple(names)}
            out.append(e)
            for op, cls, width in after.get(j, ()):
                out.append({"pc": e["pc"], "opcode": op, "cls": cls, "regs": ("written", e["pc"]), "local": (0, width)})
        return out

    def note(self) -> str | None:
        """What was added, per warp and per traced PTX instruction (None where nothing was)."""
        n = sum(self.added.values())
        if not n or not self.warps:
            return None
        per_warp = {op: k / self.warps for op, k in sorted(self.added.items())}
        r = self.resources
        text = (f"register spills: ptxas' build spills ({r.get('spill_stores', 0)} B of spill stores, "
                f"{r.get('spill_loads', 0)} B of spill loads, {r.get('local_bytes', 0)} B of local memory per "
                "thread); the PTX has "
                f"no spill code, so {' and '.join(f'{v:.0f} {op}' for op, v in per_warp.items())} per warp "
                f"({n / max(1, self.ptx_instructions):.2f} per PTX instruction) were added from the SASS's block "
                "counts, each at its source line (a reload just before one of the line's instructions, which "
                "waits for it; a store just after one), timed as local memory")
        if self.spread:
            text += (f"; {self.spread / n:.0%} of them at lines the traced PTX does not have (the line map is "
                     "ambiguous there): spread over the whole trace, feeding nothing")
        if self.relaxed:
            text += "; the block counts are the integer program's relaxation"
        return text


def _spread(kinds: Mapping[Kind, int], places: int) -> list[tuple[int, Kind]]:
    """``kinds``' accesses at evenly spaced places among ``places`` (several at one place where
    there are more accesses than places), kinds interleaved in proportion."""
    marks = sorted(((j + 0.5) / n, kind) for kind, n in kinds.items() for j in range(n))
    return [(min(places - 1, int(p * places)), kind) for p, kind in marks]
