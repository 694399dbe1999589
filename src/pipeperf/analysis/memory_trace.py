"""From the emulator's traces to mapper g: the traced warps' memory requests as
:class:`pipeperf.hardware.accesses.Accesses`, and each GPU's adjusted memory classes.

This is wiring (the analysis itself is :mod:`pipeperf.hardware.memory`): it resolves generic
addresses to their state space with the emulator's address windows and takes each request's
bytes per lane from the PTX instruction (element type x vector width).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeperf.emulate.memory import LOCAL_BASE, SHARED_BASE
from pipeperf.emulate.tracelog import SynthBlock, TraceLog, block_head
from pipeperf.errors import PipeperfError
from pipeperf.hardware import request_scan
from pipeperf.hardware.banks import block_shared_counts, fragment_wavefronts
from pipeperf.hardware.accesses import Accesses, KINDS, PcMemory, SECTOR, SPACES, combine_atomic_lanes, distinct, \
    fuse_requests
from pipeperf.hardware.memory import analyze_accesses, l1_capacity_sectors, l2_capacity_sectors, l2_reach_bytes
from pipeperf.hardware.memory_classes import (MemoryMapping, WHAT_IF, dram_rate_note, dram_request_cpi, ideal_stats,
                                              map_memory, warp_combined)
from pipeperf.hardware.spec import GPUSpec, InstrClass
from pipeperf.ptx.ir import TYPE_BYTES
from pipeperf.ptx.source_map import SourceMap
from pipeperf.util.alloc import keep_freed, release_freed
from pipeperf.util.memo import by_identity

if TYPE_CHECKING:
    from fractions import Fraction

    from pipeperf.analysis.ptx_spills import PtxSpills
    from pipeperf.analysis.records import KernelLaunch
    from pipeperf.analysis.sass_trace import SassView
    from pipeperf.emulate.profile import Profile
    from pipeperf.ptx.ir import Function, Instruction

_ROOTS = ("ld", "st", "ldu", "atom", "red", "cp.async")
#: loads for mapper g: a ``cp.async`` copy is analysed as the global load of its source (the
#: shared store of its destination is not logged: its bank wavefronts are not modelled)
LOAD_ROOTS = ("ld", "ldu", "cp.async")


def _bytes_per_lane(x: Instruction) -> int:
    if x.op.root == "cp.async":                 # cp-size: the third operand (4, 8 or 16 bytes)
        return int(getattr(x.srcs[2], "value", 4)) if len(x.srcs) > 2 else 4
    t = x.op.types[-1] if x.op.types else "b32"
    vec = next((int(m[1:]) for m in x.op.modifiers if m in ("v2", "v4", "v8")), 1)
    return TYPE_BYTES.get(t, 4) * (vec if x.op.root in ("ld", "st", "ldu") else 1)


def _kind(root: str) -> int:
    """KINDS index of a memory instruction: ld/ldu/cp.async load, atom/red atomic, st store."""
    return KINDS.index("load" if root in LOAD_ROOTS else "atomic" if root in ("atom", "red") else "store")


def _generic_space(first_addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per request, from its first lane's generic address: (space code, or -1 for const/local
    traffic that is not analysed; base to subtract), by the emulator's address windows."""
    code = np.full(len(first_addr), SPACES.index("global"), np.int8)
    base = np.zeros(len(first_addr), np.uint64)
    sh = (first_addr >= SHARED_BASE) & (first_addr < LOCAL_BASE)
    code[sh], base[sh] = SPACES.index("shared"), SHARED_BASE
    code[first_addr >= LOCAL_BASE] = -1             # local (private, always coalesced) and const
    return code, base


#: shared-memory requests per instruction kept for the bank-conflict statistics: D is a mean
#: over requests, so a regular sample of this size estimates it well while the full traces of
#: a tiled kernel hold ~10^6 shared requests (the cache model needs every global access)
SHARED_SAMPLE = 8192


