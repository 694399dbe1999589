"""All models on one kernel: the registry, divergent warp classes, JSON output, accuracy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg import IDG, KernelGraph
from pipeperf.idg.kernel_graph import WarpClass
from pipeperf.models import gpumech, wfg
from pipeperf.models.compare import ALL_MODELS, accuracy, evaluate, parse_models
from pipeperf.models.params import kernel_params

W = [1, 4, 16, 32, 64]


def divergent() -> KernelGraph:
    even = IDG.from_nodes("even", ["a", "b", "c", "d", "s", "e"],
                          ["ld_global_s32", "mul_f32", "cos_f32", "mul_f32", "bar_sync", "ld_shared_f32"],
                          [[], ["a"], ["b"], ["a"], [], ["c", "d"]])
    odd = IDG.from_nodes("odd", ["a", "b", "s", "c"], ["ld_global_s32", "ld_global_s32", "bar_sync", "div_approx_f32"],
                         [[], [], [], ["a", "b"]])
    return KernelGraph("divergent", (WarpClass(even, 3.0), WarpClass(odd, 1.0)))


def test_every_model_evaluates_a_divergent_kernel_to_valid_json():
    ev = evaluate(divergent(), load_gpu("pascal_gtx1060"), W)
    assert list(ev.curves) == list(ALL_MODELS)
    for c in ev.curves.values():
        assert c.warps_per_cycle is not None and np.all(np.isfinite(c.warps_per_cycle)) and np.all(c.warps_per_cycle > 0), c.name
    text = json.dumps(ev.to_dict(), allow_nan=False)
    assert json.loads(text)["details"]["params"]["notes"][0].startswith("2 warp classes")


def test_graph_models_weight_average_cycles_per_warp():
    kp = kernel_params(divergent(), load_gpu("pascal_gtx1060"))
    w = np.array(W, dtype=float)
    for fn, key in ((wfg.predict, "CPW"), (gpumech.predict_gto, "CPR")):
        total = fn(kp, w).details
        per = total["warp_classes"]
        assert [p["weight"] for p in per] == [0.75, 0.25]
        expected = 0.75 * np.asarray(per[0][key]) + 0.25 * np.asarray(per[1][key])
        assert np.asarray(total[key]) == pytest.approx(expected)


def test_accuracy_of_a_model_against_itself_is_zero():
    ev = evaluate(divergent(), load_gpu("pascal_gtx1060"), W, ["volkov", "transit"])
    acc = accuracy("div", ev, ev.curves["volkov"].warps_per_cycle)
    assert acc.mape["volkov"] == 0 and acc.mape_shape["volkov"] == 0
    assert acc.mape["transit"] > 0


def test_model_names_are_checked():
    assert parse_models("volkov, wfg_corr") == ["volkov", "wfg_corr"]
    assert parse_models(None) == list(ALL_MODELS)
    with pytest.raises(PipeperfError, match="unknown model 'mwp'"):
        parse_models("mwp")
    with pytest.raises(PipeperfError, match="positive"):
        evaluate(divergent(), load_gpu("pascal_gtx1060"), [0, 1])
