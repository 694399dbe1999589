"""One IDG build for the GPUs of an analysis that would build the same IDGs (issue 39, tuning
throughput).

Why: :func:`~pipeperf.idg.build.kernel_graph_from_profile` depends on the GPU only through the
class it names for each instruction (mapper f's, resolved against the GPU's classes, or mapper
g's ``<class>@L<line>``), mapper g's fill sources and, on the SASS path, the GPU's translator.
The IDGs hold class *names*; each GPU's lambda/Lambda come in later
(:class:`~pipeperf.simulate.simulator.PreparedKernel`). So a V100, an A100 and an H100 analysed
from one emulation usually build identical IDGs, a tenth of a tuning run's time done three times.
The build is kept, by the emulation's trace log (alive) and the whole per-instruction class vector
among its keys, and handed to the next GPU whose key and function are equal; nothing downstream changes a built
:class:`~pipeperf.idg.build.WarpClasses` (the simulator flattens it into its own arrays).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

from pipeperf.errors import PipeperfError
from pipeperf.util.memo import by_identity

if TYPE_CHECKING:
    from pipeperf.idg.build import WarpClasses
    from pipeperf.ptx.ir import Function


#: class_vector's results by (the function's id, GPU, its classes, the overrides), the function kept
#: with each (a parsed function is not changed after parsing, and the entry holds it, so its ``id``
#: names it while the entry lives): a tuning run's variants share parsed kernels, and mapper g names
#: the same PCs' classes alike from variant to variant
_VECTORS: dict[tuple[int, str, frozenset[str], tuple[tuple[int, str], ...]], tuple[Function, tuple[str, ...]]] = {}


def class_vector(func: Function, available: set[str], gpu: str, overrides: Mapping[int, str]) -> tuple[str, ...]:
    """The class the IDG builder names for each instruction of ``func`` on this GPU (an instruction
    the GPU has no class for gets its error's text: the build raises it only where it runs); kept
    for the last few functions, GPUs and overrides."""
    key = (id(func), gpu, frozenset(available), tuple(sorted(overrides.items())))
    hit = _VECTORS.get(key)
    if hit is None or hit[0] is not func:
        if len(_VECTORS) >= 16:
            _VECTORS.pop(next(iter(_VECTORS)))
        hit = _VECTORS[key] = (func, _class_vector(func, available, gpu, overrides))
    return hit[1]


def _class_vector(func: Function, available: set[str], gpu: str, overrides: Mapping[int, str]) -> tuple[str, ...]:
    from pipeperf.hardware.mapper import map_instruction

    out = []
    for pc, x in enumerate(func.instructions):
        name = overrides.get(pc)
        if name is None:
            try:
                name = map_instruction(x, available, gpu)
            except PipeperfError as e:
                name = f"<no class: {e.message}>"
        out.append(name)
    return tuple(out)


def shared_build(traces: Any, func: Function, key: Hashable, build: Callable[[], WarpClasses]) -> WarpClasses:
    """``build()``, or the WarpClasses it gave for these same live ``traces``, an equal ``func``
    (each GPU's build parses its own PTX, whose text differs in its ``.target`` line only: the
    functions compare equal, PTX line numbers aside, which reach the IDGs only through the class
    names in ``key``) and an equal ``key`` (everything else the build reads: the class vector, the
    cut, fills, weights, ...)."""
    held = by_identity("warp_classes", (traces,), (func.name, key), lambda: (func, build()))
    if held[0] is not func and held[0] != func:
        return build()
    return held[1]
