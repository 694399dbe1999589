"""Event counters of one launch (nvprof-style metrics) and optional per-warp traces.

Per-instruction arrays (warp executions, thread executions, threads with the
guard true) are the primary record: every per-category, per-opcode and FLOP
count is derived from them afterwards, so the hot loop only adds three ints.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from pipeperf.emulate import groups as G

#: FLOPs per thread-instruction of each arithmetic root (FMA counts 2, nvprof convention).
FLOPS = {"add": 1, "sub": 1, "mul": 1, "fma": 2, "mad": 2, "neg": 0, "abs": 0, "min": 0,
         "max": 0, "setp": 0, "div": 1, "rcp": 1, "sqrt": 1}


class Counters:
    def __init__(self) -> None:
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
        self.trace: dict[int, list[tuple]] = defaultdict(list)

    def arrays(self, prog) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        name = prog.func.name
        if name not in self.per_prog:
            n = prog.n + 1
            self.per_prog[name] = (prog, [0] * n, [0] * n, [0] * n)
        _, a, b, c = self.per_prog[name]
        return a, b, c

    def record(self, prog, pc: int, wid: np.ndarray, cur, on, max_warps: int) -> None:
        """Append one entry per traced warp (warp id < ``max_warps``) executing ``pc``:
        function, pc, opcode, category, destination and source operands, active-lane mask
        (guard true) and, for memory instructions, the lanes' addresses (filled later)."""
        x = prog.func.instructions[pc]
        a = G.as_array(cur)
        w = wid[a]
        keep = w < max_warps
        if not keep.any():
            return
        onset = set(G.as_array(on).tolist())
        for wi in np.unique(w[keep]):
            mask = 0
            for t in a[w == wi]:
                if int(t) in onset:
                    mask |= 1 << (int(t) % 32)
            self.trace[int(wi)].append({
                "function": prog.func.name, "pc": pc, "opcode": x.opcode,
                "category": x.category, "dsts": tuple(str(d) for d in x.dsts),
                "srcs": tuple(str(s) for s in x.srcs), "active": mask, "addresses": None})

    def record_addresses(self, wid: np.ndarray, ix, addr, max_warps: int) -> None:
        """Attach the per-lane addresses of a memory access to the traced warps' last entry."""
        a = G.as_array(ix)
        w = wid[a]
        addr = np.broadcast_to(np.asarray(addr), (len(a),))
        for wi in np.unique(w[w < max_warps]):
            entries = self.trace.get(int(wi))
            if entries:
                sel = w == wi
                entries[-1]["addresses"] = tuple(int(v) for v in addr[sel])
