"""Mapper g (hardware/memory.py, accesses.py, banks.py, memory_classes.py): coalescing, bank
conflicts, the L2 cache model and the R rule, on hand-made address patterns whose answers are computed by hand."""

import numpy as np
import pytest

from pipeperf.hardware.accesses import Accesses, PcMemory, REF_SECTORS
from pipeperf.hardware.banks import l1_load_wavefronts
from pipeperf.hardware.cache_model import l2_hits
from pipeperf.hardware.memory import analyze_accesses, l2_capacity_sectors, per_pc_sample
from pipeperf.hardware.memory_classes import global_class, map_memory, shared_class
from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import InstrClass, load_gpu

WARP = 32


def req(pc, space, addrs, nbytes=4, warp=0, step=None):
    return (pc, warp, pc if step is None else step, space, nbytes, list(addrs))


def stats(*rows, capacity=float("inf")):
    return analyze_accesses(Accesses.from_rows(list(rows)), capacity)


@pytest.mark.parametrize("addrs, nbytes, sectors", [
    (range(0, 128, 4), 4, 4),                 # 32 consecutive words: 128 B = 4 sectors
    (range(16, 144, 4), 4, 5),                # misaligned by 16 B: one more sector
    (range(0, 32 * 128, 128), 4, 32),         # stride 128 B: one sector per lane
    ([0] * WARP, 4, 1),                       # every lane the same word
    (range(0, 256, 8), 8, 8),                 # 64-bit loads: 256 B
    (range(0, 512, 16), 16, 16),              # float4 loads: 512 B
    (range(28, 28 + 32 * 32, 32), 8, 33),     # 8 B straddling sectors i and i+1: sectors 0..32
])
def test_sectors_per_request(addrs, nbytes, sectors):
    st = stats(req(0, "global", addrs, nbytes))[0]
    assert st.requests == 1 and st.sectors_per_request == sectors


@pytest.mark.parametrize("addrs, nbytes, degree", [
    (range(0, 128, 4), 4, 0),                 # one word per bank
    ([0] * WARP, 4, 0),                       # broadcast of one word
    (range(0, 32 * 128, 128), 4, 31),         # stride 32 words: all lanes in bank 0
    (range(0, 32 * 132, 132), 4, 0),          # padded stride 33 words: all banks once
    (range(0, 32 * 8, 8), 4, 1),              # stride 2 words: 2 words per even bank
    (range(0, 256, 8), 8, 1),                 # 64-bit: 64 words over 32 banks
    (range(0, 512, 16), 16, 3),               # 128-bit: 128 words over 32 banks
])
def test_bank_conflict_degree(addrs, nbytes, degree):
    st = stats(req(0, "shared", addrs, nbytes))[0]
    assert st.conflict_degree == degree


@pytest.mark.parametrize("addrs, nbytes, waves, conflict", [
    (range(0, 512, 16), 16, 4, 0),            # float4, contiguous: 4 return cycles, no conflict
    ([0] * WARP, 16, 2, 0),                   # float4 broadcast (a tile row read by the warp): 2 return cycles
    (range(0, 32 * 256, 256), 16, 32, 28),    # float4 at stride 64 words: 32 on 4 banks
    (range(0, 32 * 8, 8), 4, 2, 1),           # stride 2 words: a real 2-way conflict
])
def test_a_wide_loads_return_cycles_are_not_bank_conflicts(addrs, nbytes, waves, conflict):
    """What a request costs (conflict_degree: wavefronts - 1) counts the return of 64/128-bit
    loads; what padding can remove (bank_conflict_degree, the row's and the advice's
    conflict_degree, the 'no bank conflicts' what-if) does not: a register-tiled GEMM's broadcast
    LDS.128 was told to pad its rows, 2-way."""
    from pipeperf.hardware.memory_classes import ideal_stats

    st = stats(req(0, "shared", addrs, nbytes))[0]
    assert st.wavefronts == waves and st.bank_conflict_degree == conflict
    assert st.to_dict()["conflict_degree"] == conflict and st.to_dict()["wavefronts_per_request"] == waves
    ideal = ideal_stats({0: st}, "no bank conflicts")
    if conflict:
        assert ideal[0].wavefronts == waves - conflict
    else:
        assert ideal is None


