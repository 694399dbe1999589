"""Volkov's occupancy roofline (Volkov 2016), Sec. 2.2 of analytical-models-and-pipeline-model.txt.

Below the roof the first warp hides every other warp, so omega warps finish in the
time of one, Lambda_app (Eq. 2, see :mod:`pipeperf.models.params`); above it the
busiest subsystem or the issue limit IL bounds the throughput:

    WPC^volkov = min(WPC^roof, omega / Lambda_app)                          # Eq. 3
    WPC^roof   = min(min_s 1 / sum_{i on s} lambda_i,  IL / instructions)   # Eq. 3 with IL

Volkov's contention function for streaming kernels is left out, as in the paper.
It is an upper bound of the Pipeline model's curve (tested).
"""

from __future__ import annotations

import math

import numpy as np

from pipeperf.models import roofline
from pipeperf.models.curve import ModelCurve
from pipeperf.models.params import KernelParams

NAME, LABEL = "volkov", "Volkov"


def roof(kp: KernelParams) -> tuple[float, str]:
    """WPC^roof including the issue limit, and what bounds it."""
    warps_per_cycle, bound = roofline.roof(kp)
    if math.isfinite(kp.issue_limit) and kp.n_instr:
        wpc_il = kp.issue_limit / kp.n_instr
        if wpc_il < warps_per_cycle:
            return wpc_il, "issue limit"
    return warps_per_cycle, bound


def predict(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    wpc_roof, bound = roof(kp)
    warps_per_cycle = np.minimum(wpc_roof, warps / kp.lambda_app)                        # Eq. 3
    ridge = kp.lambda_app * wpc_roof                  # occupancy where omega / Lambda_app meets the roof
    details = {"Lambda_app": kp.lambda_app, "WPC_roof": wpc_roof, "bound_by": bound,
               "ridge_occupancy": ridge, "roof_reached_at": math.ceil(ridge - 1e-9)}
    return ModelCurve(NAME, LABEL, warps, warps_per_cycle, details)
