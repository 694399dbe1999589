"""Loader for the CUDA test corpus: manifest entries, PTX paths and ready-to-run test cases.

Why it exists: the emulator, the parser and the measurement tests all need the same facts about
each corpus kernel (parameter order and types, launch shape, buffer sizes, expected outputs).
They live in ``manifest.yaml`` (declarative) and ``kernel_references.py`` (executable NumPy
references); this module joins the two so a test can do (``tests/kernels`` is on pytest's
``pythonpath``, pyproject.toml)::

    from kernel_corpus import load_manifest, make_case
    case = make_case("saxpy")          # args in .param order, expected outputs, tolerances
    ptx = case.spec.ptx_path("sm_90")  # tests/kernels/ptx/saxpy.sm_90.ptx
    # ... run the kernel on case.args (copies!) with case.spec.grid / block / shared ...
    problems = case.check({"y": y_after})   # [] when every output matches

Pointer arguments are flat NumPy arrays of the element type (a ``float4*`` is a float32 array of
4*n4 elements); by-value arguments are NumPy scalars of the parameter type.
"""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

import numpy as np
import yaml

CORPUS_DIR = Path(__file__).resolve().parent
MANIFEST = CORPUS_DIR / "manifest.yaml"
PTX_DIR = CORPUS_DIR / "ptx"

DTYPES: dict[str, type[np.generic]] = {
    "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
#: Byte size of each by-value type, and of any pointer (64-bit addresses).
PARAM_BYTES = {"i32": 4, "u32": 4, "i64": 8, "u64": 8, "f32": 4, "f64": 8, "ptr": 8}


@dataclasses.dataclass(frozen=True)
class Param:
    """One kernel parameter as the manifest lists it."""

    name: str
    type: str  # e.g. "f32*" or "i32"
    vector: int = 1  # float4* -> type f32*, vector 4

    @property
    def pointer(self) -> bool:
        return self.type.endswith("*")

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(DTYPES[self.type.rstrip("*")])

    @property
    def nbytes(self) -> int:
        """Size of the parameter in the PTX .param space."""
        return PARAM_BYTES["ptr" if self.pointer else self.type]


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    """A manifest entry."""

    name: str
    file: str
    features: tuple[str, ...]
    params: tuple[Param, ...]
    outputs: tuple[str, ...]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    scalars: dict[str, Any]
    buffers: dict[str, int]
    inputs: str
    reference: str
    archs: tuple[str, ...]

    @property
    def stem(self) -> str:
        return Path(self.file).stem

    @property
    def source_path(self) -> Path:
        return CORPUS_DIR / self.file

    def ptx_path(self, arch: str) -> Path:
        """The committed PTX of this kernel's source file for ``arch`` (e.g. "sm_90")."""
        return PTX_DIR / f"{self.stem}.{arch}.ptx"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no parameter {name!r}")


def _dim3(v: list[int]) -> tuple[int, int, int]:
    v = list(v) + [1] * (3 - len(v))
    return (int(v[0]), int(v[1]), int(v[2]))


@functools.cache
def _load(path: Path) -> tuple[list[str], tuple[KernelSpec, ...]]:
    doc = yaml.safe_load(path.read_text())
    default_archs = list(doc["archs"])
    specs = []
    for e in doc["kernels"]:
        launch = dict(e["launch"])
        grid, block = launch.pop("grid"), launch.pop("block")
        shared = int(launch.pop("shared", 0))
        specs.append(KernelSpec(
            name=e["kernel"], file=e["file"], features=tuple(e["features"]),
            params=tuple(Param(p["name"], p["type"], int(p.get("vector", 1))) for p in e["params"]),
            outputs=tuple(e["outputs"]), grid=_dim3(grid), block=_dim3(block), shared=shared,
            scalars=launch, buffers={k: int(v) for k, v in e["buffers"].items()},
            inputs=e["inputs"], reference=e["reference"], archs=tuple(e.get("archs", default_archs)),
        ))
    return default_archs, tuple(specs)


def load_manifest(path: Path = MANIFEST) -> list[KernelSpec]:
    """All manifest entries, in manifest order."""
    return list(_load(path)[1])


def corpus_archs(path: Path = MANIFEST) -> list[str]:
    """The targets the corpus is compiled for."""
    return list(_load(path)[0])


def kernel_spec(name: str) -> KernelSpec:
    for s in load_manifest():
        if s.name == name:
            return s
    raise KeyError(f"no corpus kernel named {name!r}")


@dataclasses.dataclass
class Case:
    """A runnable instance of a corpus kernel: arguments in parameter order and expected outputs."""

    spec: KernelSpec
    args: list[Any]
    expected: dict[str, np.ndarray]
    tolerance: dict[str, tuple[float, float]]  # output -> (rtol, atol); (0, 0) = bit-exact

    def arg(self, name: str) -> Any:
        return self.args[[p.name for p in self.spec.params].index(name)]

    def fresh_args(self) -> list[Any]:
        """Copies of the arguments, so one case can be run several times."""
        return [a.copy() if isinstance(a, np.ndarray) else a for a in self.args]

    def check(self, results: dict[str, np.ndarray]) -> list[str]:
        """Compare final buffer contents with the reference; one message per mismatching output."""
        problems = []
        for name, want in self.expected.items():
            if name not in results:
                problems.append(f"{name}: missing")
                continue
            got = np.asarray(results[name])
            if got.shape != want.shape or got.dtype != want.dtype:
                problems.append(f"{name}: got {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
                continue
            rtol, atol = self.tolerance.get(name, (0.0, 0.0))
            if want.dtype.kind == "f":
                g, w = got.astype(np.float64), want.astype(np.float64)
                ok = (np.abs(g - w) <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w))
            else:
                ok = got == want
            if not ok.all():
                bad = np.flatnonzero(~ok)
                i = int(bad[0])
                problems.append(f"{name}: {bad.size} of {ok.size} elements differ, first at [{i}]: "
                                f"got {got[i]!r}, want {want[i]!r}")
        return problems


def make_case(name: str, seed: int = 0) -> Case:
    """Build the test case of kernel ``name``: inputs drawn with ``seed``, reference outputs computed."""
    import kernel_references  # local import: it imports this module

    spec = kernel_spec(name)
    rng = np.random.default_rng(seed)
    ref = kernel_references.REFERENCES[name](rng, spec)
    args: list[Any] = []
    for p in spec.params:
        if p.pointer:
            size = spec.buffers[p.name]
            buf = ref.inputs.get(p.name)
            buf = np.zeros(size, p.dtype) if buf is None else np.ascontiguousarray(buf)
            if buf.dtype != p.dtype or buf.shape != (size,):
                raise ValueError(f"{name}.{p.name}: reference made {buf.dtype}{buf.shape}, "
                                 f"manifest says {p.dtype}[{size}]")
            args.append(buf)
        else:
            args.append(p.dtype.type(spec.scalars[p.name]))
    for out, want in ref.expected.items():
        if out not in spec.outputs:
            raise ValueError(f"{name}: reference gives {out!r}, which the manifest does not list as output")
        p = spec.param(out)
        if want.dtype != p.dtype or want.shape != (spec.buffers[out],):
            raise ValueError(f"{name}.{out}: expected {want.dtype}{want.shape}, "
                             f"manifest says {p.dtype}[{spec.buffers[out]}]")
    return Case(spec, args, ref.expected, ref.tolerance)
