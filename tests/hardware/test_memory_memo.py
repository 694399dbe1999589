"""analyze_accesses keeps the PCs, their spaces and request counts and the requests per space for
the columns every GPU of one emulation shares (issue 39): a second GPU's call (other capacities,
other wave order) must give what a fresh computation gives, and new columns must not hit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pipeperf.hardware.accesses import Accesses
from pipeperf.hardware.memory import analyze_accesses
from pipeperf.util import memo


def _accesses(seed: int) -> Accesses:
    rng = np.random.default_rng(seed)
    n = 400
    lanes = rng.integers(1, 33, n)
    addr = np.concatenate([rng.integers(0, 1 << 16, k) * 4 for k in lanes]).astype(np.uint64)
    return Accesses.from_arrays(rng.integers(0, 9, n), rng.integers(0, 16, n), np.arange(n), rng.integers(0, 2, n),
                                np.full(n, 4), lanes, addr, rng.integers(0, 2, n))


def test_second_gpu_equals_a_fresh_computation():
    acc = _accesses(1)
    memo._MEMO.clear()
    first = analyze_accesses(acc, 500.0, 2, 64.0)
    other = replace(acc, step=acc.step + (acc.warp // 8) * 1000)      # the next GPU's wave order
    second = analyze_accesses(other, 50.0, 2, 16.0)
    assert any(k[0] == "pc_spaces" for k in memo._MEMO)
    memo._MEMO.clear()
    assert second == analyze_accesses(other, 50.0, 2, 16.0) and first == analyze_accesses(acc, 500.0, 2, 64.0)
    # new columns (another emulation, here the spaces flipped) are computed anew, not taken from the memo
    flipped = replace(acc, space=(1 - acc.space).astype(np.int8))
    got = analyze_accesses(flipped, 500.0, 2, 64.0)
    assert {pc: st.space for pc, st in got.items()} != {pc: st.space for pc, st in first.items()}
    memo._MEMO.clear()
    assert got == analyze_accesses(flipped, 500.0, 2, 64.0)
