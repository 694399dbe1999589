"""The Pipeline simulator's steady-state occupancy curve next to the models."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.errors import PipeperfError
from pipeperf.models import pipeline, volkov

from model_test_helpers import example

W = np.array([1.0, 2.0, 3.0, 7.0, 16.0, 64.0])


def test_example_curve_is_converged_and_below_volkov():
    kp = example()
    c = pipeline.predict(kp, W)
    assert c.warps_per_cycle[0] == pytest.approx(1 / 25)           # one warp: Lambda_app
    assert c.warps_per_cycle[2] == pytest.approx(3 / 26)           # three warps: one extra cycle per run
    assert c.warps_per_cycle[-2:] == pytest.approx([0.25, 0.25])   # both subsystems saturated
    assert pipeline.predict(kp, W, runs=64).warps_per_cycle == pytest.approx(c.warps_per_cycle, rel=1e-9)
    assert np.all(c.warps_per_cycle <= volkov.predict(kp, W).warps_per_cycle + 1e-12)
    # the whole-run throughput still contains the pipeline fill and drain
    assert np.all(c.details["WPC_whole_simulation"] <= c.warps_per_cycle + 1e-12)


def test_gto_scheduler_is_available():
    c = pipeline.predict(example(), W, scheduler="gto")
    assert c.details["scheduler"] == "gto" and c.warps_per_cycle[0] == pytest.approx(1 / 25)


def test_bad_arguments_are_user_errors():
    with pytest.raises(PipeperfError, match="runs"):
        pipeline.predict(example(), W, runs=1)
    with pytest.raises(PipeperfError, match="whole numbers"):
        pipeline.predict(example(), np.array([1.5]))
