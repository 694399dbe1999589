"""Published CNN architectures built in code as ONNX graphs (no download, no weights): each
weight is a graph input with its shape only, which is all the analysis needs.

Each builder follows its paper's architecture table; where the paper leaves a choice open, the
choice is the one of the reference implementation named in its docstring. ``NETWORKS`` maps
``--builtin`` names to builders; :data:`PUBLISHED` gives each network's published
multiply-add count and its source (tests/network/test_builtin_flops.py checks the graphs'
counts against them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pipeperf.errors import PipeperfError


@dataclass(frozen=True)
class Published:
    """A network's published multiply-add count (one MAC = 2 FLOPs) and where it is published."""

    macs: float
    source: str


PUBLISHED: dict[str, Published] = {
    "alexnet": Published(720e6, "Howard et al. 2017, MobileNets (arXiv:1704.04861), Table 10: AlexNet 720 million Mult-Adds"),
    "vgg16": Published(15300e6, "Howard et al. 2017, MobileNets (arXiv:1704.04861), Table 8: VGG 16 15300 million Mult-Adds"),
    "resnet18": Published(1.8e9, "He et al. 2016, Deep Residual Learning (CVPR), Table 1: 18-layer 1.8 x 10^9 FLOPs (multiply-adds, Sec. 3.3)"),
    "resnet50": Published(3.8e9, "He et al. 2016, Deep Residual Learning (CVPR), Table 1: 50-layer 3.8 x 10^9 FLOPs (multiply-adds, Sec. 3.3)"),
    "mobilenetv1": Published(569e6, "Howard et al. 2017, MobileNets (arXiv:1704.04861), Table 8: 1.0 MobileNet-224 569 million Mult-Adds"),
    "mobilenetv2": Published(300e6, "Sandler et al. 2018, MobileNetV2 (CVPR), Table 4: MobileNetV2 (1.0, 224) 300M MAdds"),
    "densenet121": Published(2.83e9, "torchvision model documentation (pytorch.org/vision/stable/models.html, table of "
                                     "classification weights): DenseNet121_Weights.IMAGENET1K_V1 2.83 GFLOPS (multiply-adds, "
                                     "counted by fvcore); the DenseNet paper (Huang et al. 2017) plots but does not tabulate it"),
    "squeezenet": Published(0.82e9, "torchvision model documentation (pytorch.org/vision/stable/models.html): "
                                    "SqueezeNet1_0_Weights.IMAGENET1K_V1 0.82 GFLOPS (multiply-adds, fvcore) at 224x224"),
    "efficientnet_b0": Published(0.39e9, "Tan and Le 2019, EfficientNet (ICML), Table 2: EfficientNet-B0 0.39B FLOPS "
                                         "(multiply-adds, as the paper's comparison with ResNet-50's 4.1B shows)"),
}


