"""From graph nodes to launches of the bundled kernel library (``kernels/*.cu``).

Fusion (both on by default, both stated in the report): a BatchNormalization that is a
Conv's only consumer is folded into it (its scale into the weights, its shift into the bias, as
inference engines do: the kernel is the Conv's with a bias); an activation that is the only
consumer of a Conv, Gemm/MatMul, Add/Mul or unfolded BatchNormalization runs in that kernel's
epilogue. Flatten, Reshape, Identity, Dropout, Squeeze and Unsqueeze are views: no kernel.

Kernel choice (:data:`RULES`, printed per layer): depthwise convolutions (groups = channels) get
``conv_depthwise``; other grouped ones ``conv_direct``; a convolution with at least
:data:`MIN_TILES` 64x64 output tiles the tiled GEMM (``conv1x1`` for 1x1 stride-1 unpadded ones,
``conv_igemm`` otherwise), fewer the direct kernel (too few blocks to fill a GPU: one thread
per output keeps every SM busy); Gemm/MatMul with at most :data:`GEMV_ROWS` rows ``gemv`` (one
warp per output), else ``gemm_tiled``, and ``gemm_wmma`` on the tensor cores in fp16."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeperf.network.graph import Graph, Node

KERNEL_DIR = Path(__file__).parent / "kernels"
#: fewer 64x64 output tiles than this: the direct kernel (a third of a V100's 80 SMs would idle)
MIN_TILES = 32
#: Gemm rows up to which one warp per output beats a 64x64 tile (batch-1 classifiers)
GEMV_ROWS = 8
#: activation op -> the kernels' act code (kernels/pp_common.cuh)
ACT_OPS = {"Relu": 1, "Clip": 2, "Sigmoid": 3, "HardSwish": 4, "HardSigmoid": 5, "Tanh": 6, "LeakyRelu": 7}
VIEW_OPS = ("Flatten", "Reshape", "Identity", "Dropout", "Squeeze", "Unsqueeze")
#: ops that produce nothing the kernels read (constants): skipped silently, as is every node whose
#: outputs are all integer or boolean tensors (an exported model's shape arithmetic: Shape, Gather,
#: Unsqueeze, Concat of shapes for a Reshape; the host's work, or folded away by an inference engine)
QUIET_OPS = ("Constant",)
#: ONNX element types of shape arithmetic: INT64, INT32, BOOL
SHAPE_TYPES = (7, 6, 9)
RULES = {
    "conv_depthwise": "depthwise (groups = channels): one thread per output, the window in registers",
    "conv_direct": f"direct: one thread per output (grouped, or fewer than {MIN_TILES} 64x64 output tiles)",
    "conv1x1": "1x1, stride 1, no padding: the shared-memory GEMM tile, no gather",
    "conv_igemm": "implicit GEMM: the shared-memory GEMM tile over an im2col gather",
    "gemv": f"at most {GEMV_ROWS} rows: one warp per output, shuffle reduction",
    "gemm_tiled": "shared-memory 64x64 GEMM tile",
    "gemm_wmma": "fp16: tensor cores (WMMA 16x16x16), dimensions padded to 16",
    "batchnorm": "inference BatchNormalization, per-channel scale and shift",
    "unary": "element-wise activation, one thread per element",
    "binary": "element-wise Add/Mul with broadcasting, one thread per element",
    "pool2d": "pooling window per output thread",
    "global_avg": "one warp per channel plane, shuffle reduction",
    "concat_copy": "one copy launch per input into its slice",
    "softmax": "one block per row, shared-memory reductions",
    "resize": "one thread per output element",
    "lrn": "one thread per element, the channel window summed",
}


@dataclass(frozen=True)
class KernelLaunch:
    """One launch of a library kernel: what ``pipeperf analyze`` is given."""

    file: str                          # under KERNEL_DIR
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[str, ...]
    defines: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return KERNEL_DIR / self.file

    def key(self) -> tuple[Any, ...]:
        return (self.file, self.kernel, self.grid, self.block, self.args, self.defines)


@dataclass(frozen=True)
class Layer:
    """One or more fused nodes and the launches that compute them (none for a view)."""

    name: str
    op: str                            # e.g. "Conv+BatchNormalization+Relu"
    nodes: tuple[str, ...]
    kernel: str                        # "" for a view
    rule: str
    launches: tuple[KernelLaunch, ...]
    macs: int                          # multiply-adds of its Conv/Gemm/MatMul (one MAC = 2 FLOPs)
    inputs: tuple[str, ...]            # activation tensors read
    output: str
    input_bytes: int
    weight_bytes: int
    output_bytes: int


@dataclass(frozen=True)
class Unsupported:
    name: str
    op: str
    why: str


@dataclass(frozen=True)
class Plan:
    network: str
    dtype: str
    batch: int
    layers: tuple[Layer, ...]
    unsupported: tuple[Unsupported, ...]
    fold_bn: bool
    fuse: bool


class _Unsupported(Exception):
    pass


def _shape_arithmetic(node: Node, graph: Graph) -> bool:
    """Every output of ``node`` an integer or boolean tensor (QUIET_OPS)."""
    return bool(node.outputs) and all(graph.dtypes.get(o) in SHAPE_TYPES for o in node.outputs)


def plan(graph: Graph, dtype: str = "fp32", fold_bn: bool = True, fuse: bool = True) -> Plan:
    """Each node of ``graph`` as part of a :class:`Layer`, or :class:`Unsupported` (the run goes on)."""
    lw = _Lowering(graph, dtype, fold_bn, fuse)
    layers, bad = [], []
    taken: set[str] = set()
    for node in graph.nodes:
        if node.name in taken or node.op in QUIET_OPS or _shape_arithmetic(node, graph):
            continue
        try:
            layer = lw.layer(node, taken)
        except _Unsupported as e:
            bad.append(Unsupported(node.name, node.op, str(e)))
            continue
        layers.append(layer)
    batch = graph.shapes.get(graph.inputs[0], (1,))[0] if graph.inputs else 1
    return Plan(graph.name, dtype, int(batch or 1), tuple(layers), tuple(bad), fold_bn, fuse)


class _Lowering:
    def __init__(self, graph: Graph, dtype: str, fold_bn: bool, fuse: bool) -> None:
        self.g, self.fold_bn, self.fuse = graph, fold_bn, fuse
        self.dtype = dtype
        self.t = "f16" if dtype == "fp16" else "f32"
        self.size = 2 if dtype == "fp16" else 4
        self.defines = ("-DPP_FP16",) if dtype == "fp16" else ()
        self.users: dict[str, list[Node]] = {}
        for n in graph.nodes:
            for i in n.inputs:
                self.users.setdefault(i, []).append(n)
        for o in graph.outputs:
            self.users.setdefault(o, []).append(Node("<output>", "<output>", (o,), ()))

    # ---------------------------------------------------------------- helpers
    def shape(self, tensor: str, node: Node) -> tuple[int, ...]:
        s = self.g.shapes.get(tensor)
        if s is None:
            raise _Unsupported(f"no static shape for tensor {tensor!r} (shape inference left it symbolic)")
        return s

    def sole_user(self, tensor: str, ops: Any) -> Node | None:
        us = self.users.get(tensor, [])
        return us[0] if len(us) == 1 and us[0].op in ops else None

    def buf(self, name: str, count: int, fill: str = "rand") -> str:
        return f"{name}={fill}:{self.t}:{max(1, int(count))}"

    def act_of(self, node: Node | None) -> tuple[int, float, float]:
        if node is None:
            return 0, 0.0, 0.0
        code = ACT_OPS[node.op]
        if node.op == "Clip":
            lo = self._const(node, 1, "min", -3.0e38)
            hi = self._const(node, 2, "max", 3.0e38)
            return code, lo, hi
        if node.op == "HardSigmoid":
            return code, float(node.attrs.get("alpha", 0.2)), float(node.attrs.get("beta", 0.5))
        if node.op == "LeakyRelu":
            return code, float(node.attrs.get("alpha", 0.01)), 0.0
        return code, 0.0, 0.0

    def _const(self, node: Node, pos: int, attr: str, default: float) -> float:
        if pos < len(node.inputs) and node.inputs[pos]:
            v = self.g.constants.get(node.inputs[pos])
            if v is None:
                raise _Unsupported(f"Clip's {attr} is not a constant")
            return v
        return float(node.attrs.get(attr, default))

    def epilogue(self, start: Node, taken: set[str], fold: bool) -> tuple[list[Node], Node | None]:
        """The BatchNormalization (``fold``) and activation that ``start``'s output flows into alone."""
        chain: list[Node] = []
        out = start.outputs[0]
        if fold and self.fold_bn:
            bn = self.sole_user(out, ("BatchNormalization",))
            if bn is not None:
                chain.append(bn)
                out = bn.outputs[0]
        act = self.sole_user(out, ACT_OPS) if self.fuse else None
        if act is not None:
            chain.append(act)
        for n in chain:
            taken.add(n.name)
        return chain, act

    def params_bytes(self, nodes: list[Node]) -> int:
        total = 0
        for n in nodes:
            for i in n.inputs:
                if i in self.g.params and i in self.g.shapes:
                    total += math.prod(self.g.shapes[i]) * self.size
        return total

    def make(self, node: Node, chain: list[Node], kernel: str, launches: list[KernelLaunch], macs: int = 0,
             rule: str = "") -> Layer:
        nodes = [node, *chain]
        out = nodes[-1].outputs[0]
        acts = tuple(i for i in node.inputs if i and i not in self.g.params and i not in self.g.constants)
        ib = sum(math.prod(self.g.shapes.get(i, (0,))) for i in acts) * self.size
        ob = math.prod(self.g.shapes.get(out, (0,))) * self.size
        return Layer(node.name, "+".join(n.op for n in nodes), tuple(n.name for n in nodes), kernel,
                     rule or RULES.get(kernel, ""), tuple(launches), int(macs), acts, out, int(ib),
                     self.params_bytes(nodes), int(ob))

    def launch(self, file: str, kernel: str, grid: Any, block: int, args: list[str]) -> KernelLaunch:
        g = tuple(grid) if isinstance(grid, tuple) else (int(grid),)
        g3 = (g + (1, 1, 1))[:3]
        return KernelLaunch(file, kernel, tuple(int(v) for v in g3), (block, 1, 1), tuple(args), self.defines)  # type: ignore[arg-type]

    # ---------------------------------------------------------------- ops
    def layer(self, node: Node, taken: set[str]) -> Layer:
        op = node.op
        if op in VIEW_OPS:
            return self.make(node, [], "", [], rule="a view of its input: no kernel")
        handler = getattr(self, "_" + op, None)
        if handler is None:
            raise _Unsupported(f"no kernel in pipeperf's library for ONNX op {op}")
        return handler(node, taken)

    def _Conv(self, node: Node, taken: set[str]) -> Layer:
        x, w = self.shape(node.inputs[0], node), self.shape(node.inputs[1], node)
        if len(x) != 4:
            raise _Unsupported(f"{len(x) - 2}-D convolution: the library has 2-D kernels only")
        chain, act = self.epilogue(node, taken, True)
        y = self.shape(chain[-1].outputs[0] if chain else node.outputs[0], node)
        n, c, h, wd = x
        k, cg, r, s = w
        p, q = y[2], y[3]
        groups = int(node.attrs.get("group", 1))
        sh, sw = (list(node.attrs.get("strides", [1, 1])) + [1, 1])[:2]
        dh, dw = (list(node.attrs.get("dilations", [1, 1])) + [1, 1])[:2]
        ph, pw = self._pads(node, (h, wd), (p, q), (r, s), (sh, sw), (dh, dw))
        has_bias = int((len(node.inputs) > 2 and bool(node.inputs[2])) or any(m.op == "BatchNormalization" for m in chain))
        a, lo, hi = self.act_of(act)
        tail = [f"has_bias={has_bias}", f"act={a}", f"lo={lo!r}", f"hi={hi!r}"]
        bufs = [self.buf("x", n * c * h * wd), self.buf("w", k * cg * r * s), self.buf("bias", k),
                self.buf("y", n * k * p * q, "zeros")]
        macs = n * k * p * q * cg * r * s
        total = n * k * p * q
        tiles = -(-k // 64) * -(-(n * p * q) // 64)
        if groups > 1 and groups == c == k:
            args = bufs + [f"N={n}", f"C={c}", f"H={h}", f"W={wd}", f"R={r}", f"S={s}", f"P={p}", f"Q={q}",
                           f"sh={sh}", f"sw={sw}", f"ph={ph}", f"pw={pw}", f"dh={dh}", f"dw={dw}"] + tail
            return self.make(node, chain, "conv_depthwise",
                             [self.launch("conv_depthwise.cu", "conv_depthwise", -(-total // 256), 256, args)], macs)
        geo = [f"N={n}", f"C={c}", f"H={h}", f"W={wd}", f"K={k}", f"R={r}", f"S={s}", f"P={p}", f"Q={q}",
               f"sh={sh}", f"sw={sw}", f"ph={ph}", f"pw={pw}", f"dh={dh}", f"dw={dw}"]
        if groups > 1 or tiles < MIN_TILES:
            why = f"grouped ({groups} groups): direct" if groups > 1 else \
                f"{tiles} 64x64 output tiles (< {MIN_TILES}): direct, one thread per output"
            return self.make(node, chain, "conv_direct",
                             [self.launch("conv_direct.cu", "conv_direct", -(-total // 256), 256,
                                          bufs + geo + [f"groups={groups}"] + tail)], macs, why)
        grid = (-(-(n * p * q) // 64), -(-k // 64))
        if r == s == 1 and sh == sw == 1 and ph == pw == 0 and (p, q) == (h, wd):
            args = bufs + [f"N={n}", f"C={c}", f"HW={h * wd}", f"K={k}"] + tail
            return self.make(node, chain, "conv1x1", [self.launch("conv1x1.cu", "conv1x1", grid, 256, args)], macs,
                             f"{RULES['conv1x1']} ({tiles} tiles)")
        return self.make(node, chain, "conv_igemm", [self.launch("conv_igemm.cu", "conv_igemm", grid, 256,
                                                                  bufs + geo + tail)], macs,
                         f"{RULES['conv_igemm']} ({tiles} tiles)")

    @staticmethod
    def _pads(node: Node, hw: tuple[int, int], pq: tuple[int, int], rs: tuple[int, int], st: tuple[int, int],
              dil: tuple[int, int]) -> tuple[int, int]:
        """The top and left padding (explicit pads, or auto_pad's SAME_* split)."""
        auto = node.attrs.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else str(auto)
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            out = []
            for d, o, k, s_, dd in zip(hw, pq, rs, st, dil):
                total = max(0, (o - 1) * s_ + (k - 1) * dd + 1 - d)
                out.append(total // 2 if auto == "SAME_UPPER" else total - total // 2)
            return out[0], out[1]
        pads = list(node.attrs.get("pads", [0, 0, 0, 0]))
        return (int(pads[0]), int(pads[1])) if len(pads) >= 2 else (0, 0)

    def _gemm(self, node: Node, taken: set[str], a_shape: tuple[int, ...], b_shape: tuple[int, ...],
              trans_a: bool, trans_b: bool, bias: str | None) -> Layer:
        chain, act = self.epilogue(node, taken, False)
        m = a_shape[1] if trans_a else a_shape[0]
        kk = a_shape[0] if trans_a else a_shape[1]
        n = b_shape[0] if trans_b else b_shape[1]
        sam, sak = (1, m) if trans_a else (kk, 1)
        sbk, sbn = (1, kk) if trans_b else (n, 1)
        has_bias = 0
        if bias:
            bs = self.shape(bias, node)
            if math.prod(bs) not in (1, n):
                raise _Unsupported(f"Gemm bias of shape {list(bs)}: the kernels add a bias per output column")
            has_bias = 1
        a, lo, hi = self.act_of(act)
        tail = [f"has_bias={has_bias}", f"act={a}", f"lo={lo!r}", f"hi={hi!r}"]
        macs = m * n * kk
        if self.dtype == "fp16":
            pm, pn, pk = (-(-v // 16) * 16 for v in (m, n, kk))
            args = [self.buf("a", pm * pk), self.buf("b", pn * pk), self.buf("bias", pn), self.buf("y", pm * pn, "zeros"),
                    f"M={m}", f"N={n}", f"K={pk}"] + tail
            return self.make(node, chain, "gemm_wmma",
                             [self.launch("gemm_wmma.cu", "gemm_wmma", (pn // 16, pm // 16), 32, args)], macs)
        bufs = [self.buf("a", m * kk), self.buf("b", kk * n), self.buf("bias", n), self.buf("y", m * n, "zeros")]
        args = bufs + [f"M={m}", f"N={n}", f"K={kk}", f"sam={sam}", f"sak={sak}", f"sbk={sbk}", f"sbn={sbn}"] + tail
        if m <= GEMV_ROWS:
            return self.make(node, chain, "gemv", [self.launch("gemv.cu", "gemv", -(-(m * n) // 8), 256, args)], macs)
        return self.make(node, chain, "gemm_tiled",
                         [self.launch("gemm_tiled.cu", "gemm_tiled", (-(-m // 64), -(-n // 64)), 256, args)], macs)

    def _Gemm(self, node: Node, taken: set[str]) -> Layer:
        a, b = self.shape(node.inputs[0], node), self.shape(node.inputs[1], node)
        if len(a) != 2 or len(b) != 2:
            raise _Unsupported("Gemm of inputs that are not matrices")
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        return self._gemm(node, taken, a, b, bool(node.attrs.get("transA", 0)), bool(node.attrs.get("transB", 0)), bias)

    def _MatMul(self, node: Node, taken: set[str]) -> Layer:
        a, b = self.shape(node.inputs[0], node), self.shape(node.inputs[1], node)
        if len(b) != 2 or len(a) < 2:
            raise _Unsupported("batched MatMul (a right operand of more than 2 dimensions)")
        return self._gemm(node, taken, (math.prod(a[:-1]), a[-1]), b, False, False, None)

    def _BatchNormalization(self, node: Node, taken: set[str]) -> Layer:
        x = self.shape(node.inputs[0], node)
        chain, act = self.epilogue(node, taken, False)
        total, c = math.prod(x), x[1] if len(x) > 1 else 1
        a, lo, hi = self.act_of(act)
        args = [self.buf("x", total), self.buf("scale", c), self.buf("shift", c), self.buf("y", total, "zeros"),
                f"total={total}", f"C={c}", f"HW={total // max(1, x[0] * c)}", f"act={a}", f"lo={lo!r}", f"hi={hi!r}"]
        return self.make(node, chain, "batchnorm", [self.launch("batchnorm.cu", "batchnorm", -(-total // 256), 256, args)])

    def _unary(self, node: Node, taken: set[str]) -> Layer:
        total = math.prod(self.shape(node.inputs[0], node))
        a, lo, hi = self.act_of(node)
        args = [self.buf("x", total), self.buf("y", total, "zeros"), f"total={total}", f"act={a}", f"lo={lo!r}", f"hi={hi!r}"]
        return self.make(node, [], "unary", [self.launch("eltwise.cu", "unary", -(-total // 256), 256, args)])

    _Relu = _Clip = _Sigmoid = _HardSwish = _HardSigmoid = _Tanh = _LeakyRelu = _unary

    def _binary(self, node: Node, taken: set[str]) -> Layer:
        out = self.shape(node.outputs[0], node)
        if len(out) > 4:
            raise _Unsupported(f"{len(out)}-D broadcasting: the element-wise kernel takes up to 4 dimensions")
        chain, act = self.epilogue(node, taken, False)
        d = (1,) * (4 - len(out)) + tuple(out)
        strides = []
        for t in node.inputs[:2]:
            s = self.shape(t, node)
            s4 = (1,) * (4 - len(s)) + tuple(s)
            dense = [math.prod(s4[i + 1:]) for i in range(4)]
            strides.append([0 if s4[i] == 1 and d[i] != 1 else dense[i] for i in range(4)])
        total = math.prod(d)
        a, lo, hi = self.act_of(act)
        sizes = [math.prod(self.shape(t, node)) for t in node.inputs[:2]]
        args = [self.buf("a", sizes[0]), self.buf("b", sizes[1]), self.buf("y", total, "zeros"),
                f"d1={d[1]}", f"d2={d[2]}", f"d3={d[3]}", f"total={total}"]
        args += [f"sa{i}={v}" for i, v in enumerate(strides[0])] + [f"sb{i}={v}" for i, v in enumerate(strides[1])]
        args += [f"op={0 if node.op == 'Add' else 1}", f"act={a}", f"lo={lo!r}", f"hi={hi!r}"]
        return self.make(node, chain, "binary", [self.launch("eltwise.cu", "binary", -(-total // 256), 256, args)])

    _Add = _Mul = _binary

    def _pool(self, node: Node, taken: set[str]) -> Layer:
        x = self.shape(node.inputs[0], node)
        y = self.shape(node.outputs[0], node)
        if len(x) != 4:
            raise _Unsupported(f"{len(x) - 2}-D pooling: the library has 2-D kernels only")
        n, c, h, w = x
        glob = node.op.startswith("Global")
        r, s = (h, w) if glob else tuple(node.attrs["kernel_shape"])
        st = (1, 1) if glob else tuple((list(node.attrs.get("strides", [1, 1])) + [1, 1])[:2])
        dil = (1, 1) if glob else tuple((list(node.attrs.get("dilations", [1, 1])) + [1, 1])[:2])
        ph, pw = (0, 0) if glob else self._pads(node, (h, w), (y[2], y[3]), (r, s), st, dil)
        if node.op == "GlobalAveragePool":
            args = [self.buf("x", n * c * h * w), self.buf("y", n * c, "zeros"), f"planes={n * c}", f"HW={h * w}"]
            return self.make(node, [], "global_avg",
                             [self.launch("pool.cu", "global_avg", -(-(n * c * 32) // 256), 256, args)])
        is_max = int("Max" in node.op)
        args = [self.buf("x", n * c * h * w), self.buf("y", math.prod(y), "zeros"), f"N={n}", f"C={c}", f"H={h}",
                f"W={w}", f"P={y[2]}", f"Q={y[3]}", f"R={r}", f"S={s}", f"sh={st[0]}", f"sw={st[1]}", f"ph={ph}",
                f"pw={pw}", f"dh={dil[0]}", f"dw={dil[1]}", f"is_max={is_max}",
                f"count_pad={int(node.attrs.get('count_include_pad', 0))}"]
        return self.make(node, [], "pool2d", [self.launch("pool.cu", "pool2d", -(-math.prod(y) // 256), 256, args)])

    _MaxPool = _AveragePool = _GlobalAveragePool = _GlobalMaxPool = _pool

    def _Concat(self, node: Node, taken: set[str]) -> Layer:
        out = self.shape(node.outputs[0], node)
        axis = int(node.attrs.get("axis", 1)) % len(out)
        inner = math.prod(out[axis + 1:])
        launches, off = [], 0
        for t in node.inputs:
            s = self.shape(t, node)
            total = math.prod(s)
            args = [self.buf("x", total), self.buf("y", math.prod(out), "zeros"), f"total={total}",
                    f"len_inner={s[axis] * inner}", f"out_len_inner={out[axis] * inner}", f"offset_inner={off * inner}"]
            launches.append(self.launch("concat.cu", "concat_copy", -(-total // 256), 256, args))
            off += s[axis]
        return self.make(node, [], "concat_copy", launches)

    def _Softmax(self, node: Node, taken: set[str]) -> Layer:
        x = self.shape(node.inputs[0], node)
        axis = int(node.attrs.get("axis", -1)) % len(x)
        if axis != len(x) - 1:
            raise _Unsupported(f"Softmax over axis {axis} of a {len(x)}-D tensor: the kernel reduces the last axis")
        rows, cols = math.prod(x[:-1]), x[-1]
        args = [self.buf("x", rows * cols), self.buf("y", rows * cols, "zeros"), f"cols={cols}"]
        return self.make(node, [], "softmax", [self.launch("softmax.cu", "softmax", rows, 256, args)])

    def _Resize(self, node: Node, taken: set[str]) -> Layer:
        x, y = self.shape(node.inputs[0], node), self.shape(node.outputs[0], node)
        if len(x) != 4 or x[:2] != y[:2]:
            raise _Unsupported("Resize of other than the two spatial axes of an NCHW tensor")
        mode = node.attrs.get("mode", b"nearest")
        mode = mode.decode() if isinstance(mode, bytes) else str(mode)
        if mode not in ("nearest", "linear"):
            raise _Unsupported(f"Resize mode {mode!r}: the kernel has nearest and (bi)linear")
        planes = x[0] * x[1]
        args = [self.buf("x", math.prod(x)), self.buf("y", math.prod(y), "zeros"), f"planes={planes}", f"H={x[2]}",
                f"W={x[3]}", f"P={y[2]}", f"Q={y[3]}", f"mode={0 if mode == 'nearest' else 1}"]
        return self.make(node, [], "resize", [self.launch("resize.cu", "resize", -(-math.prod(y) // 256), 256, args)])

    def _LRN(self, node: Node, taken: set[str]) -> Layer:
        x = self.shape(node.inputs[0], node)
        n, c = x[0], x[1]
        hw = math.prod(x[2:])
        args = [self.buf("x", math.prod(x)), self.buf("y", math.prod(x), "zeros"), f"N={n}", f"C={c}", f"HW={hw}",
                f"size={int(node.attrs['size'])}", f"alpha={float(node.attrs.get('alpha', 1e-4))!r}",
                f"beta={float(node.attrs.get('beta', 0.75))!r}", f"bias={float(node.attrs.get('bias', 1.0))!r}"]
        return self.make(node, [], "lrn", [self.launch("lrn.cu", "lrn", -(-math.prod(x) // 256), 256, args)])
