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
        """Append (function, pc, opcode, category, dsts, srcs, active lanes mask) per traced warp."""
        x = prog.func.instructions[pc]
        a = G.as_array(cur)
        w = wid[a]
        keep = w < max_warps
        if not keep.any():
            return
        onset = set(G.as_array(on).tolist())
        for wi in np.unique(w[keep]):
            lanes = a[w == wi]
            mask = 0
            for t in lanes:
                if int(t) in onset:
                    mask |= 1 << (int(t) % 32)
            self.trace[int(wi)].append((prog.func.name, pc, x.opcode, x.category,
                                        tuple(str(d) for d in x.dsts),
                                        tuple(str(s) for s in x.srcs), mask))
