"""Mapper g's atomic statistics by int64 keys equal the former np.unique(axis=1) formulation."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.hardware.accesses import KINDS, SPACES, Accesses, PcMemory
from pipeperf.hardware.memory import L2_LINE, _atomics


def reference(addr_rows: list[np.ndarray], warps: np.ndarray, warps_per_cta: int) -> dict[str, int]:
    """The statistics written out with 2-D np.unique, as mapper g computed them before (2026-11-28)."""
    rows = np.concatenate([np.full(len(a), i, np.uint64) for i, a in enumerate(addr_rows)])
    addr = np.concatenate(addr_rows)
    pairs, per_req = np.unique(np.stack([rows, addr]), axis=1, return_counts=True)
    most = np.zeros(len(addr_rows), np.int64)
    np.maximum.at(most, pairs[0].astype(np.int64), per_req)
    cta = np.repeat(warps // warps_per_cta, [len(a) for a in addr_rows])

    def hottest(key):
        u, inv, count = np.unique(key, return_inverse=True, return_counts=True)
        on = np.zeros(len(u), np.int64)
        np.add.at(on, np.unique(np.stack([inv.astype(np.int64), cta]), axis=1)[0], 1)
        return int(count[on >= 2].max()) if (on >= 2).any() else 0

    return {"lane_ops": len(addr), "same_address_lanes": int(most.sum()), "distinct_ops": len(per_req),
            "ctas_sampled": len(np.unique(cta)), "hot_ops": hottest(addr), "hot_line_ops": hottest(addr // L2_LINE)}


@pytest.mark.parametrize("seed,bins", [(0, 4), (1, 256), (2, 1 << 20)])
def test_atomic_statistics_equal_the_two_dimensional_unique(seed, bins):
    rng = np.random.default_rng(seed)
    n_req, wpc = 400, 4
    lanes = rng.integers(1, 33, n_req)
    addr_rows = [(0x7000_0000 + 4 * rng.integers(0, bins, k)).astype(np.uint64) for k in lanes]
    warps = np.sort(rng.integers(0, 64, n_req))
    acc = Accesses.from_arrays(pc=np.zeros(n_req, np.int64), warp=warps, step=np.arange(n_req),
                               space=np.full(n_req, SPACES.index("global")), nbytes=np.full(n_req, 4),
                               lanes=lanes, addr=np.concatenate(addr_rows),
                               kind=np.full(n_req, KINDS.index("atomic")))
    out = {0: PcMemory(pc=0, space="global")}
    _atomics(acc, out, wpc)
    got = {k: getattr(out[0], k) for k in ("lane_ops", "same_address_lanes", "distinct_ops", "ctas_sampled",
                                            "hot_ops", "hot_line_ops")}
    assert got == reference(addr_rows, warps, wpc)
