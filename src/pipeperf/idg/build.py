"""Build a kernel's IDGs from the emulator's per-warp dynamic traces.

Nodes are the warp instructions in the order the warp executed them, so loops appear
unrolled by their real trip counts and divergent paths serialised as executed. Edges are
def-use dependences through registers: each node depends on the last earlier node of the
same warp that wrote one of its source registers (or its guard predicate), the registers
being the IR's operand objects' (:func:`pipeperf.ptx.slices.operand_registers`). Barriers
(``bar.sync``/``barrier.sync``/``bar.arrive``) are nodes of class ``bar_sync``; the simulator
makes a group's warps meet at them, k-th with k-th, whichever instruction each warp reaches
barrier k through (the hardware counts a barrier by id). A named barrier of fewer threads than
the block (``bar.sync 3, 128`` among the consumer warps of a warp-specialised kernel) holds no
group together: its nodes are no group barriers (:func:`subset_barriers`). Warps with the same
(opcode sequence, class sequence) form one warp class whose weight is their number.

Given the warps per block, the traced warps are also grouped by block (warp id //
warps per block, the emulator's numbering) into group classes: the tuple of warp
classes by warp position, weighted by the number of traced blocks of that shape, so
the simulator runs whole real block shapes (a last block with extra barriers stays
one block). Only complete traced blocks count: a block the trace sample cut (some of
its warps untraced) still lends its warps to the warp classes and their weights, but
is no block shape. When no block is complete (a sample smaller than one block) the
kernel has no group classes and the simulator mixes warp classes per warp as before.
Only the traced warps are seen: the caller chooses that sample, and :class:`BuildInfo`
says how many warps, blocks and instructions it holds.
"""

from __future__ import annotations

import math
import operator
import weakref
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.idg.graph import BARRIER_CLASSES, IDG
from pipeperf.ptx.ir import TYPE_BYTES
from pipeperf.idg.kernel_graph import GroupClass, KernelGraph, WarpClass
from pipeperf.ptx.operands import parse_operand
from pipeperf.ptx.slices import operand_registers

if TYPE_CHECKING:
    from fractions import Fraction

    from pipeperf.emulate.tracelog import TraceLog
    from pipeperf.ptx.ir import Function

#: (registers read, registers written) by one trace entry
Registers = tuple[Sequence[str], Sequence[str]]
#: PTX pc -> (group, k): ptxas issues one instruction for every k of the group's (packed_entries)
Packed = Mapping[int, tuple[int, "Fraction | int"]]


class Translator(Protocol):
    """Re-expresses a warp's trace entries (``translate``) and reads the entries it makes."""

    def translate(self, entries: Sequence[Mapping]) -> list[dict[str, Any]]: ...

    def class_of(self, e: Mapping) -> str: ...

    def registers_of(self, e: Mapping) -> Registers: ...


@dataclass(frozen=True)
class BuildInfo:
    warps_traced: int
    warp_classes: int
    max_nodes: int
    truncated_warps: int          # warps whose trace was cut at ``max_nodes``
    blocks_traced: int = 0        # complete traced blocks (the group-class weights sum to this)
    partial_blocks: int = 0       # blocks with only some warps traced: no block shape taken from them
    group_classes: int = 0
    instructions_full: int = 0    # the traced warps' instructions, whole traces
    instructions_kept: int = 0    # of those, the ones in the IDGs (traces cut at ``max_nodes``)
    #: instructions the IDGs issue per traced (PTX) instruction: 1, or the SASS's count over the
    #: PTX's where a translation re-expressed the traces (ptxas widens, folds and fuses)
    issued_per_traced: float = 1.0


@dataclass(frozen=True)
class WarpClasses:
    """What the IDG builder returns: the warp classes and block shapes with their IDGs (``graph``)
    and how the traces were cut and grouped (``info``)."""

    graph: KernelGraph
    info: BuildInfo


#: entry readers (``class_of``, ``registers_of``) whose answer is a function of the entry's ``pc``
#: alone (:func:`ir_registers`, :func:`kernel_graph_from_profile`'s classes): :func:`warp_idg` asks
#: them once per distinct pc and finds the dependences on arrays
_PER_PC: weakref.WeakSet = weakref.WeakSet()


def per_pc(f: Callable) -> Callable:
    """Mark ``f`` (an entry reader) as answering by the entry's pc alone (:data:`_PER_PC`)."""
    _PER_PC.add(f)
    return f


@lru_cache(maxsize=4096)
def _operand(text: str):
    return parse_operand(text)


def text_registers(e: Mapping) -> Registers:
    """Registers of an entry known only by its operands' text (a trace written by hand):
    each operand is parsed into its IR object, as the PTX parser would."""
    return operand_registers(map(_operand, e["dsts"]), map(_operand, e["srcs"]))


def ir_registers(func) -> Callable[[Mapping], Registers]:
    """Registers of an emulator trace entry: those of instruction ``e["pc"]`` of ``func``.

    Only ``%`` names: the bare names an inline-asm block declares (cuda_fp16.h's ``low``) are
    not followed, as the builder before issue 21 (a regex over ``%`` names) did not; following
    them adds true edges but changes IDGs, so it is a change of its own."""
    ins = func.instructions
    memo: dict[int, Registers] = {}

    def of(e: Mapping) -> Registers:
        pc = e["pc"]
        r = memo.get(pc)
        if r is None:
            x = ins[pc]
            r = memo[pc] = cast(Registers, tuple([n for n in names if n[0] == "%"]
                                                 for names in operand_registers(x.dsts, x.srcs, x.guard)))
        return r
    return per_pc(of)


