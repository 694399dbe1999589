"""Static auto-tuning (Sec. V-D): rank every variant of a space by predicted T_total.

Empirical tuning runs each variant; here the model replaces the runs. Variants
sharing tile sizes and #active_CPEs share their DMA requests, so requests are
derived once per such group (in worker processes when the space is large),
then the whole space is packed into one :class:`KernelBatch` and Eqs. 1-12 run
vectorised over all variants at once.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from itertools import product
from typing import Any
from collections.abc import Iterator

import numpy as np
from tqdm import tqdm

from pipeperf.sw26010.batch import KernelBatch
from pipeperf.sw26010.derive import Variant, derive_group, request_kinds
from pipeperf.sw26010.model import Terms, evaluate
from pipeperf.sw26010.space import TuningSpace

# Deriving requests (~0.1 ms per (tiles, CPEs) group) is the only part worth spreading over
# processes; below this many groups, or with fewer cores, fork and pickling cost more than
# they save (measured: on 2 busy cores 2 workers were slower even for 9072 groups,
# see benchmarks/sw26010_tune.py).
PARALLEL_MIN_GROUPS = 3000
PARALLEL_MIN_CORES = 4


@dataclass
class GroupSummary:
    """Compact, picklable result of deriving one (tiles, active CPEs) group."""

    active_cpes: int
    kinds: np.ndarray          # (k, 4): kind, count, mrt, bytes
    inner: dict[int, int]
    spm_bytes: int


def summarize_group(space: TuningSpace, tiles: tuple[int, ...], active: int,
                    cache: dict | None = None) -> GroupSummary:
    group = derive_group(space, tiles, active, cache)
    # Merge kinds with equal (kind, mrt): Eq. 3 and Eq. 12 only need their counts.
    merged: dict[tuple[int, int], list[float]] = {}
    for kind, count, mrt, nbytes in request_kinds(space, group):
        entry = merged.setdefault((kind, mrt), [0.0, 0.0])
        entry[0] += count
        entry[1] += count * nbytes
    kinds = np.array([(k, c, m, b / c) for (k, m), (c, b) in merged.items()],
                     dtype=float).reshape(-1, 4)
    return GroupSummary(group.active_cpes, kinds, group.inner, group.spm_bytes)


_WORKER_SPACE: TuningSpace | None = None
_WORKER_CACHE: dict = {}


def _init_worker(space: TuningSpace) -> None:
    global _WORKER_SPACE, _WORKER_CACHE
    _WORKER_SPACE = space
    _WORKER_CACHE = {}


def _summarize_chunk(chunk: list[tuple[tuple[int, ...], int]]) -> list[GroupSummary]:
    assert _WORKER_SPACE is not None
    return [summarize_group(_WORKER_SPACE, tiles, active, _WORKER_CACHE) for tiles, active in chunk]


@dataclass
class TuneResult:
    space: TuningSpace
    variants_total: int
    tiles: np.ndarray          # (F, L) feasible variants' tile sizes
    unroll: np.ndarray         # (F,)
    active_requested: np.ndarray
    active_cpes: np.ndarray    # effective: min(requested, chunks of the parallel loop)
    double_buffer: np.ndarray
    terms: Terms | None        # model terms of the feasible variants
    order: np.ndarray          # feasible indices, best first
    seconds: float
    jobs: int
    variants_duplicate: int = 0   # requested more CPEs than chunks: same as a smaller request

    @property
    def variants_feasible(self) -> int:
        return int(self.unroll.shape[0])

    def variant(self, i: int) -> Variant:
        return Variant(tuple(int(t) for t in self.tiles[i]), int(self.unroll[i]),
                       int(self.active_requested[i]), bool(self.double_buffer[i]))

    def row(self, i: int) -> dict[str, Any]:
        us = self.space.processor.cycles_to_us
        t = self.terms
        assert t is not None                # rows exist only for feasible variants, which have terms
        return {
            "tiles": {l.name: int(v) for l, v in zip(self.space.loops, self.tiles[i])},
            "unroll": int(self.unroll[i]),
            "active_cpes": int(self.active_cpes[i]),
            "double_buffer": bool(self.double_buffer[i]),
            "scenario": int(t.scenario[i]),
            "ng_dma": int(t.ng_dma[i]),
            "dma_reqs": float(t.n_reqs_dma[i]),
            "us": {name: float(us(getattr(t, name)[i])) for name in
                   ("t_total", "t_comp", "t_dma", "t_g", "t_overlap", "db_saving")},
        }

    def top(self, k: int) -> list[dict[str, Any]]:
        return [dict(rank=r + 1, **self.row(int(i))) for r, i in enumerate(self.order[:k])]

    def to_dict(self, k: int) -> dict[str, Any]:
        return {"kernel": self.space.name, "source": self.space.source,
                "variants": self.variants_total, "feasible": self.variants_feasible,
                "duplicates": self.variants_duplicate,
                "infeasible_spm": self.variants_total - self.variants_duplicate - self.variants_feasible,
                "seconds": self.seconds, "jobs": self.jobs,
                "best": self.top(1)[0] if self.variants_feasible else None,
                "top": self.top(k)}


def _groups(space: TuningSpace) -> tuple[list[tuple[tuple[int, ...], int]], int]:
    """Distinct (tiles, active CPEs) groups, and how many duplicates were dropped.

    Asking for more CPEs than the distributed loop has chunks activates only
    ``chunks`` CPEs (Sec. II-B), so such variants repeat a smaller request.
    """
    tile_lists = [space.tiles[l.name] for l in space.loops]
    trip = space.loops[0].trip
    out, seen, dropped = [], set(), 0
    for t in product(*tile_lists):
        chunks = -(-trip // t[0])
        for a in space.active_cpes:
            key = (tuple(t), min(a, chunks))
            if key in seen:
                dropped += 1
                continue
            seen.add(key)
            out.append((tuple(t), a))
    return out, dropped


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def choose_jobs(n_groups: int, jobs: int | None) -> int:
    """Worker processes: as asked, else all usable cores (up to 8) for large spaces only."""
    if jobs is not None:
        return max(1, jobs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if n_groups < PARALLEL_MIN_GROUPS or cores < PARALLEL_MIN_CORES:
        return 1
    return min(cores, 8)


def tune(space: TuningSpace, jobs: int | None = None, progress: bool = True) -> TuneResult:
    """Evaluate every variant of ``space`` and rank them by predicted T_total."""
    start = time.perf_counter()
    groups, dropped = _groups(space)
    jobs = choose_jobs(len(groups), jobs)
    per_group = len(space.unrolls) * len(space.double_buffer)
    bar = tqdm(total=len(groups) * per_group, desc=f"sw26010 tune {space.name}", unit="variant",
               unit_scale=True, file=sys.stderr, disable=not progress, leave=False)
    summaries: list[GroupSummary] = []
    chunk = max(1, min(256, len(groups) // (jobs * 8) or 1))
    if jobs == 1:
        cache: dict = {}
        for part in _chunks(groups, chunk):
            summaries.extend(summarize_group(space, t, a, cache) for t, a in part)
            bar.update(len(part) * per_group)
    else:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        with multiprocessing.get_context(method).Pool(
                jobs, initializer=_init_worker, initargs=(space,)) as pool:
            for part in pool.imap(_summarize_chunk, list(_chunks(groups, chunk))):
                summaries.extend(part)
                bar.update(len(part) * per_group)
    bar.close()
    result = _evaluate_groups(space, groups, summaries)
    result.variants_duplicate = dropped * len(space.unrolls) * len(space.double_buffer)
    result.variants_total = space.size
    result.seconds = time.perf_counter() - start
    result.jobs = jobs
    return result


def _evaluate_groups(space: TuningSpace, groups: list[tuple[tuple[int, ...], int]],
                     summaries: list[GroupSummary]) -> TuneResult:
    unrolls = np.array(space.unrolls)
    dbs = np.array(space.double_buffer, dtype=bool)
    per_group = len(unrolls) * len(dbs)
    u_grid = np.repeat(unrolls, len(dbs))
    db_grid = np.tile(dbs, len(unrolls))
    limit = space.processor.spm_bytes
    feasible_groups = []
    for gi, s in enumerate(summaries):
        ok = s.spm_bytes * np.where(db_grid, 2, 1) <= limit
        if ok.any():
            feasible_groups.append((gi, ok))
    n = sum(int(ok.sum()) for _, ok in feasible_groups)
    k = max([len(summaries[gi].kinds) for gi, _ in feasible_groups] + [1])
    n_loops = len(space.loops)
    tiles = np.zeros((n, n_loops), dtype=np.int64)
    unroll = np.zeros(n, dtype=np.int64)
    active_req = np.zeros(n, dtype=np.int64)
    active_eff = np.zeros(n)
    db = np.zeros(n, dtype=bool)
    req_count = np.zeros((n, k))
    req_mrt = np.zeros((n, k))
    req_kind = np.full((n, k), -1, dtype=np.int8)
    req_bytes = np.zeros((n, k))
    ins = np.zeros((n, 2, 4))
    ilp = np.ones((n, 2))
    body = space.body
    per_iter = np.array([body.floating, body.fixed, body.spm, body.div_sqrt])
    overhead = np.array([0.0, body.loop_overhead, 0.0, 0.0])
    # Compute instruction counts depend only on the innermost extents and the unroll factor.
    ilp_main = np.array([body.ilp_for(int(u)) for u in unrolls])
    ilp_rest = body.ilp_for(1)
    row = 0
    for gi, ok in feasible_groups:
        s = summaries[gi]
        m = int(ok.sum())
        sl = slice(row, row + m)
        tiles[sl] = groups[gi][0]
        active_req[sl] = groups[gi][1]
        active_eff[sl] = s.active_cpes
        unroll[sl] = u_grid[ok]
        db[sl] = db_grid[ok]
        kk = len(s.kinds)
        if kk:
            req_kind[sl, :kk] = s.kinds[:, 0]
            req_count[sl, :kk] = s.kinds[:, 1]
            req_mrt[sl, :kk] = s.kinds[:, 2]
            req_bytes[sl, :kk] = s.kinds[:, 3]
        e = np.array(list(s.inner.keys()), dtype=np.int64)
        execs = np.array(list(s.inner.values()), dtype=float)
        main = (execs[None, :] * (e[None, :] // unrolls[:, None])).sum(axis=1)   # per unroll
        rest = (execs[None, :] * (e[None, :] % unrolls[:, None])).sum(axis=1)
        ui = np.repeat(np.arange(len(unrolls)), len(dbs))[ok]
        ins[sl, 0] = main[ui, None] * (per_iter[None, :] * unrolls[ui, None] + overhead[None, :])
        ins[sl, 1] = rest[ui, None] * (per_iter + overhead)[None, :]
        ilp[sl, 0] = ilp_main[ui]
        ilp[sl, 1] = ilp_rest
        row += m
    batch = KernelBatch(active_eff, db, req_count, req_mrt, req_kind, req_bytes, ins, ilp)
    terms: Terms | None = None
    order = np.zeros(0, dtype=np.int64)
    if n:
        terms = evaluate(batch, space.processor)
        order = np.lexsort((np.arange(n), terms.t_total))
    return TuneResult(space, len(groups) * per_group, tiles, unroll, active_req, active_eff, db,
                      terms, order, 0.0, 1)