@pytest.mark.parametrize("stride, cycles", [
    (1, 1.0),            # 128 contiguous bytes: one line, one word per bank
    (0, 1.0),            # every lane the same word: a broadcast
    (2, 2.0),            # 2 words per even bank; 2 lines (tag stage 1.25)
    (8, 8.0),            # gpu-strides: data wavefronts gcd(8, 32) = 8 beat 8 lines' 2.75
    (9, 3.0),            # 9 lines (1 + 8/4 = 3), every bank once: gpu-strides 3.03 (a100.txt)
    (31, 8.5),           # 31 lines (124 B apart), 32 banks: the tag stage, gpu-strides 8.5
    (32, 32.0),          # 32 lines, all in bank 0: gpu-strides 32.0
    (4096, 32.0),        # a row of a 4096-float matrix per lane (naive SGEMM's A): as stride 32
])
def test_l1_cycles_of_a_warp_load_are_bank_wavefronts_or_tag_lookups(stride, cycles):
    """te42kyfo/gpu-benches gpu-strides: a warp load of floats at a stride of s floats that hits
    the L1 takes max(gcd(s, 32) bank wavefronts, 1 + (lines - 1) / 4 tag lookups) cycles."""
    acc = Accesses.from_rows([req(0, "global", [4 * stride * t for t in range(WARP)])])
    assert l1_load_wavefronts(acc, np.arange(1))[0] == pytest.approx(cycles)


def test_per_pc_sample_keeps_evenly_spaced_requests_and_says_what_each_stands_for():
    pcs = np.array([3] * 10 + [1] * 5 + [3] * 10)
    keep, per = per_pc_sample(pcs, 4, n_pcs=6)
    assert keep.tolist() == [0, 5, 10, 12, 13, 14, 15, 20]          # PC 3: every 5th of 20; PC 1: 4 of 5
    assert per.tolist() == [0.0, 1.25, 0.0, 5.0, 0.0, 0.0]
    keep, per = per_pc_sample(pcs, 100)                              # under the cap: everything
    assert keep.tolist() == list(range(25)) and per[1] == per[3] == 1.0


def test_an_l1_hit_costs_its_wavefronts_not_its_sectors():
    """32 sectors per request, all L1 hits: lambda = 32 wavefronts x the L1's 1 cycle when the
    lanes share a bank (stride 32 floats), 8.75 when they spread over the banks (stride 31)."""
    l1 = InstrClass("ld_l1", "lsu", 1.0, 30.0)
    for w, lam in ((32.0, 32.0), (8.75, 8.75)):
        st = PcMemory(0, "global", requests=1, sectors=32, l2_hits=32, l1_hits=32, l1_wavefronts=w)
        c = global_class(DRAM, st, L2, "x", l1=l1)
        assert c.subsystem == "lsu" and c.cpi == pytest.approx(lam)
        assert c.latency == pytest.approx(30.0 + (w - 1.0) * 1.0)
        assert c.after_fill == pytest.approx(lam)      # behind an in-flight fill: its L1 cycles


def test_a_half_hit_request_whose_l1_cycles_dominate_sits_on_the_l1_pipe():
    """The first of a strided GEMV's loads per 32-byte sector (rows 8 KB apart, 32 lines, one
    bank): half its sectors L1 hits at 32 wavefronts, half L2 hits. Its 16 L1 cycles outweigh
    the L2 share (8 x 0.5 x 2 = 8), so it occupies the L1 pipeline ("lsu") beside the requests
    that hit, not the far pipe where those cycles would overlap them; the cost is unchanged.
    A coalesced request with the same hit rates (1 wavefront: 0.5 L1 cycles against 1 x 0.5 x
    2 = 1 far cycle) stays on the far pipe."""
    l1 = InstrClass("ld_l1", "lsu", 1.0, 30.0)
    st = PcMemory(0, "global", requests=1, sectors=32, l2_hits=32, l1_hits=16, l1_wavefronts=32.0)
    c = global_class(DRAM, st, L2, "x", l1=l1)
    assert c.cpi == pytest.approx(8 * 0.5 * 2.0 + 0.5 * 32.0)
    assert c.subsystem == "lsu"
    assert c.after_fill == pytest.approx(16.0)
    coalesced = PcMemory(0, "global", requests=8, sectors=32, l2_hits=32, l1_hits=16, l1_wavefronts=8.0)
    c = global_class(DRAM, coalesced, L2, "x", l1=l1)
    assert c.cpi == pytest.approx(0.5 * 2.0 + 0.5 * 1.0) and c.subsystem == "mem"
    # from DRAM instead of L2, the far share (8 x 0.5 x 8 = 32) outweighs the 16 L1 cycles
    dram = PcMemory(0, "global", requests=1, sectors=32, l2_hits=16, l1_hits=16, l1_wavefronts=32.0)
    assert global_class(DRAM, dram, L2, "x", l1=l1).subsystem == "mem"


