"""When a block frees its slot: after its last load has returned but not after its global stores
are acknowledged (a store is posted: it leaves the SM in its issue slot), and then the slot's
turnaround (``launch.block_dispatch_cycles``) passes before the next block starts there. Both
worked out by hand on one-warp blocks that run one after the other on a single slot."""

from __future__ import annotations

from pathlib import Path

import pytest

from toy_core import prepared

GPU = """  add: {subsystem: alu, cpi: 1, latency: 4, source: test}
  ld_global_s32: {subsystem: mem, cpi: 2, latency: 400, source: test}
  st_global: {subsystem: mem, cpi: 2, latency: 300, source: test}
launch: {block_dispatch_cycles: %d}
sources: {launch.block_dispatch_cycles: test}
"""


def _run(tmp: Path, body: str, dispatch: int, blocks: int) -> float:
    return prepared(tmp, body, GPU % dispatch).run(1, 1, blocks, check_limits=False).cycles


STORE = "  - {id: a, class: add}\n  - {id: s, class: st_global, deps: [a]}\n"
LOAD = "  - {id: l, class: ld_global_s32}\n  - {id: a, class: add, deps: [l]}\n"


def test_a_store_only_block_retires_when_its_store_has_left(tmp_path):
    """add at 0 (ready at 4), store issued at 4, out of its pipeline slot at 6: the block frees
    its slot at 6, so 10 blocks in a row take 60 cycles, not 10 x (4 + 300)."""
    assert _run(tmp_path, STORE, 0, 10) == pytest.approx(60)


def test_a_load_holds_its_block_until_the_data_is_back(tmp_path):
    """load at 0, back at 400, dependent add at 400, done at 404: 10 blocks take 4040 cycles."""
    assert _run(tmp_path, LOAD, 0, 10) == pytest.approx(4040)


@pytest.mark.parametrize("body,per_block", [(STORE, 6), (LOAD, 404)])
def test_each_later_block_waits_the_slots_turnaround(tmp_path, body, per_block):
    """With a 250-cycle turnaround the 9 blocks after the first each start 250 cycles later."""
    assert _run(tmp_path, body, 250, 10) == pytest.approx(10 * per_block + 9 * 250)
