"""TraceLog: columnar per-warp traces read as a mapping, entries built on access."""


import numpy as np
import pytest

from pipeperf.emulate import load_module, run_kernel
from pipeperf.emulate.tracelog import TraceLog, trace_lengths

T = {"function": "k", "pc": 0, "opcode": "add.f32", "category": "fp32", "dsts": ("%f1",), "srcs": (),
     "active": 0, "addresses": None}


def entry(pc, fn="k"):
    return dict(T, pc=pc, function=fn)


def test_mapping_in_execution_order_with_masks_and_addresses():
    log = TraceLog()
    log.add(entry(0), np.array([0, 1]), np.array([0xF, 0x3]))
    b = log.add(entry(1), np.array([1]), np.array([0x1]))
    a = np.arange(4, dtype=np.uint64)
    log.attach_addresses(b, np.array([1]), a, np.array([0]), np.array([4]))
    log.add(entry(7, "callee"), np.array([0]), np.array([0xF]))
    log.add(entry(2), np.array([0, 1]), np.array([0xF, 0xF]))
    assert list(log) == [0, 1] and len(log) == 2 and 1 in log and 5 not in log
    assert [e["pc"] for e in log[0]] == [0, 7, 2] and [e["pc"] for e in log[1]] == [0, 1, 2]
    assert [e["active"] for e in log[1]] == [0x3, 0x1, 0xF]
    assert log[1][1]["addresses"].tolist() == [0, 1, 2, 3] and log[0][0]["addresses"] is None
    assert log.length(0) == 3 and log.length(0, "k") == 2
    sig = log.pc_signature("k")
    assert sig[0][1] == 2 and sig[1][1] == 3 and sig[0][0] != sig[1][0]
    assert log.pc_signature("k", max_nodes=1)[0][0] == log.pc_signature("k", max_nodes=1)[1][0]
    assert trace_lengths(log) == {0: 3, 1: 3} == trace_lengths({0: [1, 2, 3], 1: [1, 2, 3]})
    with pytest.raises(KeyError):
        log[9]


def test_head_builds_only_the_prefix_asked_for():
    """``head(w, n, function)`` is the first n entries of ``log[w]`` (of that function), whatever
    was built before: the IDG builder asks for the cut, then half of it, then all of it."""
    log = TraceLog()
    pcs = [0, 7, 1, 2, 7, 3, 4]
    for pc in pcs:
        log.add(entry(pc, "callee" if pc == 7 else "k"), np.array([0, 1]), np.array([0x1, 0x3]))
    own = [e for e in TraceLog.__getitem__(log, 0) if e["function"] == "k"]
    log._cache.clear()
    assert [e["pc"] for e in log.head(0, 2, "k")] == [0, 1] and len(log._cache[0]) == 3   # rows of every function
    assert [e["pc"] for e in log.head(0, 1, "k")] == [0]
    assert log.head(0, 4, "k") == own[:4] and len(log._cache[0]) == 6
    assert log.head(0, None, "k") == own and log.head(0, 100, "k") == own
    assert [e["pc"] for e in log.head(1, 3)] == pcs[:3] and log.head(1, 0) == []
    assert log[1] == log.head(1, None) and [e["active"] for e in log[1]] == [0x3] * len(pcs)


def test_emulator_traces_group_by_pc_signature():
    # divergent: warps whose threads take different branches have different pc sequences
    m = load_module("tests/kernels/divergent.cu")
    x = np.linspace(-1, 1, 1000).astype(np.float32)
    p = run_kernel(m, grid=4, block=256, args=[x, np.zeros(1000, np.float32), 1000], trace_warps=32)
    assert isinstance(p.traces, TraceLog) and len(p.traces) == 32
    sig = p.traces.pc_signature(m.kernels[0].name)
    for w in p.traces:
        pcs = [e["pc"] for e in p.traces[w]]
        assert np.frombuffer(sig[w][0], np.int32).tolist() == pcs and sig[w][1] == len(pcs)


def _random_log(rng, ids):
    log = TraceLog()
    for i in range(200):
        w = np.sort(rng.choice(ids, size=int(rng.integers(1, len(ids) + 1)), replace=False))
        log.add(entry(i % 7), w, np.full(len(w), 0xF))
    return log


