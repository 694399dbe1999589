"""Global accesses against the buffer their address comes from, over the whole grid.

Why: global buffers lie one after another in the emulated arena, so an index past the end of one
buffer that skips the guard gap lands in the next buffer and the "inside some allocation" check
lets it through (a stencil given a too-small input reads its neighbour's output buffer). Where an
address is an affine function of the thread and block indices with one pointer parameter (or
``.global`` variable) as its base (:class:`pipeperf.ptx.affine.AffineAddresses`), every lane must
stay inside *that* buffer: :func:`access_buffers` says which, per memory instruction, and the
machine faults like any out-of-bounds access when a lane leaves it.

A sampled launch emulates only some CTAs, so the grid's extremes may be skipped: the largest
address of ``a[blockIdx.x * blockDim.x + threadIdx.x]`` under ``if (i < n)`` is reached in the CTA
where ``i`` crosses ``n``, not in the last one. :func:`extreme_ctas` lists the CTAs where affine
addresses and affine guards reach their extremes (the grid's corners, and along each grid axis the
block where a comparison of an affine index with a launch constant changes its outcome); emulating
them too checks the whole grid's extremes with the emulator's exact guards and addresses, so a
guard the analysis cannot read never yields a false error (the CTA is emulated, not reasoned about).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TypeVar

import numpy as np

from pipeperf.ptx.affine import Affine, AffineAddresses
from pipeperf.ptx.ir import Function

_T = TypeVar("_T")

#: memory instructions whose (first) address operand is the global access they make
_CHECKED = ("ld", "st", "atom", "red")
#: most CTAs :func:`extreme_ctas` proposes (each costs one CTA's emulation)
MAX_EXTREME_CTAS = 32


def launch_affine(func: Function, launch) -> AffineAddresses:
    """Affine address forms of ``func`` under ``launch`` (grid, block, integer arguments folded)."""
    params = dict(zip(getattr(launch, "names", []) or [p.name for p in func.params], launch.args))
    params.update({p.name: v for p, v in zip(func.params, launch.args)})
    return AffineAddresses(func, launch.grid, launch.block, params)


def _base(form: Affine | None) -> str | None:
    """The one buffer an address form is based on (``base:P`` or ``sym:V`` with coefficient 1)."""
    if form is None:
        return None
    bases = [(k, v) for k, v in form.coef if k.startswith(("base:", "sym:"))]
    if len(bases) != 1 or bases[0][1] != 1:
        return None
    return bases[0][0].split(":", 1)[1]


def access_buffers(func: Function, launch, buffers: Mapping[str, _T],
                   aff: AffineAddresses | None = None) -> dict[int, _T]:
    """``{id(instruction): buffers[name]}`` for the ld/st/atom/red of ``func`` whose address is
    affine with the buffer ``name`` (a pointer parameter or ``.global`` variable among
    ``buffers``) as its base: every lane's access must lie inside that buffer."""
    aff = aff or launch_affine(func, launch)
    out: dict[int, _T] = {}
    for pc, x in enumerate(func.instructions):
        if x.root not in _CHECKED or (x.space or "generic") not in ("global", "generic"):
            continue
        try:
            name = _base(aff.address(pc))
        except (KeyError, IndexError, TypeError, ValueError, RecursionError):
            continue
        if name is not None and name in buffers:
            out[id(x)] = buffers[name]
    return out


