"""SASS-aware IDGs: each traced warp's PTX path re-expressed as the SASS the GPU runs.

The emulator runs PTX, whose instructions are not what the GPU issues: ptxas widens loads, folds
address arithmetic, fuses integer operations, unrolls loops and schedules loads ahead of their
use. For a warp's PTX trace this module finds how often each SASS basic block ran and walks the
SASS control-flow graph in that proportion, so the IDG holds the SASS instructions, in SASS
order, with SASS register dependences.

**Block counts.** Work that ptxas neither creates nor removes is counted per source line (the
``.loc`` of the PTX and nvdisasm's line markers name the same lines): bytes loaded and stored per
space, atomics, FP32/FP16/FP64 operations (an FMA two: ptxas contracts and packs), shuffles,
barriers (kernel-wide), tensor-core MACs, SFU operations; each kind also kernel-wide.
The warp's PTX trace gives each (line, kind) total; a SASS block holds a static amount of each.
An integer program (SciPy's HiGHS) picks block counts that reproduce the totals (least absolute
error, so a few if-converted instructions do not bend the rest), with the CFG's flow conserved
up to divergence (a block whose warp runs both sides of a branch) and a cut anywhere (a trace
prefix). **Walk.** From the entry, control goes to the successor furthest behind its count
(remaining / total), which spreads an inner loop's iterations over the outer loop's; blocks left
over (divergent paths) are spliced in after a predecessor. **Memory.** A SASS memory instruction
takes mapper g's class of the PTX instruction at its line and space that ran most (mapper g saw
the widened requests: :func:`fusion_ratios`); executions beyond the PTX's (if-converted,
predicated off) take one issue slot.

Where the SASS has no CFG (indirect branches, calls) or its lines do not match the PTX, the
caller keeps the PTX IDGs and says so. The counts and the walk are :mod:`pipeperf.analysis.sass_walk`'s.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeperf.analysis.sass_walk import solve_block_counts, walk
from pipeperf.errors import PipeperfError
from pipeperf.hardware.local_memory import LOCAL_OPCODES, local_class_name
from pipeperf.hardware.mapper import resolve
from pipeperf.hardware.sass_mapper import access_bytes, map_sass, memory_space
from pipeperf.sass.listing import SassFunction, SassInstr, mma_shape
from pipeperf.sass.registers import registers

if TYPE_CHECKING:
    from pipeperf.hardware.spec import GPUSpec, InstrClass
    from pipeperf.ptx.ir import Function, Instruction

LineKey = tuple[str, int]
MemKey = tuple[LineKey, str, str]          # (line, space, kind)


def _ptx_bytes(x: Instruction) -> int:
    """Bytes per thread of a PTX memory instruction (element size x vector width)."""
    size = 4
    for t in x.op.types:
        digits = "".join(ch for ch in t if ch.isdigit())
        if digits:
            size = max(1, int(digits) // 8)
            break
    vec = next((int(m[1:]) for m in x.op.modifiers if m in ("v2", "v4", "v8")), 1)
    return size * vec


def ptx_memory(x: Instruction) -> tuple[str, str] | None:
    """(space, kind) of a PTX global/shared memory instruction the SASS keeps one for one in bytes."""
    root, space = x.op.root, x.op.space or "global"
    if root in ("ld", "ldu") and space in ("global", "shared"):
        return space, "load"
    if root == "st" and space in ("global", "shared"):
        return space, "store"
    if root in ("atom", "red") and space in ("global", "shared"):
        return space, "atomic"
    return None


_SFU_PTX = {"ex2", "lg2", "sin", "cos", "rsqrt", "tanh"}


def ptx_work(x: Instruction) -> list[tuple[str, float]]:
    """The work of one PTX instruction that its SASS keeps: (kind, amount) pairs."""
    root, types = x.op.root, x.op.types
    mem = ptx_memory(x)
    if mem is not None:
        if mem[1] == "atomic":
            return [(f"{mem[0]}.atomic", 1.0)]
        return [(f"{mem[0]}.{mem[1]}", _ptx_bytes(x) / 4)]
    if root in ("fma", "mad", "mul", "add", "sub") and types:
        # floating-point operations, an FMA two: ptxas contracts a mul and an add into one FMA
        # and packs two f16 operations into one HFMA2, the operations stay
        t, flops = types[-1], 2.0 if root in ("fma", "mad") else 1.0
        if t == "f32":
            return [("f32", flops)]
        if t == "f64":
            return [("f64", flops)]
        if t in ("f16", "bf16"):
            return [("f16", flops)]
        if t in ("f16x2", "bf16x2"):
            return [("f16", 2 * flops)]
    if root == "shfl":
        return [("shfl", 1.0)]
    if root in ("bar", "barrier") and "warp" not in x.op.modifiers:
        return [("bar", 1.0)]
    if root in _SFU_PTX or (root in ("rcp", "sqrt") and "approx" in x.op.modifiers and types[-1:] == ("f32",)):
        return [("sfu", 1.0)]
    if root in ("mma", "wmma.mma"):
        shape = next((m for m in x.op.modifiers if m.startswith("m") and "n" in m and "k" in m), "")
        try:
            m, rest = shape[1:].split("n")
            n, k = rest.split("k")
            return [("mma", int(m) * int(n) * int(k) / 1024)]
        except ValueError:
            return []
    return []


def sass_work(x: SassInstr) -> list[tuple[str, float]]:
    """The work of one SASS instruction, in :func:`ptx_work`'s kinds and units."""
    mem = memory_space(x)
    if mem is not None and mem[0] in ("global", "shared"):
        if mem[1] == "atomic":
            return [(f"{mem[0]}.atomic", 1.0)]
        if x.opcode == "LDGSTS":
            return [("global.load", access_bytes(x) / 4), ("shared.store", access_bytes(x) / 4)]
        return [(f"{mem[0]}.{mem[1]}", access_bytes(x) / 4)]
    op = x.opcode
    flops = 2.0 if op in ("FFMA", "DFMA", "HFMA2") else 1.0
    if op in ("FFMA", "FMUL", "FADD"):
        return [("f32", flops)]
    if op in ("DFMA", "DMUL", "DADD"):
        return [("f64", flops)]
    if op in ("HFMA2", "HMUL2", "HADD2"):
        # a packed pair, or one half where every register operand picks one (R2.H0_H0, ptxas'
        # form of scalar f16 arithmetic): ptxas may pack two scalar operations into one HFMA2
        regs = [o for o in x.operands[1:] if o.lstrip("-|").startswith("R") and not o.startswith("RZ")]
        scalar = bool(regs) and all(o.endswith(("H0_H0", "H1_H1")) for o in regs)
        return [("f16", flops * (1.0 if scalar else 2.0))]
    if op == "SHFL":
        return [("shfl", 1.0)]
    if op == "BAR" and "ARV" not in x.modifiers:
        return [("bar", 1.0)]
    if op == "MUFU" and x.modifiers and x.modifiers[0] not in ("RCP64H", "RSQ64H"):
        return [("sfu", 1.0)]
    if op in ("HMMA", "IMMA", "DMMA") and (mnk := mma_shape(x)) is not None:
        return [("mma", mnk[0] * mnk[1] * mnk[2] / 1024)]
    return []


