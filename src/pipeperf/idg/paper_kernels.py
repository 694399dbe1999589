"""The paper's hand-made kernels as IDG generators.

- ``example``: the example kernel of Fig. 1 / Table 2 of analytical-models-and-pipeline-model.txt:
  "two periods of two instructions followed by a memory instruction" (Sec. 2.3.2), the
  second pair independent (ILP 2), so Lambda_app = 3*4 + 2*6 + 1 = 25 (Sec. 2.2, Eq. 2).
- ``instruction_mix``: Fig. 11, N repetitions of beta type-1 instructions and one type-2.
- ``iterative_barrier``: Fig. 15, N dependent instructions each followed by a barrier.
- ``chain``: N dependent instructions of one class (the micro-benchmark of Eq. 1).
"""

from __future__ import annotations

from collections.abc import Callable

from pipeperf.errors import PipeperfError
from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import KernelGraph


def example_kernel() -> KernelGraph:
    """Fig. 1: c1 -> c2 -> m1 -> {c3, c4} -> m2 (classes 'comp' and 'mem' of Table 2)."""
    idg = IDG.from_nodes(
        "example",
        ["c1", "c2", "m1", "c3", "c4", "m2"],
        ["comp", "comp", "mem", "comp", "comp", "mem"],
        [[], ["c1"], ["c2"], ["m1"], ["m1"], ["c3", "c4"]],
    )
    return KernelGraph.single(idg)


def chain(n: int = 1000, cls: str = "mul_f32") -> KernelGraph:
    """N dependent instructions of one class: t = N*Lambda for one warp (Eq. 1 with W = 1)."""
    import numpy as np  # generated kernels only: reading a file needs no NumPy

    _positive(n=n)
    ptr = np.concatenate([[0, 0], np.arange(1, n, dtype=np.int64)])
    idx = np.arange(0, n - 1, dtype=np.int32)
    return KernelGraph.single(IDG.from_arrays(f"chain_{cls}_{n}", [cls], np.zeros(n, np.int32), ptr, idx))


def instruction_mix(beta: int = 4, n: int = 256, type1: str = "mul_f32", type2: str = "cos_f32") -> KernelGraph:
    """Fig. 11: N repetitions of beta type-1 instructions followed by one type-2 instruction.

    The instructions form one dependent chain, as in Volkov's benchmark where each
    operation updates the same register.
    """
    import numpy as np  # generated kernels only: reading a file needs no NumPy

    _positive(beta=beta, n=n)
    per = beta + 1
    total = per * n
    cls = np.tile(np.array([0] * beta + [1], dtype=np.int32), n)
    ptr = np.concatenate([[0, 0], np.arange(1, total, dtype=np.int64)])
    idx = np.arange(0, total - 1, dtype=np.int32)
    return KernelGraph.single(IDG.from_arrays(f"instruction_mix_b{beta}", [type1, type2], cls, ptr, idx))


def iterative_barrier(n: int = 256, comp: str = "mul_f32", barrier: str = "bar_sync") -> KernelGraph:
    """Fig. 15: I -> B -> I -> B ... (N computational instructions, each followed by a barrier)."""
    import numpy as np  # generated kernels only: reading a file needs no NumPy

    _positive(n=n)
    total = 2 * n
    cls = np.tile(np.array([0, 1], dtype=np.int32), n)
    ptr = np.concatenate([[0, 0], np.arange(1, total, dtype=np.int64)])
    idx = np.arange(0, total - 1, dtype=np.int32)
    bar = cls == 1
    return KernelGraph.single(IDG.from_arrays(f"iterative_barrier_{n}", [comp, barrier], cls, ptr, idx, bar))


#: Bundled kernels: name -> (generator, the GPU it is meant for by default, description)
BUNDLED: dict[str, tuple[Callable[..., KernelGraph], str, str]] = {
    "example": (example_kernel, "example_table2", "example kernel of Fig. 1 with Table 2's classes comp/mem"),
    "chain": (chain, "pascal_gtx1060", "N dependent instructions of one class (n, cls)"),
    "instruction_mix": (instruction_mix, "pascal_gtx1060", "Fig. 11 (beta, n, type1, type2)"),
    "iterative_barrier": (iterative_barrier, "pascal_gtx1060", "Fig. 15 (n, comp, barrier)"),
}


def bundled_kernel(name: str, params: dict[str, str] | None = None) -> KernelGraph:
    """Instantiate a bundled kernel, converting ``--param key=value`` strings to the right types."""
    if name not in BUNDLED:
        raise PipeperfError(f"unknown bundled kernel '{name}': expected a file or one of {', '.join(BUNDLED)}")
    fn = BUNDLED[name][0]
    params = params or {}
    defaults = fn.__defaults__ or ()
    argnames = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    typed: dict[str, object] = {}
    for key, value in params.items():
        if key not in argnames:
            raise PipeperfError(f"bundled kernel '{name}' has no parameter '{key}' (it has: {', '.join(argnames) or 'none'})")
        default = defaults[argnames.index(key) - (len(argnames) - len(defaults))]
        if isinstance(default, int):
            try:
                typed[key] = int(value)
            except ValueError:
                raise PipeperfError(f"parameter '{key}' of '{name}' must be an integer, got '{value}'") from None
        else:
            typed[key] = value
    return fn(**typed)


def _positive(**values: int) -> None:
    for k, v in values.items():
        if v < 1:
            raise PipeperfError(f"parameter '{k}' must be >= 1, got {v}")
