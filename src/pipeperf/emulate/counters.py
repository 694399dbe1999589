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


class Counters:
    def __init__(self, trace_cap: int | None = None, trace_ids: np.ndarray | None = None) -> None:
        #: entries kept per traced warp (None: all); a warp past it is still counted
        #: (``trace.lengths``) so a cut trace is extrapolated, not under-counted
        self.trace_cap = trace_cap
        #: sorted launch-wide ids of the traced warps: per-warp arrays are dense over them (a
        #: 2^31-block grid's sample costs its traced warps, not a launch-wide array)
        self.trace_ids = np.zeros(0, np.int64) if trace_ids is None else np.asarray(trace_ids, np.int64)
        self.per_prog: dict[str, tuple[Any, np.ndarray, np.ndarray, np.ndarray]] = {}
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
        self.ctas = 0
        self.threads = 0
        self.warps = 0
        self.trace = TraceLog()
        #: columnar copy of the traced warps' memory accesses, one block per (access, warps):
        #: (function, pc, warp ids, their trace positions, lanes per warp, addresses), so memory
        #: analysis reads whole arrays instead of walking trace entries
        self.memory_log: list[tuple[str, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        n = len(self.trace_ids)
        self._tlen = np.zeros(n, np.int64)          # entries executed per traced warp (dense index)
        self._kept = np.zeros(n, np.int64)          # of those, the entries kept in the trace
        #: per traced warp: trace position from which its accesses are no longer logged in
        #: ``memory_log`` (the trace cap, or where a skipped loop's accesses stopped being
        #: synthesised), so memory statistics always come from a contiguous start of each warp
        self.mem_frontier = np.full(n, np.iinfo(np.int64).max if trace_cap is None else trace_cap, np.int64)
        self._last: tuple[str, int] = ("", -1)      # (function, pc) of the last recorded instruction
        self._entry: dict[tuple[str, int], dict] = {}

    def arrays(self, prog) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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

    def record(self, prog, pc: int, st, cur, gmask: np.ndarray | None) -> None:
        """Append one entry per traced warp (``st.trace_wid`` >= 0) executing ``pc``: function,
        pc, opcode, category, destination and source operands, active-lane mask (guard true,
        ``gmask`` aligned with ``cur``) and, for memory instructions, the lanes' addresses
        (filled later by :meth:`record_addresses`)."""
        tw = st.trace_wid[cur]
        keep = tw >= 0
        if not keep.any():
            return
        idx = G.as_array(cur)[keep]
        w = tw[keep]
        bits = np.left_shift(np.int64(1), st.lane[idx].astype(np.int64))
        if gmask is not None:
            bits = np.where(gmask[keep], bits, 0)
        starts, _ = G.segments(w)
        masks = np.bitwise_or.reduceat(bits, starts)
        static = self._static(prog, pc)
        ws = w[starts]
        d = self.dense(ws)
        self._tlen[d] += 1
        self._last = (static["function"], pc)
        if self.trace_cap is not None:
            live = self._kept[d] < self.trace_cap
            if not live.all():
                ws, masks, d = ws[live], masks[live], d[live]
                if not len(ws):
                    self._last_block = -1
                    return
        self._kept[d] += 1
        self._last_block = self.trace.add(static, ws, masks)

    def dense(self, warps: np.ndarray) -> np.ndarray:
        """Dense indices of traced launch-wide warp ids (per-warp arrays are indexed by them)."""
        return np.searchsorted(self.trace_ids, warps)

    def record_addresses(self, st, ix, addr) -> None:
        """Attach the addresses of a memory access (threads of ``ix``: the guard-true lanes, in
        lane order) to the traced warps' last entry, as a read-only ``uint64`` array (a view
        shared by the warps of one access: no per-lane Python ints, which cost 3x the time
        and twice the memory of a whole trace)."""
        tw = st.trace_wid[ix]
        keep = tw >= 0
        if not keep.any():
            return
        if self._last_block < 0:
            return                                   # every warp of it is past the trace cap
        w = tw[keep]
        a = np.array(np.broadcast_to(np.asarray(addr, np.uint64), keep.shape)[keep])
        a.flags.writeable = False
        starts, lengths = G.segments(w)
        ws = w[starts]
        d = self.dense(ws)
        pos = self._tlen[d] - 1
        logged = pos < self.mem_frontier[d]
        if self.trace_cap is not None:            # the entry record() kept, if it did
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