@pytest.mark.parametrize("ids", [np.arange(40), np.array([3, 70_000, 1 << 20, 65_535, 65_536, 9])])
def test_index_is_each_warps_entries_in_execution_order(ids):
    """The index (a radix sort where the warp ids fit 16 bits, else a stable sort of the ids) lists
    each warp's entries in the order they were added, as the reference by comparison does."""
    rng = np.random.default_rng(7)
    log = _random_log(rng, ids)
    block, row, spans = log._build_index()
    for w in ids.tolist():
        want = [(b, r) for b, ws in enumerate(log._warps) for r, x in enumerate(ws.tolist()) if x == w]
        s, e = spans.get(w, (0, 0))
        assert list(zip(block[s:e].tolist(), row[s:e].tolist())) == want
    assert sorted(spans) == sorted({int(x) for ws in log._warps for x in ws})


def test_pc_signature_is_kept_until_the_log_changes():
    log = _random_log(np.random.default_rng(3), np.arange(8))
    first = log.pc_signature("k", 50)
    first[0] = (b"", 0)                          # the caller's copy: the kept one is not touched
    again = log.pc_signature("k", 50)
    assert again[0] != (b"", 0) and again == log._pc_signature("k", 50)
    log.add(entry(3), np.array([0]), np.array([0xF]))
    assert log.pc_signature("k", 50)[0][1] == again[0][1] + 1     # recomputed: warp 0 has one more


def _old_index(log: TraceLog):
    """The index as built before the radix sort and int32 columns (np.unique of a merge sort)."""
    n = len(log._warps)
    lens = np.fromiter((len(w) for w in log._warps), np.int64, n)
    warp = np.concatenate(log._warps)
    block = np.repeat(np.arange(n, dtype=np.int64), lens)
    row = np.arange(len(warp), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    order = np.argsort(warp, kind="stable")
    warp, block, row = warp[order], block[order], row[order]
    ids, starts, counts = np.unique(warp, return_index=True, return_counts=True)
    return block, row, {int(w): (int(s), int(s + c)) for w, s, c in zip(ids, starts, counts)}


@pytest.mark.parametrize("spread", [40, 1 << 16, 1 << 40])
def test_index_equals_the_merge_sort_one(spread):
    """Radix-sorted 16-bit keys where the warp ids span < 2**16, the int64 sort otherwise: the
    same entries warp after warp as the stable sort of the ids."""
    rng = np.random.default_rng(spread % 1000)
    log = TraceLog()
    ids = np.unique(rng.integers(0, spread, 300)) + 5
    for _ in range(2000):
        w = np.sort(rng.choice(ids, rng.integers(1, min(33, len(ids))), replace=False)).astype(np.int64)
        log.add(entry(int(rng.integers(0, 9))), w, np.full(len(w), 0xF))
    block, row, spans = log._build_index()
    ob, orow, ospans = _old_index(log)
    assert spans == ospans and block.tolist() == ob.tolist() and row.tolist() == orow.tolist()
    assert list(log) == sorted(ospans) and {w: log.length(w) for w in log} == {w: e - s for w, (s, e) in ospans.items()}


@pytest.mark.parametrize("same_object", [True, False])
def test_index_of_one_group_is_the_sorted_one(same_object):
    """Every block executed by the same warps (one array object, or equal copies after a barrier
    made a new group): the tiled index equals the sorted one; one block by other warps, or ids out
    of order, falls back to the sort."""
    ids = np.array([2, 5, 9, 40, 41], np.int64)
    log = TraceLog()
    for i in range(60):
        log.add(entry(i % 5), ids if same_object else ids.copy(), np.full(len(ids), 0xF))
    assert log._one_group()
    block, row, spans = log._build_index()
    ob, orow, ospans = _old_index(log)
    assert spans == ospans and block.tolist() == ob.tolist() and row.tolist() == orow.tolist()
    log.add(entry(1), ids[:3], np.full(3, 0xF))
    assert not log._one_group()
    block, row, spans = log._build_index()
    ob, orow, ospans = _old_index(log)
    assert spans == ospans and block.tolist() == ob.tolist() and row.tolist() == orow.tolist()
    other = TraceLog()
    other.add(entry(0), ids[::-1].copy(), np.full(len(ids), 0xF))
    assert not other._one_group()