def _shared_strides(log: Sequence, func: Function) -> dict[int, int]:
    """Per explicitly shared instruction with more than SHARED_SAMPLE traced requests: keep every k-th."""
    counts: dict[int, int] = {}
    for block in log:
        fn, pc, n = block_head(block)
        x = func.instructions[pc] if fn == func.name else None
        if x is not None and x.op.space == "shared" and x.op.root != "cp.async":    # (a copy's source is global)
            counts[pc] = counts.get(pc, 0) + n
    return {pc: -(-n // SHARED_SAMPLE) for pc, n in counts.items() if n > SHARED_SAMPLE}


def _bank_invariant(block: SynthBlock) -> bool:
    """Every lane of each request moves by its request's first lane's change per period, a
    multiple of 128 bytes (32 banks of 4 bytes; wrapping): each synthesised period's requests
    then have the last emulated period's banks, words and lines, so its wavefronts (a tiled
    GEMM's shared tiles stay put: a change of 0)."""
    d = block.delta
    if not d.any():
        return True
    if (d % np.uint64(128)).any():
        return False
    first = np.cumsum(block.lanes) - block.lanes
    return bool((d == np.repeat(d[first], block.lanes)).all())


def _counted_synth(block: SynthBlock, nbytes: int, out: tuple[np.ndarray, ...]) -> None:
    """A synthesised block of counted shared requests (:func:`_bank_invariant`) written into
    ``out`` = (warp, step, lanes, first lane addresses, waves, returns): the last emulated period's
    wavefronts counted once and repeated for each of its ``count`` periods; one lane per request
    kept (its first, moved by its change per period), as a logged block's."""
    warp, step, lanes, firsts, waves, returns = out
    k, n = block.count, len(block.warps)
    w0, r0, f0 = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.uint64)
    block_shared_counts(block.addr, block.lanes, nbytes, (w0, r0), f0)
    j = np.arange(1, k + 1, dtype=np.int64)[:, None]
    warp.reshape(k, n)[:] = block.warps
    np.add(block.steps, j * block.period, out=step.reshape(k, n))
    lanes[:] = 1
    waves.reshape(k, n)[:] = w0
    returns.reshape(k, n)[:] = r0
    f = firsts.reshape(k, n)
    if not block.delta.any():
        f[:] = f0
        return
    d = block.delta[np.cumsum(block.lanes) - block.lanes]
    np.multiply(j.astype(np.uint64), d, out=f)
    f += f0


def traced_accesses(log: Sequence, func: Function, warps_per_wave: int | None = None,
                    longest: int = 0, count_shared: bool = False) -> Accesses:
    """The global and shared memory requests of ``func``'s traced warps, from the emulator's
    columnar ``Profile.memory_log``.  With ``warps_per_wave``, warps of later waves of blocks
    are ordered after earlier ones in the cache model (``longest``: the longest trace).
    The columns are allocated once and each block is written into them (a synthesised block
    expanded in place), so the launch's addresses are held once, not twice.

    ``count_shared``: each logged block of explicitly shared loads and stores has its requests'
    bank and return wavefronts counted from the block's own lanes (``Accesses.waves``/``returns``,
    the same integers the whole column gives) and keeps one lane per request. Why: those lanes
    are read for nothing else, and copying them was most of the column (a tiled GEMM variant:
    17.8 M of 18.9 M lanes). A synthesised block (a skipped loop's periods) is counted so too, each
    expanded on its own and dropped. Not with requests that are fused afterwards (SASS widening)."""
    ins = func.instructions
    chosen = []
    seen: dict[int, int] = {}
    stride = _shared_strides(log, func)
    n_req = n_lane = 0
    for block in log:
        fn, at, n = block_head(block)
        if fn != func.name or n == 0:
            continue
        x = ins[at]
        if x.op.root not in _ROOTS:
            continue
        if at in stride:                            # shared: every stride-th access only
            k = seen[at] = seen.get(at, -1) + 1
            if k % stride[at]:
                continue
        sp = "global" if x.op.root == "cp.async" else x.op.space     # (its opcode names .shared first)
        if sp not in ("global", "shared", None, "generic"):
            continue                                # param, const, local, tex
        counted = count_shared and sp == "shared" and x.op.root != "atom" and x.op.root != "red"
        m = n if counted else block.n_lanes if type(block) is SynthBlock else len(block[5])
        chosen.append((block, at, x, sp, n_req, n_lane, n, m, counted))
        n_req, n_lane = n_req + n, n_lane + m
    if not chosen:
        return Accesses.from_rows([])
    # per block only its warps, steps, lanes and addresses are written (a synthesised block
    # expanded in place); the per-instruction columns are repeated from one row per block
    per_pc: dict[int, tuple[int, int, int]] = {}
    head: list[tuple[int, int, int, int]] = []
    generic = []
    warp = np.empty(n_req, np.int64)
    step = np.empty(n_req, np.int64)
    lanes = np.empty(n_req, np.int64)
    addr = np.empty(n_lane, np.uint64)
    waves = returns = None
    if any(c[-1] for c in chosen):
        waves, returns = np.full(n_req, -1, np.int64), np.full(n_req, -1, np.int64)
    # counted blocks of lanes of at most 4 bytes: all in one C call after the loop
    batch: list | None = [] if waves is not None and request_scan.AVAILABLE else None
    for block, at, x, sp, r, a, n, m, counted in chosen:
        info = per_pc.get(at)
        if info is None:
            info = per_pc[at] = (_bytes_per_lane(x), _kind(x.op.root),
                                 SPACES.index(sp) if sp in ("global", "shared") else -2)
        head.append((at, *info))
        rs, ls = slice(r, r + n), slice(a, a + m)
        if counted and batch is not None and info[0] <= 4 and type(block) is not SynthBlock:
            batch.append((block[2], block[3], block[4], block[5], info[0], r, a))
        elif counted and type(block) is SynthBlock and _bank_invariant(block):
            assert waves is not None and returns is not None
            _counted_synth(block, info[0], (warp[rs], step[rs], lanes[rs], addr[ls], waves[rs], returns[rs]))
        elif counted:                               # (a synthesised block: expanded here, its lanes
            assert waves is not None and returns is not None    # then dropped)
            _, _, warp[rs], step[rs], la, lane_addr = block
            lanes[rs] = 1
            block_shared_counts(lane_addr, la, info[0], (waves[rs], returns[rs]), addr[ls])
        elif type(block) is SynthBlock:
            block.fill(warp[rs], step[rs], lanes[rs], addr[ls])
        else:
            _, _, warp[rs], step[rs], lanes[rs], addr[ls] = block
        if info[2] == -2:                           # generic: by the first lane's address window
            generic.append((r, a, n, m))
    if batch:
        assert waves is not None and returns is not None
        request_scan.counted_blocks(batch, warp, step, lanes, addr, waves, returns)
    counts = np.fromiter((c[6] for c in chosen), np.int64, len(chosen))
    heads = np.array(head, np.int64).reshape(-1, 4)
    pc = np.repeat(heads[:, 0], counts)
    nbytes = np.repeat(heads[:, 1], counts)
    kind = np.repeat(heads[:, 2], counts).astype(np.int8)
    code = np.repeat(heads[:, 3], counts).astype(np.int8)
    for r, a, n, m in generic:
        rs, ls = slice(r, r + n), slice(a, a + m)
        la = lanes[rs]
        c, base = _generic_space(addr[ls][np.cumsum(la) - la])
        code[rs] = c
        if base.any():
            addr[ls] -= np.repeat(base, la)
    if warps_per_wave:
        step += (warp // warps_per_wave) * (longest + 1)
    keep = code >= 0
    if not keep.all():
        lane_keep = np.repeat(keep, lanes)
        pc, nbytes, warp, step, lanes, code = pc[keep], nbytes[keep], warp[keep], step[keep], lanes[keep], code[keep]
        kind = kind[keep]
        addr = addr[lane_keep]
        if waves is not None and returns is not None:
            waves, returns = waves[keep], returns[keep]
    out = Accesses.from_arrays(pc, warp, step, code, nbytes, lanes, addr, kind)
    out.no_l1 = frozenset(at for at in per_pc if ins[at].op.root == "cp.async" and "cg" in ins[at].op.modifiers)
    if waves is not None:
        out.waves, out.returns = waves, returns
    return out


def memory_mapping(acc: Accesses, func: Function, base_class: Mapping[int, str], gpu: GPUSpec,
                   traced_warps: int, concurrent_warps: int, *, warps_per_cta: int | None = None,
                   grid: tuple[int, int, int] | None = None, wave_ctas: int = 0,
                   resident_ctas: int = 1, active_sms: int | None = None,
                   launch_scale: float = 1.0, block: tuple[int, int, int] = (1, 1, 1),
                   params: dict | None = None, warm_l2: bool = False,
                   combined_atomics: frozenset[int] = frozenset()) -> MemoryMapping:
    """Mapper g for one GPU: statistics per PC (cache capacities scaled to the sample: the L2 to
    the traced share of a wave, the L1 to a CTA's share of its SM) and classes named after the
    PTX line. With the launch's ``grid`` and the CTAs of one wave, global accesses whose address
    ignores some ``%ctaid`` dimension count the CTAs of a wave that share them
    (:mod:`pipeperf.analysis.cta_sharing`). DRAM requests cost the launch's share of the achievable
    bandwidth for its read/write mix, shared by ``active_sms`` SMs; same-address atomics
    serialise over the launch (``launch_scale`` CTAs per sampled CTA). ``warm_l2``: the launch
    finds its data in L2 (a previous launch touched the same buffers, as in back-to-back launches),
    so when what the whole launch touches fits in L2 its first touches hit too."""
    l2_bytes = l2_reach_bytes(gpu)
    notes: list[str] = []
    stats = analyze_accesses(acc, l2_capacity_sectors(gpu, traced_warps, concurrent_warps), warps_per_cta,
                    l1_capacity_sectors(gpu, resident_ctas),
                    float(l2_bytes) / SECTOR / max(launch_scale, 1.0) if l2_bytes else None, notes)
    if grid is not None and wave_ctas > 1:
        share_across_ctas(stats, func, gpu, grid, block, params or {}, wave_ctas=wave_ctas,
                          warps_per_cta=warps_per_cta,
                          traced_ctas=by_identity("traced_ctas", (acc.warp,), warps_per_cta or 1,
                                                  lambda: len(distinct(acc.warp // (warps_per_cta or 1)))),
                          code=acc.pc, acc=acc)
    if warm_l2:
        warm_start(stats, gpu, launch_scale)
    combine_atomic_lanes(stats, combined_atomics)
    labels = {pc: f"L{func.instructions[pc].line}" for pc in stats}
    share = read_share(stats, func)
    dram = dram_request_cpi(gpu, share, active_sms or gpu.cores)
    if any(st.space == "global" for st in stats.values()) and (note := dram_rate_note(gpu, share)):
        notes.append(note)
    mm = map_memory(stats, base_class, gpu, labels, dram, launch_scale, active_sms or gpu.cores)
    mm.notes.extend(notes)
    return mm


#: CTAs (in launch order) whose address keys the cross-CTA reuse model looks at, at least
REUSE_WINDOW = 65536


def share_across_ctas(stats: dict[int, PcMemory], func: Function, gpu: GPUSpec, grid: tuple[int, int, int],
                      block: tuple[int, int, int], params: dict, *, wave_ctas: int, warps_per_cta: int | None,
                      traced_ctas: int, code: Any = None, acc: Accesses | None = None) -> None:
    """Set each global PC's ``shared_by`` from the CTAs that address the same memory there
    (:func:`~pipeperf.analysis.cta_sharing.cta_keys`, which evaluates the CTA-dependent part of the
    address for every CTA): a CTA reuses what the previous CTA with the same key brought into L2
    when the CTAs launched in between touch less than the L2 holds (each touches what a traced
    CTA touches, its own re-touches left out). CTAs are taken to run in launch order. ``code``:
    an object that lives as long as the emulation whose code ``func`` is (its access columns):
    the keys, which depend on the launch and not the GPU, are computed once for it.

    With the traced accesses ``acc``, a load whose CTAs' footprints overlap without being equal
    (a convolution's halo rows, read by the blocks above and below:
    :func:`~pipeperf.analysis.cta_overlap.overlap_reuse`) reuses the share of its sectors an
    earlier CTA left in L2; the larger of that and the keys' share counts."""
    from pipeperf.analysis.cta_overlap import overlap_reuse
    from pipeperf.analysis.cta_sharing import cta_keys, reuse_within

    glob = [pc for pc, st in stats.items() if st.space == "global" and st.sectors]
    if not glob:
        return
    n = min(math.prod(grid), max(8 * wave_ctas, REUSE_WINDOW))
    per_cta = sum(stats[pc].sectors - stats[pc].intra_hits for pc in glob) * SECTOR / max(1, traced_ctas)
    l2_bytes = l2_reach_bytes(gpu)
    limit = float(l2_bytes) / per_cta if l2_bytes and per_cta > 0 else math.inf
    # the keys depend on the launch, not the GPU (every GPU of an analysis asks for the same n
    # CTAs where the grid has fewer than REUSE_WINDOW): evaluated once
    by_pc = by_identity("cta_keys", (code,), (tuple(glob), tuple(grid), tuple(block),
                                              tuple(sorted(params.items())), n),
                        lambda: cta_keys(func, glob, grid, block, params, n_ctas=n)) if code is not None \
        else cta_keys(func, glob, grid, block, params, n_ctas=n)
    overlap: dict[int, float] = {}
    if acc is not None and warps_per_cta and acc.kind is not None:
        loads = tuple(pc for pc in glob if func.instructions[pc].op.root in ("ld", "ldu"))
        overlap = by_identity("cta_overlap", (acc.addr, acc.pc, acc.step), (loads, tuple(grid), warps_per_cta, limit,
                                                                          wave_ctas),
                              lambda: overlap_reuse(acc, loads, grid, warps_per_cta, limit, wave_ctas))
    for pc, keys in by_pc.items():
        if keys is None:
            continue
        f = max(reuse_within(keys, limit), overlap.get(pc, 0.0))
        stats[pc].shared_by = 1.0 / (1.0 - f) if f < 1.0 else float(n)


def warm_start(stats: dict[int, PcMemory], gpu: GPUSpec, launch_scale: float) -> bool:
    """A launch whose data a previous launch left in L2: when its footprint (the distinct sectors
    each traced CTA touches, over the CTAs sharing them, times the CTAs of the launch per traced
    CTA) fits in the GPU's L2, every global access hits L2. Returns whether it fits."""
    l2_bytes = l2_reach_bytes(gpu)
    glob = [st for st in stats.values() if st.space == "global" and st.sectors]
    if not l2_bytes or not glob:
        return False
    footprint = sum((st.sectors - st.intra_hits) / max(1.0, st.shared_by) for st in glob) * SECTOR * launch_scale
    if footprint > float(l2_bytes):
        return False
    for st in glob:
        st.l2_hits = st.sectors
        st.intra_hits = st.sectors
    return True


def dram_sectors(st: PcMemory, root: str) -> tuple[float, float]:
    """(sectors read from, sectors written to) DRAM by one traced global instruction: a load's L2
    misses; a store's (and reduction's) sectors that are not L2 hits, written back (a hit is a
    re-write of a sector already dirty in L2, or, where the launch's data fit in L2, any sector
    the L2 holds: its write-back comes after the kernel); an atomic's every sector, read and
    written."""
    if st.space != "global" or not st.sectors:
        return 0.0, 0.0
    if root in LOAD_ROOTS:
        return st.sectors * (1.0 - st.hit_rate), 0.0
    if root == "atom":
        return float(st.sectors), float(st.sectors)
    return 0.0, st.sectors * (1.0 - st.hit_rate)


def read_share(stats: Mapping[int, PcMemory], func: Function) -> float:
    """The share of the launch's DRAM sectors that are read (loads' misses over loads' misses plus
    the sectors stores and atomics write; atomics count as both), from the traced sample."""
    read = written = 0.0
    for pc, st in stats.items():
        r, w = dram_sectors(st, func.instructions[pc].op.root)
        read, written = read + r, written + w
    return read / (read + written) if read + written else 1.0


@dataclass(frozen=True)
class MemoryMap:
    """Mapper g's result for one launch on one GPU, what the IDG builder and the simulator take
    from it: ``gpu`` (the GPU with the adjusted memory classes added), ``class_names`` (pc -> class
    name for the IDG builder), ``rows`` (one report row per memory PC), ``notes``, ``what_if``
    (per applicable :data:`~pipeperf.hardware.memory_classes.WHAT_IF`, the GPU with that access
    pattern's classes under the same names) and ``fills`` (load pc -> the pc whose in-flight fill
    its L1 hits wait for). Without mapper g (``--no-memory``) only ``gpu`` is set."""

    gpu: GPUSpec
    class_names: dict[int, str] = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    what_if: dict[str, GPUSpec] = field(default_factory=dict)
    fills: dict[int, int] = field(default_factory=dict)
    #: PTX IDGs: the loaded bytes per thread ptxas keeps in flight, up to which the IDG builder
    #: hoists the PTX's loads (idg.build.load_hoisting); None: the PTX's own order
    hoist_bytes: int | None = None
    #: PTX IDGs: the f16 arithmetic ptxas packs, pc -> (group, k): one IDG node per k executions
    #: (sass_trace.packed_half_arithmetic, idg.build.packed_entries)
    packed: dict[int, tuple[int, Fraction]] = field(default_factory=dict)
    spills: PtxSpills | None = None     # PTX IDGs: the SASS's spill code they get (analysis/ptx_spills.py)


def _accesses_of(prof: Profile, func: Function, trim: bool = True, count_shared: bool = False) -> Accesses:
    """The traced accesses of ``func`` in trace order (the same for every GPU of one emulation), built
    from ``prof.memory_log`` once and kept in ``prof.accesses``; the log is then emptied (it held the
    lane addresses a second time: the persistent GEMM's 466 MB). Profiles made by ``replace`` share
    both, so one built there is found here. ``trim``: the heap's freed pages go back to the system
    then (else they stay for the next allocations: a tuning run's next variant reuses them).
    ``count_shared``: as :func:`traced_accesses` (accesses built without it serve either way)."""
    got = prof.accesses.get(func.name) if hasattr(prof, "accesses") else None
    if got is None:
        if not prof.memory_log and prof.accesses:
            raise PipeperfError(f"the memory log was released after mapper g read it for "
                                f"{', '.join(prof.accesses)}, not {func.name}")
        got = traced_accesses(prof.memory_log, func, count_shared=count_shared)
        if hasattr(prof, "accesses"):
            prof.accesses[func.name] = got
            prof.memory_log.clear()
            if trim:
                release_freed()
            else:
                keep_freed()
    elif got.waves is not None and not count_shared:
        raise PipeperfError(f"mapper g counted {func.name}'s shared requests and dropped their lanes, "
                            "which this GPU's analysis (SASS requests) needs")
    return got


def launch_memory(prof: Profile, func: Function, spec: GPUSpec, *, launch: KernelLaunch, blocks_per_sm: int,
                  warm_l2: bool = False, sources: SourceMap | None = None, sass: SassView | None = None,
                  trim: bool = True, what_if: bool = True,
                  fusion: Mapping[int, tuple[int, int]] | None = None) -> MemoryMap:
    """Mapper g for one launch on one GPU (:class:`MemoryMap`), from the emulation's 32-wide warps.

    Traced CTAs are ordered by the wave they would run in (``blocks_per_sm`` x SMs CTAs per
    wave), and the L2 share the sample stands for is its warps per wave over the wave's warps.
    Each row names its PTX line and, from ``sources`` (the module's ``.loc`` records), the
    source file and line (``source_file``, ``source_line``; ``source`` with what was inlined).
    ``what_if=False``: no what-if GPUs (``MemoryMap.what_if`` empty; tune asks for none).
    ``fusion`` (PTX IDGs; :meth:`SassView.fusion` of the build's SASS): the loads ptxas widens,
    whose requests are merged as the SASS makes them and whose vector load's cost is spread over
    the PTX loads it stands for (:func:`spread_fused_classes`)."""
    from pipeperf.emulate.tracelog import trace_lengths
    from pipeperf.hardware.mapper import map_instruction

    warps_per_cta, n_blocks, grid, block = launch.warps_per_block(), launch.n_blocks, launch.grid, launch.block
    per_wave = blocks_per_sm * spec.cores
    # what follows up to the wave order depends on the emulation alone: computed for its first GPU
    longest = by_identity("longest_trace", (prof.traces,), None,
                          lambda: max(trace_lengths(prof.traces).values(), default=0))
    # the accesses in trace order are the same for every GPU (one emulation); only their wave order is not
    groups = dict(sass.fusion if sass is not None else fusion or {})
    in_order = _accesses_of(prof, func, trim, count_shared=not groups)
    if in_order.waves is not None:              # shared lanes already counted and dropped: nothing to fuse
        groups = {}
    acc = replace(in_order, step=in_order.step + (in_order.warp // (per_wave * warps_per_cta)) * (longest + 1))
    if groups:                                  # the requests the SASS makes: widened loads
        acc = fuse_requests(acc, groups)
    waves = max(1, len({(w // warps_per_cta) // per_wave for w in prof.traces}))
    scale = n_blocks / max(1, len({w // warps_per_cta for w in prof.traces}))
    classes = set(spec.classes)
    pcs = by_identity("access_pcs", (acc.pc,), None, lambda: distinct(acc.pc).tolist())
    base = {pc: map_instruction(func.instructions[pc], classes, spec.name) for pc in pcs}
    mm = memory_mapping(acc, func, base, spec, len(prof.traces) // waves, per_wave * warps_per_cta,
                        warps_per_cta=warps_per_cta, grid=grid, wave_ctas=min(per_wave, n_blocks),
                        resident_ctas=blocks_per_sm, active_sms=min(spec.cores, n_blocks),
                        launch_scale=scale, block=block, params=getattr(prof, "params", {}), warm_l2=warm_l2,
                        combined_atomics=sass.combined_atomics if sass is not None else frozenset())
    rows = []
    # each instruction's source location, once per function (every GPU of an analysis asks)
    locs: dict[int, Any] = by_identity("source_locations", (func,), None, dict) if sources is not None else {}
    for pc, st in sorted(mm.stats.items()):
        x = func.instructions[pc]
        row = st.to_dict()
        if sources is not None and pc not in locs:
            locs[pc] = sources.location(func, x)
        loc = locs.get(pc)
        if st.fill_pc >= 0:                      # the load whose fill its L1 hits wait for
            row.update(fill_ptx_line=func.instructions[st.fill_pc].line)
        row.update(line=x.line, ptx_line=x.line, opcode=x.opcode,
                   source_file=loc.file if loc else None, source_line=loc.line if loc else None,
                   source=str(loc) if loc else None)
        if st.space == "global":                 # the whole launch's DRAM traffic of this instruction
            r, w = dram_sectors(st, x.op.root)
            row.update(dram_read_bytes=r * SECTOR * scale, dram_write_bytes=w * SECTOR * scale)
        if pc in mm.classes:
            c = mm.classes[pc]
            row.update(base_class=base[pc], cpi=round(c.cpi, 4), latency=round(c.latency, 4))
        rows.append(row)
    spaces = getattr(prof, "resolved_spaces", {})
    row_bytes = getattr(prof, "wmma_row_bytes", {})
    wmma = _wmma_space_classes(func, spec, spaces, row_bytes)
    # "no bank conflicts": the fragments' own wavefronts (the same classes where no row distance is known)
    wmma_free = _wmma_space_classes(func, spec, spaces, {}) if row_bytes else wmma
    mm.classes.update(wmma)
    gpu = spec.with_classes(**{c.name: c for c in mm.classes.values()})
    labels = {pc: f"L{func.instructions[pc].line}" for pc in mm.stats}
    alternatives = {}
    for what in WHAT_IF if what_if else ():
        ideal = ideal_stats(mm.stats, what)
        own = wmma_free if what == "no bank conflicts" else wmma
        if ideal is None and own != wmma:
            ideal = mm.stats                     # only the fragments' rows conflict
        if ideal is not None:
            alt = map_memory(ideal, base, spec, labels,
                             dram_request_cpi(spec, read_share(ideal, func), min(spec.cores, n_blocks)),
                             scale, min(spec.cores, n_blocks))
            alt_classes = dict(alt.classes.items())
            if what == "atomics combined per warp":
                alt_classes.update((pc, warp_combined(c, spec)) for pc, c in alt_classes.items()
                                   if ideal[pc] is not mm.stats[pc])
            alt_classes.update(own)              # the IDG builder's names for them must exist here too
            alternatives[what] = spec.with_classes(**{c.name: c for c in alt_classes.values()})
    fills = {pc: st.fill_pc for pc, st in mm.stats.items() if st.fill_pc >= 0}
    out = MemoryMap(gpu, {pc: c.name for pc, c in mm.classes.items()}, rows, list(mm.notes), alternatives, fills)
    return spread_fused_classes(out, groups) if sass is None and groups else out


def spread_fused_classes(mm: MemoryMap, groups: Mapping[int, tuple[int, int]]) -> MemoryMap:
    """PTX IDGs of a kernel whose SASS widens loads (``groups``: PTX pc -> (group, k), ptxas' one
    load for every ``k`` of the group's PTX loads; :func:`~pipeperf.hardware.accesses.fuse_requests`
    merged each run of ``k`` requests into its first pc's): every PTX load of a run takes the
    class of the run's vector load with ``1/k`` of its issue interval, so the group's loads occupy
    their pipeline as long as the SASS's vector loads do, and each completes when the vector
    load would (its latency). A load ptxas widens costs its wavefronts once: the 8 scalar loads of a
    row of 8 floats that ptxas makes 2 LDS.128 take 2 x 4 shared-memory cycles, not 8 x 4 where
    the lanes' 32-byte-apart rows conflict 4 ways (siboehm's 2D block-tiling SGEMM for sm_90)."""
    by_group: dict[int, list[int]] = {}
    for pc, (g, _k) in groups.items():
        by_group.setdefault(g, []).append(pc)
    names = dict(mm.class_names)
    gpus = {"": mm.gpu, **mm.what_if}
    added: dict[str, dict[str, InstrClass]] = {k: {} for k in gpus}
    spread = 0
    for pcs in by_group.values():
        k = groups[pcs[0]][1]
        head = None
        for pc in sorted(pcs):
            head = mm.class_names.get(pc, head)  # the run's vector load: the last merged-into pc before
            if head is None:
                continue
            name = f"{head}/{k}"
            names[pc] = name
            spread += 1
            for key, spec in gpus.items():
                c = spec.classes[head]
                added[key][name] = replace(c, name=name, cpi=c.cpi / k,
                                           source=f"{c.source}; one of {k} PTX loads ptxas fuses into one "
                                                  f"{k}x wider load: 1/{k} of its issue interval")
    if not spread:
        return mm
    note = (f"loads ptxas widens: {spread} PTX loads timed as their share of the SASS's vector loads "
            "(each run of fused loads occupies its pipeline as its one wide load does)")
    return replace(mm, gpu=mm.gpu.with_classes(**added[""]), class_names=names, notes=mm.notes + [note],
                   what_if={k: g.with_classes(**added[k]) for k, g in mm.what_if.items()})


def _wmma_space_classes(func: Function, spec: GPUSpec, spaces: Mapping[int, str], row_bytes: Mapping[int, int]) -> dict:
    """Classes of wmma.load/store, which mapper g has no addresses of: a generic one takes the class
    of the state space the emulation found its addresses in (:func:`~pipeperf.hardware.memory_classes.resolved_class`:
    cuda-samples' WMMA GEMMs load their shared-memory tiles through generic pointers), and a
    shared-memory one its fragment's wavefronts (:func:`~pipeperf.hardware.banks.fragment_wavefronts`)."""
    from pipeperf.emulate.wmma import fragment_bytes, fragment_kind
    from pipeperf.hardware.mapper import map_instruction
    from pipeperf.hardware.memory_classes import resolved_class

    names, classes = set(spec.classes), {}
    if not _has_ldmatrix(spec):
        row_bytes = {}                   # no LDSM phases: the conflict-free count
    for pc, x in enumerate(func.instructions):
        if x.op.root not in ("wmma.load", "wmma.store"):
            continue
        sp = spaces.get(x.line) or x.op.space
        if sp is None:
            continue
        base = map_instruction(x, names, spec.name)
        cls = resolved_class(base, sp, spec)
        c = spec.classes[cls]
        why = f"a generic {x.op.root} the emulation found in {sp} memory" if cls != base else f"a {sp} {x.op.root}"
        size = fragment_bytes(x) if sp == "shared" else None
        frag, element = fragment_kind(x)
        waves, degree = fragment_wavefronts(size, frag, element, row_bytes.get(x.line)) if size else (1, 1)
        if cls == base and waves == 1:
            continue
        if waves > 1:
            c = replace(c, cpi=waves * c.cpi, latency=c.latency + (waves - 1) * c.cpi)
            why += f", {size} B = {waves} shared-memory wavefronts"
            if degree > 1:
                why += f" (its 16-byte rows {row_bytes[x.line]} B apart: {degree}-way bank conflicts)"
        classes[pc] = replace(c, name=f"{cls}@{pc}", source=f"{cls}: {why}", estimate=True)
    return classes


def _has_ldmatrix(spec: GPUSpec) -> bool:
    """Compute capability 7.5 or later: ptxas loads A/B fragments from shared memory with LDSM
    (``ldmatrix`` needs sm_75, PTX ISA); Volta's wmma.load is per-lane LDS of another pattern."""
    try:
        return tuple(int(p) for p in spec.compute_capability.split(".")[:2]) >= (7, 5)
    except ValueError:
        return False


def memory_coverage_note(log: Mapping[int, list[dict[str, Any]]], cap: int | None) -> list[str]:
    """The note saying which prefix of the traced warps mapper g's statistics come from, when it
    is not all of them. Why stated: the prefix holds every first touch but not the reuse that
    comes later (a column read again hundreds of iterations on), so its L1/L2 hit rates can be
    far lower than the whole launch's (covariance at m=256: +39 % time against ``exact``)."""
    from pipeperf.emulate.loops import SYNTH_ADDRESSES

    if not isinstance(log, TraceLog):              # (traces made by hand: no memory log)
        return []
    covered, total = log.memory_coverage()
    if not total or covered >= total:
        return []
    why = (f"the trace cap of {cap:,} instructions per warp" if cap is not None else "") + \
        (" or " if cap is not None and log.skips else "") + \
        (f"the {SYNTH_ADDRESSES:,} addresses synthesised for skipped loop iterations" if log.skips else "")
    return [f"mapper g's memory statistics come from the first {covered / total:.1%} of the traced warps' "
            f"executed instructions ({covered:,} of {total:,}; {why} ran out): accesses past that prefix are "
            "not analysed, so reuse at longer distances is missed and cache hit rates can be too low "
            "(check a smaller size against --exact)"]
