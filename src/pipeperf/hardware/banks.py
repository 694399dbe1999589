"""Shared memory's banks and the L1's data and tag stages: the wavefronts (cycles) each traced
request needs there. A shared-memory request's bank-conflict degree D = wavefronts - 1 (the most
distinct 4-byte words any of the 32 banks must deliver; a broadcast of one word is free; 8/16-byte
accesses touch 2/4 words per lane), never below its return bandwidth; a global load that hits in
L1 pays the larger of its data stage and its tag stage."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from pipeperf.hardware import request_scan
from pipeperf.hardware.accesses import KINDS, Accesses, request_units


def _banks_and_lines(acc: Accesses, reqs: np.ndarray, floor: np.ndarray | None = None
                     ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per block of ``reqs``: (requests, bank wavefronts, distinct 128-byte lines), from one pass
    over each request's sorted 4-byte words (a line holds 32 of them); ``floor``: the requests'
    :func:`return_wavefronts`, where the caller has them."""
    atom = acc.kind == KINDS.index("atomic") if acc.kind is not None else np.zeros(len(acc), bool)
    if floor is None:
        floor = return_wavefronts(acc, reqs)
    if not atom[reqs].any():
        if request_scan.AVAILABLE:                 # one C pass (the same counts)
            waves, lines = request_scan.banks_and_lines(acc, reqs)
            yield reqs, np.maximum(waves, floor[reqs]), lines
            return
        yield from _marked_banks_and_lines(acc, reqs, floor)
        return
    for r, words, distinct in request_units(acc, reqs, 2):
        row = np.broadcast_to(np.arange(len(r))[:, None], words.shape)
        # an atomic's lanes on one word serialise (each is a read-modify-write), others broadcast
        dist = distinct | atom[r][:, None]
        key = row[dist] * 32 + (words[dist] & np.uint64(31)).astype(np.int64)
        waves = np.bincount(key, minlength=len(r) * 32).reshape(len(r), 32).max(axis=1)
        waves = np.maximum(waves, floor[r])
        line = words >> np.uint64(5)                           # sorted rows: count the changes
        lines = 1 + (line[:, 1:] != line[:, :-1]).sum(axis=1)
        yield r, waves, lines