def inserted_entries(class_of: Callable[[Mapping], str], registers_of: Callable[[Mapping], Registers]
                     ) -> tuple[Callable[[Mapping], str], Callable[[Mapping], Registers]]:
    """``class_of`` and ``registers_of`` that also read entries an insertion added to a trace
    (:func:`kernel_graph_from_profile`'s ``insert``: the SASS's spill code): such an entry names
    its class (``cls``) and registers (``regs``: (read, written), or ("written", pc): it reads
    what instruction ``pc`` writes), and an entry may read more registers (``also_reads``)."""
    def cls(e: Mapping) -> str:
        c = e.get("cls")
        return class_of(e) if c is None else c

    def regs(e: Mapping) -> Registers:
        r = e.get("regs")
        if r is not None:
            return (tuple(registers_of({"pc": r[1]})[1]), ()) if r[0] == "written" else r
        reads, writes = registers_of(e)
        extra = e.get("also_reads")
        return ((*reads, *extra), writes) if extra else (reads, writes)
    return cls, regs


#: PTX instructions a load is never moved above (:func:`load_hoisting`): control flow, barriers and
#: fences, stores, atomics and calls (ptxas keeps a load below a store it cannot prove apart)
_SCHEDULE_FENCES = frozenset({"bra", "brx.idx", "bar", "barrier", "bar.warp", "membar", "fence", "st", "st.async",
                              "atom", "red", "red.async", "call", "ret", "exit", "trap", "cp.async",
                              "cp.async.wait_group", "cp.async.wait_all", "cp.async.commit_group", "wmma.store",
                              "stmatrix", "mbarrier", "setmaxnreg", "vote", "shfl", "match", "activemask"})