def test_partial_warps_and_means_over_requests():
    # a 16-lane request and a full one at the same PC: (2 + 4) / 2 sectors
    st = stats(req(3, "global", range(0, 64, 4), step=0), req(3, "global", range(0, 128, 4), warp=1, step=0))[3]
    assert st.requests == 2 and st.sectors == 6 and st.sectors_per_request == 3.0
    # D averaged: a conflict-free and a 31-way request -> 15.5
    st = stats(req(5, "shared", range(0, 128, 4), step=0), req(5, "shared", range(0, 32 * 128, 128), warp=1, step=0))[5]
    assert st.conflict_degree == 15.5


def test_l2_access_distance():
    # sector stream a b a c a, capacity 1 access back: only the repeats 2 apart... none hit
    order = np.arange(5)
    s = np.array([1, 2, 1, 3, 1], np.uint64)
    assert l2_hits(order, s, 1).tolist() == [False] * 5
    assert l2_hits(order, s, 2).tolist() == [False, False, True, False, True]
    # the order key, not the array order, decides
    assert l2_hits(np.array([4, 3, 2, 1, 0]), s, 2).tolist() == [True, False, True, False, False]


def test_l2_hits_across_warps_in_analyze_accesses():
    # warp 0 then warp 1 read the same 128 B: the second read hits (unbounded cache)
    st = stats(req(0, "global", range(0, 128, 4), warp=0, step=0), req(0, "global", range(0, 128, 4), warp=1, step=1))[0]
    assert st.sectors == 8 and st.l2_hits == 4 and st.hit_rate == 0.5
    # a cache of 2 sectors forgets them between the two reads (4 accesses apart)
    st = stats(req(0, "global", range(0, 128, 4), warp=0, step=0), req(0, "global", range(0, 128, 4), warp=1, step=1),
               capacity=2)[0]
    assert st.l2_hits == 0


DRAM = InstrClass("ld_global_s32", "mem", 8.0, 400.0)
L2 = InstrClass("ld_global_l2", "mem", 2.0, 200.0)


def pc_global(sectors_per_req, hit_rate, requests=10):
    sec = int(round(sectors_per_req * requests))
    return PcMemory(0, "global", requests, sec, int(round(hit_rate * sec)))


def test_r_rule_coalesced_from_dram_keeps_the_table_values():
    c = global_class(DRAM, pc_global(REF_SECTORS, 0.0), L2, "x")
    assert (c.cpi, c.latency, c.subsystem) == (8.0, 400.0, "mem")


def test_r_rule_partial_hits_blend_l2_and_dram():
    # Sec. 6.3, R < 1: m = 1, p = R = 0.25 DRAM: lambda = .25*8 + .75*2, Lambda = .25*400 + .75*200
    c = global_class(DRAM, pc_global(REF_SECTORS, 0.75), L2, "x")
    assert c.cpi == pytest.approx(3.5) and c.latency == pytest.approx(250.0)


def test_r_rule_uncoalesced_multiplies_bandwidth_and_waits_for_the_last_sector():
    # R = 8: 32 sectors per request from DRAM: lambda = 8 * 8, Lambda = 400 + 7 * 8
    c = global_class(DRAM, pc_global(32, 0.0), L2, "x")
    assert c.cpi == pytest.approx(64.0) and c.latency == pytest.approx(456.0)
    # half a request's sectors (a 16-lane warp): half the bandwidth, same latency
    c = global_class(DRAM, pc_global(2, 0.0), L2, "x")
    assert c.cpi == pytest.approx(4.0) and c.latency == 400.0


def test_r_rule_without_an_l2_class_charges_hits_as_dram():
    c = global_class(DRAM, pc_global(REF_SECTORS, 0.9), None, "x")
    assert (c.cpi, c.latency) == (8.0, 400.0) and "no L2 class" in c.source


