"""Static auto-tuner (Sec. V-D): derivation of variants, hand-computed optimum, speed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from pipeperf.sw26010.derive import Variant, derive_group, derive_spec
from pipeperf.sw26010.model import predict
from pipeperf.sw26010.space import load_space, parse_space
from pipeperf.sw26010.transactions import Geometry
from pipeperf.sw26010.tuner import tune
from pipeperf.util.yamlio import loads_lines


def test_stream_space_finds_the_hand_computed_optimum(examples):
    """tune_stream.yaml: 65536 doubles in, 65536 out, 64 floating instructions per element.

    With 64 CPEs and tile t (elements), each CPE does 1024 elements in 1024/t steps, each with
    one copy-in and one copy-out of 8t bytes, MRT = ceil(8t/256), L_mem_bw = 64 x MRT x 11.6.
      t <= 32: MRT = 1, T_DMA = (2048/t) x 742.4 cycles (64 B and 128 B requests waste bandwidth)
      t >= 32: T_DMA = 47513.6 cycles whatever t.
    Non-overlapped DMA = T_DMA (1 - (1 - 1/NG)(1 - 1/#reqs)) (Eq. 8), NG from Eqs. 9-11:
      t=32: NG 4, 64 reqs -> 0.2617;  t=64: NG 6, 32 reqs -> 0.1927;  t=128: NG 10, 16 reqs
      -> 0.15625;  t=256: NG 11, 8 reqs -> 0.2045;  t=512: NG 13 -> 0.3077.
    So t = 128 (1 KB, MRT 4) exposes least DMA. Unroll u: ILP = min(8, u) and 2 overhead
    instructions per unrolled iteration: T_comp = 1024 x (9 x 64 + 2/u) / 8 for u >= 8, smallest at
    u = 16: 73744 cycles. 32 CPEs double T_comp. Double buffering adds one group's copy-in,
    23756.8 / 10 = 2375.68 cycles (Eq. 14). Best: t=128, u=16, 64 CPEs, double buffered:
      T_total = 73744 + 47513.6 - 0.84375 x 47513.6 - 2375.68 = 78792.32 cycles.
    """
    result = tune(load_space(examples / "tune_stream.yaml"), progress=False)
    assert result.variants_total == 160 and result.variants_feasible == 160
    best = result.top(1)[0]
    assert best["tiles"] == {"i": 128}
    assert (best["unroll"], best["active_cpes"], best["double_buffer"]) == (16, 64, True)
    i = int(result.order[0])
    assert result.terms.t_total[i] == pytest.approx(78792.32)
    assert result.terms.ng_dma[i] == 10 and result.terms.n_reqs_dma[i] == 16
    # The runner-up differs only by unroll 8: same DMA, T_comp 1024 x (576 + 2/8) / 8 = 73760.
    second = result.top(2)[1]
    assert (second["tiles"], second["unroll"]) == ({"i": 128}, 8)
    j = int(result.order[1])
    assert result.terms.t_comp[j] == pytest.approx(73760)


def test_vectorised_tuner_equals_scalar_model_on_derived_descriptions(examples):
    space = load_space(examples / "tune_stream.yaml")
    result = tune(space, progress=False)
    for i in range(result.variants_feasible):
        p = predict(derive_spec(space, result.variant(i)))
        assert p.terms["t_total"] == pytest.approx(result.terms.t_total[i], rel=1e-12)


def test_vectorised_tuner_equals_scalar_model_on_matmul_sample(examples):
    space = load_space(examples / "tune_matmul.yaml")
    result = tune(space, progress=False)
    rng = np.random.default_rng(0)
    picks = np.concatenate([result.order[:5], rng.choice(result.variants_feasible, 40, replace=False)])
    for i in picks:
        p = predict(derive_spec(space, result.variant(int(i))))
        assert p.terms["t_total"] == pytest.approx(result.terms.t_total[i], rel=1e-12)
        assert p.terms["ng_dma"] == result.terms.ng_dma[i]


def test_search_over_10k_variants_is_fast(examples):
    space = load_space(examples / "tune_matmul.yaml")
    assert space.size >= 10_000
    start = time.perf_counter()
    result = tune(space, jobs=1, progress=False)
    elapsed = time.perf_counter() - start
    assert result.variants_total == space.size
    assert elapsed < 10.0
    # Duplicates (more CPEs requested than row chunks) and SPM overflows are set aside.
    assert result.variants_duplicate > 0
    assert 0 < result.variants_feasible < space.size - result.variants_duplicate
    ranked = result.terms.t_total[result.order]
    assert np.all(np.diff(ranked) >= 0)


def test_worker_processes_give_the_same_ranking(examples):
    space = load_space(examples / "tune_stream.yaml")
    serial = tune(space, jobs=1, progress=False)
    parallel = tune(space, jobs=2, progress=False)
    assert parallel.jobs == 2
    assert np.array_equal(serial.order, parallel.order)
    assert np.allclose(serial.terms.t_total, parallel.terms.t_total)


_SPACE = """
kernel: s
loops:
  - {name: i, trip: 100}
  - {name: j, trip: 1000}
arrays:
  - {name: A, direction: in, dims: [i, j]}
  - {name: B, direction: out, dims: [i, j], halo: [0, 2]}
  - {name: T, direction: gload, bytes: 8, loads: 2}
compute: {floating: 3, ilp: 1}
search:
  tile: {i: [3], j: [48]}
  active_cpes: [8]
"""


def test_region_geometry_partial_tiles_and_busiest_cpe():
    space = parse_space(loads_lines(_SPACE, strict=True), "s.yaml")
    g = derive_group(space, (3, 48), 8)
    # 100 rows in chunks of 3 -> 34 chunks (the last has 1 row) over 8 CPEs: CPE 0 gets chunks
    # 0, 8, 16, 24, 32 -> 5 chunks of 3 rows; it does not own chunk 33.
    # j: 1000 in tiles of 48 -> 20 full tiles and one of 40.
    assert g.active_cpes == 8
    assert sum(s.count for s in g.steps) == 5 * 21
    assert g.iterations == 5 * 3 * 1000
    assert g.inner == {48: 5 * 3 * 20, 40: 5 * 3}
    # A region of a full tile: 3 rows of 48 doubles, rows 8000 B apart; j-tiles start at
    # 384-byte multiples, so starts cycle through residues 0 and 128 of a 256 B transaction.
    full = [s for s in g.steps if s.extents[1] == 48]
    geoms = {s.copy_in[0][1] for s in full}
    blocks = {(geo.block, geo.levels) for geo in geoms}
    assert blocks == {(384, ((8000, 3),))}
    assert {geo.offset % 256 for geo in geoms} <= set(range(0, 256, 8))
    # B has a halo of 2 columns: 50 doubles per row, row pitch 1002 doubles.
    assert {(s.copy_out[0][1].block, s.copy_out[0][1].levels) for s in full} == {(400, ((8016, 3),))}
    # The derived description counts every chunk's true transactions.
    spec = derive_spec(space, Variant((3, 48), 1, 8, False))
    assert sum(r.count for r in spec.dma) == 2 * 5 * 21
    assert spec.gload[0].count == 2 * 15000


def test_more_cpes_than_chunks_activate_only_chunks():
    space = parse_space(loads_lines(_SPACE.replace("active_cpes: [8]", "active_cpes: [8, 34, 64]"), strict=True), "s.yaml")
    result = tune(space, progress=False)
    assert result.variants_total == 3 and result.variants_duplicate == 1
    assert sorted(result.active_cpes.tolist()) == [8, 34]


def test_variants_overflowing_spm_are_discarded():
    text = _SPACE.replace("tile: {i: [3], j: [48]}", "tile: {i: [3, 10], j: [48, 1000]}") \
        .replace("active_cpes: [8]", "active_cpes: [8]\n  double_buffer: [false, true]")
    result = tune(parse_space(loads_lines(text, strict=True), "s.yaml"), progress=False)
    # i=10, j=1000: 10 x 1000 x 8 + 10 x 1002 x 8 = 160 KB > 64 KB; i=3, j=1000 fits once (48 KB)
    # but not double buffered.
    feasible = {(tuple(t), bool(d)) for t, d in zip(result.tiles.tolist(), result.double_buffer)}
    assert ((10, 1000), False) not in feasible and ((3, 1000), True) not in feasible
    assert ((3, 1000), False) in feasible and ((10, 48), True) in feasible
    assert result.variants_feasible == 5


def test_geometry_of_whole_array_is_one_block():
    space = parse_space(loads_lines(_SPACE.replace("tile: {i: [3], j: [48]}", "tile: {i: [100], j: [1000]}"), strict=True),
                        "s.yaml")
    g = derive_group(space, (100, 1000), 8)
    assert g.active_cpes == 1
    assert g.steps[0].copy_in[0][1] == Geometry(800000, (), 0)