def load_hoisting(func, registers_of: Callable[[Mapping], Registers], cap_bytes: int
                  ) -> Callable[[Sequence[Mapping]], list]:
    """A warp's PTX trace in the order ptxas issues it: within each straight-line stretch (between
    branches, barriers, fences, stores and atomics), every load moves up to just below the last
    instruction it depends on (a producer of its address registers, an earlier reader or writer of
    the register it loads into), and so does the arithmetic that computes a later load's address
    (the load's backward slice in the stretch), but a load never so far that the loaded bytes not
    yet used would exceed ``cap_bytes`` per thread (the registers ptxas gives loads in flight:
    :func:`~pipeperf.analysis.sass_trace.loaded_bytes_in_flight` of the kernel's SASS; it then
    waits for the first use of the load in flight that is used first). ptxas' list scheduler issues
    independent long-latency loads first, so a warp has a step's loads in flight together where the
    PTX, in source order, waits for each before the next is issued: siboehm's 2D block-tiling
    SGEMM's PTX interleaves its 16 ld.shared with the 64 fma using them, its sm_90 SASS (nvcc 13.0)
    issues 8 LDS and 2 LDS.128 and then the 64 FFMA. Loads whose addresses are computed move with
    that computation: Kernel Tuner's dedispersion (block 1x32, sm_90, nvcc 13.0) interleaves, per
    channel, a load of the channel's shift, the delay's arithmetic, the load of the sample and the
    sum; its SASS issues the 8 unrolled channels' shift loads, then all the delays' FMUL, F2I and
    IADD3, then the 8 sample loads, then the sums (one load latency of each kind per 8 channels, where
    moving the loads alone leaves one per channel). Stable otherwise; dependences are kept, so the
    IDG's edges are those of the new order."""
    ins = func.instructions
    kind: dict[int, int] = {}                 # pc -> 0 other, 1 load, 2 fence
    size: dict[int, int] = {}                 # load pc -> bytes per thread

    def bytes_of(pc: int) -> int:
        b = size.get(pc)
        if b is None:
            x = ins[pc]
            width = next((TYPE_BYTES[t] for t in reversed(x.op.types) if t in TYPE_BYTES), 4)
            vec = next((int(m[1:]) for m in x.op.modifiers if m in ("v2", "v4", "v8")), 1)
            b = size[pc] = width * vec
        return b

    def kind_of(pc: int) -> int:
        k = kind.get(pc)
        if k is None:
            root = ins[pc].op.root
            k = kind[pc] = 1 if root in ("ld", "ldu") and "volatile" not in ins[pc].op.modifiers else (
                2 if root in _SCHEDULE_FENCES or root.startswith(("bar", "st.", "cp.", "mbarrier")) else 0)
        return k

    def address_slice(entries: Sequence[Mapping], kinds: list[int]) -> list[int]:
        """For each non-load instruction of a stretch that computes (directly or through others) a
        later load's address registers, the index of the first such load (its owner: ptxas issues
        it ahead with that load); -1 for the others."""
        out = [-1] * len(entries)
        needed: dict[str, int] = {}           # register -> the first later load its value reaches
        for i in range(len(entries) - 1, -1, -1):
            k = kinds[i]
            reads, writes = registers_of(entries[i])
            if k == 1:
                owner = i
            else:
                owner = min((needed[w] for w in writes if w in needed), default=-1)
                if owner < 0:
                    continue
                out[i] = owner
            for w in writes:
                needed.pop(w, None)
            for r in reads:
                needed[r] = min(needed.get(r, owner), owner)
        return out

    def order(entries: Sequence[Mapping], kinds: list[int]) -> np.ndarray | None:
        """The issue order of one stretch (no fence inside; ``kinds`` its entries' kinds): local
        indices, None if unchanged."""
        n = len(entries)
        # an inserted local access (the spill code) names its bytes: "local" = (1 load / 0 store, bytes)
        sizes = [0 if k != 1 else (bytes_of(e["pc"]) if (loc := e.get("local")) is None else loc[1])
                 for k, e in zip(kinds, entries)]
        hoist = address_slice(entries, kinds)
        key = np.arange(n, dtype=np.float64)
        last_w: dict[str, float] = {}         # register -> key of its latest writer
        last_r: dict[str, float] = {}         # register -> key of its latest reader
        moved = False
        # this stretch's loads so far: key, bytes, key of first use (inf: not yet read)
        l_key, l_bytes, l_use = np.empty(n), np.empty(n, np.int64), np.full(n, np.inf)
        m = 0
        open_regs: dict[str, int] = {}        # register a load of the stretch wrote -> that load
        for i, e in enumerate(entries):
            k = kinds[i]
            reads, writes = registers_of(e)
            if k == 1 or hoist[i] >= 0:
                at = max(max((last_w.get(r, -1.0) for r in reads), default=-1.0),
                         max((max(last_w.get(r, -1.0), last_r.get(r, -1.0)) for r in writes), default=-1.0))
                if k == 1 and m:
                    at = _within_cap(l_key[:m], l_bytes[:m], l_use[:m], at, sizes[i], cap_bytes)
                at = min(float(i), at + 1.0 / 1024.0)   # just below it, above everything after it
                moved |= at < i
                key[i] = at
            for r in reads:
                j = open_regs.get(r)
                if j is not None and key[i] < l_use[j]:
                    l_use[j] = key[i]
                last_r[r] = max(last_r.get(r, -1.0), key[i])
            if k == 1:
                l_key[m], l_bytes[m] = key[i], sizes[i]
                for r in writes:
                    open_regs[r] = m
                m += 1
            else:
                for r in writes:
                    open_regs.pop(r, None)
            for r in writes:
                last_w[r] = key[i]
        if not moved:
            return None
        _just_before_owner(key, hoist, entries, registers_of)
        return np.argsort(key, kind="stable")

    orders: dict[bytes, np.ndarray | None] = {}    # a stretch's pcs -> its order (loops repeat them)

    def schedule(entries: Sequence[Mapping]) -> list:
        n = len(entries)
        if n < 3:
            return list(entries)
        # an entry's code: its pc, and whether it is an inserted local load (1) or store (2) at that
        # pc (the spill code, kind_of's answer for neither: 1 or 0) or the pc's own instruction (0)
        codes = np.fromiter(((e["pc"] << 2) | (0 if (loc := e.get("local")) is None else 1 + (loc[0] == 0))
                             for e in entries), np.int64, n)
        distinct, inverse = np.unique(codes, return_inverse=True)
        kind = np.fromiter((kind_of(c >> 2) if c & 3 == 0 else int(c & 3 == 1) for c in distinct.tolist()),
                           np.int8, len(distinct))[inverse]
        # nothing moves across a fence, and every key before one is below it: each stretch between
        # fences orders alike wherever it occurs, so it is ordered once per distinct pc sequence
        bounds = np.flatnonzero(kind == 2)
        starts = np.concatenate(([0], bounds + 1))
        ends = np.concatenate((bounds, [n]))
        out: list | None = None
        done = 0
        for s, t in zip(starts.tolist(), ends.tolist()):
            if t - s < 2 or not (kind[s:t] == 1).any():
                continue
            sig = codes[s:t].tobytes()
            if sig in orders:
                perm = orders[sig]
            else:
                perm = orders[sig] = order(entries[s:t], kind[s:t].tolist())
            if perm is None:
                continue
            if out is None:
                out = []
            out += entries[done:s]
            out += [entries[s + j] for j in perm.tolist()]
            done = t
        if out is None:
            return list(entries)
        out += entries[done:]
        return out

    return schedule


def _just_before_owner(key: np.ndarray, owner: Sequence[int], entries: Sequence[Mapping],
                       registers_of: Callable[[Mapping], Registers]) -> None:
    """Moves each hoisted address instruction down again, in place, to its owner load's key (just
    above the load, the stable order keeping the PTX's order among equal keys), or to the first
    instruction after it that reads what it writes or writes what it reads or writes: ptxas
    computes a load's address right before issuing it, so the loads interleave with their address
    arithmetic instead of all the arithmetic of a stretch going first."""
    INF = float("inf")
    first_read: dict[str, float] = {}         # register -> least key of its later readers (this value)
    first_write: dict[str, float] = {}        # register -> least key of its later writers
    for i in range(len(entries) - 1, -1, -1):
        reads, writes = registers_of(entries[i])
        if owner[i] >= 0:
            bound = min(float(key[owner[i]]),
                        min((min(first_read.get(w, INF), first_write.get(w, INF)) for w in writes), default=INF),
                        min((first_write.get(r, INF) for r in reads), default=INF))
            if bound > key[i]:
                key[i] = min(bound, float(i))
        k = float(key[i])
        for w in writes:
            first_read[w] = INF
            first_write[w] = min(first_write.get(w, INF), k)
        for r in reads:
            first_read[r] = min(first_read.get(r, INF), k)