def test_shared_rule():
    base = InstrClass("ld_shared_f32", "lsu", 2.0, 30.0)
    c = shared_class(base, PcMemory(0, "shared", 4, wavefronts=4 * 32), "y")     # D = 31
    assert c.cpi == pytest.approx(64.0) and c.latency == pytest.approx(30.0 + 31 * 2.0)


def test_map_memory_names_classes_and_notes_missing_l2():
    st = {7: pc_global(REF_SECTORS, 0.5), 9: PcMemory(9, "shared", 2, wavefronts=4)}
    pascal = load_gpu("pascal_gtx1060")                 # a seed GPU: no L2 timings in the papers
    mm = map_memory(st, {7: "ld_global_s32", 9: "ld_shared_f32"}, pascal, {7: "L12", 9: "L13"})
    assert set(mm.classes) == {7, 9} and mm.classes[7].name == "ld_global_s32@L12"
    assert mm.classes[9].cpi == pytest.approx(2 * pascal.classes["ld_shared_f32"].cpi)    # D = 1
    assert any("ld_global_l2" in n for n in mm.notes)
    v100 = load_gpu("volta_v100")
    mm = map_memory(st, {7: "ld_global_s32", 9: "ld_shared_f32"}, v100)
    assert not mm.notes and mm.classes[7].cpi < v100.classes["ld_global_s32"].cpi   # L2 hits are cheaper


def test_l2_capacity_scales_with_the_traced_share():
    v100 = load_gpu("volta_v100")
    full = v100.memory["l2_bytes"] / 32
    assert l2_capacity_sectors(v100, 64, 64) == full
    assert l2_capacity_sectors(v100, 16, 64) == full / 4
    assert l2_capacity_sectors(load_gpu("pascal_gtx1060"), 16, 64) == float("inf")


def test_accesses_need_a_lane_per_request():
    with pytest.raises(ValueError, match="at least one lane"):
        Accesses.from_arrays([0], [0], [0], [0], [4], [0], [])


def test_intra_cta_hits_count_only_a_ctas_own_earlier_sectors():
    # warps 0, 1 (CTA 0, 2 warps per CTA) and warp 2 (CTA 1) read the same 128 B in turn
    rows = [req(0, "global", range(0, 128, 4), warp=w, step=w) for w in (0, 1, 2)]
    st = analyze_accesses(Accesses.from_rows(rows), float("inf"), warps_per_cta=2)[0]
    assert st.sectors == 12 and st.l2_hits == 8 and st.intra_hits == 4      # CTA 1's read is not intra
    assert analyze_accesses(Accesses.from_rows(rows), float("inf"))[0].intra_hits == 0   # not asked for


def test_ideal_stats_fix_only_what_is_broken():
    from pipeperf.hardware.memory_classes import ideal_stats

    rows = [req(0, "shared", range(0, 32 * 128, 128)),            # D = 31
            req(1, "global", range(0, 32 * 128, 128), step=1),     # 32 sectors where 4 would do
            req(2, "global", range(0, 128, 4), step=2)]            # coalesced already
    st = analyze_accesses(Accesses.from_rows(rows), float("inf"))
    assert st[1].min_sectors == 4 and st[2].min_sectors == 4
    ideal = ideal_stats(st, "no bank conflicts")
    assert ideal[0].conflict_degree == 0 and ideal[1] == st[1]
    ideal = ideal_stats(st, "coalesced global accesses")
    assert ideal[1].sectors_per_request == 4 and ideal[2] == st[2] and ideal[0] == st[0]
    fine = {2: st[2]}
    assert ideal_stats(fine, "no bank conflicts") is None and ideal_stats(fine, "coalesced global accesses") is None
    with pytest.raises(PipeperfError, match="unknown what-if"):
        ideal_stats(st, "faster please")


def test_a_hit_on_the_same_warps_earlier_load_names_that_load_as_its_fill():
    """Warp 0 loads the r of 32 16-B structs (pc 0: 16 sectors from DRAM), then their g (pc 1: the
    same sectors, L1 hits on the fill pc 0 is bringing); warp 1 of the same CTA then loads the
    same b words (pc 2): hits too, but on warp 0's sectors, which its IDG cannot wait for."""
    from pipeperf.hardware.accesses import KINDS

    base = np.arange(WARP) * 16
    addrs = [base, base + 4, base + 8]
    acc = Accesses.from_arrays([0, 1, 2], [0, 0, 1], [0, 1, 2], [0, 0, 0], [4, 4, 4], [WARP] * 3,
                               np.concatenate(addrs), [KINDS.index("load")] * 3)
    st = analyze_accesses(acc, float("inf"), warps_per_cta=2, l1_capacity_sectors=1024)
    assert [st[pc].l1_hits for pc in (0, 1, 2)] == [0, 16, 16]
    assert [st[pc].fill_pc for pc in (0, 1, 2)] == [-1, 0, -1]
    assert "fill_pc" in st[1].to_dict() and "fill_pc" not in st[2].to_dict()


