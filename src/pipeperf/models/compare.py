"""All occupancy models side by side on one kernel and GPU (Sec. 5 of
analytical-models-and-pipeline-model.txt), and their accuracy against a measured curve
(Sec. 6.3, Tables 10-12).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Sequence

import numpy as np

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import GPUSpec
from pipeperf.idg.kernel_graph import KernelGraph
from pipeperf.models import gpumech, metrics, mwp_cwp, pipeline, roofline, transit, volkov, wfg
from pipeperf.models.curve import ModelCurve, as_warps, jsonable
from pipeperf.models.params import KernelParams, kernel_params

Predictor = Callable[[KernelParams, np.ndarray], ModelCurve]

#: Model name -> predictor, in the order of the JSON output and the tables.
ANALYTICAL: dict[str, Predictor] = {
    roofline.NAME: roofline.predict,
    volkov.NAME: volkov.predict,
    transit.NAME: transit.predict,
    mwp_cwp.NAME: mwp_cwp.predict,
    mwp_cwp.NAME_CORR: mwp_cwp.predict_corrected,
    wfg.NAME: wfg.predict,
    wfg.NAME_CORR: wfg.predict_corrected,
    gpumech.NAME_RR: gpumech.predict_rr,
    gpumech.NAME_GTO: gpumech.predict_gto,
    gpumech.NAME_RR_CORR: gpumech.predict_rr_corrected,
}
ALL_MODELS: tuple[str, ...] = (*ANALYTICAL, pipeline.NAME)


def parse_models(text: str | None) -> list[str]:
    """``a,b,c`` -> validated model names (all when empty)."""
    if not text:
        return list(ALL_MODELS)
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in ALL_MODELS]
    if bad or not names:
        raise PipeperfError(f"unknown model '{bad[0] if bad else text}': expected a comma-separated "
                            f"list of {', '.join(ALL_MODELS)}")
    return list(dict.fromkeys(names))


@dataclass
class Evaluation:
    """Every requested model's curve for one kernel on one GPU."""

    kernel: str
    gpu: str
    warps: np.ndarray
    params: KernelParams
    curves: dict[str, ModelCurve]

    def to_dict(self) -> dict:
        return {
            "kernel": self.kernel, "gpu": self.gpu,
            "warps": [int(w) if float(w).is_integer() else float(w) for w in self.warps],
            "models": {n: c.warps_per_cycle_list() for n, c in self.curves.items()},
            "details": {"params": jsonable(self.params.to_dict()),
                        **{n: c.details_dict() for n, c in self.curves.items()}},
        }


def evaluate(kernel: KernelGraph, gpu: GPUSpec, warps: Sequence[float] | np.ndarray, models: Sequence[str] | None = None,
             scheduler: str = "rr", runs: int | None = None) -> Evaluation:
    """Evaluate ``models`` (default: all) at each occupancy in ``warps``."""
    w = as_warps(warps)
    kp = kernel_params(kernel, gpu)
    curves: dict[str, ModelCurve] = {}
    for name in models or ALL_MODELS:
        if name == pipeline.NAME:
            curves[name] = pipeline.predict(kp, w, scheduler, runs)
        elif name in ANALYTICAL:
            curves[name] = ANALYTICAL[name](kp, w)
        else:
            raise PipeperfError(f"unknown model '{name}': expected one of {', '.join(ALL_MODELS)}")
    return Evaluation(kernel.name, gpu.name, w, kp, curves)


@dataclass
class Accuracy:
    """MAPE and MAPE_shape (percent) of each model on one measured curve."""

    name: str
    mape: dict[str, float | None]
    mape_shape: dict[str, float | None]
    reasons: dict[str, str]


def accuracy(name: str, evaluation: Evaluation, measured_warps_per_cycle: np.ndarray) -> Accuracy:
    """Sec. 6.3's metrics of every curve in ``evaluation`` against ``measured_warps_per_cycle``."""
    m: dict[str, float | None] = {}
    s: dict[str, float | None] = {}
    why: dict[str, str] = {}
    for model, curve in evaluation.curves.items():
        if curve.warps_per_cycle is None:
            m[model] = s[model] = None
            why[model] = curve.unsupported or "no prediction"
            continue
        m[model] = metrics.mape(curve.warps_per_cycle, measured_warps_per_cycle)
        s[model] = metrics.mape_shape(curve.warps_per_cycle, measured_warps_per_cycle, evaluation.warps)
    return Accuracy(name, m, s, why)