def line_key(file: str, line: int) -> LineKey | None:
    return (os.path.basename(file), line) if line > 0 else None


def toolkit_headers(files: Mapping[int, str]) -> frozenset[str]:
    """The base names of the CUDA toolkit's and the system's headers in a PTX module's ``.file``
    table (:func:`~pipeperf.ptx.source_map.is_system_header`: the files the user does not own)."""
    from pipeperf.ptx.source_map import is_system_header

    return frozenset(os.path.basename(p) for p in files.values() if is_system_header(p))


def chain_key(chain: Sequence[tuple[str, int]], toolkit: Collection[str]) -> LineKey | None:
    """The line that work on an inlining ``chain`` (file, line; innermost first) counts on: the
    innermost line outside the toolkit's headers, the line source reports name too
    (:class:`~pipeperf.ptx.source_map.SourceMap`). A header's line (``__hadd``,
    ``__shfl_down_sync``, a wmma fragment load) is one line for every call site, and ptxas may put
    the instruction it makes of one (a packed HFMA2 of two ``__hfma``) on the caller's line: the
    call site in the user's code names it on both sides (the innermost line where every frame is
    a header's)."""
    for f, n in chain:
        b = os.path.basename(f)
        if b not in toolkit:
            return (b, n) if n > 0 else None
    return line_key(*chain[0]) if chain else None


