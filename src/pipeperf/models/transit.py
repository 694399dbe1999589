"""The Transit model (Li et al. 2015), Sec. 2.2.1 of analytical-models-and-pipeline-model.txt.

Warps are either computing (x of them) or waiting for memory (k = omega - x). Each
subsystem has its own occupancy roofline, measured in isolation:

    IPC_comp(x) = min(1 / lambda_comp, x / Lambda_comp)                     # Eq. 4
    IPC_mem(k)  = min(1 / lambda_mem,  k / Lambda_mem)                      # Eq. 5

or, in warps per cycle, WPC_comp(x) = IPC_comp(x) / alpha_comp (Eq. 6) and
WPC_mem(k) = IPC_mem(k) / alpha_mem (Eq. 7). In steady state supply meets demand,

    WPC_mem(k) = WPC_comp(omega - k)                                        # Eq. 8

and the crossing gives the throughput. It is found here by bisection on k (both
sides are monotone), not by the closed form of Eqs. 9-13, so that Theorem 1 --
Transit equals Volkov's Eq. 3 when the kernel has no ILP -- is a property that the
tests check rather than an identity in the code. Transit knows no ILP: it charges
every instruction its full latency.
"""

from __future__ import annotations

import numpy as np

from pipeperf.models.curve import ModelCurve, unsupported
from pipeperf.models.params import KernelParams

NAME, LABEL = "transit", "Transit"


def _wpc_comp(kp: KernelParams, x: np.ndarray) -> np.ndarray:
    return np.minimum(1.0 / kp.lam_comp, x / kp.Lam_comp) / kp.alpha_comp    # Eqs. 4, 6


def _wpc_mem(kp: KernelParams, k: np.ndarray) -> np.ndarray:
    return np.minimum(1.0 / kp.lam_mem, k / kp.Lam_mem) / kp.alpha_mem       # Eqs. 5, 7


def predict(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    if not kp.alpha_comp or not kp.alpha_mem:
        return unsupported(NAME, LABEL, warps, "Transit needs both computational and memory instructions")
    if kp.Lam_comp <= 0 or kp.Lam_mem <= 0:
        return unsupported(NAME, LABEL, warps, "Transit needs positive latencies Lambda_comp and Lambda_mem")
    lo, hi = np.zeros_like(warps), warps.copy()
    for _ in range(200):                              # Eq. 8 by bisection on k in [0, omega]
        k = 0.5 * (lo + hi)
        above = _wpc_mem(kp, k) > _wpc_comp(kp, warps - k)
        hi = np.where(above, k, hi)
        lo = np.where(above, lo, k)
    k = 0.5 * (lo + hi)
    warps_per_cycle = np.minimum(_wpc_mem(kp, k), _wpc_comp(kp, warps - k))
    details = {"k_memory_warps": k, "x_compute_warps": warps - k,
               "k_eq11": warps / (1 + kp.ci * kp.Lam_comp / kp.Lam_mem),             # Eq. 11
               "Lambda_app_without_ilp": kp.alpha_mem * kp.Lam_mem + kp.alpha_comp * kp.Lam_comp}  # Eq. 13
    return ModelCurve(NAME, LABEL, warps, warps_per_cycle, details)
