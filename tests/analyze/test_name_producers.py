"""``stalls.name_producers`` names a pc's producer kind once, from its first node: the same
dependency reasons, in the same order, and the same column per node as naming every node."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeperf.analysis import stalls

CU = Path(__file__).resolve().parents[2] / "examples" / "tune" / "matmul_tiled.cu"


def _per_node(prep, func) -> tuple[list[str], np.ndarray]:
    """The definition: one kind per node, memoised by pc."""
    from pipeperf.simulate.simulator import producer_kind

    pcs = np.concatenate([g.pcs for g in prep.kernel.idgs])
    memo: dict[int, str] = {}
    kinds = []
    for pc, name, sub in zip(pcs.tolist(), prep.class_names, prep.sub.tolist()):
        if pc not in memo:
            op = func.instructions[pc].op
            space = op.space if op.space not in (None, "generic") else "generic"
            memo[pc] = (f"{space} load" if op.root in ("ld", "ldu", "cp") else f"{space} atomic"
                        if op.root in ("atom", "red") else "warp shuffle/vote"
                        if op.root in ("shfl", "vote", "match", "redux") else
                        producer_kind(str(name), prep.subsystems[sub]))
        kinds.append(memo[pc])
    prep.name_producers(kinds)
    return list(prep.dep_reasons), prep.dep_col.copy()


def test_producers_named_per_pc_equal_per_node(monkeypatch):
    from pipeperf.analysis import analyze

    seen = []
    fast = stalls.name_producers

    def both(prep, func):
        want = _per_node(prep, func)
        fast(prep, func)
        assert list(prep.dep_reasons) == want[0]
        np.testing.assert_array_equal(prep.dep_col, want[1])
        seen.append(len(prep.dep_col))

    monkeypatch.setattr(stalls, "name_producers", both)
    analyze(CU, [8, 8], [8, 2], ["A=rand:f32:4096", "B=rand:f32:4096", "C=zeros:f32:4096", "n=64", "pitch=9"],
            ["ampere_a100"], kernel="matmul_tiled", shared=2 * 8 * 9 * 4, arch="sm_80", nvcc_flags=["-DTILE=8"],
            what_if=False)
    assert seen and seen[0] > 100
