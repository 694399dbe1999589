"""An ONNX graph as the records the lowering reads: nodes in topological order, every tensor's
static shape (``onnx.shape_inference``), and which inputs are parameters (weights, biases,
statistics) rather than activations. Weights are never read: a parameter needs only its shape,
so a model may keep its weights as initializers or declare them as graph inputs (the built-in
networks do, to stay small)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError

#: input positions that hold parameters, per op (the rest are activations)
PARAM_INPUTS: dict[str, tuple[int, ...]] = {
    "Conv": (1, 2), "Gemm": (1, 2), "BatchNormalization": (1, 2, 3, 4), "PRelu": (1,),
}
#: ONNX element types pipeperf's kernels understand -> their name
DTYPES = {1: "fp32", 10: "fp16"}


@dataclass(frozen=True)
class Node:
    """One ONNX node: its op, tensor names in and out, and attributes as Python values."""

    name: str
    op: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Graph:
    """A network: ``nodes`` in topological order, ``shapes`` of every tensor whose shape is
    static, ``params`` the tensors that are weights, ``inputs`` the activations fed in."""

    name: str
    nodes: tuple[Node, ...]
    shapes: dict[str, tuple[int, ...]] = field(hash=False)
    params: frozenset[str]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    constants: dict[str, float] = field(default_factory=dict, hash=False)   # scalar initializers / Constants
    dtypes: dict[str, int] = field(default_factory=dict, hash=False)        # ONNX element type per tensor

    def consumers(self, tensor: str) -> list[Node]:
        return [n for n in self.nodes if tensor in n.inputs]


def load_model(source: str | Path | Any) -> Any:
    """An ``onnx.ModelProto`` from a file (a one-line error for a missing or malformed one)."""
    onnx = _onnx()
    if not isinstance(source, (str, Path)):
        return source
    path = Path(source)
    if not path.is_file():
        raise PipeperfError("no such ONNX file", file=str(path))
    try:
        return onnx.load(str(path), load_external_data=False)
    except Exception as e:          # protobuf's DecodeError and friends: not an ONNX file
        raise PipeperfError(f"not an ONNX model ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'unreadable'})",
                            file=str(path)) from None


def load_graph(source: str | Path | Any, batch: int | None = None) -> Graph:
    """The :class:`Graph` of an ONNX file or ModelProto; ``batch`` replaces the first dimension
    of every activation input before shapes are inferred (without it, a symbolic first dimension,
    such as an exported model's 'N', is taken as 1)."""
    onnx = _onnx()
    model = load_model(source)
    g = model.graph
    initializers = {t.name for t in g.initializer}
    params = _params(g, initializers)
    inputs = tuple(i.name for i in g.input if i.name not in initializers and i.name not in params)
    if batch is None and any(i.name in inputs and i.type.tensor_type.shape.dim and
                             not i.type.tensor_type.shape.dim[0].HasField("dim_value") for i in g.input):
        batch = 1
    if batch is not None:
        for i in g.input:
            dims = i.type.tensor_type.shape.dim
            if i.name in inputs and dims:
                dims[0].ClearField("dim_param")
                dims[0].dim_value = batch
        for o in g.output:                       # shapes the old batch fixed are inferred again
            dims = o.type.tensor_type.shape.dim
            if dims:
                dims[0].dim_param = "batch"
        del g.value_info[:]
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except Exception as e:
        where = str(source) if isinstance(source, (str, Path)) else None
        raise PipeperfError(f"ONNX shape inference failed: {str(e).splitlines()[0]}", file=where) from None
    shapes: dict[str, tuple[int, ...]] = {}
    dtypes: dict[str, int] = {}
    gi = inferred.graph
    for vi in list(gi.input) + list(gi.value_info) + list(gi.output):
        s = _shape(vi)
        if s is not None:
            shapes[vi.name] = s
        if vi.type.tensor_type.elem_type:
            dtypes[vi.name] = int(vi.type.tensor_type.elem_type)
    for t in gi.initializer:
        shapes[t.name] = tuple(int(d) for d in t.dims)
    nodes = tuple(Node(n.name or f"{n.op_type}_{k}", n.op_type, tuple(n.input), tuple(n.output),
                       {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute})
                  for k, n in enumerate(gi.node))
    return Graph(g.name or "network", nodes, shapes, frozenset(params | initializers), inputs,
                 tuple(o.name for o in g.output), _constants(gi), dtypes)


def _constants(g: Any) -> dict[str, float]:
    """The one-element initializers and Constant nodes (Clip's min and max are inputs since opset 11)."""
    from onnx import numpy_helper

    out = {}
    tensors = [(t.name, t) for t in g.initializer]
    tensors += [(n.output[0], a.t) for n in g.node if n.op_type == "Constant" for a in n.attribute if a.name == "value"]
    for name, t in tensors:
        if _prod(t.dims) == 1:
            out[name] = float(numpy_helper.to_array(t).reshape(-1)[0])
    return out


def _prod(dims: Any) -> int:
    p = 1
    for d in dims:
        p *= int(d)
    return p


def _params(g: Any, initializers: set[str]) -> set[str]:
    """Tensors at a parameter position of some node (PARAM_INPUTS), or initializers."""
    out = set(initializers)
    for n in g.node:
        for k in PARAM_INPUTS.get(n.op_type, ()):
            if k < len(n.input) and n.input[k]:
                out.add(n.input[k])
    return out


def _shape(vi: Any) -> tuple[int, ...] | None:
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    dims = []
    for d in t.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(int(d.dim_value))
    return tuple(dims)


def _onnx() -> Any:
    try:
        import onnx
        import onnx.shape_inference
    except ImportError:
        raise PipeperfError("pipeperf network needs the onnx package: pip install 'pipeperf[network]'") from None
    return onnx
