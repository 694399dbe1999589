"""``pipeperf network``: one small model (Conv+BN+Relu, MaxPool, an op the library lacks, Flatten,
Gemm, Softmax: five layers, the odd op left out) analysed once on two GPUs, then its JSON, text, CSV and HTML checked, the HTML in
headless Chromium (skipped without chromium + chromedriver, as tests/report/test_html_report.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from headless_browser import NO_BROWSER, browser_paths, chromium_page

pytest.importorskip("onnx")

GPUS = ("volta_v100", "hopper_h100")


def small_model():
    from onnx import TensorProto, helper

    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["n"], name="bn"),
             helper.make_node("Relu", ["n"], ["r"], name="relu"),
             helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Erf", ["p"], ["e"], name="odd_one"),
             helper.make_node("Flatten", ["e"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fw", "fb"], ["z"], name="fc", transB=1),
             helper.make_node("Softmax", ["z"], ["y"], name="softmax")]
    inputs = [vi("x", f, ["N", 3, 16, 16]), vi("w", f, [8, 3, 3, 3]), vi("fw", f, [10, 512]), vi("fb", f, [10])]
    inputs += [vi(n, f, [8]) for n in "gbmv"]
    g = helper.make_graph(nodes, "small", inputs, [vi("y", f, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    import onnx

    path = tmp_path_factory.mktemp("net") / "small.onnx"
    onnx.save(small_model(), str(path))
    return path


@pytest.fixture(scope="module")
def report(model_file):
    from pipeperf.network.api import analyze_network

    return analyze_network(model_file, gpus=GPUS, batch=2, trace_warps=32, scheduler="none")


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_json_layers_totals_ranking_and_the_unsupported_node(report):
    d = json.loads(json.dumps(report.to_dict(), default=float))
    assert d["gpus"] == list(GPUS) and d["batch"] == 2
    assert [u["name"] for u in d["unsupported"]] == ["odd_one"] and d["unsupported"][0]["op"] == "Erf"
    assert any("left out of every total" in n and "odd_one" in n for n in d["notes"])
    layers = {layer["name"]: layer for layer in d["layers"]}
    conv = layers["conv"]
    assert conv["op"] == "Conv+BatchNormalization+Relu" and conv["kernel"] == "conv_direct"
    assert conv["macs"] == 2 * 8 * 16 * 16 * 3 * 9
    # the kernel's FMAs (padding's included, as K*C*R*S*P*Q counts) plus the epilogue's bias add and max
    assert conv["flop_count_sp"] >= 2 * conv["macs"] and conv["flop_count_hp"] == conv["flop_count_dp"] == 0
    assert conv["inst_executed"] > 0 and 0 < conv["fraction_emulated"] <= 1 and conv["branch_efficiency"] > 50
    assert layers["flat"]["kernel"] is None and layers["flat"]["seconds"] == dict.fromkeys(GPUS, 0.0)
    assert layers["fc"]["kernel"] == "gemv"
    for g in GPUS:
        t = d["totals"][g]
        assert t["seconds"] == pytest.approx(sum(x["seconds"][g] for x in d["layers"]))
        assert t["overhead_seconds"] == pytest.approx(t["launches"] * {"volta_v100": 2.18e-6, "hopper_h100": 2.43e-6}[g])
        assert 0 < t["joules"] < t["joules_tdp"] and t["inferences_per_joule"] == pytest.approx(2 / t["joules"])
        assert t["left_out"] == ["odd_one"]
        assert len(t["top_layers"]) == 4 and t["top_layers"][0]["seconds"] >= t["top_layers"][-1]["seconds"]
    assert layers["pool"]["warm_l2"] == dict.fromkeys(GPUS, True) and layers["conv"]["warm_l2"][GPUS[0]] is False
    assert sorted(x["rank_time"] for x in d["ranking"]) == [1, 2] and {x["gpu"] for x in d["ranking"]} == set(GPUS)


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_text_and_csv(report):
    text = report.text()
    assert "ranking by time:" in text and "ranking by energy:" in text and "odd_one (Erf)" in text
    assert "conv_direct" in text and "HyPA metrics" in text
    rows = report.csv().splitlines()
    assert len(rows) == 1 + 5 * len(GPUS) and rows[0].startswith("layer,op,kernel,gpu,seconds")


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_html_is_self_contained(report):
    from pipeperf.network.html import SECTIONS

    page = report.html()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    for sid, _ in SECTIONS:
        assert f'<section id="{sid}">' in page
    assert '<figure id="layer-times"><svg' in page


@pytest.mark.slow
@pytest.mark.requires_nvcc
@pytest.mark.skipif(browser_paths() is None, reason=NO_BROWSER)
def test_html_renders_in_headless_chromium(report, tmp_path):
    from selenium.webdriver.common.by import By

    from pipeperf.network.html import SECTIONS

    page = report.write_html(tmp_path / "network.html")
    with chromium_page(page, tmp_path) as driver:
        assert driver.title == "pipeperf network: small"
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
        for sid, _ in SECTIONS:
            section = driver.find_element(By.ID, sid)
            assert section.is_displayed() and section.size["height"] > 20, sid
        svg = driver.find_element(By.CSS_SELECTOR, "#layer-times svg")
        assert svg.size["width"] > 400 and svg.size["height"] > 50
        assert len(driver.find_elements(By.CSS_SELECTOR, "#layers table tr")) == 1 + 5


def test_bad_onnx_file_is_one_line_error(cli, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00not a protobuf at all" * 10)
    rc, out, err = cli("network", str(bad), "--gpu", "volta_v100")
    assert rc == 2 and err.count("\n") == 1 and "not an ONNX model" in err and "Traceback" not in err
    rc, out, err = cli("network", str(tmp_path / "missing.onnx"), "--gpu", "volta_v100")
    assert rc == 2 and "no such ONNX file" in err
    rc, out, err = cli("network", "--builtin", "resnet51", "--gpu", "volta_v100")
    assert rc == 2 and "unknown built-in network 'resnet51'" in err and err.count("\n") == 1
    rc, out, err = cli("network", "--builtin", "resnet50")
    assert rc == 2 and "--gpu" in err


def test_symbolic_batch_needs_shapes_and_numbers_survive():
    from pipeperf.network.graph import load_graph

    g = load_graph(small_model(), batch=3)
    assert g.shapes["x"] == (3, 3, 16, 16) and g.shapes["y"] == (3, 10)
    assert "w" in g.params and "x" in g.inputs and np.prod(g.shapes["f"]) == 3 * 512


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_one_build_for_every_gpu_with_arch(model_file):
    """--arch: one compile per kernel file for all GPUs (the engine's compile unit has that one target)."""
    from pipeperf.network.api import analyze_network

    r = analyze_network(model_file, gpus=GPUS, trace_warps=32, scheduler="none", arch="sm_80").to_dict()
    assert r["analysis"]["arch"] == "sm_80" and any("one build for sm_80" in n for n in r["notes"])
    assert all(r["totals"][g]["seconds"] > 0 for g in GPUS)