class NetBuilder:
    """Adds nodes to an ONNX graph while tracking NCHW shapes, so each layer needs only its
    hyper-parameters (output channels, kernel, stride)."""

    def __init__(self, name: str, shape: Sequence[int] = (1, 3, 224, 224)) -> None:
        from onnx import TensorProto, helper

        self.h, self.f32 = helper, TensorProto.FLOAT
        self.name = name
        self.nodes: list[Any] = []
        self.inputs = [helper.make_tensor_value_info("input", self.f32, list(shape))]
        self.inits: list[Any] = []
        self.shape: dict[str, tuple[int, ...]] = {"input": tuple(shape)}
        self.count = 0

    def _new(self, op: str, inputs: list[str], shape: tuple[int, ...], **attrs: Any) -> str:
        self.count += 1
        name = f"{op.lower()}_{self.count}"
        self.nodes.append(self.h.make_node(op, inputs, [name], name=name, **attrs))
        self.shape[name] = shape
        return name

    def _param(self, name: str, shape: Sequence[int]) -> str:
        self.inputs.append(self.h.make_tensor_value_info(name, self.f32, list(shape)))
        return name

    def _scalar(self, value: float) -> str:
        name = f"const_{len(self.inits)}"
        self.inits.append(self.h.make_tensor(name, self.f32, [], [value]))
        return name

    def conv(self, x: str, k: int, r: int, stride: int = 1, pad: int | None = None, groups: int = 1,
             bias: bool = False) -> str:
        n, c, hh, ww = self.shape[x]
        p = r // 2 if pad is None else pad
        wname = self._param(f"w{self.count + 1}", [k, c // groups, r, r])
        ins = [x, wname] + ([self._param(f"b{self.count + 1}", [k])] if bias else [])
        out = (n, k, (hh + 2 * p - r) // stride + 1, (ww + 2 * p - r) // stride + 1)
        return self._new("Conv", ins, out, kernel_shape=[r, r], strides=[stride, stride], pads=[p] * 4, group=groups)

    def bn(self, x: str) -> str:
        c = self.shape[x][1]
        ps = [self._param(f"bn{self.count + 1}_{s}", [c]) for s in ("scale", "bias", "mean", "var")]
        return self._new("BatchNormalization", [x, *ps], self.shape[x], epsilon=1e-5)

    def act(self, x: str, op: str) -> str:
        if op == "Relu6":
            return self._new("Clip", [x, self._scalar(0.0), self._scalar(6.0)], self.shape[x])
        if op == "Swish":                        # x * sigmoid(x) (EfficientNet's activation)
            return self.mul(x, self._new("Sigmoid", [x], self.shape[x]))
        return self._new(op, [x], self.shape[x])

    def cbr(self, x: str, k: int, r: int, stride: int = 1, act: str | None = "Relu", groups: int = 1) -> str:
        """Conv, BatchNormalization and an activation (None: linear)."""
        y = self.bn(self.conv(x, k, r, stride, groups=groups))
        return self.act(y, act) if act else y

    def add(self, a: str, b: str) -> str:
        return self._new("Add", [a, b], self.shape[a])

    def mul(self, a: str, b: str) -> str:
        sa, sb = self.shape[a], self.shape[b]
        return self._new("Mul", [a, b], tuple(max(x, y) for x, y in zip(sa, sb)))

    def pool(self, x: str, op: str, r: int, stride: int, pad: int = 0, ceil: bool = False) -> str:
        n, c, hh, ww = self.shape[x]
        size = (lambda d: -(-(d + 2 * pad - r) // stride) + 1) if ceil else (lambda d: (d + 2 * pad - r) // stride + 1)
        return self._new(op, [x], (n, c, size(hh), size(ww)), kernel_shape=[r, r], strides=[stride, stride],
                         pads=[pad] * 4, **({"ceil_mode": 1} if ceil else {}))

    def gap(self, x: str) -> str:
        n, c = self.shape[x][:2]
        return self._new("GlobalAveragePool", [x], (n, c, 1, 1))

    def lrn(self, x: str) -> str:
        return self._new("LRN", [x], self.shape[x], size=5, alpha=1e-4, beta=0.75, bias=2.0)

    def concat(self, xs: Sequence[str]) -> str:
        n, _, hh, ww = self.shape[xs[0]]
        return self._new("Concat", list(xs), (n, sum(self.shape[x][1] for x in xs), hh, ww), axis=1)

    def fc(self, x: str, k: int, flatten: bool = True) -> str:
        if flatten:
            n = self.shape[x][0]
            x = self._new("Flatten", [x], (n, int(_prod(self.shape[x][1:]))), axis=1)
        n, c = self.shape[x]
        w, b = self._param(f"w{self.count + 1}", [k, c]), self._param(f"b{self.count + 1}", [k])
        return self._new("Gemm", [x, w, b], (n, k), transB=1)

    def model(self, out: str) -> Any:
        h = self.h
        y = h.make_tensor_value_info(out, self.f32, list(self.shape[out]))
        g = h.make_graph(self.nodes, self.name, self.inputs, [y], initializer=self.inits)
        return h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="pipeperf")


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def alexnet() -> Any:
    """AlexNet (Krizhevsky et al. 2012, Fig. 2 and Sec. 3.3-3.5) on 227x227: the two GPUs' halves as
    groups=2 convolutions (conv2, conv4, conv5), LRN after conv1 and conv2, overlapping 3x3/2 max
    pooling, three fully connected layers."""
    b = NetBuilder("alexnet", (1, 3, 227, 227))
    x = b.pool(b.lrn(b.act(b.conv("input", 96, 11, 4, pad=0, bias=True), "Relu")), "MaxPool", 3, 2)
    x = b.pool(b.lrn(b.act(b.conv(x, 256, 5, pad=2, groups=2, bias=True), "Relu")), "MaxPool", 3, 2)
    x = b.act(b.conv(x, 384, 3, bias=True), "Relu")
    x = b.act(b.conv(x, 384, 3, groups=2, bias=True), "Relu")
    x = b.pool(b.act(b.conv(x, 256, 3, groups=2, bias=True), "Relu"), "MaxPool", 3, 2)
    x = b.act(b.fc(x, 4096), "Relu")
    x = b.act(b.fc(x, 4096, flatten=False), "Relu")
    return b.model(b._new("Softmax", [b.fc(x, 1000, flatten=False)], (1, 1000), axis=-1))


def vgg16() -> Any:
    """VGG-16 (Simonyan and Zisserman 2015, Table 1, configuration D): 13 3x3 convolutions in five
    stages with 2x2 max pooling, three fully connected layers."""
    b = NetBuilder("vgg16")
    x = "input"
    for n, k in ((2, 64), (2, 128), (3, 256), (3, 512), (3, 512)):
        for _ in range(n):
            x = b.act(b.conv(x, k, 3, bias=True), "Relu")
        x = b.pool(x, "MaxPool", 2, 2)
    x = b.act(b.fc(x, 4096), "Relu")
    x = b.act(b.fc(x, 4096, flatten=False), "Relu")
    return b.model(b._new("Softmax", [b.fc(x, 1000, flatten=False)], (1, 1000), axis=-1))


def _resnet(name: str, blocks: Sequence[int], bottleneck: bool) -> Any:
    """ResNet (He et al. 2016, Table 1): 7x7/2 stem, 3x3/2 max pool, four stages, global average
    pool, fc-1000; projection shortcuts (option B) where the shape changes; in bottleneck blocks the
    first 1x1 convolution strides, as in the paper (the later 'v1.5' moves it to the 3x3)."""
    b = NetBuilder(name)
    x = b.pool(b.cbr("input", 64, 7, 2), "MaxPool", 3, 2, pad=1)
    cin = 64
    for stage, n in enumerate(blocks):
        width = 64 * 2 ** stage
        out = width * 4 if bottleneck else width
        for i in range(n):
            s = 2 if i == 0 and stage > 0 else 1
            if bottleneck:
                y = b.cbr(x, width, 1, s)
                y = b.cbr(y, width, 3)
                y = b.cbr(y, out, 1, act=None)
            else:
                y = b.cbr(x, width, 3, s)
                y = b.cbr(y, width, 3, act=None)
            short = b.cbr(x, out, 1, s, act=None) if s != 1 or cin != out else x
            x = b.act(b.add(y, short), "Relu")
            cin = out
    return b.model(b.fc(b.gap(x), 1000))


def resnet18() -> Any:
    return _resnet("resnet18", (2, 2, 2, 2), False)


def resnet50() -> Any:
    return _resnet("resnet50", (3, 4, 6, 3), True)


def mobilenetv1() -> Any:
    """MobileNet (Howard et al. 2017, Table 1), width 1.0 at 224: a 3x3/2 convolution, 13 depthwise
    separable blocks (3x3 depthwise + 1x1 pointwise, each with BN and ReLU), average pool, fc."""
    b = NetBuilder("mobilenetv1")
    x = b.cbr("input", 32, 3, 2)
    for k, s in ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1),
                 (512, 1), (512, 1), (1024, 2), (1024, 1)):
        c = b.shape[x][1]
        x = b.cbr(x, c, 3, s, groups=c)
        x = b.cbr(x, k, 1)
    return b.model(b.fc(b.gap(x), 1000))


def mobilenetv2() -> Any:
    """MobileNetV2 (Sandler et al. 2018, Tables 1-2), width 1.0 at 224: inverted residual blocks
    (1x1 expansion by t, 3x3 depthwise, linear 1x1 projection; ReLU6), a residual connection where
    stride is 1 and the channels match, 1x1 to 1280, average pool, fc."""
    b = NetBuilder("mobilenetv2")
    x = b.cbr("input", 32, 3, 2, act="Relu6")
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            cin = b.shape[x][1]
            y = b.cbr(x, cin * t, 1, act="Relu6") if t != 1 else x
            y = b.cbr(y, cin * t, 3, stride, act="Relu6", groups=cin * t)
            y = b.cbr(y, c, 1, act=None)
            x = b.add(y, x) if stride == 1 and cin == c else y
    x = b.cbr(x, 1280, 1, act="Relu6")
    return b.model(b.fc(b.gap(x), 1000))


def densenet121() -> Any:
    """DenseNet-121 (Huang et al. 2017, Table 1): growth rate 32, BN-ReLU-Conv(1x1, 4k)-BN-ReLU-
    Conv(3x3, k) layers in blocks of 6, 12, 24, 16 whose inputs are the concatenation of every earlier
    output, transitions halving the channels (1x1) and the resolution (2x2 average pool)."""
    b = NetBuilder("densenet121")
    x = b.pool(b.cbr("input", 64, 7, 2), "MaxPool", 3, 2, pad=1)
    for i, n in enumerate((6, 12, 24, 16)):
        for _ in range(n):
            y = b.conv(b.act(b.bn(x), "Relu"), 128, 1)
            y = b.conv(b.act(b.bn(y), "Relu"), 32, 3)
            x = b.concat([x, y])
        if i < 3:
            x = b.conv(b.act(b.bn(x), "Relu"), b.shape[x][1] // 2, 1)
            x = b.pool(x, "AveragePool", 2, 2)
    x = b.act(b.bn(x), "Relu")
    return b.model(b.fc(b.gap(x), 1000))


def squeezenet() -> Any:
    """SqueezeNet 1.0 (Iandola et al. 2016, Table 1) at 224 (as torchvision): conv1 96 7x7/2, fire
    modules (1x1 squeeze, concatenated 1x1 and 3x3 expands, ReLU), 3x3/2 max pools (ceil mode),
    conv10 to 1000 classes, global average pool."""
    b = NetBuilder("squeezenet")

    def fire(x: str, s: int, e: int) -> str:
        sq = b.act(b.conv(x, s, 1, bias=True), "Relu")
        return b.concat([b.act(b.conv(sq, e, 1, bias=True), "Relu"), b.act(b.conv(sq, e, 3, bias=True), "Relu")])

    x = b.pool(b.act(b.conv("input", 96, 7, 2, pad=0, bias=True), "Relu"), "MaxPool", 3, 2, ceil=True)
    x = fire(fire(fire(x, 16, 64), 16, 64), 32, 128)
    x = b.pool(x, "MaxPool", 3, 2, ceil=True)
    x = fire(fire(fire(fire(x, 32, 128), 48, 192), 48, 192), 64, 256)
    x = fire(b.pool(x, "MaxPool", 3, 2, ceil=True), 64, 256)
    x = b.gap(b.act(b.conv(x, 1000, 1, bias=True), "Relu"))
    return b.model(b._new("Softmax", [b._new("Flatten", [x], (1, 1000), axis=1)], (1, 1000), axis=-1))


def efficientnet_b0() -> Any:
    """EfficientNet-B0 (Tan and Le 2019, Table 1): MBConv blocks (1x1 expansion, k x k depthwise,
    squeeze-and-excitation with ratio 0.25 of the block's input channels, linear 1x1 projection;
    swish), a residual connection where stride is 1 and the channels match; 1x1 to 1280, pool, fc."""
    b = NetBuilder("efficientnet_b0")
    x = b.cbr("input", 32, 3, 2, act="Swish")
    for e, k, s, c, n in ((1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
                          (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            cin = b.shape[x][1]
            y = b.cbr(x, cin * e, 1, act="Swish") if e != 1 else x
            y = b.cbr(y, cin * e, k, stride, act="Swish", groups=cin * e)
            se = b.act(b.conv(b.gap(y), max(1, cin // 4), 1, bias=True), "Swish")
            y = b.mul(y, b.act(b.conv(se, cin * e, 1, bias=True), "Sigmoid"))
            y = b.cbr(y, c, 1, act=None)
            x = b.add(y, x) if stride == 1 and cin == c else y
    x = b.cbr(x, 1280, 1, act="Swish")
    return b.model(b.fc(b.gap(x), 1000))


#: ``--builtin`` names -> builders
NETWORKS: dict[str, Callable[[], Any]] = {
    "alexnet": alexnet, "vgg16": vgg16, "resnet18": resnet18, "resnet50": resnet50,
    "mobilenetv1": mobilenetv1, "mobilenetv2": mobilenetv2, "densenet121": densenet121,
    "squeezenet": squeezenet, "efficientnet_b0": efficientnet_b0,
}


def builtin_model(name: str) -> Any:
    """The ONNX ModelProto of built-in network ``name`` (one-line error for an unknown one)."""
    from pipeperf.network.graph import _onnx

    _onnx()
    key = name.lower().replace("-", "_")
    if key not in NETWORKS:
        raise PipeperfError(f"unknown built-in network {name!r}: expected one of {', '.join(NETWORKS)}")
    return NETWORKS[key]()
