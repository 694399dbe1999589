"""Validation metrics of Sec. 6.3 of analytical-models-and-pipeline-model.txt.

For a model curve WPC^model and a measured curve WPC^real over the same n occupancies:

    MAPE       = 100/n * sum_occ |WPC^model - WPC^real| / WPC^real
    MAPE_shape = 100/n * sum_occ |WPC^model - WPC^real - lf(occ)| / WPC^real

where lf is the least-squares straight line through the differences
d(occ) = WPC^model - WPC^real. MAPE_shape removes a constant offset and a constant
drift of the offset, so it measures how well the *shape* of the curve is modelled.
(The paper prints the 1/n only in MAPE_shape; both are means over the occupancies,
as "with n the number of values" says.) With one occupancy, or all occupancies
equal, the fit is the mean difference.
"""

from __future__ import annotations

import numpy as np

from pipeperf.errors import PipeperfError


def _check(model: np.ndarray, real: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(model, dtype=np.float64)
    r = np.asarray(real, dtype=np.float64)
    if m.shape != r.shape or m.ndim != 1 or m.size == 0:
        raise PipeperfError(f"model and measured curves must be equally long and non-empty "
                            f"({m.size} vs {r.size} values)")
    if not np.all(np.isfinite(r)) or np.any(r <= 0):
        raise PipeperfError("measured performance must be positive and finite at every occupancy")
    if not np.all(np.isfinite(m)):
        raise PipeperfError("model performance must be finite at every occupancy")
    return m, r


def mape(model, real) -> float:
    """Mean absolute percentage error of ``model`` against ``real`` (percent)."""
    m, r = _check(model, real)
    return float(100.0 * np.mean(np.abs(m - r) / r))


def linear_fit(x, y) -> np.ndarray:
    """Values at ``x`` of the least-squares line through (x, y); the mean when x is constant."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    xc = x - x.mean()
    sxx = float(np.dot(xc, xc))
    if sxx == 0.0:
        return np.full_like(y, y.mean())
    slope = float(np.dot(xc, y - y.mean())) / sxx
    return y.mean() + slope * xc


def mape_shape(model, real, occupancy) -> float:
    """MAPE of the differences after subtracting their best linear fit (percent)."""
    m, r = _check(model, real)
    occ = np.asarray(occupancy, dtype=np.float64)
    if occ.shape != r.shape:
        raise PipeperfError("one occupancy per measured value is needed")
    d = m - r
    return float(100.0 * np.mean(np.abs(d - linear_fit(occ, d)) / r))