def _marked_banks_and_lines(acc: Accesses, reqs: np.ndarray,
                            floor: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`_banks_and_lines` of requests without atomics, by marking each request's words in a
    bitmap of the lines it spans instead of sorting them (the same counts: a bank's distinct words
    are its marked ones, a request's lines those with a mark); requests spanning many lines are
    sorted as before."""
    for r, words, _ in request_units(acc, reqs, 2, sort=False):
        lo = words.min(1) & ~np.uint64(31)
        rel = (words - lo[:, None]).view(np.int64)         # bank = rel mod 32, line = rel // 32
        first, inv = distinct_rows(rel)
        waves, lines = _rows_banks_and_lines(rel[first])
        yield r, np.maximum(waves[inv], floor[r]), lines[inv]


def _rows_banks_and_lines(rel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bank wavefronts, distinct lines) per row of word offsets from a multiple of 32 words
    (``rel``, overwritten): rows spanning few lines marked in a bitmap, the others sorted."""
    span = rel.max(1)
    near = span < max(64, 16 * rel.shape[1])               # a bitmap at most 16x the words
    if near.all():                                         # (the common case: no copies)
        return _marked(rel, int(span.max()))
    waves, lines = np.empty(len(rel), np.int64), np.empty(len(rel), np.int64)
    if near.any():
        waves[near], lines[near] = _marked(rel[near], int(span[near].max()))
    waves[~near], lines[~near] = _sorted(rel[~near].view(np.uint64))
    return waves, lines


#: odd 64-bit multipliers of the row hash of :func:`distinct_rows` (fixed: the result must not vary)
_ROW_HASH = np.random.default_rng(0x39).integers(1, 1 << 62, 4096, dtype=np.int64) | 1


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, inverse) of the distinct rows of an int64 matrix: ``rows[first][inverse]`` equals
    ``rows``. Why: a tiled kernel's traced shared requests repeat a few patterns (the same lane
    offsets in every CTA, iteration and warp: ~500 k requests, ~1.5 k distinct rows), and a row's
    wavefronts and lines depend on its offsets alone. Rows are grouped by a hash and the grouping
    checked element by element; should two different rows share a hash, every row is its own."""
    n, w = rows.shape
    if n < 2 or w > len(_ROW_HASH):
        return np.arange(n), np.arange(n)
    h = rows @ _ROW_HASH[:w]                               # (wraps around: a hash)
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    if not (rows[first][inv] == rows).all():
        return np.arange(n), np.arange(n)
    return first, inv


def _marked(rel: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of word offsets from a multiple of 32 words (``span`` the largest; ``rel`` is overwritten):
    the most distinct words on one bank and the distinct lines, from a bitmap."""
    n, width = len(rel), -(-(span + 1) // 32) * 32
    marks = np.zeros(n * width, np.uint8)
    rel += (np.arange(n, dtype=np.int64) * width)[:, None]        # (the caller's array: in place)
    marks[rel.reshape(-1)] = 1
    m = marks.reshape(n, width // 32, 32)
    return m.sum(1, dtype=np.int32).max(1), m.any(2).sum(1)


def _sorted(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_marked` of rows of absolute words, by sorting each row."""
    words = np.sort(words, axis=1)
    n = len(words)
    distinct = np.ones(words.shape, bool)
    distinct[:, 1:] = words[:, 1:] != words[:, :-1]
    row = np.broadcast_to(np.arange(n)[:, None], words.shape)
    key = row[distinct] * 32 + (words[distinct] & np.uint64(31)).astype(np.int64)
    line = words >> np.uint64(5)
    return np.bincount(key, minlength=n * 32).reshape(n, 32).max(axis=1), 1 + (line[:, 1:] != line[:, :-1]).sum(axis=1)


def return_wavefronts(acc: Accesses, reqs: np.ndarray) -> np.ndarray:
    """Per request (indexed like ``acc``): the cycles the L1/shared memory needs to return its data,
    whatever the banks: 128 bytes, one register per lane of a warp, per cycle, so a 64-bit load
    takes 2 and a 128-bit load 4; half that where every pair of neighbouring lanes (lane n and
    n^1, or n and n^2) reads the same address, whose registers are returned packed. NVIDIA
    developer forum, 'Unexpected shared memory bank conflict' (77228, answer 2, on compute
    capability 7.0-7.5): "The return bandwidth of L1 and shared memory is 128 bytes/cycle == 1
    register/cycle. The uniform access can achieve 2x the performance by packing the return
    registers. ... LDS.128 requires 4 requests per instruction as it returns 4 registers. If the
    guidelines are met the requests/instruction should reduce from 4 to 2." The pair rule is
    checked on full warps (the traced addresses are the active lanes', in lane order)."""
    out = np.ones(len(acc), np.int64)
    regs = np.maximum(1, acc.nbytes // 4)
    wide = reqs[regs[reqs] > 1]
    if not len(wide):
        return out
    lanes = np.diff(acc.lane_start)
    full = wide[lanes[wide] == 32]
    out[wide] = regs[wide]
    for c in range(0, len(full), _BLOCK):                 # in blocks: a full row is 32 addresses
        f = full[c:c + _BLOCK]
        a = acc.addr[acc.lane_start[f][:, None] + np.arange(32)[None, :]]
        pairs = (a[:, 0::2] == a[:, 1::2]).all(axis=1)
        quads = (a.reshape(-1, 8, 2, 2)[:, :, 0, :] == a.reshape(-1, 8, 2, 2)[:, :, 1, :]).all(axis=(1, 2))
        packed = pairs | quads
        out[f[packed]] = np.maximum(1, regs[f[packed]] // 2)
    return out


_BLOCK = 1 << 15


def bank_wavefronts(acc: Accesses, reqs: np.ndarray, floor: np.ndarray | None = None) -> np.ndarray:
    """Per request (indexed like ``acc``; 0 outside ``reqs``): the most distinct 4-byte words any
    of the 32 banks must deliver, lanes on one word broadcasting and an atomic's lanes on one word
    serialising. The wavefronts of a shared-memory request (CUDA C++ Programming Guide, 'Shared
    Memory': 32 banks of 4 bytes), and of the L1's data stage for a global load that hits: on
    Ampere and Hopper, te42kyfo/gpu-benches gpu-strides (a40.txt, a100.txt, h200.txt; commit
    0a45416) measures l1tex__data_pipe_lsu_wavefronts per warp load of floats at a stride of s
    floats as gcd(s, 32): 1, 2, 4, 8, 16, 32 for s = 1, 2, 4, 8, 16, 32, 1 for every odd s.
    Never below the data return's ``floor`` (:func:`return_wavefronts`; computed if not given)."""
    out = np.zeros(len(acc), np.int64)
    for r, waves, _ in _banks_and_lines(acc, reqs, floor):
        out[r] = waves
    return out


def block_shared_counts(addr: np.ndarray, lanes: np.ndarray, nbytes: int,
                        out: tuple[np.ndarray, np.ndarray] | None = None,
                        firsts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(bank wavefronts, return wavefronts) per request of one block of non-atomic shared requests
    of ``nbytes`` bytes per lane (``lanes`` per request, their addresses ``addr`` request after
    request): :func:`bank_wavefronts` and :func:`return_wavefronts` of those requests alone, into
    ``out`` where given (and each request's first lane address into ``firsts``). Why: a request's counts depend on its own lanes only, so mapper g counts
    them where the emulator's memory log holds each access's lanes, and the lanes need not be copied
    into one column (a tiled GEMM's traced shared lanes are ~95 % of its traced addresses)."""
    n = len(lanes)
    waves, returns = out if out is not None else (np.empty(n, np.int64), np.empty(n, np.int64))
    if request_scan.AVAILABLE and nbytes <= 4:      # (one register per lane: no return floor above 1)
        request_scan.block_waves(addr, lanes, nbytes, waves, firsts)
        returns[:] = 1
        return waves, returns
    reqs = np.arange(n, dtype=np.int64)
    start = np.zeros(n + 1, np.int64)
    np.cumsum(lanes, out=start[1:])
    if firsts is not None:
        firsts[:] = np.asarray(addr, np.uint64)[start[:-1]]
    acc = Accesses(reqs, reqs, reqs, np.ones(n, np.int8), np.full(n, nbytes, np.int64), start,
                   np.asarray(addr, np.uint64))
    returns[:] = return_wavefronts(acc, reqs)
    waves[:] = bank_wavefronts(acc, reqs, returns)
    return waves, returns


#: cache lines the L1's tag stage looks up per cycle after a request's first: te42kyfo/gpu-benches
#: gpu-strides (a40.txt, a100.txt, h200.txt; commit 0a45416) measures
#: l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld per warp load of floats spread over
#: 1, 2, 4, 8, 16, 32 lines (strides 1, 2, 4, 8, 16, 31 floats) as 1.00, 1.22-1.24, 1.84-1.89,
#: 2.72-2.83, 4.67, 8.5: one cycle, then about a quarter cycle per further line
L1_TAG_LINES_PER_CYCLE = 4


def l1_load_wavefronts(acc: Accesses, reqs: np.ndarray) -> np.ndarray:
    """Per global load request (indexed like ``acc``; 0 outside ``reqs``): its cycles in the L1
    when it hits, the larger of the data stage's bank wavefronts (:func:`bank_wavefronts`) and the
    tag stage's 1 + (lines - 1) / L1_TAG_LINES_PER_CYCLE for the 128-byte lines it touches.
    gpu-strides' cycles per warp load are that maximum: a stride of 32 floats (32 lines, one
    bank) takes 32 cycles, of 31 floats (32 lines, 32 banks) 8.5; 128 contiguous bytes one."""
    out = np.zeros(len(acc), np.float64)
    for r, waves, lines in _banks_and_lines(acc, reqs):
        out[r] = np.maximum(waves, 1.0 + (lines - 1) / L1_TAG_LINES_PER_CYCLE)
    return out


def fragment_wavefronts(size: int, frag: str, element: int, row_bytes: int | None) -> tuple[int, int]:
    """(shared-memory wavefronts, bank-conflict degree) of one warp's wmma.load/store of a fragment
    of ``size`` bytes whose matrix rows lie ``row_bytes`` apart (ldm x the element size).

    The banks deliver 128 B per cycle (CUDA C++ Programming Guide, "Shared Memory": 32 banks of
    4 bytes), so a conflict-free 16x16 f16 fragment (512 B) takes 4 and an f32 accumulator
    (1 KiB) 8. An A or B fragment of 8- or 16-bit elements is read as 8x8 matrices of 16-byte rows
    (PTX ISA, ``ldmatrix``: each 8x8 matrix's eight row addresses are one phase; ptxas compiles
    these loads to LDSM for sm_75 and later), and eight rows ``row_bytes`` apart fall on
    gcd(row_bytes / 16, 8) times the same four banks: a 32-element f16 row (64 B) makes every
    phase 4-way conflicted, a 128-element one (256 B) 8-way, a padded 40-element one (80 B) none.
    Accumulators (and 32-bit elements) keep the conflict-free count: their loads are per-lane
    LDS/STS whose pattern the fragment's layout does not fix."""
    waves = max(1, -(-size // BANK_BYTES_PER_CYCLE))
    degree = row_conflict_degree(frag, element, row_bytes)
    return waves * degree, degree


def row_conflict_degree(frag: str, element: int, row_bytes: int | None) -> int:
    """The bank-conflict degree of a fragment's 16-byte rows ``row_bytes`` apart
    (:func:`fragment_wavefronts`): gcd(row_bytes / 16, 8) for an A/B fragment of 8/16-bit elements,
    else 1."""
    if frag not in ("a", "b") or element not in (1, 2) or not row_bytes or row_bytes % 16:
        return 1
    return math.gcd(row_bytes // 16, 8)


#: bytes the 32 shared-memory banks deliver per cycle (CUDA C++ Programming Guide, "Shared Memory":
#: 32 banks of 4 bytes, one access per bank per clock)
BANK_BYTES_PER_CYCLE = 128
