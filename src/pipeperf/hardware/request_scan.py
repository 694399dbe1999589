"""Mapper g's per-request scans in C (``_requests.c``, built by setup.py): the distinct units
(sectors) of each request and the bank wavefronts and lines of shared/L1 requests; and the
emulator's per-access count of distinct (warp, sector) pairs and of bank conflicts of whole-warp rows.

Why: the NumPy paths (:func:`pipeperf.hardware.accesses.request_units` and the bitmaps of
:mod:`pipeperf.hardware.memory` and :mod:`pipeperf.hardware.banks`) make ~10 passes over every
lane address in fixed-width blocks; the C pass reads each request once (a persistent GEMM's
mapper g scans ~1.7 M traced requests of 32 lanes; the emulator counts every global access's
sectors in ~10 NumPy calls on a few hundred lanes, ~30 us of call overhead each time). The results are the same integers
(tests/hardware/test_request_scan.py). Where the extension was not built, :data:`AVAILABLE` is
False and the callers keep their NumPy paths.
"""

from __future__ import annotations

import numpy as np

from pipeperf.hardware.accesses import Accesses

try:                                    # setup.py builds it; else the callers' NumPy paths
    from pipeperf.hardware import _requests  # type: ignore[attr-defined]  # the C extension: no stub
except ImportError:
    _requests = None

AVAILABLE = _requests is not None

#: the distinct (warp, sector) pairs of one global access, ``(warps int64, addr uint64, nbytes) -> int``
#: (C-contiguous, one item per lane each), for the emulator's counters
#: (:func:`pipeperf.emulate.memops.count_access`); None where the extension is not built
warp_sectors = _requests.warp_sectors if _requests is not None else None

def _columns(acc: Accesses) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.ascontiguousarray(acc.addr, np.uint64), np.ascontiguousarray(acc.lane_start, np.int64),
            np.ascontiguousarray(acc.nbytes, np.int64))


def distinct_units(acc: Accesses, reqs: np.ndarray, unit_shift: int) -> tuple[np.ndarray, np.ndarray]:
    """(request, unit) of every distinct 2**unit_shift-byte unit each request of ``reqs`` touches,
    request by request in the order of ``reqs``, each one's units ascending (the units a lane at
    address a of n bytes touches: a >> shift .. (a + n - 1) >> shift)."""
    assert _requests is not None
    addr, start, nbytes = _columns(acc)
    reqs = np.ascontiguousarray(reqs, np.int64)
    counts = np.empty(len(reqs), np.int64)
    total, _, _ = _requests.distinct_units(addr, start, nbytes, reqs, unit_shift, counts, None)
    units = np.empty(total, np.uint64)              # allocated once, at its size
    _requests.distinct_units(addr, start, nbytes, reqs, unit_shift, counts, units)
    return np.repeat(reqs, counts), units


def sampled_units(acc: Accesses, reqs: np.ndarray, unit_shift: int, limit: int, table_span: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int, int] | None:
    """:func:`distinct_units` as the cache model samples it, without the whole stream: (request,
    unit) of the units :func:`~pipeperf.hardware.cache_model.sector_sample` keeps (1 in R by a hash
    of the unit, R = ceil(units / ``limit``); all of them for R = 1), in the same order; the distinct
    units of each request; R; the units; the distinct units of the stream. None where the units
    span more than max(``table_span``, 4 x units) values (the caller then takes the whole stream)."""
    assert _requests is not None
    addr, start, nbytes = _columns(acc)
    reqs = np.ascontiguousarray(reqs, np.int64)
    counts = np.empty(len(reqs), np.int64)
    total, lo, hi = _requests.distinct_units(addr, start, nbytes, reqs, unit_shift, counts, None)
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64), counts, 1, 0, 0
    span = hi - lo + 1
    if span > max(table_span, 4 * total):
        return None
    rate = max(1, -(-total // limit))
    table = np.zeros(span, np.uint8)
    req, units = np.empty(total, np.int64), np.empty(total, np.uint64)   # (pages past the kept ones untouched)
    kept = _requests.sample_units(addr, start, nbytes, reqs, unit_shift, counts, rate, lo, table, req, units)
    n_distinct = int(np.count_nonzero(table))
    del table
    if kept < total:
        req, units = req[:kept].copy(), units[:kept].copy()
    return req, units, counts, rate, total, n_distinct


def banks_and_lines(acc: Accesses, reqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per request of ``reqs``: the most distinct 4-byte words on one of the 32 banks (word mod 32;
    lanes on one word broadcast) and the distinct 128-byte lines it touches."""
    addr, start, nbytes = _columns(acc)
    return scan_banks(addr, start, nbytes, np.ascontiguousarray(reqs, np.int64))


def scan_banks(addr: np.ndarray, start: np.ndarray, nbytes: np.ndarray, reqs: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`banks_and_lines` of the columns themselves (C-contiguous uint64 addresses, int64
    lane starts, bytes per lane and requests): no Accesses built for one memory-log block."""
    assert _requests is not None
    waves, lines = np.empty(len(reqs), np.int64), np.empty(len(reqs), np.int64)
    _requests.banks_and_lines(addr, start, nbytes, reqs, waves, lines)
    return waves, lines


def block_waves(addr: np.ndarray, lanes: np.ndarray, nbytes: int, out: np.ndarray,
                firsts: np.ndarray | None = None) -> None:
    """:func:`banks_and_lines`' wavefronts of one block of requests of ``nbytes`` bytes per lane
    (``lanes`` per request, ``addr`` their addresses request after request) written to ``out``,
    and each request's first lane address to ``firsts`` where given; a request whose lanes repeat
    an earlier one's in the block takes its count (a table in C)."""
    assert _requests is not None
    _requests.block_waves(np.ascontiguousarray(addr, np.uint64), np.ascontiguousarray(lanes, np.int64), nbytes,
                          out, firsts)


def counted_blocks(blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int, int]],
                   warp: np.ndarray, step: np.ndarray, lanes: np.ndarray, addr: np.ndarray, waves: np.ndarray,
                   returns: np.ndarray) -> None:
    """:func:`block_waves` of many memory-log blocks of shared requests of at most 4 bytes per lane
    in one call, written into mapper g's columns: per block (warps, steps, lanes per request, lane
    addresses, bytes per lane, request offset, lane offset), its requests' warps, steps, one lane
    (the first lane's address at the lane offset), wavefronts and a return floor of 1."""
    assert _requests is not None
    _requests.counted_blocks(blocks, warp, step, lanes, addr, waves, returns)


def row_bank_conflicts(words: np.ndarray, k: int = 1) -> int:
    """Bank conflicts of requests given as rows of 4-byte word addresses (2-D; each word standing
    for itself and the k - 1 words after it, a k x 4-byte lane access): per row the most distinct
    words on one bank, minus one, summed (:func:`pipeperf.emulate.memops.row_conflicts`, in C)."""
    assert _requests is not None
    rows, width = words.shape
    addr = np.ascontiguousarray(words, np.uint64).reshape(-1) << np.uint64(2)
    start = np.arange(0, rows * width + 1, width, dtype=np.int64) if width else np.zeros(rows + 1, np.int64)
    waves, lines = np.empty(rows, np.int64), np.empty(rows, np.int64)
    _requests.banks_and_lines(addr, start, np.full(rows, 4 * k, np.int64), np.arange(rows, dtype=np.int64),
                              waves, lines)
    return int(waves.sum()) - rows
