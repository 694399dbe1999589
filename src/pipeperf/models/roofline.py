"""The Roofline model (Williams et al. 2009), Sec. 2.1 of analytical-models-and-pipeline-model.txt.

All subsystems overlap perfectly and every latency is hidden, so the kernel runs at
the throughput of its busiest subsystem whatever the occupancy:

    IPC_app^roof = min(IPC_comp, BW * CI)                                   # Eq. 1

In warps per cycle this is min over subsystems s of 1 / (sum of the lambda of a
warp's instructions on s) -- Eq. 1 for two subsystems, and Konstantinidis' extension
to any number of them. The issue limit is not part of the Roofline (Table 7).
"""

from __future__ import annotations

import math

import numpy as np

from pipeperf.models.curve import ModelCurve
from pipeperf.models.params import KernelParams

NAME, LABEL = "roofline", "Roofline"


def roof(kp: KernelParams) -> tuple[float, str]:
    """(WPC of the busiest subsystem, its name -- several joined by ' = ' when tied)."""
    if not kp.busy:
        return math.inf, "none"
    cycles = max(kp.busy.values())
    return 1.0 / cycles, " = ".join(s for s, c in kp.busy.items() if c == cycles)


def predict(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    wpc_roof, bound = roof(kp)
    details = {"WPC_roof": wpc_roof, "bound_by": bound,
               "cycles_per_warp_per_subsystem": dict(kp.busy)}
    if kp.alpha_comp and kp.alpha_mem:
        ipc_comp = 1.0 / kp.lam_comp
        bw = 1.0 / kp.lam_mem
        details["IPC_app_roof"] = min(ipc_comp, bw * kp.ci)                    # Eq. 1
        details["ridge_CI"] = kp.lam_mem / kp.lam_comp
    return ModelCurve(NAME, LABEL, warps, np.full(len(warps), wpc_roof), details)
