"""Eq. 5 and Fig. 2: memory request transactions of DMA/Gload requests."""

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeperf.sw26010.transactions import Geometry, mrt, mrt_brute_force


def test_eq5_contiguous_requests_round_up_to_whole_transactions():
    assert Geometry(256).mrt(256) == 1
    assert Geometry(257).mrt(256) == 2
    assert Geometry(32).mrt(256) == 1          # a Gload-sized request still costs one transaction
    assert Geometry(16384).mrt(256) == 64


def test_misaligned_start_touches_one_more_transaction():
    assert Geometry(256, (), offset=8).mrt(256) == 2
    assert Geometry(248, (), offset=8).mrt(256) == 1


def test_strided_request_pays_partly_used_transactions_per_chunk():
    # 16 rows of 64 B, 2 KB apart: 1 KB useful, 16 transactions (4 KB) moved.
    g = Geometry(64, ((2048, 16),))
    assert g.useful_bytes == 1024
    assert g.mrt(256) == 16
    # 300 B chunks straddle two transactions each when aligned at 1 KB.
    assert Geometry(300, ((1024, 4),)).mrt(256) == 8


def test_chunks_at_sub_transaction_stride_cycle_through_residues():
    # 96 B chunks every 96 B: starts 0, 96, 192 (mod 256) ... chunk at 192 straddles.
    g = Geometry(96, ((96, 8),))
    assert g.mrt(256) == mrt_brute_force(g, 256)
    assert g.mrt(256) > 8


@settings(max_examples=200, deadline=None)
@given(
    block=st.integers(1, 2000),
    levels=st.lists(st.tuples(st.integers(1, 5000), st.integers(1, 12)), max_size=3),
    offset=st.integers(0, 1000),
    trans=st.sampled_from([128, 256]),
)
def test_histogram_count_equals_enumerating_every_chunk(block, levels, offset, trans):
    # Make levels non-overlapping like validated specs: stride >= extent of the inner level.
    fixed, extent = [], block
    for stride, count in levels:
        stride = max(stride, extent)
        fixed.append((stride, count))
        extent = stride * (count - 1) + extent
    g = Geometry(block, tuple(fixed), offset)
    assert mrt(block, tuple(fixed), offset % trans, trans) == mrt_brute_force(g, trans)
