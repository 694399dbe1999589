"""Physical floors (analysis/floors.py): a model's time below the launch's DRAM-traffic or issue floor
is "not physical" and never feeds advice; the DRAM floor uses the vendor peak and says when it cannot;
shares of the simulated run are clipped to 100 % with the raw value kept."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from pipeperf.analysis.advice import Advice, _physical
from pipeperf.analysis.floors import Floors, floors_of, not_physical
from pipeperf.analysis.predict import bound_of
from pipeperf.hardware.spec import load_gpu

#: 1 GB at 1,000 GB/s: a 1 ms DRAM floor; 1.6e8 warp instructions on 100 SMs x 4 at 1 GHz: 0.4 ms
FLOORS = Floors(dram_bytes=1e9, dram_gbs=1000.0, dram_source="vendor peak, memory.dram_peak_gbs of toy",
                dram_seconds=1e-3, warp_instructions=1.6e8, sms=100, issue_limit=4.0, clock_ghz=1.0,
                issue_seconds=0.4e-3)


def _metrics(sectors: float, inst: float) -> SimpleNamespace:
    return SimpleNamespace(m_tran_r=sectors, m_tran_w=0.0, m_inst=inst)


def test_a_time_below_a_floor_says_which_and_by_how_much():
    assert FLOORS.violation(0.5e-3) == "below the DRAM floor 1 ms by 50%"
    assert FLOORS.violation(1e-3) is None and FLOORS.violation(0.995e-3) is None   # within TOLERANCE
    assert FLOORS.violation(None) is None
    issue_only = replace(FLOORS, dram_seconds=None)
    assert issue_only.violation(0.2e-3) == "below the issue floor 400 us by 50%"


def test_floors_of_a_launch_use_the_vendor_peak_else_say_which_figure():
    a100 = load_gpu("ampere_a100")
    metrics = _metrics(1e6, 1e6)
    f = floors_of(metrics, a100)
    assert f.dram_gbs == a100.memory["dram_peak_gbs"] and f.dram_is_peak
    assert f.dram_seconds == pytest.approx(32e6 / (a100.memory["dram_peak_gbs"] * 1e9))
    assert f.issue_seconds == pytest.approx(1e6 / (a100.cores * a100.issue_limit) / (a100.clock_ghz * 1e9))
    no_peak = replace(a100, memory={k: v for k, v in a100.memory.items() if k != "dram_peak_gbs"})
    g = floors_of(metrics, no_peak)
    assert g.dram_gbs == a100.memory["dram_read_gbs"] and not g.dram_is_peak
    assert g.dram_source == "achievable read, memory.dram_read_gbs of ampere_a100"
    assert floors_of(None, a100).dram_seconds is None


def test_models_below_a_floor_are_flagged_and_kept_out_of_advice():
    pred = SimpleNamespace(floors=FLOORS, seconds=2e-3,
                           predictions={"pipeline": {"seconds": 2e-3}, "gpumech_rr": {"seconds": 0.3e-3},
                                        "roofline": {"seconds": 1.1e-3}, "wfg": {"seconds": None}})
    assert not_physical(pred.floors, pred.predictions) == {"gpumech_rr": "below the DRAM floor 1 ms by 70%"}
    assert _physical(pred, Advice("tail effect", "", 2e-3, 1.5e-3, ""))
    assert not _physical(pred, Advice("tail effect", "", 2e-3, 0.2e-3, ""))      # below the issue floor
    below = SimpleNamespace(floors=FLOORS, seconds=0.5e-3, predictions={})
    assert not _physical(below, Advice("tail effect", "", 0.5e-3, 0.45e-3, ""))   # its own time is not physical


def test_shares_above_one_are_clipped_and_kept():
    r = SimpleNamespace(cycles=1000.0, instructions_on_core=4100, issue_cycles=990.0,
                        subsystem_busy={"mem": 1.013, "alu": 0.3})
    b = bound_of(r, 4.0)
    assert b.subsystem_busy == {"mem": 1.0, "alu": 0.3} and b.issue_share == 1.0
    assert b.clipped == {"mem": 1.013, "issue slots": 1.025}
    assert b.to_dict()["clipped"] == b.clipped
