"""Issue 39: a short loop holding a ``bar.sync`` (a tiled GEMM's K loop of fewer than
MIN_JUMP_BARRIER iterations) is jumped by the emulator and its skipped periods are repeated in the
IDGs (``Skip.expand``) instead of extrapolated: the prediction is the exact path's (every
iteration emulated), and the report says what was skipped."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from pipeperf.analysis import analyze

ROOT = Path(__file__).resolve().parents[2]
CU = ROOT / "examples" / "tune" / "matmul_tiled.cu"


def _launch(tile: int, by: int, pad: int, n: int = 256) -> tuple[list[int], list[int], list[str], dict]:
    args = [f"A=rand:f32:{n * n}", f"B=rand:f32:{n * n}", f"C=zeros:f32:{n * n}", f"n={n}", f"pitch={tile + pad}"]
    kw = dict(kernel="matmul_tiled", shared=2 * tile * (tile + pad) * 4, nvcc_flags=[f"-DTILE={tile}"],
              what_if=False, models=False, source_lines=False)
    return [n // tile, n // tile], [tile, by], args, kw


@pytest.mark.parametrize("by", [1, 8])
def test_a_short_barrier_loop_is_skipped_and_predicted_as_the_exact_path(by):
    """TILE=8 at n = 256: a 32-iteration K loop (MIN_JUMP_BARRIER is 40), jumped after two equal
    periods; the IDGs hold every iteration, so fast and exact agree to rounding (both are whole)."""
    from pipeperf.emulate.loops import MIN_JUMP_BARRIER

    grid, block, args, kw = _launch(8, by, 0)
    fast = analyze(CU, grid, block, args, ["ampere_a100"], arch="sm_80", **kw).predictions[0]
    exact = analyze(CU, grid, block, args, ["ampere_a100"], arch="sm_80", exact=True, **kw).predictions[0]
    assert MIN_JUMP_BARRIER > 256 // 8
    notes = [x for x in fast.notes if x.startswith("short barrier loops")]
    assert notes and "not extrapolated" in notes[0]
    assert not any(x.startswith("periodic loops") for x in fast.notes)     # nothing extrapolated
    assert not any(x.startswith("short barrier loops") for x in exact.notes)
    assert float(fast.seconds) == pytest.approx(float(exact.seconds), rel=1e-9)
    assert float(fast.cycles) == pytest.approx(float(exact.cycles), rel=1e-9)


def test_the_repeated_periods_are_the_exact_trace():
    """The IDG build's trace of a warp with its skipped periods repeated equals the warp's trace
    emulated whole (pc by pc), and the executed lengths agree; every count and the memory log's
    accesses are those of the whole emulation (the probe's period, kept, is counted once)."""
    import numpy as np

    from pipeperf.emulate import run_kernel
    from pipeperf.idg.build import _periods

    grid, block, args, kw = _launch(8, 8, 1)
    runs = [run_kernel(CU, grid, block, args, kernel="matmul_tiled", shared=kw["shared"], mode="hybrid",
                       trace_warps=16, ctas="traced", fast_loops=fast, arch="sm_80", nvcc_flags=kw["nvcc_flags"])
            for fast in (True, False)]
    fast, slow = (r.traces for r in runs)
    assert fast.skips and all(k.expand for k in fast.skips)
    for w in fast:
        t = _periods(fast.head(w, None), fast.skips_of(w), drop=False)
        assert [e["pc"] for e in t] == [e["pc"] for e in slow.head(w, None)]
        assert fast.executed(w) == len(t) == fast.length(w) + fast.repeated(w)
    a, b = runs
    assert a.counts.get("loops_skipped", 0) > 0 and b.counts.get("loops_skipped", 0) == 0
    timing = {"seconds", "thread_instructions_per_second", "loops_skipped", "inst_emulated_thread", "fraction_emulated"}
    for k in b.counts.keys() - timing:
        assert a.counts[k] == b.counts[k], k
    assert a.by_opcode == b.by_opcode
    np.testing.assert_array_equal(fast.lengths, slow.lengths)

    def accesses(log):
        rows = set()
        for _fn, pc, ws, pos, lanes, addr in log:
            first = np.cumsum(lanes) - lanes
            rows.update(zip([pc] * len(ws), ws.tolist(), pos.tolist(), addr[first].tolist()))
        return rows
    assert accesses(a.memory_log) == accesses(b.memory_log)


@pytest.mark.slow
@pytest.mark.requires_nvcc     # three tile sizes at sm_90: not in the (size-bounded) store of recorded compiles
def test_every_variant_of_the_tune_example_is_the_exact_path():
    """The README's tune space (examples/tune/matmul.yaml: 28 variants at n = 256, K loops of 8,
    16 and 32 iterations) on V100, A100 and H100: within 1 % of the exact path (in fact equal)."""
    gpus = ["volta_v100", "ampere_a100", "hopper_h100"]
    worst = 0.0
    for tile, by, pad in itertools.product([8, 16, 32], [1, 2, 4, 8, 16, 32], [0, 1]):
        if by > tile or tile * by >= 1024:
            continue
        grid, block, args, kw = _launch(tile, by, pad)
        fast = analyze(CU, grid, block, args, gpus, **kw).predictions
        exact = analyze(CU, grid, block, args, gpus, exact=True, **kw).predictions
        for p, q in zip(fast, exact):
            worst = max(worst, abs(float(p.seconds) / float(q.seconds) - 1))
    assert worst <= 0.01
