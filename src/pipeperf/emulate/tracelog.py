"""Per-warp instruction traces stored as columns, read as a mapping of warp id -> entries.

Why: a traced launch executes ~10^6 warp-instructions; one Python dict per entry cost the
emulator 80 % of its time and the IDG builder most of its own, while the builder needs whole
entries for one representative warp per class only. The emulator appends one block per traced
instruction (its static template, the traced warps executing it, their active masks) and,
for memory instructions, the lanes' addresses; a warp's entries are built when first read.
``pc_signature`` lets grouping run on NumPy arrays without building any entry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Skip:
    """Iterations of a periodic loop the emulator jumped over (:mod:`pipeperf.emulate.loops`):
    for each traced warp of the group (``warps``, sorted launch-wide ids), its kept trace holds
    ``recorded[i]`` whole periods of ``period[i]`` entries that end at kept position ``pos[i]``,
    and ``count`` more periods ran there without being emulated entry by entry. A period is
    ``iterations`` iterations of the loop: 1, or 2 for a ping-pong (double-buffered) loop.
    ``expand``: the IDGs repeat the last recorded period ``count`` times at ``pos`` (a short loop
    holding a barrier, :data:`~pipeperf.emulate.loops.MIN_JUMP_REPEAT`) instead of extrapolating
    the time over the skipped periods."""

    warps: np.ndarray
    pos: np.ndarray
    period: np.ndarray
    recorded: np.ndarray
    count: int
    iterations: int = 1
    expand: bool = False


@dataclass(frozen=True)
class SynthBlock:
    """``count`` periods of one memory access that a skipped loop would have made
    (:meth:`pipeperf.emulate.loops.LoopSkipper._synthesize`), kept as the last emulated period and
    its change per period: period j (1..count) is at ``steps + j * period`` with addresses
    ``addr + j * delta``. Why: expanded, a long loop's synthesised accesses were most of the
    analysis' memory (1.4 GB for a 768^2 covariance); consumers that need arrays expand it straight
    into their own (:meth:`fill`), and iterating it yields the expanded
    ``(function, pc, warps, steps, lanes, addresses)`` like any ``memory_log`` block."""

    fn: str
    pc: int
    warps: np.ndarray       # the traced warps of one period, one per request
    steps: np.ndarray       # their trace positions in the last emulated period
    lanes: np.ndarray       # lanes per request
    addr: np.ndarray        # the lanes' addresses in the last emulated period
    delta: np.ndarray       # per lane: address change per period (uint64, wrapping)
    period: np.ndarray      # per request: trace entries per period of its warp
    count: int

    @property
    def n_requests(self) -> int:
        return self.count * len(self.warps)

    @property
    def n_lanes(self) -> int:
        return self.count * len(self.addr)

    def first_steps(self) -> np.ndarray:
        """Trace positions of the first synthesised period (the oldest accesses of the block)."""
        first: np.ndarray = self.steps + self.period
        return first

    def fill(self, warps: np.ndarray, steps: np.ndarray, lanes: np.ndarray, addr: np.ndarray) -> None:
        """Write the expanded columns into slices of ``n_requests`` (``n_lanes`` for ``addr``)."""
        k, n, m = self.count, len(self.warps), len(self.addr)
        j = np.arange(1, k + 1, dtype=np.int64)[:, None]
        warps.reshape(k, n)[:] = self.warps
        lanes.reshape(k, n)[:] = self.lanes
        np.add(self.steps, j * self.period, out=steps.reshape(k, n))
        a = addr.reshape(k, m)
        np.multiply(j.astype(np.uint64), self.delta, out=a)
        a += self.addr

    def __iter__(self) -> Iterator[Any]:
        warps = np.empty(self.n_requests, self.warps.dtype)
        steps = np.empty(self.n_requests, np.int64)
        lanes = np.empty(self.n_requests, np.int64)
        addr = np.empty(self.n_lanes, np.uint64)
        self.fill(warps, steps, lanes, addr)
        return iter((self.fn, self.pc, warps, steps, lanes, addr))


def block_head(block: Any) -> tuple[str, int, int]:
    """(function, pc, requests) of a ``memory_log`` block, without expanding a synthesised one."""
    if type(block) is SynthBlock:
        return block.fn, block.pc, block.n_requests
    return block[0], block[1], len(block[2])


class TraceLog(Mapping[int, list[dict[str, Any]]]):
    """Mapping warp id -> list of trace entries (dicts: function, pc, opcode, category, dsts,
    srcs, active, addresses), built lazily from the emulator's columnar blocks."""

    def __init__(self) -> None:
        self._templates: list[dict[str, Any]] = []
        self._warps: list[np.ndarray] = []
        self._masks: list[np.ndarray] = []
        # block -> (its warps with addresses, sorted; flat read-only addresses; start; count)
        self._addresses: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._index: tuple[np.ndarray, np.ndarray, dict[int, tuple[int, int]]] | None = None
        self._cache: dict[int, list[dict[str, Any]]] = {}
        self._fn_cache: dict[str, np.ndarray] = {}
        self._signatures: dict[tuple[Any, ...], dict[int, tuple[bytes, int]]] = {}
        #: entries executed per traced warp, kept or not (set by the emulator; dense over the
        #: sorted warp ids ``length_ids``): more than kept past the cap or where loops were skipped
        self.lengths: np.ndarray | None = None
        self.length_ids: np.ndarray | None = None
        self.cap: int | None = None
        #: per traced warp (dense, as ``lengths``): the executed position from which its memory
        #: accesses were no longer logged (the trace cap or the loop-synthesis budget)
        self.mem_frontier: np.ndarray | None = None
        #: skipped loop periods (:mod:`pipeperf.emulate.loops`), one record per skip
        self.skips: list[Skip] = []
        self._skips_by_warp: tuple[int, dict[int, list[tuple[int, int, int, int, int]]]] | None = None

    # -- writing (the emulator) ------------------------------------------------------------
    def add(self, template: dict[str, Any], warps: np.ndarray, masks: np.ndarray) -> int:
        """One traced instruction executed by ``warps`` (sorted ids) with these active masks."""
        self._templates.append(template)
        self._warps.append(warps)
        self._masks.append(masks)
        self._index = None
        return len(self._templates) - 1

    def attach_addresses(self, block: int, warps: np.ndarray, addresses: np.ndarray, starts: np.ndarray,
                         counts: np.ndarray) -> None:
        """The lanes' addresses of ``block``'s instruction: warp ``warps[i]``'s are
        ``addresses[starts[i]:starts[i] + counts[i]]`` (read-only; views are handed out)."""
        self._addresses[block] = (warps, addresses, starts, counts)
        for w in warps.tolist():
            self._cache.pop(w, None)

    # -- reading -----------------------------------------------------------------------------
    def _build_index(self) -> tuple[np.ndarray, np.ndarray, dict[int, tuple[int, int]]]:
        """(block, row, spans): every entry's block and row within it, warp after warp (each in
        execution order; int32 where they fit, as the index of a 10^7-entry trace is its largest
        array), and per warp its [start, end) there."""
        if self._index is None and self._one_group():
            self._index = self._tiled_index()
        if self._index is None:
            n = len(self._warps)
            lens = np.fromiter((len(w) for w in self._warps), np.int64, n)
            warp = np.concatenate(self._warps) if n else np.zeros(0, np.int64)
            order = _stable_order(warp)                       # per warp, in execution order
            small = np.dtype(np.int32 if len(warp) < 1 << 31 else np.int64)
            block = np.repeat(np.arange(n, dtype=small), lens)[order]
            row: np.ndarray = np.arange(len(warp), dtype=small)
            np.subtract(row, np.repeat(np.cumsum(lens) - lens, lens).astype(small), out=row)
            row = row[order]
            warp = warp[order]
            starts = np.flatnonzero(np.r_[True, warp[1:] != warp[:-1]]) if len(warp) else np.zeros(0, np.int64)
            ends = np.r_[starts[1:], len(warp)]
            spans = {int(w): (int(s), int(e)) for w, s, e in zip(warp[starts].tolist(), starts.tolist(),
                                                                   ends.tolist())}
            self._index = (block, row, spans)
        return self._index

    def _tiled_index(self) -> tuple[np.ndarray, np.ndarray, dict[int, tuple[int, int]]]:
        """:meth:`_build_index` where every block holds the same warps (:meth:`_one_group`): warp
        i's entries are every block in order, at row i (no sort of the ids)."""
        ws, n = self._warps[0], len(self._warps)
        small = np.dtype(np.int32 if n * len(ws) < 1 << 31 else np.int64)
        block = np.tile(np.arange(n, dtype=small), len(ws))
        row = np.repeat(np.arange(len(ws), dtype=small), n)
        return block, row, {w: (i * n, (i + 1) * n) for i, w in enumerate(ws.tolist())}

    def _one_group(self) -> bool:
        """Every block executed by the same warps (equal sorted id arrays; a group keeps its array
        from step to step, so most blocks are the very same object): then the index is a tiling."""
        if not self._warps:
            return False
        first = prev = self._warps[0]
        if len(first) > 1 and not (np.diff(first) > 0).all():
            return False
        for w in self._warps:
            if w is prev:
                continue
            if len(w) != len(first) or not np.array_equal(w, first):
                return False
            prev = w
        return True

    def __getitem__(self, warp: int) -> list[dict[str, Any]]:
        return self.head(warp, None)

    def head(self, warp: int, n: int | None, function: str | None = None) -> list[dict[str, Any]]:
        """The first ``n`` entries of ``warp`` (of ``function`` only, when given; None: all).
        Why: a long trace is cut to a few thousand IDG nodes, and building its entries costs
        microseconds each, so only the prefix asked for is built (and cached, longest first)."""
        block, row, spans = self._build_index()
        if warp not in spans:
            raise KeyError(warp)
        s, e = spans[warp]
        stop = e
        if function is not None:
            rows = np.flatnonzero(self._in_function(function)[block[s:e]])
            if n is not None and n < len(rows):
                stop = s + int(rows[n]) if n >= 0 else s
        elif n is not None:
            stop = min(e, s + max(0, n))
        out = self._cache.get(warp)
        if out is None or len(out) < stop - s:
            out = self._cache[warp] = (out or []) + self._entries(warp, s + len(out or ()), stop)
        out = out[:stop - s] if len(out) > stop - s else out
        return out if function is None else [x for x in out if x["function"] == function]

    def _entries(self, warp: int, s: int, e: int) -> list[dict[str, Any]]:
        block, row, _ = self._build_index()
        out = []
        templates, masks, addrs = self._templates, self._masks, self._addresses
        for b, r in zip(block[s:e].tolist(), row[s:e].tolist()):
            d = templates[b].copy()
            d["active"] = int(masks[b][r])
            at = addrs.get(b)
            if at is not None:
                i = int(np.searchsorted(at[0], warp))
                if i < len(at[0]) and at[0][i] == warp:
                    st = int(at[2][i])
                    d["addresses"] = at[1][st:st + int(at[3][i])]
            out.append(d)
        return out

    def __iter__(self) -> Iterator[int]:
        return iter(sorted(self._build_index()[2]))

    def __len__(self) -> int:
        return len(self._build_index()[2])

    def __contains__(self, warp: Any) -> bool:
        return warp in self._build_index()[2]

    def length(self, warp: int, function: str | None = None) -> int:
        """Entries of ``warp`` (of ``function`` only, when given) without building them."""
        block, _, spans = self._build_index()
        s, e = spans[warp]
        if function is None:
            return e - s
        return int(self._in_function(function)[block[s:e]].sum())

    def _in_function(self, function: str) -> np.ndarray:
        n = len(self._templates)
        hit = self._fn_cache.get(function)
        if hit is None or len(hit) != n:        # (templates only grow)
            hit = self._fn_cache[function] = np.fromiter((t["function"] == function for t in self._templates),
                                                          bool, n)
        return hit

    def executed(self, warp: int) -> int | None:
        """Entries ``warp`` executed, kept or not (None when the emulator did not say)."""
        if self.lengths is None or self.length_ids is None:
            return None
        i = int(np.searchsorted(self.length_ids, warp))
        if i < len(self.length_ids) and self.length_ids[i] == warp:
            return int(self.lengths[i])
        return None

    def memory_coverage(self) -> tuple[int, int]:
        """(executed positions of the traced warps whose memory accesses are logged, all executed
        positions): the logged part is a prefix of each warp, cut by the trace cap or where the
        synthesis of skipped loops' accesses ran out of budget."""
        if self.lengths is None or self.mem_frontier is None or not len(self.lengths):
            return 0, 0
        n = self.lengths.astype(np.int64)
        return int(np.minimum(self.mem_frontier, n).sum()), int(n.sum())

    def skips_of(self, warp: int) -> list[tuple[int, int, int, int, int]]:
        """(kept position, period entries, whole periods recorded before it, periods skipped,
        1 where the IDGs repeat them (:attr:`Skip.expand`) else 0) of each skip of ``warp``, in
        trace order (indexed once per warp: the IDG builds ask for every warp's, and a long launch
        holds thousands of skips)."""
        idx = self._skips_by_warp
        if idx is None or idx[0] != len(self.skips):
            by: dict[int, list[tuple[int, int, int, int, int]]] = {}
            for k in self.skips:
                for w, pos, per, rec in zip(k.warps.tolist(), k.pos.tolist(), k.period.tolist(),
                                            k.recorded.tolist()):
                    by.setdefault(w, []).append((pos, per, rec, k.count, int(k.expand)))
            idx = self._skips_by_warp = (len(self.skips), {w: sorted(v) for w, v in by.items()})
        return list(idx[1].get(warp, ()))

    def repeated(self, warp: int) -> int:
        """Entries the IDGs of ``warp`` add to its kept trace by repeating skipped periods
        (:attr:`Skip.expand`)."""
        if not self.skips:
            return 0
        return sum(count * per for _, per, _, count, expand in self.skips_of(warp) if expand)

    def pc_signature(self, function: str, max_nodes: int | None = None) -> dict[int, tuple[bytes, int]]:
        """Per warp: (its sequence of ``function``'s pcs, cut at ``max_nodes``, and its skipped
        loop periods, as bytes; its executed length). Warps with equal bytes have equal traces
        up to active masks and addresses, and equal periods skipped at the same places. Kept
        while the log is unchanged: the node budget and the IDG build of every GPU ask for it."""
        key = (function, max_nodes, len(self._templates), len(self.skips), self.cap, id(self.lengths))
        hit = self._signatures.get(key)
        if hit is None:
            hit = self._signatures[key] = self._pc_signature(function, max_nodes)
        return dict(hit)

    def _pc_signature(self, function: str, max_nodes: int | None) -> dict[int, tuple[bytes, int]]:
        block, _, spans = self._build_index()
        keep = self._in_function(function)
        pcs = np.fromiter((t["pc"] for t in self._templates), np.int64, len(self._templates))
        out = {}
        for w, (s, e) in spans.items():
            b = block[s:e]
            seq = pcs[b[keep[b]]]
            n = len(seq)
            full = self.executed(w)
            if full is not None and full > n and (self.cap is not None or self.skips):
                n = full                                  # entries past the cap or in skipped periods
            if max_nodes is not None and len(seq) > max_nodes:
                seq = seq[:max_nodes]
            sig = seq.astype(np.int32).tobytes()
            if self.skips:
                sig += np.array(self.skips_of(w), np.int64).tobytes()
            out[w] = (sig, n)
        return out


def _stable_order(warp: np.ndarray) -> np.ndarray:
    """``np.argsort(warp, kind="stable")``; by a radix sort of 16-bit keys where the ids span
    fewer than 2**16 (the traced warps of a launch: twice as fast as the int64 merge sort)."""
    if len(warp) and int(warp.max()) - int(warp.min()) < 1 << 16:
        return np.argsort((warp - warp.min()).astype(np.uint16), kind="stable")
    return np.argsort(warp, kind="stable")


def trace_lengths(traces: Mapping[int, Any]) -> dict[int, int]:
    """Entries per warp of any traces mapping, without building a TraceLog's entries."""
    if isinstance(traces, TraceLog):
        return {w: traces.length(w) for w in traces}
    return {w: len(t) for w, t in traces.items()}
