"""The trace cap (``run_kernel(trace_cap=...)``) keeps exactly the first ``cap`` entries of each
traced warp and logs its accesses up to there, while every executed entry is still counted: the
recorder's per-warp check runs only once some warp may have reached the cap (issue 39, a bound on
the kept entries), and warps of one group are updated through a slice of their dense ids."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeperf.emulate import run_kernel

MATMUL = Path(__file__).resolve().parents[2] / "examples" / "tune" / "matmul_tiled.cu"


def _run(cap):
    return run_kernel(MATMUL, [4, 4], [8, 2], ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32",
                                               "pitch=9"], kernel="matmul_tiled", shared=2 * 8 * 9 * 4,
                      mode="hybrid", trace_warps=16, trace_blocks="spread", arch="sm_80", nvcc_flags=["-DTILE=8"],
                      trace_cap=cap, trace_addresses=False, bank_conflicts=False)


@pytest.mark.parametrize("cap", [1, 37, 100])
def test_capped_traces_are_the_uncapped_prefix(cap):
    full, cut = _run(None), _run(cap)
    assert sorted(full.traces) == sorted(cut.traces) and len(cut.traces) == 16
    np.testing.assert_array_equal(full.traces.lengths, cut.traces.lengths)     # every entry counted
    for w in full.traces:
        n = full.traces.length(w)
        assert n > cap and cut.traces.length(w) == cap                          # exactly the cap kept
        assert [e["pc"] for e in cut.traces[w]] == [e["pc"] for e in full.traces[w]][:cap]

    def logged(log):
        return sorted((pc, w, p) for _fn, pc, ws, pos, _l, _a in log for w, p in zip(ws.tolist(), pos.tolist()))
    assert logged(cut.memory_log) == [r for r in logged(full.memory_log) if r[2] < cap]