def _within_cap(keys: np.ndarray, sizes: np.ndarray, uses: np.ndarray, at: float, b: int, cap_bytes: int) -> float:
    """The latest key ``at`` or after that a load of ``b`` bytes placed just below fits beside the stretch's
    loads in flight (their ``keys``, ``sizes`` and the keys of their first uses, ``uses``: inf where
    none is known yet): while they hold more than ``cap_bytes``, the load waits for the first use of
    the one used first. A load whose use is not yet known is read after this one in the PTX, so it
    is in flight there too: no wait for it. On arrays: a stretch of spill code has thousands of loads."""
    later = uses > at                         # a load used at or above ``at`` is never in flight below it
    keys, sizes, uses = keys[later], sizes[later], uses[later]
    while True:
        pos = at + 1.0 / 1024.0               # where the load goes: just below ``at``
        live = (keys <= pos) & (uses > pos)
        if b + int(sizes[live].sum()) <= cap_bytes:
            return at
        used = uses[live]
        used = used[used < np.inf]
        if not used.size:
            return at
        at = float(used.min())


def subset_barriers(func, threads: int) -> frozenset[int]:
    """PCs of ``func``'s barrier instructions whose thread count is below a block of ``threads``
    (rounded up to whole warps): named barriers of some of the block's warps. The simulator meets
    a group's warps at every barrier node, so these are counted as instructions only."""
    from pipeperf.emulate.program import barrier_operands
    from pipeperf.ptx.ir import Immediate, Register

    full = -(-threads // 32) * 32
    out = []
    consts = None
    for i, x in enumerate(func.instructions):
        if x.root in ("bar", "barrier") and "warp" not in x.modifiers:
            count = barrier_operands(x)[1]
            if isinstance(count, Register):      # a count in a register: its one constant write
                consts = _constant_registers(func) if consts is None else consts
                count = consts.get(count.name)
            if isinstance(count, Immediate) and int(count.value) < full:
                out.append(i)
    return frozenset(out)


def _constant_registers(func) -> dict[str, Any]:
    """Registers ``func`` writes once, with a ``mov`` of an immediate (how nvcc passes a constant
    to inline asm: ``mov.u32 %r37, 128; bar.sync %r36, %r37;``): register -> that immediate."""
    from pipeperf.ptx.ir import Immediate
    from pipeperf.ptx.slices import written_registers

    writes: dict[str, list] = {}
    for x in func.instructions:
        for r in written_registers(x):
            writes.setdefault(r, []).append(x)
    return {r: xs[0].srcs[0] for r, xs in writes.items()
            if len(xs) == 1 and xs[0].root == "mov" and xs[0].guard is None and isinstance(xs[0].srcs[0], Immediate)}


def packed_entries(entries: Sequence[Mapping], packed: Packed,
                   registers_of: Callable[[Mapping], Registers]) -> tuple[list[Mapping], list[tuple[int, ...]]]:
    """A warp's entries with the PTX arithmetic ptxas packs merged (``packed``: pc -> (group, k),
    :func:`~pipeperf.analysis.sass_trace.packed_half_arithmetic`): of each group's executions in
    trace order every k-th stays (for k = p/q, q of every p), as the one SASS instruction of k
    PTX ones; the others are dropped and their results stand for their operands (a reader of one
    depends on the kept producers of what it read), so ``acc += a * b`` as mul.f16 and add.f16 is
    one node reading a, b and acc, as the HFMA2 is, with one latency. Returns the entries kept
    and each one's producers (positions in the kept entries)."""
    out: list[Mapping] = []
    deps_of: list[tuple[int, ...]] = []
    count: dict[int, int] = {}
    keep: dict[int, tuple[bool, ...]] = {}        # group -> per execution of its period, kept or not
    for grp, k in packed.values():
        if grp not in keep:
            p, q = k.numerator, k.denominator
            keep[grp] = tuple((c + 1) * q // p > c * q // p for c in range(p))
    through: dict[str, frozenset[int]] = {}      # a dropped result -> the kept positions it stands for
    last: dict[str, int] = {}                    # register -> kept position that wrote it last
    for e in entries:
        reads, writes = registers_of(e)
        g = packed.get(e["pc"]) if "cls" not in e else None      # an inserted spill access is not packed
        if g is not None:
            c = count.get(g[0], 0)
            count[g[0]] = c + 1
            period = keep[g[0]]
            if not period[c % len(period)]:      # dropped: stands for its operands' producers
                src: set[int] = set()
                for r in reads:
                    if r in through:
                        src |= through[r]
                    elif r in last:
                        src.add(last[r])
                for r in writes:
                    through[r] = frozenset(src)
                    last.pop(r, None)
                continue
        i = len(out)
        deps: set[int] = set()
        for r in reads:
            if r in through:
                deps |= through[r]
            elif r in last:
                deps.add(last[r])
        deps_of.append(tuple(sorted(deps)))
        for r in writes:
            through.pop(r, None)
            last[r] = i
        out.append(e)
    return out, deps_of


def warp_idg(name: str, entries: Sequence[Mapping], class_of: Callable[[Mapping], str],
             registers_of: Callable[[Mapping], Registers] = text_registers,
             fills: Mapping[int, int] | None = None, subset: Collection[int] = (), *,
             packed: Packed | None = None) -> IDG:
    """The IDG of one warp's trace (``entries`` as recorded by the emulator's counters).

    ``fills`` ({load pc: pc whose fill its L1 hits wait for}, mapper g's
    :func:`~pipeperf.hardware.memory.fill_sources`): each instance of such a load completes no
    earlier than the warp's latest earlier instance of that pc (:attr:`IDG.fill`). ``subset``: pcs
    of barriers of some warps only (:func:`subset_barriers`), no group barriers. ``packed``: the
    arithmetic ptxas packs, one node per k executions (:func:`packed_entries`)."""
    merged: list[tuple[int, ...]] | None = None
    if packed:
        entries, merged = packed_entries(entries, packed, registers_of)
    n = len(entries)
    if merged is None and n and class_of in _PER_PC and registers_of in _PER_PC and "pc" in entries[0]:
        return _warp_idg_by_pc(name, entries, class_of, registers_of, fills, subset)
    names: dict[str, int] = {}
    cls = np.empty(n, dtype=np.int32)
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx: list[int] = []
    last: dict[str, int] = {}
    fill = np.full(n, -1, np.int32) if fills else None
    last_pc: dict[int, int] = {}
    for i, e in enumerate(entries):
        c = class_of(e)
        cls[i] = names.setdefault(c, len(names))
        reads, writes = registers_of(e)
        idx += merged[i] if merged is not None else sorted({last[r] for r in reads if r in last})
        ptr[i + 1] = len(idx)
        for r in writes:
            last[r] = i
        if fill is not None and "cls" not in e:     # (an inserted entry is no instance of its pc)
            pc = e["pc"]
            src = fills.get(pc)             # type: ignore[union-attr]  # fill is set only with fills
            if src is not None and src in last_pc:
                fill[i] = last_pc[src]
            last_pc[pc] = i
    bar = np.array([c in BARRIER_CLASSES for c in names], dtype=bool)[cls] if n else np.zeros(0, bool)
    pcs = np.fromiter((e["pc"] for e in entries), np.int64, n) if n and "pc" in entries[0] else None
    if subset and pcs is not None:
        bar &= ~np.isin(pcs, np.fromiter(subset, np.int64, len(subset)))
    return IDG.from_arrays(name, tuple(names), cls, ptr, np.asarray(idx, dtype=np.int32), bar, pcs=pcs,
                           fill=fill)


def _warp_idg_by_pc(name: str, entries: Sequence[Mapping], class_of: Callable[[Mapping], str],
                    registers_of: Callable[[Mapping], Registers], fills: Mapping[int, int] | None,
                    subset: Collection[int]) -> IDG:
    """:func:`warp_idg` where the classes and registers are the pc's (:data:`_PER_PC`): each asked
    once per distinct pc, and each read's producer (the latest earlier writer of its register, as
    the entry-by-entry walk keeps it) found by a sorted search over (register, position) keys."""
    n = len(entries)
    pcs = np.fromiter((e["pc"] for e in entries), np.int64, n)
    distinct, first, inv = np.unique(pcs, return_index=True, return_inverse=True)
    names: dict[str, int] = {}
    cid = np.empty(len(distinct), np.int32)
    reg_id: dict[str, int] = {}
    reads_of: list[list[int]] = [[]] * len(distinct)
    writes_of: list[list[int]] = [[]] * len(distinct)
    for d in np.argsort(first, kind="stable").tolist():     # classes named in order of first use
        e = entries[int(first[d])]
        cid[d] = names.setdefault(class_of(e), len(names))
        reads, writes = registers_of(e)
        reads_of[d] = sorted({reg_id.setdefault(r, len(reg_id)) for r in reads})
        writes_of[d] = [reg_id.setdefault(r, len(reg_id)) for r in writes]
    cls = cid[inv]
    span = n + 1

    def expand(per: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """(entry, register) of every entry's registers in ``per`` (by distinct pc), entry-major."""
        counts = np.fromiter(map(len, per), np.int64, len(per))
        flat = np.fromiter((r for rs in per for r in rs), np.int64, int(counts.sum()))
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        k = counts[inv]
        at = np.repeat(starts[inv] - np.cumsum(k) + k, k) + np.arange(int(k.sum()))
        return np.repeat(np.arange(n, dtype=np.int64), k), flat[at]

    w_entry, w_reg = expand(writes_of)
    r_entry, r_reg = expand(reads_of)
    wkey = np.sort(w_reg * span + w_entry)
    pos = np.searchsorted(wkey, r_reg * span + r_entry, side="left") - 1
    hit = pos >= 0
    hit[hit] = wkey[pos[hit]] // span == r_reg[hit]
    prod = wkey[pos[hit]] % span
    node = r_entry[hit]
    order = np.lexsort((prod, node))           # per node, its producers ascending, each once
    node, prod = node[order], prod[order]
    keep = np.ones(len(node), bool)
    keep[1:] = (node[1:] != node[:-1]) | (prod[1:] != prod[:-1])
    node, prod = node[keep], prod[keep]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(node, minlength=n), out=ptr[1:])
    fill = None
    if fills:
        fill = np.full(n, -1, np.int32)
        src = np.fromiter((fills.get(p, -1) for p in distinct.tolist()), np.int64, len(distinct))[inv]
        want = np.flatnonzero(src >= 0)
        if len(want):
            pkey = np.sort(pcs * span + np.arange(n))
            at = np.searchsorted(pkey, src[want] * span + want, side="left") - 1
            ok = at >= 0
            ok[ok] = pkey[at[ok]] // span == src[want][ok]
            fill[want[ok]] = pkey[at[ok]] % span
    bar = np.array([c in BARRIER_CLASSES for c in names], dtype=bool)[cls]
    if subset:
        bar &= ~np.isin(pcs, np.fromiter(subset, np.int64, len(subset)))
    return IDG.from_arrays(name, tuple(names), cls, ptr, prod.astype(np.int32), bar, pcs=pcs, fill=fill)


_OPCODE = operator.itemgetter("opcode")


def kernel_graph_from_traces(name: str, traces: Mapping[int, Sequence[Mapping]],
                             class_of: Callable[[Mapping], str],
                             registers_of: Callable[[Mapping], Registers] = text_registers, *,
                             max_nodes: int | None = None, source: str = "",
                             warps_per_group: int | None = None,
                             block_weights: Mapping[int, float] | None = None,
                             fills: Mapping[int, int] | None = None,
                             translate: Translator | None = None,
                             subset: Collection[int] = (),
                             schedule: Callable[[Sequence[Mapping]], list] | None = None,
                             packed: Packed | None = None) -> WarpClasses:
    """Group the traced warps by (opcode sequence, class sequence) and build one IDG per group;
    with ``warps_per_group``, also the block shapes of the complete traced blocks (group classes).
    ``registers_of`` gives each entry's (read, written) registers (:func:`ir_registers` for
    the emulator's traces, :func:`text_registers` by default).

    ``block_weights`` (block id -> weight, default 1 each) lets a sample of blocks stand for more
    blocks than it holds (a block spread sample): warp- and group-class weights sum them."""
    if not traces:
        raise PipeperfError(f"no warp traces for kernel '{name}' (trace at least one warp)")
    if warps_per_group is not None and warps_per_group < 1:
        raise PipeperfError(f"warps per group must be >= 1, got {warps_per_group}")
    groups: dict[tuple, list[int]] = {}
    truncated = 0
    cut: dict[int, Sequence[Mapping]] = {}
    full = sum(len(t) for t in traces.values())
    for wid in sorted(traces):
        t = traces[wid]
        if max_nodes is not None and len(t) > max_nodes:
            t = t[:max_nodes]
            truncated += 1
        cut[wid] = t
        key = (tuple(map(_OPCODE, t)), tuple(map(class_of, t)))
        groups.setdefault(key, []).append(wid)
    return _assemble(name, list(groups.values()), cut, {w: len(t) for w, t in cut.items()}, truncated,
                     class_of=class_of, registers_of=registers_of, source=source, warps_per_group=warps_per_group,
                     block_weights=block_weights, full=full, fills=fills, translate=translate, subset=subset,
                     schedule=schedule, packed=packed)


def _assemble(name: str, groups: list[list[int]], rep: Mapping[int, Sequence[Mapping]],
              lengths: Mapping[int, int], truncated: int, *, class_of: Callable[[Mapping], str],
              registers_of: Callable[[Mapping], Registers], source: str,
              warps_per_group: int | None, block_weights: Mapping[int, float] | None,
              full: int | None = None, fills: Mapping[int, int] | None = None,
              translate: Translator | None = None,
              subset: Collection[int] = (), schedule: Callable[[Sequence[Mapping]], list] | None = None,
              packed: Packed | None = None) -> WarpClasses:
    """KernelGraph from warps grouped by trace (each group's first warp's entries in ``rep``);
    ``subset``: :func:`subset_barriers` (a translation's entries name the PTX pc of their line);
    ``packed`` (PTX IDGs): the arithmetic ptxas packs (:func:`packed_entries`)."""
    if warps_per_group is not None and warps_per_group < 1:
        raise PipeperfError(f"warps per group must be >= 1, got {warps_per_group}")
    if block_weights is not None and not warps_per_group:
        raise PipeperfError("block weights need the warps per group (block) to find each warp's block")
    bw = block_weights or {}
    if any(not v > 0 for v in bw.values()):
        raise PipeperfError("block weights must be positive")

    per_group = warps_per_group or 1         # set whenever there are block weights

    def weight(wids: Sequence[int]) -> float:
        return float(sum(bw.get(w // per_group, 1.0) for w in wids)) if bw else float(len(wids))

    if truncated:
        rep, lengths = _common_barriers(groups, rep, lengths, class_of, subset)
    per_traced = 1.0
    ptx_len = sum(len(rep[g[0]]) * len(g) for g in groups)
    if translate is not None:
        # the SASS of a cut trace ends at a block's end: its barriers can differ from the PTX's by
        # a block's worth, so the translated traces meet at a common barrier again
        rep = {g[0]: translate.translate(rep[g[0]]) for g in groups}
        per_traced = sum(len(rep[g[0]]) * len(g) for g in groups) / ptx_len if ptx_len else 1.0
        class_of, registers_of = translate.class_of, translate.registers_of
        if truncated:
            rep, _ = _common_barriers(groups, rep, lengths, class_of)
    elif schedule is not None:              # the PTX in the order ptxas issues it (load_hoisting)
        rep = {g[0]: schedule(rep[g[0]]) for g in groups}
        per_traced = sum(len(rep[g[0]]) * len(g) for g in groups) / ptx_len if ptx_len else 1.0
    classes = []
    class_of_warp: dict[int, int] = {}
    nodes = 0
    for k, wids in enumerate(sorted(groups, key=lambda w: (-len(w), w[0]))):
        g = warp_idg(f"{name}.w{wids[0]}", rep[wids[0]], class_of, registers_of, fills, subset,
                     packed=packed if translate is None else None)
        classes.append(WarpClass(g, weight(wids)))
        class_of_warp.update((w, k) for w in wids)
        nodes += len(g) * len(wids)
    if translate is None and packed and ptx_len:     # packed nodes and inserted spill code, per PTX entry
        per_traced = nodes / ptx_len
    shapes, partial = _block_shapes(class_of_warp, warps_per_group) if warps_per_group else ({}, 0)
    gcs = tuple(GroupClass(shape, float(sum(bw.get(b, 1.0) for b in blocks)))
                for shape, blocks in sorted(shapes.items(), key=lambda kv: (-len(kv[1]), kv[1][0])))
    kg = KernelGraph(name, tuple(classes), source, gcs)
    kept = int(sum(lengths.values()))
    return WarpClasses(kg, BuildInfo(len(lengths), len(classes), max(lengths.values()), truncated,
                                     sum(len(b) for b in shapes.values()), partial, len(gcs),
                                     kept if full is None else int(full), kept, per_traced))


def _common_barriers(groups: list[list[int]], rep: Mapping[int, Sequence[Mapping]], lengths: Mapping[int, int],
                     class_of, subset: Collection[int] = ()) -> tuple[dict[int, Sequence[Mapping]], dict[int, int]]:
    """Cut traces end after as many barriers as the cut trace with the fewest: a trace cut at a
    number of instructions (the trace cap, the node budget) reaches more barriers in a warp whose
    phases between barriers are shorter, and warps of one block must meet the same barriers. The
    instructions after the common last barrier are left out (the caller extrapolates over what is
    kept: ``lengths`` follow the cut)."""
    def bars(t: Sequence[Mapping]) -> list[int]:
        return [i for i, e in enumerate(t) if class_of(e) in BARRIER_CLASSES and e.get("pc") not in subset]

    at = {g[0]: bars(rep[g[0]]) for g in groups}
    counts = {len(b) for b in at.values() if b}
    if len(counts) < 2:
        return dict(rep), dict(lengths)
    keep = min(counts)
    out, lens = dict(rep), dict(lengths)
    for g in groups:
        b = at[g[0]]
        if len(b) > keep:
            out[g[0]] = rep[g[0]][:b[keep - 1] + 1]
            for w in g:
                lens[w] = min(lens.get(w, len(out[g[0]])), len(out[g[0]]))
    return out, lens


def _block_shapes(class_of_warp: Mapping[int, int], wpg: int) -> tuple[dict[tuple[int, ...], list[int]], int]:
    """Block shape (warp class by position) -> ids of the complete traced blocks of that shape,
    and the number of partly traced blocks (left out)."""
    blocks: dict[int, dict[int, int]] = {}
    for w, c in class_of_warp.items():
        blocks.setdefault(w // wpg, {})[w % wpg] = c
    shapes: dict[tuple[int, ...], list[int]] = {}
    partial = 0
    for b in sorted(blocks):
        pos = blocks[b]
        if len(pos) < wpg:
            partial += 1
            continue
        shapes.setdefault(tuple(pos[p] for p in range(wpg)), []).append(b)
    return shapes, partial


def kernel_graph_from_profile(prof, func, available: set[str] | None = None, gpu: str = "",
                              max_nodes: int | None = None, source: str = "", *,
                              class_overrides: Mapping[int, str] | None = None,
                              warps_per_group: int | None = None,
                              block_weights: Mapping[int, float] | None = None,
                              drop_periods: bool = False, fraction: float | None = None,
                              fills: Mapping[int, int] | None = None,
                              translate: Translator | None = None, hoist_bytes: int | None = None,
                              packed: Packed | None = None,
                              insert: Callable[[Sequence[Mapping]], list] | None = None) -> WarpClasses:
    """KernelGraph of ``func`` from a Profile traced by the emulator, classes from the mapper
    (mapper f), except the instruction indices in ``class_overrides`` (mapper g's memory classes).
    ``drop_periods``: the IDGs with half the recorded periods of each skipped loop left out;
    ``fraction``: each warp's trace cut to that share of its length (emulator traces only);
    ``fills``: mapper g's fill sources (:func:`warp_idg`); ``translate``: each warp class's
    entries re-expressed before its IDG is built (the SASS the GPU runs: analysis/sass_trace.py);
    ``hoist_bytes`` (without ``translate``): the PTX's loads in ptxas' order, that many loaded bytes
    per thread in flight at most (:func:`load_hoisting`); None keeps the PTX's order; ``packed``
    (without ``translate``): the PTX arithmetic ptxas packs, one node per k (:func:`packed_entries`).
    ``insert`` (without ``translate``): entries added to each warp class's trace before the
    hoisting, read by :func:`inserted_entries` (the SASS's spill code: analysis/ptx_spills.py).

    Group classes are built per block of ``warps_per_group`` warps; None takes the launch's
    block size (``prof.block``, 32-thread warps, the emulator's warp numbering)."""
    from pipeperf.hardware.mapper import map_instruction

    if warps_per_group is None:
        warps_per_group = -(-math.prod(prof.block) // 32)
    ins = func.instructions
    memo: dict[int, str] = dict(class_overrides or {})

    @per_pc
    def ptx_class_of(e: Mapping) -> str:
        pc = e["pc"]
        if pc not in memo:
            memo[pc] = map_instruction(ins[pc], available, gpu)
        return memo[pc]

    class_of: Callable[[Mapping], str] = ptx_class_of
    registers_of = ir_registers(func)
    if insert is not None and translate is None:
        class_of, registers_of = inserted_entries(class_of, registers_of)
    else:
        insert = None
    hoisted = (load_hoisting(func, registers_of, hoist_bytes) if hoist_bytes is not None and translate is None
               else None)
    schedule = hoisted if insert is None else _then(insert, hoisted)
    subset = subset_barriers(func, math.prod(prof.block))
    from pipeperf.emulate.tracelog import TraceLog

    if isinstance(prof.traces, TraceLog) and prof.traces:
        return _from_trace_log(prof.traces, func, class_of, registers_of, max_nodes=max_nodes, source=source,
                               warps_per_group=warps_per_group, block_weights=block_weights,
                               drop_periods=drop_periods, fraction=fraction, fills=fills, translate=translate,
                               subset=subset, schedule=schedule, packed=packed)
    if any(x.op.root == "call" for x in ins):        # callee entries interleave: keep the kernel's
        traces = {w: [e for e in t if e["function"] == func.name] for w, t in prof.traces.items()}
    else:
        traces = prof.traces
    return kernel_graph_from_traces(func.name, traces, class_of, registers_of, max_nodes=max_nodes, source=source,
                                    warps_per_group=warps_per_group, block_weights=block_weights, fills=fills,
                                    translate=translate, subset=subset, schedule=schedule, packed=packed)


def _then(first: Callable[[Sequence[Mapping]], list], then: Callable[[Sequence[Mapping]], list] | None
          ) -> Callable[[Sequence[Mapping]], list]:
    return (lambda t: then(first(t))) if then is not None else first


def _from_trace_log(log: TraceLog, func: Function, class_of: Callable[[Mapping], str],
                    registers_of: Callable[[Mapping], Registers], *, max_nodes: int | None, source: str,
                    warps_per_group: int, block_weights: Mapping[int, float] | None, drop_periods: bool = False, fraction: float | None = None,
                    fills: Mapping[int, int] | None = None, translate: Translator | None = None,
                    subset: Collection[int] = (), schedule: Callable[[Sequence[Mapping]], list] | None = None,
                    packed: Packed | None = None) -> WarpClasses:
    """Group warps by their pc sequence on NumPy arrays (no entries built), then build entries
    for one warp per group only; groups whose (opcode, class) sequences agree are merged, as
    :func:`kernel_graph_from_traces` groups. ``drop_periods``: leave out half of the whole periods
    the trace keeps before each skipped loop (:class:`~pipeperf.emulate.tracelog.Skip`), the
    shorter of the two IDGs the analysis extrapolates the skipped periods from. ``fraction``: cut
    each warp's trace to that share of its length (every warp loses the same share, so the
    instructions cut away extrapolate alike for long and short warps)."""
    sig = log.pc_signature(func.name, max_nodes)
    by_pcs: dict[bytes, list[int]] = {}
    for w in sorted(sig):
        by_pcs.setdefault(sig[w][0], []).append(w)
    merged: dict[tuple, list[int]] = {}
    rep: dict[int, Sequence[Mapping]] = {}
    kept: dict[int, int] = {}
    cut: dict[int, bool] = {}
    for wids in by_pcs.values():
        n = log.length(wids[0], func.name)
        skips = log.skips_of(wids[0]) if log.skips else []
        extra = sum(count * per for _, per, _, count, expand in skips if expand)   # repeated periods
        limit = n + extra if max_nodes is None else min(n + extra, max_nodes)
        if fraction is not None and fraction < 1:
            limit = min(limit, max(1, int((n + extra) * fraction)))
        cut_here = limit < n + extra
        if extra:                          # (positions count every function's entries: loops that
            t = _periods(log.head(wids[0], n, func.name), skips, drop_periods)[:limit]   # call are never skipped)
        else:
            t = log.head(wids[0], limit, func.name)    # only the entries the IDG keeps are built
            if drop_periods:
                t = _periods(t, skips, True)
        for w in wids:                     # cut here, or by the emulator's trace cap
            kept[w], cut[w] = len(t), cut_here or (log.cap is not None and log.length(w) >= log.cap)
        key = (tuple(map(_OPCODE, t)), tuple(map(class_of, t)))
        if key in merged:
            merged[key].extend(wids)
        else:
            merged[key] = list(wids)
            rep[wids[0]] = t
    groups = [sorted(w) for w in merged.values()]
    for g in groups:                       # the representative is each group's first warp
        if g[0] not in rep:
            rep[g[0]] = next(rep[w] for w in g if w in rep)
    if not kept:
        raise PipeperfError(f"no warp traces for kernel '{func.name}' (trace at least one warp)")
    truncated = sum(cut.values())
    return _assemble(func.name, groups, rep, kept, truncated, class_of=class_of, registers_of=registers_of,
                     source=source, warps_per_group=warps_per_group, block_weights=block_weights,
                     full=sum(n for _, n in sig.values()), fills=fills, translate=translate, subset=subset,
                     schedule=schedule, packed=packed)


def _periods(entries: list, skips: list[tuple[int, int, int, int, int]], drop: bool) -> list:
    """``entries`` with each repeated skip's last recorded period put back ``count`` times at its
    position (:attr:`~pipeperf.emulate.tracelog.Skip.expand`: the trace the exact path emulates),
    and, with ``drop``, without the last ``recorded // 2`` whole periods before each other skip."""
    out, start = [], 0
    for pos, period, recorded, count, expand in skips:
        if pos < start or pos > len(entries):
            continue
        if expand:
            out += entries[start:pos]
            out += entries[pos - period:pos] * count
            start = pos
            continue
        h = recorded // 2
        if not drop or h < 1:
            continue
        out += entries[start:pos - h * period]
        start = pos
    return out + entries[start:]
