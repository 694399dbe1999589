"""Which warps to trace and which CTAs to emulate: a representative sample of a big launch.

Why: emulating every CTA of a large grid costs tens of seconds, while the IDGs and the memory
analysis need only a few hundred warps' traces. Tracing the *first* N warps sees only the
grid's first rows of CTAs; :func:`spread_ctas` picks the first CTA, the last CTA and CTAs evenly
spaced in between (in clusters of consecutive CTAs, for the cache model), and whole CTAs (all
their warps), so per-block structure (barriers, shared tiles, the edge blocks of a
bounds-checked grid) stays intact.

Emulating only the sampled CTAs is sound when their traces (PC sequence, active masks, lane
addresses) equal those of the same warps in a full launch. A trace is a function of the
registers that decide branches and addresses, so :func:`sampling_safe` computes that slice
and refuses when it may read global memory the kernel writes: then a skipped CTA's store or
atomic could change a sampled CTA's path (e.g. the "last block" test of a threadfence
reduction, by ``atomicInc``). Shared memory is private to a CTA and local memory to a thread,
so loads from them are followed into the stores that fill them; ``.const``/``.param`` are
read-only; global memory written only by the host is the same in every run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeperf.ptx.ir import Function, Instruction, Module
from pipeperf.ptx.slices import (
    READ_ONLY_SPACES,
    READS_MEMORY,
    WRITES_MEMORY,
    address_registers,
    may_alias,
    reads_writable_memory,
    register_names,
    register_slice,
    space_of,
    written_registers,
)
from pipeperf.ptx.provenance import UNKNOWN, address_provenance, operand_provenance, provenance
from pipeperf.ptx.source_map import SourceMap

#: Address spaces private to one CTA (or thread): other CTAs never write them.
_PRIVATE = ("shared", "local")


#: most consecutive CTAs per cluster of a spread sample
CLUSTER = 8


def spread_ctas(num_blocks: int, count: int) -> np.ndarray:
    """``count`` CTA linear indices (fewer when the grid is smaller), sorted: the first, the last
    and evenly spaced ones in between, in clusters of consecutive CTAs when ``count`` >= 8
    (up to CLUSTER each, at least 4 clusters). Consecutive CTAs run at the same time on a GPU
    (the block scheduler issues them in order), so a cluster shows the cache model the reuse
    between neighbours (a tiled matmul's blocks sharing a row of A, a stencil's halos)."""
    count = max(1, min(int(count), num_blocks))
    if count == 1:
        return np.zeros(1, np.int64)
    size = min(CLUSTER, count // 4) if count >= 8 else 1
    n_clusters = -(-count // size)
    starts = np.round(np.linspace(0, num_blocks - size, n_clusters)).astype(np.int64)
    ctas = np.unique((starts[:, None] + np.arange(size)[None, :]).reshape(-1))
    if len(ctas) > count:                      # overlapping clusters of a small grid: keep the ends
        ctas = np.unique(np.concatenate([ctas[:count - 1], ctas[-1:]]))
    elif len(ctas) < count:                    # clusters merged by rounding: fill evenly
        rest = np.setdiff1d(np.arange(num_blocks), ctas)
        pick = np.round(np.linspace(0, len(rest) - 1, count - len(ctas))).astype(np.int64)
        ctas = np.unique(np.concatenate([ctas, rest[pick]]))
    return ctas


#: most strata :class:`Strata` forms (each has a CTA emulated); beyond, each axis keeps its outermost cuts
MAX_STRATA = 64


class Strata:
    """The grid split into strata of CTAs alike under its bounds checks, along each axis of
    extent > 1: the last block, each block a guard splits (``cuts``:
    :func:`pipeperf.emulate.bounds.partial_blocks`, e.g. the block column holding ``x = w``)
    and the runs of blocks between them; a CTA's stratum combines its axes' classes. Without
    cuts: interior or last along each axis (the last CTA of a grid rounded up is partial)."""

    def __init__(self, grid: Sequence[int], cuts: Sequence[set[int]] = ()):
        self.grid = [int(x) for x in grid] + [1] * (3 - len(grid))
        self.dims = [d for d in range(3) if self.grid[d] > 1]
        cuts = list(cuts) + [set()] * (3 - len(cuts))
        #: per axis, the blocks a guard splits (the last one too); and how many CTAs that makes
        self.masked = [sorted(c for c in cuts[d] if 0 <= c < self.grid[d]) for d in range(3)]
        self.split = self.grid[0] * self.grid[1] * self.grid[2] - int(np.prod(
            [self.grid[d] - len(self.masked[d]) for d in range(3)]))
        self.cuts = [sorted(c for c in cuts[d] if 0 <= c < self.grid[d] - 1) if d in self.dims else []
                     for d in range(3)]
        while self.count() > MAX_STRATA and any(len(c) > 2 for c in self.cuts):
            self.cuts = [c if len(c) <= 2 else [c[0], c[-1]] for c in self.cuts]
        if self.count() > MAX_STRATA:
            self.cuts = [[], [], []]
        self._points = [self.cuts[d] + [self.grid[d] - 1] for d in range(3)]

    @classmethod
    def of(cls, func, launch) -> Strata:
        """The strata of ``func``'s launch (its guards' cuts, none where they are not affine)."""
        from pipeperf.emulate.bounds import partial_blocks

        try:
            cuts = partial_blocks(func, launch)
        except (KeyError, IndexError, TypeError, ValueError, RecursionError):
            cuts = [set(), set(), set()]
        return cls(launch.grid, cuts)

    def count(self) -> int:
        n = 1
        for d in self.dims:
            n *= 2 * (len(self.cuts[d]) + 1)
        return n

    def _classes(self, d: int) -> list[tuple[int, int, int]]:
        """(class, first block, blocks) along axis ``d``: a run between points, then a point."""
        out, lo = [], 0
        for k, p in enumerate(self._points[d]):
            if p > lo:
                out.append((2 * k, lo, p - lo))
            out.append((2 * k + 1, p, 1))
            lo = p + 1
        return out

    def key(self, b: int) -> tuple[int, ...]:
        import bisect

        g = self.grid
        c = (b % g[0], (b // g[0]) % g[1], b // (g[0] * g[1]))
        out = []
        for d in self.dims:
            k = bisect.bisect_left(self._points[d], c[d])
            out.append(2 * k + 1 if self._points[d][k] == c[d] else 2 * k)
        return tuple(out)

    def size(self, key: tuple[int, ...]) -> int:
        n = 1
        for d, k in zip(self.dims, key):
            n *= next(m for c, _, m in self._classes(d) if c == k)
        return n

    def representatives(self) -> np.ndarray:
        """One CTA of every stratum (each run's middle block), linear ids, sorted."""
        import itertools

        g = self.grid
        per_axis = [[lo + m // 2 for _, lo, m in self._classes(d)] if d in self.dims else [0]
                    for d in range(3)]
        return np.unique(np.asarray([x + g[0] * (y + g[1] * z) for x, y, z in itertools.product(*per_axis)],
                                    np.int64))


def sample_weights(ctas: Sequence[int] | np.ndarray, grid: Sequence[int], strata: Strata | None = None) -> dict[int, float]:
    """How many CTAs of the grid each sampled CTA stands for (linear ids, x fastest).

    The grid is split into :class:`Strata` (interior, last column, last row, corner..., and the
    blocks a bounds check splits): bounds checks make exactly those CTAs partial, so the one
    nearly empty last CTA of a large grid stands for itself and not for 1/k of the grid. Each
    sampled CTA weighs its stratum's size over the sampled CTAs in it; a stratum with no sampled
    CTA lends its size to the others in proportion (they are taken to be alike)."""
    st = strata or Strata(grid)
    total = st.grid[0] * st.grid[1] * st.grid[2]
    members: dict[tuple[int, ...], list[int]] = {}
    for b in ctas:
        members.setdefault(st.key(int(b)), []).append(int(b))
    sizes = {k: st.size(k) for k in members}
    covered = sum(sizes.values())
    scale = total / covered if covered else 1.0
    return {b: sizes[k] * scale / len(bs) for k, bs in members.items() for b in bs}


def warps_of(ctas: np.ndarray, warps_per_cta: int) -> np.ndarray:
    """Launch-wide warp ids of every warp of ``ctas`` (sorted)."""
    c = np.asarray(ctas, np.int64)
    return (c[:, None] * warps_per_cta + np.arange(warps_per_cta)[None, :]).reshape(-1)


def _copy_source_conflict(copy, writers, prov: dict[str, set[str]]):
    """A global writer that may write what ``cp.async`` ``copy`` reads (its second operand)."""
    src = operand_provenance(copy.srcs[1] if len(copy.srcs) > 1 else None, prov)
    for w in writers:
        if space_of(w) in _PRIVATE or space_of(w) in READ_ONLY_SPACES or w.op.root == "cp.async":
            continue                 # (plain cp.async writes shared memory)
        pw = address_provenance(w, prov)
        if UNKNOWN in src or UNKNOWN in pw or src & pw:
            return w
    return None


def _may_alias(x, w, prov: dict[str, set[str]]) -> bool:
    if not may_alias(x, w):
        return False
    px, pw = address_provenance(x, prov), address_provenance(w, prov)
    return UNKNOWN in px or UNKNOWN in pw or bool(px & pw)


def sampling_safe(func: Function, module: Module | None = None,
                  memory: bool = True, launch=None) -> tuple[bool, str]:
    """(safe, reason): whether emulating a subset of ``func``'s CTAs gives each emulated warp
    the trace it has in the whole launch, in full and in hybrid mode alike (both execute the
    branch and address slice exactly). ``memory=False``: addresses are not traced, only branch
    slices count. Conservative: the slice is flow-insensitive over registers (as hybrid mode's);
    a slice load of private memory pulls in every store that may write it; a slice load (or
    atomic) of global/generic memory that some store or atomic of the kernel may write (same
    or generic space, not provably distinct named variables) is unsafe. Device function calls
    are judged whole: any global read in a callee against any global write. Accesses through
    different pointer parameters (provenance, :func:`pipeperf.ptx.provenance.provenance`) or distinct named variables
    do not alias: the emulator gives each pointer argument its own buffer (an index running
    from one buffer into another is undefined behaviour in CUDA too). With the ``launch``
    (grid, block, argument values), a global read and a write whose addresses are affine in the
    thread and block indices with slices no two CTAs share (:func:`pipeperf.ptx.affine.cta_disjoint`:
    each CTA reads and writes only its own part) do not make it unsafe either."""
    ins = func.instructions
    if any(x.root == "call" and x.callee not in SYSTEM_CALLS for x in ins):
        return _whole_module_rule(func, module)
    sources = SourceMap(module) if module is not None else None
    writers = [x for x in ins if x.op.root in WRITES_MEMORY]
    prov = provenance(func)
    pc_of = {id(x): k for k, x in enumerate(ins)}
    own = _OwnSlices(func, launch) if launch is not None else None
    own_slices: dict[int, Instruction] = {}
    regs: set[str] = set()
    for x in ins:
        if x.guard is not None:
            regs.add(x.guard.name)
        if x.root in ("bra", "brx"):
            regs |= register_names(x.srcs)
        if memory and x.op.root in READS_MEMORY | WRITES_MEMORY:
            regs |= address_registers(x)

    def join(i: int, x: Instruction) -> set[str]:
        """What ``x`` (in the slice) reads; the stores that fill the private memory it loads;
        :class:`_Unsafe` when it may load global memory another CTA writes."""
        reads = register_names(x.srcs) | address_registers(x)
        if not reads_writable_memory(x):
            return reads
        for w in writers:
            if not _may_alias(x, w, prov):
                continue
            if own is not None and space_of(x) not in _PRIVATE and own.disjoint(i, pc_of[id(w)]):
                own_slices[x.line] = x
                continue                 # each CTA reads and writes only its own slice
            if space_of(x) in _PRIVATE:  # only the CTA (thread) itself writes what x reads
                reads |= register_names(w.operands)   # the store's value and address join
                g = _copy_source_conflict(w, writers, prov) if w.op.root == "cp.async" else None
                if g is None:
                    continue
                raise _Unsafe(w, g)      # an async copy from global memory others write
            raise _Unsafe(x, w)
        return reads

    try:
        register_slice(func, regs, set(), [set(written_registers(x)) for x in ins], join)
    except _Unsafe as u:
        x, w = u.args
        return False, (f"`{x.opcode}` at {_at(x, func, sources)} feeds control flow or "
                       f"addresses and may read global memory that `{w.opcode}` at "
                       f"{_at(w, func, sources)} writes: "
                       f"skipped CTAs' writes could change the sampled CTAs' paths")
    if own_slices:
        lines = sorted(own_slices)
        src = [] if sources is None else [loc.where for loc in dict.fromkeys(
            sources.location(func, own_slices[n]) for n in lines) if loc is not None]
        return True, ("branches and addresses read only their CTA's own slice of the memory the kernel "
                      f"writes (affine addresses disjoint across CTAs: the loads at PTX line"
                      f"{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"
                      + (f", from {', '.join(dict.fromkeys(src))}" if src else "") + ")")
    return True, "no branch or address depends on memory that other CTAs write"


class _Unsafe(Exception):
    """Raised with (reader, writer): the reader may see what another CTA's writer wrote."""


class _OwnSlices:
    """Whether a read and a write touch per-CTA slices that no two CTAs share, under a launch."""

    def __init__(self, func: Function, launch):
        from pipeperf.emulate.bounds import launch_affine

        self.aff = launch_affine(func, launch)

    def disjoint(self, read_pc: int, write_pc: int) -> bool:
        from pipeperf.ptx.affine import cta_disjoint
        from pipeperf.ptx.ir import TYPE_BYTES

        ins = self.aff.ins

        def width(x) -> int:
            vec = next((int(m[1:]) for m in x.op.modifiers if m in ("v2", "v4", "v8")), 1)
            return TYPE_BYTES.get(x.op.types[-1], 8) * vec if x.op.types else 16

        try:
            return cta_disjoint(self.aff.address(read_pc), self.aff.address(write_pc),
                                max(width(ins[read_pc]), width(ins[write_pc])), self.aff.range_of)
        except (KeyError, IndexError, TypeError, ValueError):
            return False


def _at(x: Instruction, func: Function, sources: SourceMap | None) -> str:
    """Where ``x`` is, for a message: its PTX line and, from ``.loc``, its source line."""
    if not x.line:
        return f"instruction {x.index}"
    return sources.where(func, x) if sources is not None else f"PTX line {x.line}"


#: functions without a body that a kernel calls and that write no memory the kernel reads:
#: ``assert``'s ``__assertfail`` (it prints and traps: the emulator stops on it) and ``printf``'s
#: ``vprintf`` (its buffer is the host's; the emulator counts the calls). A call of one of these
#: alone leaves the slice rule of :func:`sampling_safe` exact.
SYSTEM_CALLS = frozenset({"__assertfail", "vprintf"})


def _reachable(func: Function, module: Module | None) -> list[Function]:
    """``func`` and the functions with a body it calls, directly or not: the other kernels of the
    module do not run in this launch. An indirect call (no callee name) reaches every function."""
    if module is None:
        return [func]
    seen, todo, out = {func.name}, [func], [func]
    while todo:
        for x in todo.pop().instructions:
            if x.root != "call":
                continue
            name = x.callee
            targets = [f for f in module.functions if f.name == name] if name else list(module.functions)
            for f in targets:
                if f.name not in seen and f.has_body:
                    seen.add(f.name)
                    todo.append(f)
                    out.append(f)
    return out


def _whole_module_rule(func: Function, module: Module | None) -> tuple[bool, str]:
    """With calls: safe only when no global/generic read of the kernel or any function it calls
    may alias a global/generic write of them."""
    funcs = [f for f in _reachable(func, module) if f.has_body]
    allins = [x for f in funcs for x in f.instructions]
    shared_ok = ("shared", "local")
    readers = [x for x in allins if reads_writable_memory(x) and space_of(x) not in shared_ok]
    writers = [x for x in allins if x.op.root in WRITES_MEMORY and space_of(x) not in shared_ok]
    owner = {id(x): f for f in funcs for x in f.instructions}
    sources = SourceMap(module) if module is not None else None
    for r in readers:
        for w in writers:
            if may_alias(r, w):
                return False, (f"the kernel calls device functions and `{r.opcode}` at "
                               f"{_at(r, owner[id(r)], sources)} may read global memory that "
                               f"`{w.opcode}` at {_at(w, owner[id(w)], sources)} writes")
    return True, "no global read of the kernel or its callees may alias a global write"


def resolve_ctas(ctas: str | Sequence[int] | np.ndarray | None, num_blocks: int,
                 traced_ctas: np.ndarray | None) -> np.ndarray | None:
    """The sorted CTA indices to emulate (``None``: all): ``"traced"`` means the traced CTAs;
    a sequence is checked to lie in the grid. Traced CTAs are always emulated too."""
    from pipeperf.errors import PipeperfError

    if ctas is None:
        return None
    if isinstance(ctas, str):
        if ctas != "traced":
            raise PipeperfError(f"unknown CTA sample {ctas!r} (a list of CTA indices, or 'traced')")
        if traced_ctas is None or not len(traced_ctas):
            raise PipeperfError("ctas='traced' needs traced warps (trace_warps > 0)")
        c = np.asarray(traced_ctas, np.int64)
    else:
        c = np.asarray(list(ctas), np.int64).reshape(-1)
        if len(c) and (c.min() < 0 or c.max() >= num_blocks):
            raise PipeperfError(f"CTA index outside the grid of {num_blocks} blocks")
        if traced_ctas is not None:
            c = np.concatenate((c, np.asarray(traced_ctas, np.int64)))
    c = np.unique(c)
    if not len(c):
        raise PipeperfError("an empty CTA sample")
    return None if len(c) == num_blocks else c
