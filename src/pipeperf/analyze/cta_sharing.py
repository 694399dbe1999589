"""Which CTAs of a wave touch the same global memory at one instruction, from the PTX alone.

Why: mapper g's cache model sees only the traced CTAs (a few clusters of neighbours), but on a
GPU a whole wave of consecutive CTAs runs at once, and an access whose address does not depend
on ``blockIdx.x`` (a tiled matmul's rows of A) is the same for every CTA of a grid row; one that
does not depend on ``blockIdx.y`` (its columns of B) is the same down a grid column. The backward
slice of the address register says which of ``%ctaid.x/y/z`` it depends on; counting the CTAs of
one wave that agree on those dimensions gives how many share each sector. Assumed: CTAs of a
wave progress roughly in lockstep, so the first one's sectors are still in L2 when the others
ask (the same assumption as the Pipeline model's identical warps). Addresses that come from
memory (index arrays, pointer chasing) are taken to depend on everything: no sharing assumed.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import Address, Function, SpecialRegister

DIMS = ("x", "y", "z")
_LOADS = frozenset({"ld", "ldu", "atom", "ldmatrix", "suld", "tex", "tld4"})


def address_cta_dims(func: Function, pc: int, defuse: DefUse) -> frozenset[str]:
    """The ``%ctaid`` dimensions the address of instruction ``pc`` depends on (all three when
    it depends on a value loaded from non-constant memory)."""
    ins = func.instructions
    x = ins[pc]
    bases = [op.base.name for op in x.operands if type(op) is Address and op.base is not None
             and hasattr(op.base, "name") and op.base.name.startswith("%")]
    stack = [w for b in bases for w in defuse.reaching[pc].get(b, ())]
    seen = set(stack)
    dims: set[str] = set()
    while stack:
        i = stack.pop()
        y = ins[i]
        if y.op.root in _LOADS and y.op.space not in ("param", "const"):
            return frozenset(DIMS)
        for op in y.operands:
            if type(op) is SpecialRegister and op.name.startswith("%ctaid."):
                dims.add(op.name[-1])
            elif type(op) is SpecialRegister and op.name.startswith(("%clusterid", "%cluster_ctaid", "%smid")):
                return frozenset(DIMS)
        for j in defuse.deps[i]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return frozenset(dims)


def ctas_sharing(dims: Iterable[str], grid: tuple[int, int, int], wave_ctas: int) -> float:
    """Mean number of CTAs among the first ``wave_ctas`` (in launch order, x fastest) that agree on
    the ``dims`` coordinates, i.e. that read the same sectors at an access depending only on them."""
    n = max(1, min(int(wave_ctas), math.prod(grid)))
    c = np.arange(n)
    coords = {"x": c % grid[0], "y": (c // grid[0]) % grid[1], "z": c // (grid[0] * grid[1])}
    keys = [coords[d] for d in DIMS if d in set(dims)]
    if not keys:
        return float(n)
    distinct = len(np.unique(np.stack(keys, axis=1), axis=0))
    return n / distinct


def sharing_by_pc(func: Function, pcs: Iterable[int], grid: tuple[int, int, int], wave_ctas: int
                  ) -> dict[int, tuple[frozenset[str], float]]:
    """(``%ctaid`` dimensions of the address, CTAs of a wave sharing it) per global memory PC."""
    pcs = list(pcs)
    if not pcs:
        return {}
    du = DefUse(func)
    out = {}
    for pc in pcs:
        d = address_cta_dims(func, pc, du)
        out[pc] = (d, ctas_sharing(d, grid, wave_ctas))
    return out
