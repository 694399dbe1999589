"""The DRAM and L2 pipelines serve the warps waiting for them first-come (simulator.FIRST_COME):
the warp whose request has been ready longest goes next, not the next one in the scheduler's
rotation. Worked out by hand on three warps of one block on a one-SM toy GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from toy_core import prepared

GPU = """  add: {subsystem: alu, cpi: 1, latency: 5, source: test}
  miss: {subsystem: mem, cpi: 10, latency: 100, source: test}
"""

# warp 0: a miss, then 8 independent adds that keep it the last warp to issue until cycle 9;
# warp 1: an add (issued at 1, done at 6) and a miss that needs it: ready at 6;
# warp 2: a miss, ready at 0 but the DRAM pipeline is busy with warp 0's until 10.
KERNEL = """name: k
warp_classes:
  - instructions:
      - {id: m, class: miss}
""" + "".join(f"      - {{id: a{i}, class: add}}\n" for i in range(8)) + """  - instructions:
      - {id: a, class: add}
      - {id: m, class: miss, deps: [a]}
  - instructions:
      - {id: m, class: miss}
group_classes:
  - {warps: [0, 1, 2]}
"""


def _miss_issues(tmp: Path, first_come: tuple[str, ...]) -> dict[int, float]:
    r = prepared(tmp, KERNEL, GPU, first_come).run(3, 1, 1, check_limits=False, profile=True)
    p = r.profile
    return {int(w): float(t) for w, t, s in zip(p.warp, p.issue, p.subsystem)
            if r.profile.subsystems[int(s)] == "mem"}


def test_the_dram_serves_the_warp_that_has_waited_longest(tmp_path):
    """At cycle 10 the pipeline frees with warp 2 waiting since 0 and warp 1 since 6: warp 2's
    miss goes at 10, warp 1's at 20."""
    assert _miss_issues(tmp_path, ("mem", "l2")) == {0: 0.0, 2: 10.0, 1: 20.0}


def test_in_scheduler_order_the_next_warp_in_the_rotation_goes_first(tmp_path):
    """Round-robin from the last warp to issue (warp 0, at 9) reaches warp 1 before warp 2."""
    assert _miss_issues(tmp_path, ()) == {0: 0.0, 1: 10.0, 2: 20.0}


def test_first_come_is_the_default():
    from pipeperf.simulate.simulator import FIRST_COME
    assert FIRST_COME == ("mem", "l2", "atomic")    # DRAM, L2 slices, an L2 slice's atomic unit


@pytest.mark.parametrize("bad", [[1, 0], [1, 0, 1, 0, 1, 0, 1]])
def test_the_engine_wants_one_flag_per_subsystem(bad):
    from array import array

    from pipeperf.simulate import engine
    inp = engine.EngineInput(
        off=array("q", [0]), length=array("q", [1]), sub=array("q", [0]), lam=array("d", [1.0]),
        Lam=array("d", [4.0]), Lret=array("d", [4.0]), is_bar=array("b", [0]), bar_prev=array("q", [-1]),
        dep_ptr=array("q", [0, 0]), dep_idx=array("q"), minlam=array("d", [1.0]), fill=None, fill_cycles=None,
        fifo=array("b", bad), warp_cls=array("q", [0]), group_size=1, n_groups=1, n_resident=1, issue_limit=1.0,
        scheduler=engine.RR, dispatch=0.0, interval=0.0)
    with pytest.raises(ValueError, match="one entry per subsystem"):
        engine.run_core(inp)
