"""Mapper g's per-request scans in C (hardware/request_scan.py, _requests.c) against the NumPy
paths they replace: the same distinct sectors, bank wavefronts and lines, and the same whole
per-PC statistics, on random requests (narrow and wide spans, every access width, short rows)."""

import numpy as np
import pytest

from pipeperf.hardware import banks, memory, request_scan
from pipeperf.hardware.accesses import Accesses
from pipeperf.hardware.memory import analyze_accesses

pytestmark = pytest.mark.skipif(not request_scan.AVAILABLE, reason="the _requests extension is not built")


def random_accesses(seed: int, n: int = 3000, kinds: bool = False, base_bits: int = 30) -> Accesses:
    rng = np.random.default_rng(seed)
    lanes = rng.integers(1, 33, n)
    lanes[rng.random(n) < 0.5] = 32
    nbytes = rng.choice([1, 2, 4, 8, 16, 32, 64], n)
    base = rng.integers(0, 1 << base_bits, n) * 4
    stride = rng.choice([0, 1, 4, 8, 16, 64, 128, 132, 4096, 1 << 20], n)
    pattern = rng.random(n)
    addr = []
    for b, s, k, nb, p in zip(base, stride, lanes, nbytes, pattern):
        lane = np.arange(k)
        if p < 0.2:                              # scattered lanes
            a = b + rng.integers(0, 1 << 16, k) * nb
        elif p < 0.3:                            # lanes in reverse and with repeats
            a = b + (lane[::-1] // 2) * s * nb
        else:
            a = b + lane * s * nb
        addr.append((a // nb) * nb if p < 0.9 else a)          # a tenth misaligned
    space = rng.integers(0, 2, n)
    kind = rng.integers(0, 2, n) if kinds else None              # loads and stores, no atomics
    return Accesses.from_arrays(rng.integers(0, 12, n), rng.integers(0, 64, n), np.arange(n), space, nbytes,
                                lanes, np.concatenate(addr).astype(np.uint64), kind)


@pytest.fixture
def numpy_path(monkeypatch):
    def run(f, *args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(request_scan, "AVAILABLE", False)
            return f(*args, **kwargs)
    return run


@pytest.mark.parametrize("seed", range(4))
def test_distinct_sectors_equal_numpy(seed, numpy_path):
    acc = random_accesses(seed)
    reqs = np.flatnonzero(acc.space == 0)
    fast = memory._global_sectors(acc, reqs)
    slow = numpy_path(memory._global_sectors, acc, reqs)
    assert fast[0].dtype == slow[0].dtype and fast[1].dtype == slow[1].dtype
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_array_equal(fast[1], slow[1])


@pytest.mark.parametrize("shift", [0, 2, 5, 7])
def test_distinct_units_against_sets(shift):
    acc = random_accesses(7, n=400)
    reqs = np.arange(len(acc))[::-1].copy()                    # any order of requests
    req, units = request_scan.distinct_units(acc, reqs, shift)
    at = 0
    for r in reqs:
        a = acc.addr[acc.lane_start[r]:acc.lane_start[r + 1]].astype(object)
        want = sorted({u for x in a for u in range(x >> shift, ((x + int(acc.nbytes[r]) - 1) >> shift) + 1)})
        got = units[at:at + len(want)].tolist()
        assert got == want and (req[at:at + len(want)] == r).all()
        at += len(want)
    assert at == len(units)


@pytest.mark.parametrize("seed", range(4))
def test_bank_wavefronts_and_l1_equal_numpy(seed, numpy_path):
    acc = random_accesses(seed + 10)
    reqs = np.arange(len(acc))
    np.testing.assert_array_equal(banks.bank_wavefronts(acc, reqs), numpy_path(banks.bank_wavefronts, acc, reqs))
    np.testing.assert_array_equal(banks.l1_load_wavefronts(acc, reqs),
                                  numpy_path(banks.l1_load_wavefronts, acc, reqs))


def test_more_requests_than_a_numpy_block(numpy_path):
    acc = random_accesses(3, n=(1 << 14) * 2 + 5)
    reqs = np.flatnonzero(acc.space == 0)
    fast, slow = memory._global_sectors(acc, reqs), numpy_path(memory._global_sectors, acc, reqs)
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_array_equal(fast[1], slow[1])


@pytest.mark.parametrize("seed", range(3))
def test_whole_statistics_equal_numpy(seed, numpy_path):
    acc = random_accesses(seed + 20, kinds=True)
    kw = dict(l2_capacity_sectors=500.0, warps_per_cta=4, l1_capacity_sectors=50.0, l2_launch_sectors=100.0)
    fast = analyze_accesses(acc, **kw)
    acc2 = random_accesses(seed + 20, kinds=True)            # fresh arrays: no memo shared with the fast run
    slow = numpy_path(analyze_accesses, acc2, **kw)
    assert {pc: st.to_dict() | vars(st) for pc, st in fast.items()} == \
        {pc: st.to_dict() | vars(st) for pc, st in slow.items()}


def test_bad_inputs_raise():
    acc = random_accesses(1, n=10)
    with pytest.raises(IndexError):
        request_scan.distinct_units(acc, np.array([10]), 5)
    with pytest.raises(IndexError):
        request_scan.banks_and_lines(acc, np.array([-1]))


@pytest.mark.parametrize("seed", range(6))
def test_warp_sectors_equal_numpy(seed):
    """The emulator's per-access count (memops.count_access): C and NumPy agree on sorted and
    shuffled lanes, sector-crossing lanes, one warp or many, huge warp ids."""
    from pipeperf.emulate.memops import _warp_sector_count

    rng = np.random.default_rng(seed)
    for n in (1, 2, 31, 32, 256, 1000):
        nbytes = int(rng.choice([1, 2, 4, 8, 16]))
        w = np.sort(rng.integers(0, [1, 8, 1 << 30][seed % 3] + 1, n)).astype(np.int64)
        a = (rng.integers(0, 1 << 36, n) if seed % 2 else 4096 + np.arange(n) * rng.integers(1, 200)).astype(np.uint64)
        if seed >= 3:
            rng.shuffle(a)
        assert request_scan.warp_sectors(w, a, nbytes) == _warp_sector_count(w, a, nbytes)
    assert request_scan.warp_sectors(np.zeros(0, np.int64), np.zeros(0, np.uint64), 4) == 0


@pytest.mark.parametrize("limit", [10**9, 5000, 777])
@pytest.mark.parametrize("base_bits", [12, 30])
def test_sampled_sectors_equal_the_whole_stream(limit, base_bits, numpy_path):
    """The fused C pass (sampled_units: the hash sample and the distinct count without the whole
    stream) gives the whole stream's (request, sector) sample, per-PC sectors, R and counts; a wide
    range of sectors (base_bits 30) takes the whole-stream path in both."""
    acc = random_accesses(base_bits + limit % 97, n=4000, base_bits=base_bits)
    reqs = np.flatnonzero(acc.space == 0)
    fast = memory._sampled_sectors(acc, reqs, 12, limit)
    slow = numpy_path(memory._sampled_sectors, acc, reqs, 12, limit)
    assert fast[3:] == slow[3:] and (limit > 10**6 or fast[3] > 1)
    for f, s_ in zip(fast[:3], slow[:3]):
        assert f.dtype == s_.dtype
        np.testing.assert_array_equal(f, s_)
    narrow = request_scan.sampled_units(acc, reqs, 5, limit, memory.DENSE_SPAN)
    assert (narrow is None) == (base_bits == 30)


def test_sampled_units_of_no_requests():
    acc = random_accesses(0, n=10)
    req, units, counts, rate, total, distinct = request_scan.sampled_units(acc, np.zeros(0, np.int64), 5, 100, 1 << 26)
    assert len(req) == len(units) == len(counts) == total == distinct == 0 and rate == 1


@pytest.mark.parametrize("seed", range(6))
def test_row_bank_conflicts_equal_numpy(seed, numpy_path):
    """memops.row_conflicts and the whole-warp rows of a k-word access (bank_conflicts' lanes
    widened by k words): C against the NumPy marks and sorts (narrow, strided and scattered rows)."""
    from pipeperf.emulate.memops import row_conflicts

    rng = np.random.default_rng(seed)
    rows, width = int(rng.integers(1, 40)), int(rng.choice([1, 8, 32, 256]))
    base = rng.integers(0, 1 << 20, (rows, 1))
    pattern = [np.arange(width) * int(rng.choice([1, 2, 8, 32, 33])),
               rng.integers(0, 64, width), rng.integers(0, 1 << 18, width)][seed % 3]
    W = (base + pattern[None, :]).astype(np.uint64)
    assert row_conflicts(W) == numpy_path(row_conflicts, W)
    for k in (2, 3, 4):
        wide = np.concatenate([W + np.uint64(j) for j in range(k)], axis=1)
        assert request_scan.row_bank_conflicts(W, k) == numpy_path(row_conflicts, wide)


@pytest.mark.parametrize("nbytes", [1, 4, 8, 16])
def test_block_waves_equal_banks_and_lines(nbytes):
    """One block's wavefronts with the table of repeated rows: those of banks_and_lines, request by
    request (the block repeated, so half its rows are found in the table); bad shapes are refused."""
    acc = random_accesses(40 + nbytes, n=500)
    lanes = np.diff(acc.lane_start)
    lanes2 = np.concatenate((lanes, lanes))
    addr2 = np.concatenate((acc.addr, acc.addr))
    want, _ = request_scan.scan_banks(addr2, np.concatenate(([0], np.cumsum(lanes2))),
                                      np.full(len(lanes2), nbytes, np.int64), np.arange(len(lanes2)))
    got = np.full(len(lanes2), -1, np.int64)
    request_scan.block_waves(addr2, lanes2, nbytes, got)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        request_scan.block_waves(addr2[:-1], lanes2, nbytes, got)


def test_counted_blocks_fill_the_columns_as_block_waves():
    """Many blocks in one call: each block's warps, steps, one lane (its first address), wavefronts
    and a return floor of 1 land at its offsets, as block_waves gives them; a block that does not
    fit the columns is refused."""
    rng = np.random.default_rng(5)
    blocks, want_w, want_f, r, a = [], [], [], 0, 0
    for k in range(6):
        acc = random_accesses(60 + k, n=50)
        lanes = np.diff(acc.lane_start)
        nb = int(rng.choice([1, 2, 4]))
        w = np.empty(len(lanes), np.int64)
        f = np.empty(len(lanes), np.uint64)
        request_scan.block_waves(acc.addr, lanes, nb, w, f)
        blocks.append((np.arange(len(lanes), dtype=np.int64) + 100 * k, np.full(len(lanes), k, np.int64), lanes,
                       acc.addr, nb, r, a))
        want_w.append(w)
        want_f.append(f)
        r, a = r + len(lanes), a + len(lanes)
    cols = [np.full(r, -1, np.int64) for _ in range(3)] + [np.zeros(a, np.uint64)] + \
        [np.full(r, -1, np.int64) for _ in range(2)]
    request_scan.counted_blocks(blocks, *cols)
    warp, step, lanes, addr, waves, returns = cols
    np.testing.assert_array_equal(waves, np.concatenate(want_w))
    np.testing.assert_array_equal(addr, np.concatenate(want_f))
    np.testing.assert_array_equal(warp, np.concatenate([b[0] for b in blocks]))
    np.testing.assert_array_equal(step, np.concatenate([b[1] for b in blocks]))
    assert (lanes == 1).all() and (returns == 1).all()
    with pytest.raises(ValueError):
        request_scan.counted_blocks([blocks[0][:5] + (r, 0)], *cols)
