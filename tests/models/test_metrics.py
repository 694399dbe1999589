"""MAPE and MAPE_shape of Sec. 6.3 on hand-computed examples."""

from __future__ import annotations

import numpy as np
import pytest

from pipeperf.errors import PipeperfError
from pipeperf.models.metrics import linear_fit, mape, mape_shape

REAL = [1.0, 2.0, 4.0]
MODEL = [2.0, 2.0, 2.0]
OCC = [1, 2, 3]


def test_mape_by_hand():
    # errors 1/1, 0/2, 2/4 -> mean 0.5
    assert mape(MODEL, REAL) == pytest.approx(50.0)


def test_mape_shape_by_hand():
    """d = (1, 0, -2); best line -1/3 - 1.5 (occ - 2) = (7/6, -1/3, -11/6);
    residuals (-1/6, 1/3, -1/6) / real = (1/6, 1/6, 1/24) -> mean 1/8."""
    assert linear_fit(OCC, [1, 0, -2]) == pytest.approx([7 / 6, -1 / 3, -11 / 6])
    assert mape_shape(MODEL, REAL, OCC) == pytest.approx(12.5)


def test_offset_and_drift_are_not_shape_errors():
    real = np.array([0.1, 0.15, 0.3, 0.32])
    occ = np.array([1, 2, 4, 8])
    model = real + 0.05 - 0.002 * occ
    assert mape(model, real) > 5
    assert mape_shape(model, real, occ) == pytest.approx(0.0, abs=1e-12)


def test_perfect_model_scores_zero_and_one_point_has_no_shape_error():
    assert mape(REAL, REAL) == 0 and mape_shape(REAL, REAL, OCC) == 0
    assert mape_shape([3.0], [2.0], [8]) == 0 and mape([3.0], [2.0]) == 50


def test_bad_input_is_a_user_error():
    with pytest.raises(PipeperfError, match="positive"):
        mape([1.0], [0.0])
    with pytest.raises(PipeperfError, match="equally long"):
        mape([1.0, 2.0], [1.0])
    with pytest.raises(PipeperfError, match="occupancy"):
        mape_shape([1.0, 2.0], [1.0, 2.0], [1])


def test_shape_error_can_exceed_mape():
    """The least-squares line is not the least-absolute one: one outlier d = (0, 0, 0, 0, 4)
    gives the line 0.8 + 0.8 (occ - 3) and residuals (.8, 0, -.8, -1.6, 1.6) -> 96 % > 80 %."""
    real = np.ones(5)
    model = np.array([1, 1, 1, 1, 5.0])
    assert mape(model, real) == pytest.approx(80)
    assert mape_shape(model, real, np.arange(1, 6)) == pytest.approx(96)
