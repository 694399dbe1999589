"""Derive a kernel description from one variant of a tuning space.

SWACC semantics (Sec. II-B): the first loop is distributed round-robin over the
active CPEs in chunks of ``tile`` iterations (#active_CPEs = min(requested,
chunks)); every other loop is walked in tiles of its tile size (untiled = the
whole loop). For each tile step a CPE issues one copy-in request with the
region of every ``in``/``inout`` array the step touches and one copy-out
request for ``out``/``inout`` arrays (all arrays of one copy intrinsic form one
request, Sec. III-C). A region of a row-major array is a strided request:
contiguous along the innermost dimensions it covers fully, one chunk per row
beyond (Fig. 2), starting at its true byte offset modulo Trans_size.

We model the busiest CPE, CPE 0 (it gets the most chunks), as the paper takes
the longest-running CPE (Sec. III-B). Tile steps are grouped into classes with
identical extents and start offsets, so the work per variant does not grow with
the number of steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections import Counter
from itertools import product
from math import prod

import numpy as np

from pipeperf.sw26010.batch import KIND_GLOAD, KIND_IN, KIND_OUT
from pipeperf.sw26010.kernel import ComputeBlock, DMARequest, GloadRequest, KernelSpec
from pipeperf.sw26010.space import TuningSpace
from pipeperf.sw26010.transactions import Geometry


@dataclass(frozen=True)
class Variant:
    """One point of the search space."""

    tiles: tuple[int, ...]     # per loop, in loop order
    unroll: int
    active_cpes: int
    double_buffer: bool


@dataclass(frozen=True)
class StepClass:
    """Tile steps of CPE 0 that issue identical requests."""

    count: int
    extents: tuple[int, ...]                       # per loop
    copy_in: tuple[tuple[str, Geometry], ...]
    copy_out: tuple[tuple[str, Geometry], ...]
    spm_bytes: int                                 # distinct array bytes held in SPM
    mrt_in: int = 0                                # transactions of the copy-in request (Eq. 5)
    mrt_out: int = 0
    bytes_in: int = 0                              # useful bytes of the copy-in request
    bytes_out: int = 0


@dataclass
class GroupDerivation:
    """Everything a (tiles, active CPEs) pair fixes; unrolling and double buffering vary on top."""

    active_cpes: int
    steps: list[StepClass]
    inner: dict[int, int]      # innermost tile extent -> executions of the innermost loop
    iterations: int            # innermost iterations of CPE 0
    spm_bytes: int             # largest SPM footprint of one step (one buffer)


def _loop_steps(space: TuningSpace, li: int, tile: int, active: int) -> tuple[np.ndarray, np.ndarray]:
    """Start index and extent of every tile step CPE 0 takes along loop ``li``."""
    trip = space.loops[li].trip
    if li == 0:
        chunks = -(-trip // tile)
        n0 = -(-chunks // active)
        starts = np.arange(n0, dtype=np.int64) * active * tile
    else:
        starts = np.arange(-(-trip // tile), dtype=np.int64) * tile
    return starts, np.minimum(tile, trip - starts)


def derive_group(space: TuningSpace, tiles: tuple[int, ...], active: int,
                 cache: dict | None = None) -> GroupDerivation:
    """Requests and loop extents of CPE 0 for one (tiles, active CPEs) pair.

    ``cache`` (one dict per space) reuses the per-loop step classes, which
    depend only on that loop's tile (and the CPE count for the first loop).
    """
    ts = space.processor.trans_size
    chunks = -(-space.loops[0].trip // tiles[0])
    active_eff = min(active, chunks)
    loop_index = {l.name: i for i, l in enumerate(space.loops)}
    copied = [a for a in space.arrays if a.direction != "gload"]
    # Row-major shape and byte pitch of every dimension of every copied array.
    shapes = [[space.loops[loop_index[d]].trip + h for d, h in zip(a.dims, a.halo)] for a in copied]
    pitches = [[prod(s[k + 1:]) * a.elem_bytes for k in range(len(s))] for a, s in zip(copied, shapes)]

    # Per loop: classes of steps with equal extent and equal start residue for each array.
    per_loop = []
    for li, loop in enumerate(space.loops):
        key = (li, tiles[li], active_eff if li == 0 else 0)
        if cache is not None and key in cache:
            per_loop.append(cache[key])
            continue
        starts, ext = _loop_steps(space, li, tiles[li], active_eff)
        users = [(ai, a.dims.index(loop.name)) for ai, a in enumerate(copied) if loop.name in a.dims]
        cols = [ext] + [(starts * pitches[ai][d]) % ts for ai, d in users]
        tally = Counter(zip(*(c.tolist() for c in cols)))
        classes = [(c, k[0], {ai: r for (ai, _), r in zip(users, k[1:])})
                   for k, c in sorted(tally.items())]
        per_loop.append(classes)
        if cache is not None:
            cache[key] = classes

    if cache is None:
        cache = {}
    dim_loops = [[loop_index[d] for d in a.dims] for a in copied]
    steps: list[StepClass] = []
    inner: dict[int, int] = {}
    iterations = 0
    for combo in product(*per_loop):
        count = prod(c for c, _, _ in combo)
        extents = tuple(e for _, e, _ in combo)
        residue = [0] * len(copied)
        for _, _, contrib in combo:
            for ai, r in contrib.items():
                residue[ai] = (residue[ai] + r) % ts
        parts_in, parts_out = [], []
        mrt_in = mrt_out = bytes_in = bytes_out = spm = 0
        for ai, a in enumerate(copied):
            rkey = ("region", ai, tuple(extents[li] for li in dim_loops[ai]), residue[ai])
            region = cache.get(rkey)
            if region is None:  # (geometry, transactions, useful bytes)
                geom = _region(a, shapes[ai], pitches[ai], extents, loop_index, residue[ai])
                region = cache[rkey] = (geom, geom.mrt(ts), geom.useful_bytes)
            geom, m, nbytes = region
            spm += nbytes
            if a.direction in ("in", "inout"):
                parts_in.append((a.name, geom))
                mrt_in += m
                bytes_in += nbytes
            if a.direction in ("out", "inout"):
                parts_out.append((a.name, geom))
                mrt_out += m
                bytes_out += nbytes
        steps.append(StepClass(count, extents, tuple(parts_in), tuple(parts_out), spm,
                               mrt_in, mrt_out, bytes_in, bytes_out))
        e_in = extents[-1]
        inner[e_in] = inner.get(e_in, 0) + count * prod(extents[:-1])
        iterations += count * prod(extents)
    return GroupDerivation(active_eff, steps, inner, iterations,
                           max(s.spm_bytes for s in steps))


def _region(array, shape: list[int], pitch: list[int], extents: tuple[int, ...],
            loop_index: dict[str, int], residue: int) -> Geometry:
    """Byte geometry of the part of ``array`` one tile step touches."""
    ext = [extents[loop_index[d]] + h for d, h in zip(array.dims, array.halo)]
    j = max((k for k in range(len(ext)) if ext[k] < shape[k]), default=None)
    if j is None:  # the step covers the whole array: one contiguous block
        return Geometry(prod(shape) * array.elem_bytes, (), residue)
    block = ext[j] * pitch[j]
    levels = tuple((pitch[k], ext[k]) for k in range(j - 1, -1, -1) if ext[k] > 1)
    return Geometry(block, levels, residue)


def compute_counts(space: TuningSpace, inner: dict[int, int], unroll: int) -> list[ComputeBlock]:
    """Main (unrolled) loop body and scalar remainder blocks for one unroll factor."""
    b = space.body
    main = sum(n * (e // unroll) for e, n in inner.items())
    rest = sum(n * (e % unroll) for e, n in inner.items())
    blocks = []
    if main:
        blocks.append(ComputeBlock("unrolled_body", main, b.floating * unroll,
                                   b.fixed * unroll + b.loop_overhead, b.spm * unroll,
                                   b.div_sqrt * unroll, b.ilp_for(unroll)))
    if rest or not blocks:
        blocks.append(ComputeBlock("remainder", rest, b.floating, b.fixed + b.loop_overhead,
                                   b.spm, b.div_sqrt, b.ilp_for(1)))
    return blocks


def request_kinds(space: TuningSpace, group: GroupDerivation) -> list[tuple[int, int, int, int]]:
    """(kind, count, mrt, bytes) per request kind of a group, as ``batch.request_rows`` gives."""
    ts = space.processor.trans_size
    rows = []
    for s in group.steps:
        if s.copy_in:
            rows.append((KIND_IN, s.count, s.mrt_in, s.bytes_in))
        if s.copy_out:
            rows.append((KIND_OUT, s.count, s.mrt_out, s.bytes_out))
    for a in space.arrays:
        if a.direction == "gload":
            rows.append((KIND_GLOAD, group.iterations * a.loads,
                         Geometry(a.gload_bytes).mrt(ts), a.gload_bytes))
    return rows


def derive_spec(space: TuningSpace, variant: Variant) -> KernelSpec:
    """The kernel description of one variant (what the tuner evaluates in bulk)."""
    group = derive_group(space, variant.tiles, variant.active_cpes)
    dma = []
    for i, s in enumerate(group.steps):
        tag = "x".join(str(e) for e in s.extents)
        if s.copy_in:
            dma.append(DMARequest(f"step{i}[{tag}]:in", "in", s.copy_in, s.count))
        if s.copy_out:
            dma.append(DMARequest(f"step{i}[{tag}]:out", "out", s.copy_out, s.count))
    gload = [GloadRequest(a.name, a.gload_bytes, group.iterations * a.loads)
             for a in space.arrays if a.direction == "gload"]
    tiles = ", ".join(f"{l.name}={t}" for l, t in zip(space.loops, variant.tiles))
    return KernelSpec(
        name=space.name,
        description=(f"variant tile({tiles}) unroll={variant.unroll} "
                     f"cpes={group.active_cpes} double_buffer={variant.double_buffer}"),
        active_cpes=group.active_cpes, dma=dma, gload=gload,
        compute=compute_counts(space, group.inner, variant.unroll), processor=space.processor,
        double_buffer=variant.double_buffer, source=space.source,
    )
