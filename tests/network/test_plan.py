"""The lowering's documented rules, without any analysis: kernel choice, BatchNormalization
folding and activation fusion (and their options), views, and the warm-L2 rule per GPU."""

from __future__ import annotations

import pytest

pytest.importorskip("onnx")

from pipeperf.network.builtin import builtin_model
from pipeperf.network.graph import load_graph
from pipeperf.network.lower import MIN_TILES, plan
from pipeperf.network.run import warm_layers


@pytest.fixture(scope="module")
def mobilenetv2():
    return load_graph(builtin_model("mobilenetv2"))


def test_kernel_choice_rules(mobilenetv2):
    p = plan(mobilenetv2)
    by = {layer.name: layer for layer in p.layers}
    depthwise = [layer for layer in p.layers if layer.kernel == "conv_depthwise"]
    assert len(depthwise) == 17 and all("groups = channels" in layer.rule for layer in depthwise)
    for layer in p.layers:
        if layer.kernel in ("conv1x1", "conv_igemm"):
            assert int(layer.rule.rsplit("(", 1)[1].split()[0]) >= MIN_TILES
        if layer.kernel == "conv_direct":
            assert f"(< {MIN_TILES})" in layer.rule
    assert by["conv_1"].kernel == "conv_igemm"           # the stem: 3x3/2, 112x112 outputs
    assert p.layers[-1].kernel == "gemv" and p.layers[-2].kernel == ""      # fc at batch 1 after Flatten (a view)


def test_folding_and_fusion_options(mobilenetv2):
    fused = plan(mobilenetv2)
    assert fused.layers[0].op == "Conv+BatchNormalization+Clip"
    unfolded = plan(mobilenetv2, fold_bn=False)
    assert [layer.op for layer in unfolded.layers[:2]] == ["Conv", "BatchNormalization+Clip"]
    assert unfolded.layers[1].kernel == "batchnorm"
    separate = plan(mobilenetv2, fold_bn=False, fuse=False)
    assert [layer.kernel for layer in separate.layers[:3]] == ["conv_igemm", "batchnorm", "unary"]
    assert sum(layer.macs for layer in separate.layers) == sum(layer.macs for layer in fused.layers)


def test_warm_l2_needs_the_previous_layers_output_and_room_in_l2():
    p = plan(load_graph(builtin_model("vgg16")))
    h100, v100 = warm_layers(p, "hopper_h100"), warm_layers(p, "volta_v100")
    assert 0 not in h100                                  # the first layer reads the network's input
    names = [layer.name for layer in p.layers]
    # conv 2 of 224x224x64 (12.8 MB in, 12.8 MB out): in the H100's 50 MB L2, not the V100's 6 MB
    second = names.index(next(layer.name for layer in p.layers[1:] if layer.kernel.startswith("conv")))
    assert second in h100 and second not in v100
    assert len(h100) > len(v100) > 0


def test_exported_flatten_shape_arithmetic_costs_nothing():
    """A PyTorch-style export: Shape -> Gather -> Unsqueeze -> Concat -> Reshape builds the flatten's
    shape from int64 tensors; those nodes are the host's work (no kernel, not unsupported)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    f = TensorProto.FLOAT
    nodes = [helper.make_node("GlobalAveragePool", ["x"], ["p"], name="gap"),
             helper.make_node("Shape", ["p"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
             helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsq"),
             helper.make_node("Concat", ["n1", "minus1"], ["shp"], name="cat", axis=0),
             helper.make_node("Reshape", ["p", "shp"], ["r"], name="reshape"),
             helper.make_node("Gemm", ["r", "w", "b"], ["y"], name="fc", transB=1)]
    inits = [numpy_helper.from_array(np.array(0, np.int64), "zero"), numpy_helper.from_array(np.array([0], np.int64), "axes"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus1")]
    ins = [helper.make_tensor_value_info("x", f, ["N", 16, 7, 7]), helper.make_tensor_value_info("w", f, [10, 16]),
           helper.make_tensor_value_info("b", f, [10])]
    g = helper.make_graph(nodes, "exported", ins, [helper.make_tensor_value_info("y", f, None)], initializer=inits)
    p = plan(load_graph(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), batch=2))
    assert not p.unsupported
    assert [layer.kernel for layer in p.layers] == ["global_avg", "", "gemv"]
    assert p.layers[-1].macs == 2 * 16 * 10