def _boundary(terms: Mapping[str, int], target: int, ranges) -> dict[str, int]:
    """A point of the atoms' box where ``sum(terms[a] * a)`` is at most ``target`` and as close to
    it as the greedy mixed-radix choice gets (largest coefficient first; exact for the usual
    ``blockIdx.x * blockDim.x + threadIdx.x`` forms); atoms with negative coefficients count down."""
    point: dict[str, int] = {}
    rest = target
    for a, c in terms.items():
        if c < 0:
            rest -= c * (ranges(a) - 1)              # a = (n - 1) - a', coefficient |c| on a'
    for a, c in sorted(terms.items(), key=lambda kv: -abs(kv[1])):
        n = ranges(a)
        v = min(max(rest // abs(c), 0), n - 1)
        rest -= abs(c) * v
        point[a] = v if c > 0 else n - 1 - v
    return point


def extreme_ctas(func: Function, launch, aff: AffineAddresses | None = None,
                 cap: int = MAX_EXTREME_CTAS) -> np.ndarray:
    """Linear indices of the CTAs where the launch's affine addresses and guards reach their
    extremes (module doc): per grid axis the first and last block and, for every ``setp`` that
    compares two affine forms of the thread and block indices, the blocks around where their
    difference crosses zero; the CTAs are these values' combinations (beyond ``cap``, only each
    axis's outermost boundary blocks combine, then an even subset of ``cap``)."""
    aff = aff or launch_affine(func, launch)
    g = aff.grid
    values: list[set[int]] = [{0, n - 1} for n in g]
    for terms, const in _guards(func, aff):
        for t in (-const - 1, -const, -const + 1):
            p = _boundary(terms, t, aff.range_of)
            for k, v in p.items():
                if k.startswith("%ctaid."):
                    values[_AXES.index(k[-1])].add(v)
    if int(np.prod([len(v) for v in values])) > cap:   # many guards: each axis's outermost boundaries
        values = [{0, n - 1} | ({min(v - {0, n - 1}), max(v - {0, n - 1})} if v - {0, n - 1} else set())
                  for v, n in zip(values, g)]
    picked = list(itertools.product(*(sorted(v) for v in values)))
    if len(picked) > cap:
        picked = [picked[k] for k in np.unique(np.round(np.linspace(0, len(picked) - 1, cap)).astype(np.int64))]
    lin = [cx + g[0] * (cy + g[1] * cz) for cx, cy, cz in picked]
    return np.unique(np.asarray(lin, np.int64))


_AXES = "xyz"


def _guards(func: Function, aff: AffineAddresses):
    """(terms, constant) of ``a - b`` for every ``setp`` comparing two affine forms ``a``, ``b`` of
    the thread and block indices (block indices among them): the guards whose outcome may change
    across the grid."""
    for pc, x in enumerate(func.instructions):
        if x.root != "setp" or len(x.srcs) < 2:
            continue
        try:
            a, b = aff.operand(pc, x.srcs[0]), aff.operand(pc, x.srcs[1])
        except (KeyError, IndexError, TypeError, ValueError, RecursionError):
            continue
        if a is None or b is None:
            continue
        d = a.plus(b, -1)
        terms = d.terms
        if any(k.startswith("%ctaid.") for k in terms) and \
                all(k.startswith(("%ctaid.", "%tid.")) for k in terms):
            yield terms, d.const


def partial_blocks(func: Function, launch, aff: AffineAddresses | None = None) -> list[set[int]]:
    """Per grid axis (x, y, z), the block indices of CTAs whose threads an affine guard splits:
    where ``a - b`` of a guard (:func:`_guards`) steps from -1 to 0 between two threads of one CTA
    (``if (x >= w) return`` with ``w`` not a multiple of the block: the block holding ``x = w``).
    A crossing outside the grid, or between two CTAs, splits none."""
    aff = aff or launch_affine(func, launch)
    cuts: list[set[int]] = [set(), set(), set()]
    for terms, const in _guards(func, aff):
        pts = [_boundary(terms, t, aff.range_of) for t in (-const - 1, -const)]
        if any(sum(c * p[a] for a, c in terms.items()) != t for p, t in zip(pts, (-const - 1, -const))):
            continue                                 # a side of the crossing lies outside the grid
        blocks = [{k: v for k, v in p.items() if k.startswith("%ctaid.")} for p in pts]
        if blocks[0] == blocks[1]:
            for k, v in blocks[0].items():
                cuts[_AXES.index(k[-1])].add(v)
    return cuts
