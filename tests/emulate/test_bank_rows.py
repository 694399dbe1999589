"""Bank conflicts of wmma fragments counted row by row (one row per warp's request, issue 39) equal
the general per-(warp, word) count of :func:`~pipeperf.emulate.memops.bank_conflicts`."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pipeperf.emulate.memops import bank_conflicts, row_conflicts


@pytest.mark.parametrize("seed", range(6))
def test_row_conflicts_equal_the_general_count(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        nw, e, size = int(rng.integers(1, 6)), int(rng.choice([4, 8, 16])), int(rng.choice([2, 4]))
        n = nw * 32
        stride = np.uint64(rng.integers(1, 40))
        base = (rng.integers(0, 4096, size=n).astype(np.uint64) if trial % 2 else
                np.arange(n, dtype=np.uint64) * stride) * np.uint64(size)
        addr = (base[:, None] + rng.integers(0, 64, size=(n, e)).astype(np.uint64) * np.uint64(size)).reshape(-1)
        general = bank_conflicts(SimpleNamespace(block_threads=256), SimpleNamespace(wid=np.arange(n) // 32),
                                 np.repeat(np.arange(n), e), addr, size)
        assert row_conflicts((addr >> np.uint64(2)).reshape(nw, -1)) == general
    assert general >= 0


PTX = __import__("pathlib").Path(__file__).parents[1] / "analyze" / "fixtures" / "wmma_shared_sm80.ptx"


def _emulate_fixture(tmp_path, stride: int, mode: str, fast: bool, monkeypatch):
    """The 16x16x16 WMMA of the analyze fixture on shared tiles, its ldm set to ``stride``."""
    from pipeperf.emulate import run_kernel, wmma

    with monkeypatch.context() as mp:
        if not fast:   # every fragment element resolved and its rows counted (the general path)
            mp.setattr(wmma, "_counted_shared", lambda *a: False)
            mp.setattr(wmma, "_warp_rows_conflicts", lambda *a: None)
        ptx = tmp_path / f"k{stride}.ptx"
        ptx.write_text(PTX.read_text().replace("mov.u32 \t%r27, 16;", f"mov.u32 \t%r27, {stride};"))
        try:
            p = run_kernel(ptx, [3], [128], [np.ones(512, np.float16), np.zeros(512, np.float32)],
                           kernel="k", mode=mode)
        except Exception as e:
            return str(e)
        return {k: v for k, v in p.counts.items() if k not in ("seconds", "thread_instructions_per_second")}


@pytest.mark.parametrize("stride", [16, 8, 2, 200])
@pytest.mark.parametrize("mode", ["hybrid", "full"])
def test_fragments_counted_per_warp_equal_the_rows(tmp_path, monkeypatch, stride, mode):
    """Hybrid mode's shared fragments not moved are checked on each lane's lowest and highest
    element and their conflicts taken per warp from one table (wmma._counted_shared): the same
    counts, or the same fault (stride 200 runs past the CTA's shared memory), as resolving and
    counting every element."""
    fast = _emulate_fixture(tmp_path, stride, mode, True, monkeypatch)
    assert fast == _emulate_fixture(tmp_path, stride, mode, False, monkeypatch)
    if stride == 200:
        assert "out-of-bounds shared access" in fast
    elif stride == 16:
        assert fast["shared_bank_conflicts"] > 0


@pytest.mark.parametrize("seed", range(4))
def test_whole_warps_and_repeated_ctas_equal_the_general_count(seed):
    """Whole warps (a slice of threads): rows counted by marking their words, and a batch whose CTAs
    all make the same requests counted once and multiplied; both equal the general (warp, word) count."""
    rng = np.random.default_rng(seed)
    for trial in range(30):
        bt, ctas, size = 32 * int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.choice([4, 8, 16]))
        one = rng.integers(0, int(rng.choice([40, 400, 1 << 20])), size=bt).astype(np.uint64) * np.uint64(size)
        addr = np.tile(one, ctas) if trial % 2 else \
            rng.integers(0, 4096, size=bt * ctas).astype(np.uint64) * np.uint64(size)
        n = len(addr)
        m, st = SimpleNamespace(block_threads=bt), SimpleNamespace(wid=np.arange(n) // 32)
        assert bank_conflicts(m, st, slice(0, n), addr, size) == bank_conflicts(m, st, np.arange(n), addr, size)
