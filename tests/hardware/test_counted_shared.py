"""Shared requests counted where the memory log holds their lanes (``traced_accesses(count_shared=True)``,
issue 39's tuning throughput) must give mapper g the same statistics as the whole lane column: the
same bank and return wavefronts per request, per PC and through ``analyze_accesses``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeperf.analysis.memory_trace import traced_accesses
from pipeperf.emulate import run_kernel, select_kernel
from pipeperf.hardware import banks, request_scan
from pipeperf.hardware.accesses import Accesses, fuse_requests
from pipeperf.hardware.memory import analyze_accesses
from pipeperf.ptx.load import compile_module

MATMUL = Path(__file__).resolve().parents[2] / "examples" / "tune" / "matmul_tiled.cu"


def _block(seed: int, nbytes: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """(lanes per request, their addresses) of one random block of shared requests: strides that
    conflict and do not, broadcasts, neighbouring lanes on one address (the packed return), partial warps."""
    rng = np.random.default_rng(seed)
    lanes = np.where(rng.random(n) < 0.6, 32, rng.integers(1, 33, n))
    out = []
    for k in lanes:
        lane = np.arange(k)
        p = rng.random()
        if p < 0.25:
            a = lane // 2 * nbytes                            # pairs on one address
        elif p < 0.35:
            a = np.zeros(k, np.int64)                         # a broadcast
        else:
            a = lane * int(rng.choice([1, 2, 3, 8, 17, 32])) * nbytes
        out.append(a + int(rng.integers(0, 256)) * nbytes)
    # every CTA's warps repeat the rows: the first 100 again (the C scan's table of rows seen)
    lanes = np.concatenate((lanes, lanes[:100])).astype(np.int64)
    return lanes, np.concatenate(out + out[:100]).astype(np.uint64)


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("c_scan", [True, False])
def test_block_counts_equal_the_whole_columns(nbytes, c_scan, monkeypatch):
    if c_scan and not request_scan.AVAILABLE:
        pytest.skip("the _requests extension is not built")
    if not c_scan:
        monkeypatch.setattr(request_scan, "AVAILABLE", False)
    lanes, addr = _block(nbytes, nbytes)
    n = len(lanes)
    acc = Accesses.from_arrays(np.zeros(n), np.zeros(n), np.arange(n), np.ones(n), np.full(n, nbytes), lanes, addr)
    reqs = np.arange(n)
    floor = banks.return_wavefronts(acc, reqs)
    waves, returns = banks.block_shared_counts(addr, lanes, nbytes)
    np.testing.assert_array_equal(returns, floor)
    np.testing.assert_array_equal(waves, banks.bank_wavefronts(acc, reqs, floor))
    np.testing.assert_array_equal(waves[-100:], waves[:100])
    assert waves.max() > 1 and (nbytes <= 4 or returns.max() > 1)      # conflicts and wide returns occur


@pytest.fixture(scope="module", params=[0, 1])
def matmul_log(request):
    """A tiled matmul's traced memory log as analyze emulates it (hybrid, no bank count at emulation),
    with an unpadded (conflicting) and a padded tile pitch."""
    pad = request.param
    prof = run_kernel(MATMUL, [4, 4], [8, 2], ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32",
                                               f"pitch={8 + pad}"], kernel="matmul_tiled", shared=2 * 8 * (8 + pad) * 4,
                      mode="hybrid", trace_warps=16, trace_blocks="spread", arch="sm_80", nvcc_flags=["-DTILE=8"],
                      trace_addresses=False, bank_conflicts=False)
    module, _ = compile_module(MATMUL, "sm_80", ["-DTILE=8"])
    return prof, select_kernel(module, "matmul_tiled")


@pytest.mark.parametrize("c_scan", [True, False])
def test_counted_shared_requests_give_the_same_statistics(matmul_log, c_scan, monkeypatch):
    """Counted per block (in one C call, or block by block with the NumPy path where the extension
    is not built): the same statistics as the whole lane column."""
    if c_scan and not request_scan.AVAILABLE:
        pytest.skip("the _requests extension is not built")
    prof, func = matmul_log
    whole = traced_accesses(prof.memory_log, func)
    if not c_scan:
        monkeypatch.setattr(request_scan, "AVAILABLE", False)
    counted = traced_accesses(prof.memory_log, func, count_shared=True)
    shared = counted.space == 1
    assert shared.any() and counted.waves is not None and counted.returns is not None
    assert (counted.waves[shared] >= 1).all() and (counted.waves[~shared] == -1).all()
    assert len(counted.addr) < len(whole.addr)                       # one lane per counted request
    for k in ("pc", "warp", "step", "space", "nbytes"):
        np.testing.assert_array_equal(getattr(counted, k), getattr(whole, k))
    a = analyze_accesses(whole, 1e4, 2, 64.0)
    b = analyze_accesses(counted, 1e4, 2, 64.0)
    assert a == b
    assert any(st.space == "shared" and st.wavefronts > 0 for st in b.values())
    with pytest.raises(ValueError):                                  # their lanes are gone: no SASS fusion
        fuse_requests(counted, {int(counted.pc[shared][0]): (0, 2)})


@pytest.mark.parametrize("pad", [0, 1])
def test_synthesised_shared_blocks_count_as_their_expansion(pad):
    """A K loop of 16 iterations with a barrier is jumped (its periods repeated in the IDGs) and its
    shared accesses synthesised: counted without expanding them where every request's lanes move
    by one multiple of 128 bytes (here 0: the tiles stay put), the same columns and statistics as
    the expanded blocks counted one by one and as the whole lane column."""
    from pipeperf.analysis.memory_trace import _bank_invariant
    from pipeperf.emulate.tracelog import SynthBlock

    prof = run_kernel(MATMUL, [16, 16], [8, 2], ["A=rand:f32:16384", "B=rand:f32:16384", "C=zeros:f32:16384",
                                                 "n=128", f"pitch={8 + pad}"], kernel="matmul_tiled",
                      shared=2 * 8 * (8 + pad) * 4, mode="hybrid", trace_warps=16, trace_blocks="spread",
                      ctas="traced", fast_loops=True, arch="sm_80", nvcc_flags=["-DTILE=8"],
                      trace_addresses=False, bank_conflicts=False)
    module, _ = compile_module(MATMUL, "sm_80", ["-DTILE=8"])
    func = select_kernel(module, "matmul_tiled")
    synth = [b for b in prof.memory_log if type(b) is SynthBlock and func.instructions[b.pc].op.space == "shared"]
    assert synth and all(_bank_invariant(b) for b in synth)
    expanded = [tuple(b) if type(b) is SynthBlock else b for b in prof.memory_log]
    fast = traced_accesses(prof.memory_log, func, count_shared=True)
    slow = traced_accesses(expanded, func, count_shared=True)
    for k in ("pc", "warp", "step", "space", "nbytes", "lane_start", "addr", "kind", "waves", "returns"):
        np.testing.assert_array_equal(getattr(fast, k), getattr(slow, k))
    whole = traced_accesses(prof.memory_log, func)
    assert analyze_accesses(fast, 1e4, 2, 64.0) == analyze_accesses(whole, 1e4, 2, 64.0)


def test_a_moving_synthesised_block_is_counted_by_its_lanes():
    """Lanes moving by 256 bytes keep their banks (counted once); by 4 bytes per period, or by
    different amounts within a request, they are not taken as invariant (expanded and counted)."""
    from pipeperf.analysis.memory_trace import _bank_invariant, _counted_synth
    from pipeperf.emulate.tracelog import SynthBlock

    lanes = np.array([32, 32, 5], np.int64)
    addr = np.concatenate([np.arange(32) * 8, np.arange(32) * 4, np.zeros(5)]).astype(np.uint64)
    one = np.ones(3, np.int64)
    for step, ok in ((256, True), (4, False)):
        d = np.full(len(addr), step, np.uint64)
        b = SynthBlock("f", 0, np.arange(3), np.arange(3), lanes, addr, d, one * 10, 4)
        assert _bank_invariant(b) is ok
        if ok:
            cols = [np.empty(12, np.int64) for _ in range(3)] + [np.empty(12, np.uint64)] + \
                [np.empty(12, np.int64) for _ in range(2)]
            _counted_synth(b, 4, tuple(cols))
            _, _, w, s, la, a = tuple(b)
            waves, returns = banks.block_shared_counts(a, la, 4)
            np.testing.assert_array_equal(cols[4], waves)
            np.testing.assert_array_equal(cols[0], w)
            np.testing.assert_array_equal(cols[1], s)
            np.testing.assert_array_equal(cols[3], a[np.cumsum(la) - la])
    d = np.full(len(addr), 128, np.uint64)
    d[1] = 0
    assert not _bank_invariant(SynthBlock("f", 0, np.arange(3), np.arange(3), lanes, addr, d, one * 10, 4))
