"""Emulating a lowered layer's launches on NumPy buffers (full mode: every CTA, every value), so
its output can be compared with onnx.reference.ReferenceEvaluator's."""

from __future__ import annotations

import numpy as np

from pipeperf.emulate import run_kernel


def one_node_model(op, inputs, output, attrs=None, inits=(), opset=17):
    """An ONNX model of one node: ``inputs`` name -> array (fp32 or fp16), ``output`` (name, shape)."""
    from onnx import TensorProto, helper, numpy_helper

    def tt(a):
        return TensorProto.FLOAT16 if a.dtype == np.float16 else TensorProto.FLOAT

    vis = [helper.make_tensor_value_info(n, tt(a), list(a.shape)) for n, a in inputs.items()]
    init = [numpy_helper.from_array(np.asarray(v, np.float32), n) for n, v in inits]
    first = next(iter(inputs.values()))
    out = helper.make_tensor_value_info(output[0], tt(first), list(output[1]) if output[1] is not None else None)
    node = helper.make_node(op, list(inputs) + [n for n, _ in inits], [output[0]], name="n0", **(attrs or {}))
    g = helper.make_graph([node], "t", vis, [out], initializer=init)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def reference(model, feeds):
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(model).run(None, feeds)[0]


def emulate(launch, buffers, out=None):
    """Run ``launch`` (a lower.KernelLaunch) in full mode with ``buffers`` (name -> array) in place
    of its generated buffers; returns the ``y`` buffer (``out`` if given: several launches that
    write one output)."""
    args = {}
    for a in launch.args:
        name, spec = a.split("=", 1)
        if spec.startswith(("rand:", "zeros:")):
            if name == "y":
                n = int(spec.split(":")[2])
                dt = np.float16 if ":f16:" in spec else np.float32
                args[name] = out if out is not None else np.zeros(n, dt)
            else:
                args[name] = np.ascontiguousarray(buffers[name]).reshape(-1)
        else:
            args[name] = spec
    run_kernel(str(launch.path), launch.grid, launch.block, args, kernel=launch.kernel, mode="full",
               nvcc_flags=list(launch.defines))
    return args["y"]
