"""CTAs whose footprints overlap by shifts (a convolution's halo rows): strides from the traced
CTAs' lowest addresses and the share of a CTA's sectors its predecessors left in L2."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.analysis.cta_overlap import fit_strides, overlap_reuse
from pipeperf.hardware.accesses import Accesses

W = 1024            # floats per image row (4 KiB)


def _stencil_rows(ctas, grid, halo, rows_per_cta=1, masked=()):
    """One warp per CTA; CTA (x, y) loads rows y*rows .. y*rows + rows + 2*halo - 1, 32 floats
    from column 32*x, one request per row, at a single PC (a staging loop)."""
    rows = []
    for c in ctas:
        x, y = c % grid[0], c // grid[0]
        for r in range(rows_per_cta + 2 * halo):
            lanes = 16 if c in masked else 32
            base = ((y * rows_per_cta + r) * W + 32 * x) * 4
            rows.append((7, c, r, "global", 4, [base + 4 * t for t in range(lanes)]))
    acc = Accesses.from_rows(rows)
    acc.kind = np.zeros(len(acc), np.int8)          # loads
    return acc


def test_fit_strides_exact_and_tolerant_of_a_masked_edge():
    grid = (8, 64, 1)
    ctas = np.array([0, 1, 2, 9, 10, 200, 201, 300, 301, 511])
    low = np.array([(c // 8 * W + 32 * (c % 8)) * 4 for c in ctas])
    assert fit_strides(ctas, low, grid) == (128, 4 * W, 0)
    low[-1] += 4                                    # one edge CTA masked differently
    assert fit_strides(ctas, low, grid) == (128, 4 * W, 0)
    assert fit_strides(ctas[ctas < 8], low[ctas < 8], grid) is None   # y never varies: unknown


def test_halo_rows_of_the_block_above_hit():
    grid, halo = (4, 256, 1), 2                      # each CTA 1 + 4 rows; 4 of 5 reused from above
    ctas = np.array([0, 1, 2, 3, 40, 41, 42, 43, 500, 501, 900, 901, 1020, 1021, 1022, 1023])
    acc = _stencil_rows(ctas, grid, halo)
    got = overlap_reuse(acc, [7], grid, 1, float("inf"))
    # the first grid rows have fewer rows above them; 32 CTAs spread over the launch
    assert got[7] == pytest.approx(4 / 5, abs=0.05)


def test_no_overlap_and_small_l2():
    grid = (4, 256, 1)
    ctas = np.array([0, 1, 2, 3, 40, 41, 500, 501, 1022, 1023])
    acc = _stencil_rows(ctas, grid, 0)               # one row per CTA: disjoint footprints
    assert overlap_reuse(acc, [7], grid, 1, float("inf")).get(7, 0.0) == 0.0
    acc = _stencil_rows(ctas, grid, 2)
    far = overlap_reuse(acc, [7], grid, 1, 0.5)      # the L2 holds half a CTA's data: little survives
    near = overlap_reuse(acc, [7], grid, 1, 1000.0)
    assert far[7] < 0.1 < near[7]


def test_same_addresses_everywhere_left_to_the_keys():
    grid = (16, 1, 1)
    rows = [(3, c, 0, "global", 4, [4 * t for t in range(32)]) for c in range(16)]
    acc = Accesses.from_rows(rows)
    acc.kind = np.zeros(len(acc), np.int8)
    assert overlap_reuse(acc, [3], grid, 1, float("inf")) == {}


def test_a_halo_sector_is_a_miss_once_in_stream_order():
    """1D 3-point stencil of doubles, one warp per CTA: x[i-1], x[i], x[i+1] at steps 0, 1, 2. The
    left halo sector was loaded by the previous CTA at the same step (a hit); the CTA's own first
    sector is that CTA's right halo, loaded two steps later (no hit: counted there instead)."""
    grid = (64, 1, 1)
    rows = []
    for c in range(0, 64, 3):
        for step, off in enumerate((-1, 0, 1)):
            rows.append((10 + step, c, step, "global", 8, [4096 + (32 * c + off + t) * 8 for t in range(32)]))
    acc = Accesses.from_rows(rows)
    acc.kind = np.zeros(len(acc), np.int8)
    got = overlap_reuse(acc, [10, 11, 12], grid, 1, float("inf"))
    assert got[10] == pytest.approx(1 / 9, abs=0.01)          # the left halo sector only
    assert got[12] == pytest.approx(3 / 9, abs=0.02)          # 8b (left CTA, same step), 8b+7, 8b+8 (next CTA, earlier)