def test_wide_loads_take_a_cycle_per_register_unless_lane_pairs_share_addresses():
    """The L1/shared return path moves one register per lane per cycle (NVIDIA forum 77228): a warp's
    LDS.128 of 32 distinct 16-byte chunks takes 4 cycles, and still 4 where 8 chunks repeat across
    the warp (lane % 8: neighbours differ), but 2 where lane pairs share an address (lane // 8) or
    all lanes do; 64-bit loads 2 or 1; 32-bit loads keep their bank count (1 for a broadcast)."""
    from pipeperf.hardware.accesses import Accesses
    from pipeperf.hardware.banks import bank_wavefronts

    lane = np.arange(32)
    rows = [(lane * 16, 16), ((lane % 8) * 16, 16), ((lane // 8) * 16, 16), (np.zeros(32, int), 16),
            (lane * 8, 8), ((lane // 2) * 8, 8), (np.zeros(32, int), 4), (lane * 4, 4)]
    acc = Accesses.from_rows([(0, 0, k, "shared", nb, (a + 4096).tolist()) for k, (a, nb) in enumerate(rows)])
    assert bank_wavefronts(acc, np.arange(len(rows))).tolist() == [4, 4, 2, 2, 2, 1, 1, 1]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("wide", [False, True])
def test_marked_bank_wavefronts_and_lines_equal_a_count_by_sets(seed, wide):
    """Requests without atomics have their words marked in a bitmap (hardware/banks.py, no sort):
    per request the most distinct words on one bank (at least the return floor) and the distinct
    128-byte lines, as counted word by word with sets; wide spans (mixed in, ``wide``) are sorted."""
    from pipeperf.hardware.banks import _banks_and_lines, return_wavefronts

    rng = np.random.default_rng(seed)
    rows = []
    for i in range(300):
        nbytes = int(rng.choice([1, 2, 4, 8, 16]))
        lanes = int(rng.integers(1, 33))
        span = int(rng.choice([64, 1024, 4096])) if i % 3 or not wide else int(rng.choice([1 << 16, 1 << 40]))
        base = int(rng.integers(0, 1 << 20)) * nbytes
        addr = base + rng.integers(0, span // nbytes + 1, lanes) * nbytes
        rows.append((i % 7, i % 5, i, "shared", nbytes, addr.tolist()))
    acc = Accesses.from_rows(rows)
    reqs = np.arange(len(acc))
    floor = return_wavefronts(acc, reqs)
    got_w, got_l = np.zeros(len(acc), np.int64), np.zeros(len(acc), np.int64)
    for r, waves, lines in _banks_and_lines(acc, reqs):
        got_w[r], got_l[r] = waves, lines
    for i, (_, _, _, _, nb, addr) in enumerate(rows):
        words = {a // 4 + j for a in addr for j in range(max(1, (a % 4 + nb + 3) // 4))}
        per_bank = np.bincount([w % 32 for w in words], minlength=32)
        assert got_w[i] == max(int(per_bank.max()), int(floor[i])), i
        assert got_l[i] == len({w // 32 for w in words}), i


@pytest.mark.parametrize("wide", [False, True])
def test_global_sectors_request_by_request_ascending(wide):
    """Mapper g's (request, sector) pairs (hardware/memory.py, marked in a bitmap where requests span
    few sectors, else sorted; ``wide``: both kinds in one block): each request's distinct 32-byte
    sectors, ascending, request by request."""
    from pipeperf.hardware.memory import _global_sectors

    rng = np.random.default_rng(7)
    rows = []
    for i in range(400):
        nbytes = int(rng.choice([1, 4, 8, 16]))
        span = int(rng.choice([32, 512, 4096])) if i % 3 or not wide else int(rng.choice([1 << 16, 1 << 40]))
        base = int(rng.integers(0, 1 << 30)) * nbytes
        rows.append((i % 9, i % 4, i, "global", nbytes,
                     (base + rng.integers(0, span // nbytes + 1, int(rng.integers(1, 33))) * nbytes).tolist()))
    acc = Accesses.from_rows(rows)
    req, sec = _global_sectors(acc, np.arange(len(acc)))
    want_req, want_sec = [], []
    for i, row in enumerate(rows):
        s = sorted({u for a in row[5] for u in range(a // 32, (a + row[4] - 1) // 32 + 1)})
        want_req += [i] * len(s)
        want_sec += s
    assert req.tolist() == want_req and sec.tolist() == want_sec and sec.dtype == np.uint64


def test_distinct_count_is_the_number_of_distinct_values():
    """The L2 footprint's count (hardware/cache_model.distinct_count): np.unique's, over narrow ranges
    (marked block by block) and wide ones."""
    from pipeperf.hardware.cache_model import dense_ids, distinct_count

    rng = np.random.default_rng(3)
    for span in (1, 100, 1 << 20, 1 << 40):
        v = (rng.integers(0, span, int(rng.integers(1, 5000))) + (1 << 33)).astype(np.uint64)
        assert distinct_count(v) == len(np.unique(v)) == dense_ids(v)[0]
    assert distinct_count(np.zeros(0, np.uint64)) == 0


@pytest.mark.parametrize("seed", range(4))
def test_previous_access_orders_as_lexsort(seed):
    """previous_access's one-key sort (sector rank, position) gives lexsort's order, ties in the
    positions included (hardware/cache_model._by_sector_then_position)."""
    from pipeperf.hardware.cache_model import _by_sector_then_position, previous_access

    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 50, 5000):
        sec = (rng.integers(0, [3, 100, 1 << 40][seed % 3], n) + (1 << 33)).astype(np.uint64)
        for pos in (rng.permutation(n).astype(np.int64), rng.integers(-5, 20, n).astype(np.int64)):
            if n:
                assert np.array_equal(_by_sector_then_position(sec, pos), np.lexsort((pos, sec)))
            prev = previous_access(sec, pos)
            want = np.full(n, -1, np.int64)
            by = np.lexsort((pos, sec))
            same = sec[by[1:]] == sec[by[:-1]] if n > 1 else np.zeros(0, bool)
            want[by[1:][same]] = by[:-1][same]
            assert np.array_equal(prev, want)


@pytest.mark.parametrize("nbytes", [4, 8])
def test_repeated_rows_counted_once_give_each_requests_count(nbytes, monkeypatch):
    """Shared requests repeating a few lane patterns (whole aligned warps, as a tiled kernel's: the
    same offsets in every CTA and iteration, moved by whole 128-byte lines) are counted once per
    distinct row of offsets (banks.distinct_rows) and each request gets its own row's count, the
    count by sets; with every row hashed alike (a collision), each row is counted on its own."""
    from pipeperf.hardware import banks

    rng = np.random.default_rng(11)
    patterns = [rng.integers(0, 96, 32) * nbytes for _ in range(5)] + [np.arange(32) * nbytes]
    rows = []
    for i in range(3000):
        p = patterns[int(rng.integers(len(patterns)))]
        rows.append((i % 3, i % 8, i, "shared", nbytes, (int(rng.integers(0, 64)) * 128 + p).tolist()))
    acc = Accesses.from_rows(rows)
    reqs = np.arange(len(acc))
    first, inv = banks.distinct_rows(np.array([r[5] for r in rows], np.int64) % 128)
    assert len(first) <= len(patterns) and len(inv) == len(rows)
    want = []
    floor = banks.return_wavefronts(acc, reqs)
    for i, (_, _, _, _, nb, addr) in enumerate(rows):
        words = {a // 4 + j for a in addr for j in range(nb // 4)}
        want.append(max(int(np.bincount([w % 32 for w in words], minlength=32).max()), int(floor[i])))
    assert banks.bank_wavefronts(acc, reqs).tolist() == want
    monkeypatch.setattr(banks, "_ROW_HASH", np.zeros_like(banks._ROW_HASH))
    first, inv = banks.distinct_rows(np.array([r[5] for r in rows[:50]], np.int64))
    assert first.tolist() == inv.tolist() == list(range(50))
    assert banks.bank_wavefronts(acc, reqs).tolist() == want
