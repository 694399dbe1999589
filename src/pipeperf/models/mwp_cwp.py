"""The MWP-CWP model (Hong and Kim 2009) and its correction MWP-CWP*, Secs. 2.3 and 5.1
of analytical-models-and-pipeline-model.txt.

The kernel is approximated by P = alpha_mem periods of Q = CI computational
instructions, each followed by a memory request. With

    MWP = Lambda_mem * BW = Lambda_mem / lambda_mem                          # Eq. 15
    CWP = Lambda_mem / (CI * lambda_comp) + 1                                # Eq. 16
    Mem_p = Lambda_mem, Comp_p = CI * lambda_comp, N = omega                 # Eqs. 21, 22, 25
    Mem_cycles = alpha_mem * Lambda_mem, Comp_cycles = alpha_mem * CI * lambda_comp   # Eqs. 23, 24

and MWP, CWP capped at omega, the cycles per run of omega warps are

    memory bound      CPR = alpha_mem * omega * lambda_mem + CI * lambda_comp * MWP  # Eq. 26
    compute bound     CPR = alpha_comp * lambda_comp * omega + Lambda_mem            # Eq. 27
    occupancy bound   CPR = Lambda*_app + CI * lambda_comp * (omega - 1)             # Eq. 28
                      with Lambda*_app = Mem_cycles + Comp_cycles

Case choice as in Hong and Kim: occupancy bound when omega <= min(MWP, CWP) (both
capped values equal omega), else memory bound when CWP >= MWP (Eq. 17 fails), else
compute bound.

MWP-CWP* (Sec. 5.1) takes computational latencies into account by replacing
Lambda*_app in Eq. 28 with Lambda_app of Eq. 2; since the case boundaries then no
longer follow from MWP and CWP, CPR* is the largest of the three cases' CPRs.
"""

from __future__ import annotations

import numpy as np

from pipeperf.models.curve import ModelCurve, unsupported
from pipeperf.models.params import KernelParams

NAME, LABEL = "mwp_cwp", "MWP-CWP"
NAME_CORR, LABEL_CORR = "mwp_cwp_corr", "MWP-CWP*"
CASES = ("occupancy", "memory", "compute")


def _supported(kp: KernelParams) -> str | None:
    if not kp.alpha_mem:
        return "MWP-CWP needs memory instructions (its periods end in a memory request)"
    return None


def mwp_cwp(kp: KernelParams) -> tuple[float, float]:
    mwp = kp.Lam_mem / kp.lam_mem                                            # Eq. 15
    comp_p = kp.ci * kp.lam_comp if kp.alpha_comp else 0.0                   # Eq. 22
    cwp = kp.Lam_mem / comp_p + 1 if comp_p > 0 else np.inf                  # Eq. 16
    return mwp, cwp


def case_cprs(kp: KernelParams, warps: np.ndarray, lambda_app_star: float) -> dict[str, np.ndarray]:
    """CPR of each of the three cases at every omega (MWP capped at omega)."""
    mwp, _ = mwp_cwp(kp)
    mwp_n = np.minimum(mwp, warps)
    comp_p = kp.ci * kp.lam_comp if kp.alpha_comp else 0.0                   # Eq. 22
    comp_total = kp.alpha_comp * kp.lam_comp if kp.alpha_comp else 0.0
    return {
        "memory": kp.alpha_mem * warps * kp.lam_mem + comp_p * mwp_n,        # Eq. 26
        "compute": comp_total * warps + kp.Lam_mem,                          # Eq. 27
        "occupancy": lambda_app_star + comp_p * (warps - 1),                 # Eq. 28
    }


def lambda_app_star(kp: KernelParams) -> float:
    """Lambda*_app = Mem_cycles + Comp_cycles: one warp with computational latencies ignored."""
    comp_cycles = kp.alpha_comp * kp.lam_comp if kp.alpha_comp else 0.0     # Eq. 24
    return kp.alpha_mem * kp.Lam_mem + comp_cycles                           # Eqs. 23, 28


def predict(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    reason = _supported(kp)
    if reason:
        return unsupported(NAME, LABEL, warps, reason)
    mwp, cwp = mwp_cwp(kp)
    mwp_n, cwp_n = np.minimum(mwp, warps), np.minimum(cwp, warps)
    cprs = case_cprs(kp, warps, lambda_app_star(kp))
    case = np.where((mwp_n == warps) & (cwp_n == warps), 0, np.where(cwp_n >= mwp_n, 1, 2))
    cpr = np.choose(case, [cprs["occupancy"], cprs["memory"], cprs["compute"]])
    details = {"MWP": mwp, "CWP": cwp, "Lambda_app_star": lambda_app_star(kp),
               "case": [CASES[c] for c in case], "CPR": cpr,
               **{f"CPR_{k}": v for k, v in cprs.items()}}
    return ModelCurve(NAME, LABEL, warps, warps / cpr, details)


def predict_corrected(kp: KernelParams, warps: np.ndarray) -> ModelCurve:
    reason = _supported(kp)
    if reason:
        return unsupported(NAME_CORR, LABEL_CORR, warps, reason)
    mwp, cwp = mwp_cwp(kp)
    cprs = case_cprs(kp, warps, kp.lambda_app)        # Eq. 28 with Lambda_app of Eq. 2
    stack = np.vstack([cprs[c] for c in CASES])
    cpr = stack.max(axis=0)
    details = {"MWP": mwp, "CWP": cwp, "Lambda_app": kp.lambda_app,
               "case": [CASES[c] for c in stack.argmax(axis=0)], "CPR": cpr,
               **{f"CPR_{k}": v for k, v in cprs.items()}}
    return ModelCurve(NAME_CORR, LABEL_CORR, warps, warps / cpr, details)