def ptx_chains(func: Function, files: Mapping[int, str]) -> list[tuple[tuple[str, int], ...]]:
    """Per PTX instruction, its ``.loc``'s inlining chain (file, line; innermost first), as
    :func:`~pipeperf.ptx.source_map.loc_chains` rebuilds them."""
    from pipeperf.ptx.source_map import loc_chains

    return [tuple((files.get(loc.file, ""), loc.line) for loc in reversed(chain)) for chain in loc_chains(func)]


@dataclass
class SassView:
    """One kernel's SASS for one target, against its PTX: which work each SASS block does per
    source line, which PTX memory instructions each SASS memory instruction stands for."""

    sass: SassFunction
    ptx_keys: tuple[LineKey | None, ...]                   # per PTX instruction
    rows: dict[tuple[LineKey | None, str], int]             # (line or None: kernel-wide, work kind) -> row
    block_work: np.ndarray                                  # blocks x rows, static amounts
    ptx_work: tuple[tuple[tuple[int, float], ...], ...]     # per PTX pc: (row, amount) pairs
    sass_mem: tuple[MemKey | None, ...]                     # per SASS instruction
    ptx_mem: dict[MemKey, tuple[int, ...]]                  # (line, space, kind) -> PTX pcs
    ptx_pc_of: tuple[int, ...]                              # per SASS instruction: a PTX pc of its line
    fusion: dict[int, tuple[int, int]] = field(default_factory=dict)   # PTX pc -> (group, requests fused into one)
    combined_atomics: frozenset[int] = frozenset()          # PTX pcs whose SASS combines the warp's lanes
    coverage: float = 1.0                                   # share of the PTX work whose line the SASS has
    weight: np.ndarray | None = None                        # per row: the cost of a unit of mismatch
    fragment_degree: Mapping[int, int] = field(default_factory=dict)   # SASS index -> its wmma rows' conflict degree
    generic_shared: frozenset[int] = frozenset()            # SASS generic LD/ST of a wmma line found in shared memory
    sass_keys: tuple[LineKey | None, ...] = ()              # per SASS instruction: the line its work counts on

    @cached_property
    def kernel_wide_rows(self) -> np.ndarray:
        """The rows of each kind's kernel-wide work (the match's measure: a line may move); once
        per view, not per translated warp."""
        return np.array([r for (key, _k), r in self.rows.items() if key is None], dtype=np.intp)

    def demand(self, entries: Sequence[Mapping]) -> tuple[np.ndarray, dict[int, int]]:
        """The work of a warp's PTX trace per row (what the block counts reproduce) and how often
        each PTX pc ran in it."""
        demand = np.zeros(len(self.rows))
        ran: dict[int, int] = defaultdict(int)
        for e in entries:
            pc = e["pc"]
            for r, a in self.ptx_work[pc] if pc < len(self.ptx_work) else ():
                demand[r] += a
            ran[pc] += 1
        return demand, ran

    def solve(self, demand: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
        """Block counts reproducing ``demand`` (per row), the flow on each CFG edge and whether they
        are the relaxation's: :func:`~pipeperf.analysis.sass_walk.solve_block_counts`."""
        w = self.weight if self.weight is not None else np.ones(len(demand))
        return solve_block_counts(self.sass, self.block_work.tobytes(), self.block_work.shape, demand.tobytes(),
                                  np.asarray(w, np.float64).tobytes())


#: weight of a barrier count against one instruction's worth of other work in the block counts
_BARRIER_WEIGHT = 50.0


def _row_keys(key: LineKey | None, kind: str) -> tuple[tuple[LineKey | None, str], ...]:
    """The rows a unit of ``kind`` work on line ``key`` counts in: its line's (but barriers) and
    the kernel-wide one."""
    if kind == "bar" or key is None:
        return ((None, kind),)
    return ((key, kind), (None, kind))


def build_view(sass: SassFunction, func: Function, files: Mapping[int, str]) -> SassView:
    """The SassView of PTX function ``func`` (its module's ``.file`` table ``files``) and its SASS."""
    if sass.unsupported:
        raise PipeperfError(f"SASS timing: {sass.unsupported}")
    toolkit = toolkit_headers(files)
    ptx_keys = tuple(chain_key(c, toolkit) for c in ptx_chains(func, files))
    # rows: the work of a kind on one line, and of the kind over the whole kernel (ptxas may put
    # an instruction on another line than the PTX had it); barriers only kernel-wide, and heavily
    # weighted (warps of a block must meet the same number)
    rows: dict[tuple[LineKey | None, str], int] = {}
    ptx_w: list[tuple[tuple[int, float], ...]] = []
    for x, key in zip(func.instructions, ptx_keys):
        w = ptx_work(x)
        ptx_w.append(tuple((rows.setdefault(rk, len(rows)), a) for k, a in w for rk in _row_keys(key, k)))
    sass_keys = [chain_key(((s.file, s.line), *s.inlined), toolkit) for s in sass.instructions]
    block_work = np.zeros((len(sass.blocks), len(rows)))
    for b in sass.blocks:
        for i in range(b.start, b.end):
            for k, a in sass_work(sass.instructions[i]):
                for rk in _row_keys(sass_keys[i], k):
                    r = rows.get(rk)
                    if r is not None:
                        block_work[b.index, r] += a
    weight = np.array([_BARRIER_WEIGHT if k == "bar" else 1.0 for (_key, k) in rows])
    ptx_mem: dict[MemKey, list[int]] = defaultdict(list)
    first_pc: dict[LineKey, int] = {}
    for x, key in zip(func.instructions, ptx_keys):
        if key is None:
            continue
        first_pc.setdefault(key, x.index)
        m = ptx_memory(x)
        if m is not None:
            ptx_mem[(key, *m)].append(x.index)
    sass_mem: list[MemKey | None] = []
    pc_of: list[int] = []
    for s, key in zip(sass.instructions, sass_keys):
        m = memory_space(s)
        mk = (key, *m) if key is not None and m is not None and m[0] in ("global", "shared") else None
        sass_mem.append(mk if mk in ptx_mem else None)
        pc_of.append(ptx_mem[mk][0] if mk is not None and mk in ptx_mem else first_pc.get(key, 0) if key else 0)
    fusion, combined = _fusion_and_combining(sass, sass_keys, func, ptx_keys, ptx_mem)
    line_rows = [r for (key, _k), r in rows.items() if key is not None]
    covered = sum(1 for r in line_rows if block_work[:, r].any())
    return SassView(sass, ptx_keys, rows, block_work, tuple(ptx_w), tuple(sass_mem),
                    {k: tuple(v) for k, v in ptx_mem.items()}, tuple(pc_of), fusion, frozenset(combined),
                    covered / len(line_rows) if line_rows else 1.0, weight, sass_keys=tuple(sass_keys))


def _fusion_and_combining(sass: SassFunction, sass_keys, func, ptx_keys, ptx_mem
                          ) -> tuple[dict[int, tuple[int, int]], set[int]]:
    """Per PTX memory pc, how many of its requests one SASS instruction makes (the mean SASS width
    over the mean PTX width at its line, space and kind: unrolling changes both counts alike); and
    the PTX atomics whose SASS line combines the warp's lanes first (REDUX, or VOTEU with POPC:
    ptxas' aggregation of warp-uniform integer atomics), which then issue one lane per warp."""
    widths: dict[MemKey, list[int]] = defaultdict(list)
    aggregating: set[LineKey] = set()
    for s, key in zip(sass.instructions, sass_keys):
        if key is None:
            continue
        m = memory_space(s)
        if m is not None:
            widths[(key, *m)].append(access_bytes(s))
        if s.opcode in ("REDUX", "POPC") or (s.opcode == "VOTEU" and "ANY" in s.modifiers):
            aggregating.add(key)
    fusion: dict[int, tuple[int, int]] = {}
    combined: set[int] = set()
    for group, (mk, pcs) in enumerate(ptx_mem.items()):
        w = widths.get(mk)
        if not w:
            continue
        ptx_mean = sum(_ptx_bytes(func.instructions[p]) for p in pcs) / len(pcs)
        k = int(round((sum(w) / len(w)) / ptx_mean))
        if k > 1 and mk[2] == "load":
            fusion.update((p, (group, k)) for p in pcs)
        if mk[2] == "atomic" and mk[1] == "global" and mk[0] in aggregating:
            combined.update(p for p in pcs if func.instructions[p].op.types[-1:] not in (("f32",), ("f64",), ("f16",)))
    return fusion, combined


def _is_move(x: SassInstr) -> bool:
    """A SASS f16 instruction of constants only (``HFMA2.MMA R5, -RZ, RZ, 0, 0``: ptxas' way to
    zero a register on the tensor pipe): a move, no arithmetic of the PTX's."""
    return not any(o.lstrip("-|").startswith("R") and not o.lstrip("-|").startswith("RZ") for o in x.operands[1:])


def packed_half_arithmetic(view: SassView, func: Function) -> dict[int, tuple[int, Fraction]]:
    """PTX pc -> (group, k): the PTX's f16/bf16 arithmetic instructions of which ptxas issues one
    SASS instruction for every ``k``, per source line (a group): the SASS's f16 operations per
    f16 instruction (:func:`sass_work`; HFMA2 of two halves 4) over the PTX's (:func:`ptx_work`;
    ``mul.f16`` 1), as a fraction of denominator 4 at most (an epilogue's 12 PTX mul/add of
    which ptxas makes 4 HMUL2 and 4 scalar HFMA2: 3/2). cuda_fp16.h's ``__hmul``/``__hadd`` are inline asm nvcc cannot
    contract, so ``acc += a * b`` in half is a ``mul.f16`` and an ``add.f16`` in the PTX, which
    ptxas contracts and packs in pairs: one HFMA2 for 4 PTX instructions (leimao's hgemm v04 for
    sm_90: 64 mul.f16 and 64 add.f16 per k step, 32 HFMA2 in the SASS). A ratio of means, as for
    widened loads (:func:`_fusion_and_combining`): unrolling changes both counts alike. The
    lines whose f16 work ptxas put on lines of no PTX f16 work (hgemm v04's HFMA2 on the line
    of its b_reg loads) are matched as one group against those SASS lines; without any, against
    the kernel's."""
    ptx_ops: dict[LineKey | None, list[float]] = defaultdict(lambda: [0.0, 0.0])   # line -> [instructions, ops]
    for x, key in zip(func.instructions, view.ptx_keys):
        ops = sum(a for k, a in ptx_work(x) if k == "f16")
        if ops:
            for rk in {key, None}:
                ptx_ops[rk][0] += 1
                ptx_ops[rk][1] += ops
    if not ptx_ops:
        return {}
    sass_ops: dict[LineKey | None, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for si, key in zip(view.sass.instructions, view.sass_keys):
        ops = sum(a for k, a in sass_work(si) if k == "f16")
        if ops and not _is_move(si):
            for rk in {key, None}:
                sass_ops[rk][0] += 1
                sass_ops[rk][1] += ops
    moved: LineKey = ("", -1)               # the PTX lines without SASS f16 work, as one group
    lost = {key for key in ptx_ops if key is not None and key not in sass_ops}
    found = [key for key in sass_ops if key is not None and key not in ptx_ops]
    if not found:
        lost = set()
    if lost:
        ptx_ops[moved] = [sum(ptx_ops[k][i] for k in lost) for i in (0, 1)]
        sass_ops[moved] = [sum(sass_ops[k][i] for k in found) for i in (0, 1)]
    ratio: dict[LineKey | None, Fraction] = {}
    for key, (n, ops) in ptx_ops.items():
        s = sass_ops.get(key) or sass_ops.get(None)
        if s is not None and s[0]:
            ratio[key] = Fraction((s[1] / s[0]) / (ops / n)).limit_denominator(4)
    out: dict[int, tuple[int, Fraction]] = {}
    groups: dict[LineKey | None, int] = {}
    for x, key in zip(func.instructions, view.ptx_keys):
        key = moved if key in lost else key
        k = ratio.get(key, Fraction(1))
        if k > 1 and any(kind == "f16" for kind, _a in ptx_work(x)):
            out[x.index] = (groups.setdefault(key, len(groups)), k)
    return out


def loaded_bytes_in_flight(sass: SassFunction) -> int:
    """The most bytes per thread ptxas' schedule holds loaded but not yet used, within a basic
    block: each load's destination registers (4 bytes each) from the load to their first reader.
    What the PTX IDGs' load hoisting may keep in flight (:func:`~pipeperf.idg.build.load_hoisting`):
    siboehm's 2D block-tiling SGEMM for sm_90 issues 8 LDS and 2 LDS.128 before its FFMA (64 B),
    leimao's hgemm v04 11 LDS.64 at the top of its step and then one per ~15 HFMA2 (92 B at
    most). 0 where the SASS has no load whose value it reads in the same block."""
    most = 0
    for b in sass.blocks:
        held: dict[str, int] = {}
        for x in sass.instructions[b.start:b.end]:
            reads, writes = registers(x)
            for r in reads:
                held.pop(r, None)
            m = memory_space(x)
            if m is not None and m[1] == "load" and m[0] in ("global", "shared", "local"):
                regs = [r for r in writes if r.startswith("R") and r != "RZ"]
                for r in regs:
                    held[r] = 4
                most = max(most, sum(held.values()))
            else:
                for r in writes:
                    held.pop(r, None)
    return most


#: the share of the PTX's work the block counts may miss or add before the analysis says so
UNMATCHED_NOTE_SHARE = 0.05


def unmatched_note(name: str, translator: SassTranslator) -> str | None:
    """The note saying how far the SASS walks are from the work of their PTX traces, where the
    block counts miss or add more than :data:`UNMATCHED_NOTE_SHARE` of it (lines ptxas moved,
    work it created or removed beyond the counted kinds)."""
    if translator.demanded <= 0 or translator.unmatched <= UNMATCHED_NOTE_SHARE * translator.demanded:
        return None
    return (f"SASS timing: the block counts of {name} reproduce its PTX traces' work (loads, stores, "
            f"FP operations, ... per kind) to within {translator.unmatched / translator.demanded:.0%} "
            "(the SASS walks miss or add that share)")


def wide_shared_class_name(base_name: str, width: int, degree: int = 1) -> str:
    """The class of a shared-memory SASS access of ``width`` bytes per thread that mapper g has no
    statistics of (a wmma fragment's LDSM/LDS.128), ``degree``-way bank-conflicted:
    :func:`wide_shared_classes`."""
    return f"{base_name}@wide{width}B" + (f"x{degree}" if degree > 1 else "")


def with_wmma_lines(view: SassView, func: Function, row_bytes: Mapping[int, int], spaces: Mapping[int, str]) -> SassView:
    """``view`` with what the emulation found of its wmma.load/store lines (mapper g has no
    addresses of them): ``spaces`` (PTX line -> the state space a generic one's addresses fell in,
    ``Profile.resolved_spaces``) marks the SASS generic LD/ST of such a line shared (ptxas keeps
    a pointer it cannot prove shared generic: cuda-samples' and wayne's WMMA GEMMs load their
    shared tiles with per-lane LD.E), and ``row_bytes`` (PTX line -> bytes between the matrix rows,
    ``Profile.wmma_row_bytes``) gives each LDSM or generic shared load of an A/B fragment's line
    its rows' bank-conflict degree. Both read a fragment as 8 rows of 16 bytes per 128-byte
    wavefront (an ldmatrix phase; a 32-bit load of the mma layout: lane / 4 the row, lane % 4 the
    word), the rule of :func:`~pipeperf.hardware.banks.row_conflict_degree`, which the
    PTX path's classes use. A line with several fragment loads of different degrees takes their mean."""
    from pipeperf.emulate.wmma import fragment_kind
    from pipeperf.hardware.banks import row_conflict_degree

    degrees: dict[LineKey, list[int]] = defaultdict(list)
    shared_keys: set[LineKey] = set()
    for x, key in zip(func.instructions, view.ptx_keys):
        if key is None or x.op.root not in ("wmma.load", "wmma.store"):
            continue
        if x.op.space is None and spaces.get(x.line) == "shared":
            shared_keys.add(key)
        if x.op.root == "wmma.load" and x.line in row_bytes:
            degrees[key].append(row_conflict_degree(*fragment_kind(x), row_bytes[x.line]))
    if not degrees and not shared_keys:
        return view
    mean = {k: round(sum(v) / len(v)) for k, v in degrees.items()}
    generic, degree = set(), {}
    for i, s in enumerate(view.sass.instructions):
        k = view.sass_keys[i]
        if k is None or view.sass_mem[i] is not None:
            continue
        if s.opcode in ("LD", "ST") and k in shared_keys:
            generic.add(i)
        if (s.opcode == "LDSM" or (s.opcode == "LD" and i in generic)) and mean.get(k, 1) > 1:
            degree[i] = mean[k]
    return replace(view, fragment_degree=degree, generic_shared=frozenset(generic))


#: the shared-memory class of a generic SASS load/store found in shared memory
_GENERIC_SHARED = {"LD": "ld_shared_f32", "ST": "st_shared"}


def shared_class_of(view: SassView, i: int, available: set[str], gpu: str) -> str:
    """The class mapper f gives SASS instruction ``i``, a generic one :attr:`SassView.generic_shared`
    the shared class of its kind."""
    x = view.sass.instructions[i]
    if i in view.generic_shared:
        return resolve(_GENERIC_SHARED[x.opcode], available, gpu)
    return map_sass(x, available, gpu)


def wide_shared_classes(view: SassView, gpu: GPUSpec, conflicts: bool = True) -> dict[str, InstrClass]:
    """Per base class, width and bank-conflict degree of the SASS's shared accesses that take no
    mapper g class, wider than 4 bytes or conflicted: lambda = wavefronts x the class's, 32 banks
    delivering 128 B per cycle (a conflict-free LDS.128 or LDSM.x4 is 4, an LDSM of 64-byte
    fragment rows 4 x 4), Lambda + the wavefronts after the first (as mapper g's shared_class).
    ``conflicts=False``: every degree's class at the conflict-free count (the "no bank
    conflicts" what-if)."""
    out: dict[str, InstrClass] = {}
    available = set(gpu.classes)
    for i, x in enumerate(view.sass.instructions):
        w = access_bytes(x)
        degree = view.fragment_degree.get(i, 1)
        shared = i in view.generic_shared or (memory_space(x) or ("",))[0] == "shared"
        if view.sass_mem[i] is not None or (w <= 4 and degree == 1) or not shared:
            continue
        base = gpu.classes[shared_class_of(view, i, available, gpu.name)]
        waves = max(1, w * 32 // 128) * (degree if conflicts else 1)
        name = wide_shared_class_name(base.name, w, degree)
        why = f" ({degree}-way bank conflicts: the wmma fragment's rows)" if degree > 1 and conflicts else ""
        out[name] = type(base)(name, base.subsystem, waves * base.cpi, base.latency + (waves - 1) * base.cpi,
                               f"{base.name} x {waves} wavefronts ({w} B per thread, 128 B per cycle{why}; "
                               "a wmma fragment mapper g has no addresses of)", True)
    return out


def local_access_class(x: SassInstr, available: set[str] | frozenset[str], gpu: str) -> str:
    """The class of a SASS local access (LDL/STL): its width's local class
    (:func:`~pipeperf.hardware.local_memory.local_class`, added by the analysis where the SASS has
    local accesses), else mapper f's."""
    cls = map_sass(x, available, gpu)
    local = local_class_name(cls, access_bytes(x))
    return local if local in available else cls


@dataclass
class Translation:
    """The SASS entries of one warp and how the IDG builder reads them."""

    entries: list[dict[str, Any]]
    class_of: Callable[[Mapping], str]
    registers_of: Callable[[Mapping], tuple[Sequence[str], Sequence[str]]]


class SassTranslator:
    """``translate(entries)``: a warp's PTX trace entries -> its SASS entries (module docstring),
    classes from the SASS mapper and, for memory instructions, mapper g's (``ptx_class_of``).
    ``measured``: the PTX pcs mapper g has statistics of; where ptxas widened a line's loads,
    mapper g merged each run of fused requests into the first one's pc (``fuse_requests``), so a
    SASS load of that line takes the class of one of those, not of a member it absorbed."""

    def __init__(self, view: SassView, available: set[str], gpu: str, ptx_class_of: Callable[[int], str],
                 measured: Collection[int] = ()):
        self.view, self.available, self.gpu = view, available, gpu
        self.ptx_class_of = ptx_class_of
        self.measured = frozenset(measured)
        self.relaxed = False             # some warp's block counts are the integer program's relaxation
        self.unmatched = 0.0             # kernel-wide work the block counts miss or add, over the warps translated
        self.demanded = 0.0              # kernel-wide work of those warps' PTX
        self.off_class = resolve("add_s32", available, gpu)

    def class_of(self, e: Mapping) -> str:
        i = e["sass"]
        if e.get("off"):
            return self.off_class
        if self.view.sass_mem[i] is not None:
            return self.ptx_class_of(e["pc"])
        x = self.view.sass.instructions[i]
        if x.opcode in LOCAL_OPCODES:     # spills and stack arrays: their cache share (hardware/local_memory.py)
            return local_access_class(x, self.available, self.gpu)
        cls = shared_class_of(self.view, i, self.available, self.gpu)
        wide = wide_shared_class_name(cls, access_bytes(x), self.view.fragment_degree.get(i, 1))  # a wmma's LDSM/LDS.128
        return wide if wide in self.available else cls

    def registers_of(self, e: Mapping) -> tuple[Sequence[str], Sequence[str]]:
        return registers(self.view.sass.instructions[e["sass"]])

    def translate(self, entries: Sequence[Mapping]) -> list[dict[str, Any]]:
        v = self.view
        demand, ran = v.demand(entries)
        counts, flows, relaxed = v.solve(demand)
        self.relaxed = self.relaxed or relaxed
        kernel_wide = v.kernel_wide_rows
        self.unmatched += float(np.abs(counts @ v.block_work[:, kernel_wide] - demand[kernel_wide]).sum())
        self.demanded += float(demand[kernel_wide].sum())
        order = walk(v.sass, counts, flows)
        # per (line, space, kind): the PTX requests (fused) the SASS instructions there stand for
        budget: dict[MemKey, float] = {}
        runs: dict[MemKey, int] = defaultdict(int)
        for b in set(order):
            blk = v.sass.blocks[b]
            for i in range(blk.start, blk.end):
                mk = v.sass_mem[i]
                if mk is not None:
                    runs[mk] += int(counts[b])
        share: dict[MemKey, list[tuple[int, float]]] = {}      # the PTX pcs whose class a SASS load takes
        for mk, pcs in v.ptx_mem.items():
            every = [(p, ran.get(p, 0) / v.fusion.get(p, (0, 1))[1]) for p in pcs]
            budget[mk] = sum(n for _, n in every)
            share[mk] = [(p, n) for p, n in every if p in self.measured] or every
        given: dict[int, int] = defaultdict(int)
        out: list[dict[str, Any]] = []
        done: dict[MemKey, int] = defaultdict(int)
        for b in order:
            blk = v.sass.blocks[b]
            for i in range(blk.start, blk.end):
                s = v.sass.instructions[i]
                if s.opcode == "NOP":
                    continue
                mk = v.sass_mem[i]
                if mk is None:
                    out.append({"pc": v.ptx_pc_of[i], "opcode": s.full_opcode, "sass": i})
                    continue
                k = done[mk]
                done[mk] = k + 1
                # Bresenham: the first budget/runs share of the executions do the memory work
                on = int((k + 1) * budget[mk] / runs[mk]) > int(k * budget[mk] / runs[mk]) if runs[mk] else False
                # which PTX instruction of the line: the one furthest behind its share of the requests
                # (the SASS does not say which of a line's loads is which; the mix is kept)
                done_on = sum(given[p] for p, _ in share[mk]) + 1
                total = sum(n for _, n in share[mk])
                pc = max(share[mk], key=lambda pn: pn[1] * done_on / max(total, 1e-9) - given[pn[0]])[0]
                if on:
                    given[pc] += 1
                out.append({"pc": pc, "opcode": s.full_opcode, "sass": i, **({} if on else {"off": True})})
        return out
