"""A load that hits an L1 line its warp is still fetching (``completes_after`` in an IDG file,
``IDG.fill`` from mapper g) issues without waiting for that fill but completes no sooner than the
fill's result plus its own L1 cycles (its class's ``after_fill``). Worked out by hand on one warp."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.idg.io import load_kernel
from toy_core import prepared

GPU = """  add: {subsystem: alu, cpi: 1, latency: 4, source: test}
  miss: {subsystem: mem, cpi: 1, latency: 400, source: test}
  hit: {subsystem: lsu, cpi: 1, latency: 30, after_fill: 4, source: test}
"""


def _run(tmp: Path, body: str):
    return prepared(tmp, body, GPU).run(1, 1, 1, check_limits=False, profile=True)


HOPS = ("  - {id: m, class: miss}\n"
        "  - {id: h, class: hit%s}\n"
        "  - {id: a, class: add}\n"             # independent: issues at 2 either way
        "  - {id: u, class: add, deps: [h]}\n")


def test_a_hit_on_an_inflight_fill_completes_after_it(tmp_path):
    """miss issued at 0, back at 400; the hit issues at 1 (not held), its data at 400 + 4; the add
    that uses it issues at 404 and is done at 408. Without the link the hit is back at 31."""
    linked = _run(tmp_path, HOPS % ", completes_after: m")
    issue = dict(zip(linked.profile.instr.tolist(), linked.profile.issue.tolist()))
    assert (issue[1], issue[2], issue[3]) == (1.0, 2.0, 404.0)
    assert linked.cycles == pytest.approx(408)
    free = _run(tmp_path, HOPS % "")
    assert free.cycles == pytest.approx(400)       # the miss is the last to complete


def test_a_hit_after_its_fill_is_back_is_an_ordinary_hit(tmp_path):
    """When the hit issues after the miss is back (the add on m issues at 400, the hit at 401), it
    finds the line filled: back at 431 after its own 30 cycles, its user done at 435."""
    body = ("  - {id: m, class: miss}\n  - {id: w, class: add, deps: [m]}\n"
            "  - {id: h, class: hit, completes_after: m}\n  - {id: u, class: add, deps: [h]}\n")
    r = _run(tmp_path, body)
    assert r.cycles == pytest.approx(401 + 30 + 4)


@pytest.mark.parametrize("target,message", [("zz", "not an instruction"), ("u", "earlier instruction")])
def test_completes_after_must_name_an_earlier_node(tmp_path, target, message):
    body = f"  - {{id: m, class: miss}}\n  - {{id: h, class: hit, completes_after: {target}}}\n" \
           "  - {id: u, class: add, deps: [h]}\n"
    with pytest.raises(PipeperfError, match=message):
        _run(tmp_path, body)


def test_the_link_survives_a_round_trip_through_a_file(tmp_path):
    import yaml

    (tmp_path / "k.yaml").write_text("name: k\ninstructions:\n" + HOPS % ", completes_after: m")
    g = load_kernel(str(tmp_path / "k.yaml")).idgs[0]
    (tmp_path / "k2.yaml").write_text(yaml.safe_dump(g.to_dict()))
    assert load_kernel(str(tmp_path / "k2.yaml")).idgs[0].fill.tolist() == [-1, 0, -1, -1]
