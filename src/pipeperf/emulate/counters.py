"""Event counters of one launch (nvprof-style metrics) and optional per-warp traces.

Per-instruction arrays (warp executions, thread executions, threads with the
guard true) are the primary record: every per-category, per-opcode and FLOP
count is derived from them afterwards, so the hot loop only adds three ints.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.tracelog import TraceLog

#: FLOPs per thread-instruction of each arithmetic root (FMA counts 2, nvprof convention).
FLOPS = {"add": 1, "sub": 1, "mul": 1, "fma": 2, "mad": 2, "neg": 0, "abs": 0, "min": 0,
         "max": 0, "setp": 0, "div": 1, "rcp": 1, "sqrt": 1}


#: the scalar counters (besides the per-instruction arrays) that :class:`Weighted` scales
SCALARS = ("branches", "divergent_branches", "barriers", "atomics", "global_load_requests",
           "global_store_requests", "global_load_sectors", "global_store_sectors", "shared_requests",
           "shared_load_requests", "shared_store_requests", "shared_bank_conflicts", "local_requests",
           "ctas", "threads", "warps")


class Weighted:
    """The counters of a CTA sample scaled to the whole grid, with :class:`Counters`' attributes
    (floats) so the same tally reads them: each batch of CTAs standing for equally many grid CTAs
    (one weight) adds its counts times that weight. Why: the CTAs a bounds check masks in part
    count less than interior ones, so one uniform scale from the sample is wrong."""

    def __init__(self, counters: Counters) -> None:
        self.per_prog: dict[str, tuple[Any, list[float], list[float], list[float]]] = {}
        for k in SCALARS:
            setattr(self, k, 0.0)
        self._last = self._snapshot(counters)

    @staticmethod
    def _snapshot(c: Counters) -> tuple[dict[str, int], dict[str, tuple[Any, list[int], list[int], list[int]]]]:
        return ({k: getattr(c, k) for k in SCALARS},
                {n: (p, list(a), list(b), list(d)) for n, (p, a, b, d) in c.per_prog.items()})

    def add(self, counters: Counters, weight: float) -> None:
        """Add what ``counters`` counted since the last call, times ``weight``."""
        scalars, progs = now = self._snapshot(counters)
        for k, v in scalars.items():
            setattr(self, k, getattr(self, k) + weight * (v - self._last[0][k]))
        for n, (prog, *arrs) in progs.items():
            before = self._last[1].get(n)
            acc = self.per_prog.setdefault(n, (prog, *([0.0] * len(a) for a in arrs)))
            for i, a in enumerate(arrs):
                b = before[1 + i] if before else [0] * len(a)
                out = acc[1 + i]
                for j, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        out[j] += weight * (x - y)
        self._last = now


class Counters:
    def __init__(self, trace_cap: int | None = None, trace_ids: np.ndarray | None = None,
                 trace_addresses: bool = True) -> None:
        #: the traced warps' lane addresses are attached to their trace entries too (``pipeperf
        #: profile`` shows them); False: only ``memory_log`` holds them (analyze: mapper g's input,
        #: released once mapper g has read it)
        self.trace_addresses = trace_addresses
        #: entries kept per traced warp (None: all); a warp past it is still counted
        #: (``trace.lengths``) so a cut trace is extrapolated, not under-counted
        self.trace_cap = trace_cap
        #: sorted launch-wide ids of the traced warps: per-warp arrays are dense over them (a
        #: 2^31-block grid's sample costs its traced warps, not a launch-wide array)
        self.trace_ids = np.zeros(0, np.int64) if trace_ids is None else np.asarray(trace_ids, np.int64)
        self.per_prog: dict[str, tuple[Any, list[int], list[int], list[int]]] = {}
        self.branches = 0
        self.divergent_branches = 0
        self.barriers = 0
        self.atomics = 0
        self.global_load_requests = 0
        self.global_store_requests = 0
        self.global_load_sectors = 0
        self.global_store_sectors = 0
        self.shared_requests = 0
        self.shared_load_requests = 0
        self.shared_store_requests = 0
        self.shared_bank_conflicts = 0
        self.local_requests = 0
        self.printf_calls = 0                  # threads' vprintf calls, not executed
        self.out_of_bounds: dict[int, list[int]] = {}   # --oob warn: PTX line -> [loads, stores] of lanes
        self.ctas = 0
        self.threads = 0
        self.warps = 0
        self.trace = TraceLog()
        #: columnar copy of the traced warps' memory accesses, one block per (access, warps):
        #: (function, pc, warp ids, their trace positions, lanes per warp, addresses), so memory
        #: analysis reads whole arrays instead of walking trace entries
        self.memory_log: list[tuple[str, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        #: PTX line -> the state space a generic wmma.load/store's addresses fell in (mapper g has
        #: no addresses of those: it needs the space to give them the class of the memory serving them)
        self.resolved_spaces: dict[int, str] = {}
        #: PTX line -> bytes between a wmma.load/store's matrix rows (its ldm x the element size),
        #: as the first warp to run it used: the bank conflicts of its fragment's rows follow from it
        self.wmma_row_bytes: dict[int, int] = {}
        n = len(self.trace_ids)
        self._tlen = np.zeros(n, np.int64)          # entries executed per traced warp (dense index)
        self._kept = np.zeros(n, np.int64)          # of those, the entries kept in the trace
        #: per traced warp: trace position from which its accesses are no longer logged in
        #: ``memory_log`` (the trace cap, or where a skipped loop's accesses stopped being
        #: synthesised), so memory statistics always come from a contiguous start of each warp
        self.mem_frontier = np.full(n, np.iinfo(np.int64).max if trace_cap is None else trace_cap, np.int64)
        self._last: tuple[str, int] = ("", -1)      # (function, pc) of the last recorded instruction
        self._entry: dict[tuple[str, int], dict] = {}
        self._groups: dict[int, tuple] = {}         # id(group) -> (group, trace_wid, _traced's)
        self._last_all_kept = True
        #: at least the largest entry of ``_kept`` (each record adds one to some warps'): below the
        #: trace cap, no warp's entry needs the per-warp check
        self._kept_bound = 0

    def arrays(self, prog) -> tuple[list[int], list[int], list[int]]:
        name = prog.func.name
        if name not in self.per_prog:
            n = prog.n + 1
            self.per_prog[name] = (prog, [0] * n, [0] * n, [0] * n)
        _, a, b, c = self.per_prog[name]
        return a, b, c

    def _static(self, prog, pc: int) -> dict:
        """The per-instruction part of a trace entry (a template), built once."""
        key = (prog.func.name, pc)
        d = self._entry.get(key)
        if d is None:
            x = prog.func.instructions[pc]
            d = self._entry[key] = {
                "function": prog.func.name, "pc": pc, "opcode": x.opcode, "category": x.category,
                "dsts": tuple(str(d) for d in x.dsts), "srcs": tuple(str(s) for s in x.srcs),
                "active": 0, "addresses": None}
        return d

    def _traced(self, st, g) -> tuple | None:
        """For the traced threads of group ``g``: (mask of them in ``g``, all of ``g``?, their
        warp ids, run starts, run lengths, the warps, their dense ids, lane bits, whole-run
        masks), None when none is traced. Why cached: a loop body runs the same group object
        step after step (groups are never changed in place), and these cost more than the step."""
        hit = self._groups.get(id(g))
        if hit is not None and hit[0] is g and hit[1] is st.trace_wid:
            return hit[2]
        tw = st.trace_wid[g]
        keep = tw >= 0
        v = None
        if keep.any():
            whole = bool(keep.all())
            idx = G.as_array(g) if whole else G.as_array(g)[keep]
            w = tw if whole else tw[keep]
            starts, lengths = G.segments(w)
            ws = w[starts]
            bits = np.left_shift(np.int64(1), st.lane[idx].astype(np.int64))
            full = np.bitwise_or.reduceat(bits, starts)
            for a in (keep, w, starts, lengths, ws, bits, full):
                a.flags.writeable = False
            d: np.ndarray | slice = self.dense(ws)
            if type(d) is np.ndarray and len(d) > 1 and int(d[-1]) - int(d[0]) + 1 == len(d) and bool((np.diff(d) == 1).all()):
                d = slice(int(d[0]), int(d[-1]) + 1)    # consecutive dense ids: per-warp arrays sliced
            v = (keep, whole, w, starts, lengths, ws, d, bits, full)
        if len(self._groups) >= 16:
            self._groups.clear()
        self._groups[id(g)] = (g, st.trace_wid, v)
        return v

    def record(self, prog, pc: int, st, cur, gmask: np.ndarray | None) -> None:
        """Append one entry per traced warp (``st.trace_wid`` >= 0) executing ``pc``: function,
        pc, opcode, category, destination and source operands, active-lane mask (guard true,
        ``gmask`` aligned with ``cur``) and, for memory instructions, the lanes' addresses
        (filled later by :meth:`record_addresses`)."""
        v = self._traced(st, cur)
        if v is None:
            return
        keep, whole, _, starts, _, ws, d, bits, masks = v
        if gmask is not None:
            masks = np.bitwise_or.reduceat(np.where(gmask if whole else gmask[keep], bits, 0), starts)
        static = self._static(prog, pc)
        self._tlen[d] += 1
        self._last = (static["function"], pc)
        self._last_all_kept = True
        if self.trace_cap is not None and self._kept_bound >= self.trace_cap:
            live = self._kept[d] < self.trace_cap
            if not live.all():
                self._last_all_kept = False
                if type(d) is slice:
                    d = np.arange(d.start, d.stop)
                ws, masks, d = ws[live], masks[live], d[live]
                if not len(ws):
                    self._last_block = -1
                    return
        self._kept[d] += 1
        self._kept_bound += 1
        self._last_block = self.trace.add(static, ws, masks)

    def dense(self, warps: np.ndarray) -> np.ndarray:
        """Dense indices of traced launch-wide warp ids (per-warp arrays are indexed by them)."""
        return np.searchsorted(self.trace_ids, warps)

    def record_addresses(self, st, ix, addr) -> None:
        """Attach the addresses of a memory access (threads of ``ix``: the guard-true lanes, in
        lane order) to the traced warps' last entry, as a read-only ``uint64`` array (a view
        shared by the warps of one access: no per-lane Python ints, which cost 3x the time
        and twice the memory of a whole trace)."""
        v = self._traced(st, ix)
        if v is None:
            return
        if self._last_block < 0:
            return                                   # every warp of it is past the trace cap
        keep, whole, _, starts, lengths, ws, d, _, _ = v
        if type(addr) is np.ndarray and addr.dtype == np.uint64 and addr.shape == keep.shape:
            a = addr.copy() if whole else addr[keep]     # (the common case: no broadcast view)
        else:
            a = np.broadcast_to(np.asarray(addr, np.uint64), keep.shape)
            a = np.array(a if whole else a[keep])
        a.flags.writeable = False
        pos = self._tlen[d] - 1
        logged = pos < self.mem_frontier[d]
        if not self.trace_addresses:
            pass
        elif self.trace_cap is not None and not self._last_all_kept:   # the entry record() kept
            kept = np.isin(ws, self.trace._warps[self._last_block])
            if not kept.all():
                self._attach(ws[kept], a, starts[kept], lengths[kept])
            else:
                self._attach(ws, a, starts, lengths)
        else:
            self._attach(ws, a, starts, lengths)
        if not logged.all():
            if not logged.any():
                return
            lane = np.repeat(logged, lengths)
            ws, pos, lengths, a = ws[logged], pos[logged], lengths[logged], a[lane]
        # the instruction record() just traced: these warps' entries are their last ones
        self.memory_log.append((self._last[0], self._last[1], ws, pos, np.asarray(lengths, np.int64), a))

    def _attach(self, ws, a, starts, lengths) -> None:
        if len(ws):
            self.trace.attach_addresses(self._last_block, ws, a, starts, lengths)
