"""Each kernel of the library, emulated in full on small shapes, against ONNX's reference
evaluator (onnx.reference.ReferenceEvaluator): the lowering's launch arguments are used as they
are, with the generated buffers replaced by the test's arrays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")

from kernel_check import emulate, one_node_model, reference

from pipeperf.network import lower
from pipeperf.network.graph import load_graph

pytestmark = pytest.mark.requires_nvcc
RNG = np.random.default_rng(37)


def _plan(model, **kw):
    p = lower.plan(load_graph(model), **kw)
    assert not p.unsupported, p.unsupported
    return p


def _rand(*shape, dtype=np.float32):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def _conv_case(monkeypatch, kernel, x_shape, w_shape, attrs, min_tiles=None, bias=True, act=None):
    """Conv (+ Relu) lowered and emulated against the reference."""
    from onnx import TensorProto, helper

    if min_tiles is not None:
        monkeypatch.setattr(lower, "MIN_TILES", min_tiles)
    x, w = _rand(*x_shape), _rand(*w_shape)
    b = _rand(w_shape[0])
    feeds = {"x": x, "w": w} | ({"b": b} if bias else {})
    nodes = [helper.make_node("Conv", list(feeds), ["c"], name="conv", **attrs)]
    if act:
        nodes.append(helper.make_node(act, ["c"], ["y"], name="act"))
    out = "y" if act else "c"
    vis = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in feeds.items()]
    g = helper.make_graph(nodes, "t", vis, [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    p = _plan(model)
    (layer,) = p.layers
    assert layer.kernel == kernel, layer.rule
    got = emulate(layer.launches[0], {"x": x, "w": w, "bias": b if bias else np.zeros(w_shape[0], np.float32)})
    want = reference(model, feeds)
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_conv_implicit_gemm_strided_padded_with_relu(monkeypatch):
    _conv_case(monkeypatch, "conv_igemm", (1, 3, 9, 9), (70, 3, 3, 3),
               {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, min_tiles=1, act="Relu")


@pytest.mark.slow
def test_conv_1x1_gemm_tile(monkeypatch):
    _conv_case(monkeypatch, "conv1x1", (2, 9, 5, 7), (66, 9, 1, 1), {"kernel_shape": [1, 1]}, min_tiles=1)


@pytest.mark.slow
def test_conv_direct_grouped_dilated_asymmetric_pads(monkeypatch):
    _conv_case(monkeypatch, "conv_direct", (1, 4, 8, 7), (6, 2, 3, 3),
               {"kernel_shape": [3, 3], "strides": [2, 1], "pads": [1, 2, 0, 1], "dilations": [2, 1], "group": 2},
               bias=False)


def test_conv_depthwise_strided(monkeypatch):
    _conv_case(monkeypatch, "conv_depthwise", (1, 5, 7, 7), (5, 1, 5, 5),
               {"kernel_shape": [5, 5], "strides": [2, 2], "pads": [2, 2, 2, 2], "group": 5}, act="Clip")


@pytest.mark.slow
@pytest.mark.parametrize("m, kernel", [(2, "gemv"), (19, "gemm_tiled")])
def test_gemm_trans_b_with_bias(m, kernel):
    a, w, c = _rand(m, 37), _rand(70, 37), _rand(70)
    model = one_node_model("Gemm", {"a": a, "w": w, "c": c}, ("y", (m, 70)), {"transB": 1})
    (layer,) = _plan(model).layers
    assert layer.kernel == kernel
    got = emulate(layer.launches[0], {"a": a, "b": w, "bias": c})
    np.testing.assert_allclose(got.reshape(m, 70), reference(model, {"a": a, "w": w, "c": c}), rtol=1e-4, atol=1e-4)


def test_matmul_flattens_leading_dimensions():
    a, b = _rand(2, 6, 11), _rand(11, 13)
    model = one_node_model("MatMul", {"a": a, "b": b}, ("y", (2, 6, 13)))
    (layer,) = _plan(model).layers
    got = emulate(layer.launches[0], {"a": a, "b": b, "bias": np.zeros(13, np.float32)})
    np.testing.assert_allclose(got.reshape(2, 6, 13), reference(model, {"a": a, "b": b}), rtol=1e-4, atol=1e-4)


def test_batchnorm_unfolded_inference():
    x = _rand(2, 3, 4, 5)
    g, bt, mu, var = _rand(3), _rand(3), _rand(3), RNG.uniform(0.5, 2, 3).astype(np.float32)
    feeds = {"x": x, "g": g, "bt": bt, "mu": mu, "var": var}
    model = one_node_model("BatchNormalization", feeds, ("y", x.shape), {"epsilon": 1e-5})
    (layer,) = _plan(model).layers
    scale = g / np.sqrt(var + 1e-5)
    got = emulate(layer.launches[0], {"x": x, "scale": scale, "shift": bt - mu * scale})
    np.testing.assert_allclose(got.reshape(x.shape), reference(model, feeds), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op, attrs, inits", [
    ("Relu", {}, ()), ("Sigmoid", {}, ()), ("HardSwish", {}, ()), ("Tanh", {}, ()),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, ()), ("LeakyRelu", {"alpha": 0.1}, ()),
    ("Clip", {}, (("lo", -0.25), ("hi", 0.5)))])
def test_unary_activations(op, attrs, inits):
    x = _rand(3, 50) * 4
    model = one_node_model(op, {"x": x}, ("y", x.shape), attrs, inits=inits)
    (layer,) = _plan(model).layers
    got = emulate(layer.launches[0], {"x": x})
    np.testing.assert_allclose(got.reshape(x.shape), reference(model, {"x": x}), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op, b_shape", [("Add", (3, 1, 1)), ("Mul", (2, 3, 1, 1)), ("Add", (2, 3, 4, 5))])
def test_binary_broadcasting(op, b_shape):
    a, b = _rand(2, 3, 4, 5), _rand(*b_shape)
    model = one_node_model(op, {"a": a, "b": b}, ("y", a.shape))
    (layer,) = _plan(model).layers
    got = emulate(layer.launches[0], {"a": a, "b": b})
    np.testing.assert_allclose(got.reshape(a.shape), reference(model, {"a": a, "b": b}), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op, attrs", [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("AveragePool", {"kernel_shape": [2, 2], "strides": [2, 2], "count_include_pad": 1}),
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ("GlobalAveragePool", {})])
def test_pooling(op, attrs):
    x = _rand(2, 3, 8, 8)
    model = one_node_model(op, {"x": x}, ("y", None), attrs)
    (layer,) = _plan(model).layers
    want = reference(model, {"x": x})
    got = emulate(layer.launches[0], {"x": x})
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-5, atol=1e-6)


def test_concat_one_copy_per_input():
    a, b = _rand(2, 3, 4, 4), _rand(2, 5, 4, 4)
    model = one_node_model("Concat", {"a": a, "b": b}, ("y", (2, 8, 4, 4)), {"axis": 1})
    (layer,) = _plan(model).layers
    assert len(layer.launches) == 2
    y = emulate(layer.launches[0], {"x": a})
    y = emulate(layer.launches[1], {"x": b}, out=y)
    np.testing.assert_array_equal(y.reshape(2, 8, 4, 4), reference(model, {"a": a, "b": b}))


def test_softmax_last_axis():
    x = _rand(3, 300) * 5
    model = one_node_model("Softmax", {"x": x}, ("y", x.shape), {"axis": -1})
    (layer,) = _plan(model).layers
    np.testing.assert_allclose(emulate(layer.launches[0], {"x": x}).reshape(x.shape), reference(model, {"x": x}),
                               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_upsample(mode):
    x = _rand(1, 2, 4, 5)
    attrs = {"mode": mode} | ({"nearest_mode": "floor", "coordinate_transformation_mode": "asymmetric"}
                              if mode == "nearest" else {"coordinate_transformation_mode": "half_pixel"})
    from onnx import TensorProto, helper, numpy_helper

    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="r", **attrs)
    g = helper.make_graph([node], "t", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=[scales])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    (layer,) = _plan(model).layers
    want = reference(model, {"x": x})
    np.testing.assert_allclose(emulate(layer.launches[0], {"x": x}).reshape(want.shape), want, rtol=1e-5, atol=1e-5)


def test_lrn_across_channels():
    x = _rand(1, 7, 3, 3)
    model = one_node_model("LRN", {"x": x}, ("y", x.shape), {"size": 5, "alpha": 1e-2, "beta": 0.75, "bias": 2.0})
    (layer,) = _plan(model).layers
    np.testing.assert_allclose(emulate(layer.launches[0], {"x": x}).reshape(x.shape), reference(model, {"x": x}),
                               rtol=3e-3, atol=1e-6)   # __powf: ex2/lg2.approx


@pytest.mark.slow
def test_fp16_conv_and_tensor_core_gemm():
    """--dtype fp16: the half-precision conv (fp16 arithmetic) and the WMMA Gemm, to fp16 tolerance."""
    x, w = _rand(1, 4, 6, 6, dtype=np.float16), _rand(5, 4, 3, 3, dtype=np.float16)
    model = one_node_model("Conv", {"x": x, "w": w}, ("y", (1, 5, 6, 6)), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
    (layer,) = _plan(model, dtype="fp16").layers
    assert layer.launches[0].defines == ("-DPP_FP16",)
    got = emulate(layer.launches[0], {"x": x, "w": w, "bias": np.zeros(5, np.float16)})
    want = reference(model, {"x": x, "w": w})
    np.testing.assert_allclose(got.reshape(want.shape).astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2)
    a, b, c = _rand(3, 20, dtype=np.float16), _rand(18, 20, dtype=np.float16), _rand(18, dtype=np.float16)
    model = one_node_model("Gemm", {"a": a, "b": b, "c": c}, ("y", (3, 18)), {"transB": 1})
    (layer,) = _plan(model, dtype="fp16").layers
    assert layer.kernel == "gemm_wmma"
    pa = np.zeros((16, 32), np.float16)
    pa[:3, :20] = a
    pb = np.zeros((32, 32), np.float16)
    pb[:18, :20] = b
    pc = np.zeros(32, np.float16)
    pc[:18] = c
    got = emulate(layer.launches[0], {"a": pa, "b": pb, "bias": pc})
    np.testing.assert_allclose(got[:54].reshape(3, 18).astype(np.float32),
                               reference(model, {"a": a, "b": b, "c": c}).astype(np.float32), rtol=2e-2, atol=2e-2)