def test_every_shift_at_once_equals_one_by_one():
    """The shifts' survivals are applied in blocks of arrays (``_best_survival``): the same maximum
    per sector as taking the shifts one at a time, for each kind of earlier CTA."""
    from pipeperf.analysis.cta_overlap import _best_survival

    rng = np.random.default_rng(3)
    never = np.iinfo(np.int64).max
    n_sec = 50
    rows = [np.where(rng.random(n_sec) < 0.3, never, rng.integers(0, 20, n_sec)) for _ in range(40)]
    ks = rng.integers(0, 3, 40).tolist()
    hs = rng.random(40).round(3).tolist()
    per_pc = {7: (rng.integers(0, n_sec, 30), rng.integers(0, 20, 30)), 9: (np.arange(n_sec), np.full(n_sec, 10))}
    got = {p: np.zeros(len(idx)) for p, (idx, _) in per_pc.items()}
    _best_survival(got, per_pc, rows, ks, hs, never)
    for p, (idx, t) in per_pc.items():
        want = np.zeros(len(idx))
        for tj, k, h in zip(rows, ks, hs):
            their = tj[idx]
            before = their != never if k == 0 else (their <= t if k == 1 else their < t)
            want = np.maximum(want, np.where(before, h, 0.0))
        assert np.array_equal(got[p], want) and want.max() > 0


def test_the_shifts_of_every_evaluated_cta_at_once_equal_one_cta_at_a_time():
    """``_shifts`` finds every evaluated CTA's candidate shifts in one pass: the same (shift, kind,
    distance) lists, in the same order, as the CTA-by-CTA search (a 2D grid, waves, a window)."""
    from pipeperf.analysis.cta_overlap import MAX_SHIFTS, _coords, _shifts

    grid, c = (12, 9, 1), np.array([256, 3 * 1024, 0], np.int64)
    n_ctas, window, wave, span = 108, 40, 30, 8192
    evals = np.unique(np.linspace(0, n_ctas - 1, 32).round().astype(np.int64))
    got = _shifts(evals, grid, c, n_ctas=n_ctas, window=window, wave=wave, span=span)
    for e, i in enumerate(evals.tolist()):
        start = (i // wave) * wave
        j = np.arange(max(0, i - window), min(n_ctas, start + wave, i + window + 1), dtype=np.int64)
        j = j[j != i]
        d = (_coords(j, grid) - _coords(np.array([i]), grid)) @ c
        near = (np.abs(d) < span) & (d != 0)
        d, j = d[near], j[near]
        kind = np.where(j < start, 0, np.where(j < i, 1, 2))
        dist = np.abs(i - j)
        o = np.lexsort((dist, kind, d))
        keep = np.ones(len(o), bool)
        keep[1:] = (d[o][1:] != d[o][:-1]) | (kind[o][1:] != kind[o][:-1])
        d, kind, dist = d[o][keep], kind[o][keep], dist[o][keep]
        o = np.argsort(dist, kind="stable")[:MAX_SHIFTS]
        assert got[e] == list(zip(d[o].tolist(), kind[o].tolist(), dist[o].tolist())), i
    assert sum(map(len, got)) > 100 and {k for row in got for _, k, _ in row} == {0, 1, 2}
