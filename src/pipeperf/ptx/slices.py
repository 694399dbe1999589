"""Backward slices of branch conditions (HyPA's Filtered Dependency Graph).

HyPA Definition 2: the FDG of a branch ``v*`` is every node with a path to
``v*`` in the dependency graph. We take the transitive closure over the
def-use graph (:mod:`pipeperf.ptx.defuse`) from the branch's reads (guard
predicate, ``brx.idx`` index), and add memory dependences conservatively:

* a load's address registers are reads of the load, so they are in the slice;
* when a load (``ld``, ``ldu``, ``atom``, ``suld``, ``ldmatrix``,
  ``wmma.load`` ...) from memory the kernel can write is in the slice, every
  instruction of the kernel that may write the same memory joins the slice,
  with its address and value slices. Two accesses may alias when their state
  spaces may overlap (generic overlaps global/shared/local) unless both
  address distinct named variables (``[sym_a]`` vs ``[sym_b+8]``).
  ``.const`` and kernel ``.param`` memory are never written by the kernel;
  call-sequence ``.param`` values are tracked exactly as locations.

Control dependence is not added: an emulator executing the union of all
branch slices decides every branch itself, so the path is known.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeperf.ptx.cfg import CFG
from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import Address, Function, Instruction, Symbol

_READS_MEMORY = frozenset({
    "ld", "ldu", "atom", "suld", "ldmatrix", "wmma.load", "multimem.ld_reduce", "tld4", "tex",
    "mbarrier.test_wait", "mbarrier.try_wait",
})
_WRITES_MEMORY = frozenset({
    "st", "st.async", "st.bulk", "atom", "red", "red.async", "multimem.st", "multimem.red",
    "sust", "sured", "wmma.store", "stmatrix", "cp.async", "cp.async.bulk",
    "cp.async.bulk.tensor", "cp.reduce.async.bulk", "cp.reduce.async.bulk.tensor",
    "mbarrier.init", "mbarrier.arrive", "mbarrier.arrive_drop", "mbarrier.expect_tx",
    "mbarrier.complete_tx",
})
_READ_ONLY_SPACES = frozenset({"const", "param"})
_TEXTURE = frozenset({"tex", "tld4"})  # read through the texture path: never kernel-written


def _space(ins: Instruction) -> str:
    s = ins.op.space
    if ins.op.root in ("sust", "sured", "suld"):
        return "surface"
    return s or "generic"


def _symbol(ins: Instruction) -> str | None:
    for o in ins.srcs:
        if type(o) is Address:
            return o.base.name if type(o.base) is Symbol else None
    return None


def may_alias(a: Instruction, b: Instruction) -> bool:
    """Whether memory accessed by ``a`` and ``b`` may overlap (conservative)."""
    sa, sb = _space(a), _space(b)
    if sa in _READ_ONLY_SPACES or sb in _READ_ONLY_SPACES:
        return False
    if sa != sb and sa != "generic" and sb != "generic":
        return False
    ya, yb = _symbol(a), _symbol(b)
    if ya is not None and yb is not None and ya != yb:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Slice:
    """The instructions (indices) that influence branch ``branch``'s decision,
    including ``branch`` itself; ``via_memory`` are the memory writes added
    because a load in the slice may read what they wrote (their own inputs
    are in ``instructions`` too)."""

    branch: int
    instructions: frozenset[int]
    via_memory: frozenset[int]

    def __len__(self) -> int:
        return len(self.instructions)


class Slicer:
    """Computes branch slices of one function, sharing its CFG and def-use graph."""

    def __init__(self, func: Function, defuse: DefUse | None = None):
        self.func = func
        self.defuse = defuse if defuse is not None else DefUse.of(func)
        self.cfg: CFG = self.defuse.cfg
        ins = func.instructions
        self.writers = [i for i, x in enumerate(ins) if x.op.root in _WRITES_MEMORY]

    def _memory_readers(self, x: Instruction) -> bool:
        r = x.op.root
        return r in _READS_MEMORY and r not in _TEXTURE and _space(x) not in _READ_ONLY_SPACES

    def slice_of(self, index: int) -> Slice:
        """Backward slice from instruction ``index`` (usually a branch)."""
        ins = self.func.instructions
        deps = self.defuse.deps
        seen = {index}
        memory: set[int] = set()
        stack = [index]
        while stack:
            i = stack.pop()
            x = ins[i]
            for j in deps[i]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
            if self._memory_readers(x):
                for w in self.writers:
                    if w not in seen and may_alias(x, ins[w]):
                        seen.add(w)
                        memory.add(w)
                        stack.append(w)
        return Slice(index, frozenset(seen), frozenset(memory))

    def branch_slices(self) -> dict[int, Slice]:
        """A slice for every instruction of the control-flow instruction list."""
        return {b: self.slice_of(b) for b in self.cfg.branch_instructions()}

    def union(self) -> frozenset[int]:
        """Every instruction some branch depends on: what a hybrid emulator must run."""
        out: set[int] = set()
        for s in self.branch_slices().values():
            out |= s.instructions
        return frozenset(out)
