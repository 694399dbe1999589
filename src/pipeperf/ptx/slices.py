"""The slicing service: which instructions and registers a value depends on.

One module answers it for every pass (HyPA's branch slices, hybrid emulation, CTA sampling,
address sharing), on the IR's operand objects:

* what an instruction reads and writes (:func:`operand_registers`, :func:`written_registers`,
  :func:`address_registers`, all through :func:`pipeperf.ptx.ir.registers_in`) and which
  memory it may touch (:data:`READS_MEMORY`, :data:`WRITES_MEMORY`, :func:`may_alias`);
* flow-sensitive slices over the def-use graph (:class:`Slicer`, :meth:`DefUse.backward
  <pipeperf.ptx.defuse.DefUse.backward>`);
* flow-insensitive slices over register names (:func:`register_slice`): an instruction joins
  when it writes a name in the slice, whatever the path; cheaper, and what the emulator's
  hybrid mode and the CTA sampler's soundness rule are defined by.

Branch slices (HyPA Definition 2: the FDG of a branch ``v*`` is every node with a path to
``v*`` in the dependency graph) take the transitive closure over the def-use graph
(:mod:`pipeperf.ptx.defuse`) from the branch's reads (guard predicate, ``brx.idx`` index), and
add memory dependences conservatively:

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
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet

from pipeperf.ptx.cfg import CFG
from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import Address, Function, Instruction, Register, Symbol, registers_in

READS_MEMORY = frozenset({
    "ld", "ldu", "atom", "suld", "ldmatrix", "wmma.load", "multimem.ld_reduce", "tld4", "tex",
    "mbarrier.test_wait", "mbarrier.try_wait",
})
WRITES_MEMORY = frozenset({
    "st", "st.async", "st.bulk", "atom", "red", "red.async", "multimem.st", "multimem.red",
    "sust", "sured", "wmma.store", "stmatrix", "cp.async", "cp.async.bulk",
    "cp.async.bulk.tensor", "cp.reduce.async.bulk", "cp.reduce.async.bulk.tensor",
    "mbarrier.init", "mbarrier.arrive", "mbarrier.arrive_drop", "mbarrier.expect_tx",
    "mbarrier.complete_tx",
})
READ_ONLY_SPACES = frozenset({"const", "param"})
TEXTURE = frozenset({"tex", "tld4"})  # read through the texture path: never kernel-written
#: the name :func:`register_slice` passes use for memory as one location
MEMORY = "<memory>"


def register_names(ops: Iterable) -> set[str]:
    """Names of the registers the operands ``ops`` name."""
    return {r.name for op in ops for r in registers_in(op)}


def operand_registers(dsts: Iterable, srcs: Iterable, guard: Register | None = None
                      ) -> tuple[list[str], list[str]]:
    """(read, written) registers of an instruction with these operands: destinations are
    written, except an address among them (read, as are the sources and the guard)."""
    dsts = tuple(dsts)
    reads = [r.name for op in srcs for r in registers_in(op)]
    reads += [r.name for op in dsts if type(op) is Address for r in registers_in(op)]
    if guard is not None:
        reads.append(guard.name)
    return reads, [r.name for op in dsts if type(op) is not Address for r in registers_in(op)]


def written_registers(x: Instruction) -> list[str]:
    """Registers ``x`` writes (:func:`operand_registers`)."""
    return operand_registers(x.dsts, ())[1]


def address_registers(x: Instruction) -> set[str]:
    """Registers ``x``'s addresses depend on: the bases of its memory operands (``[%rd1+8]``; not
    ``[sym]``) and, for ``wmma.load``/``wmma.store``, the stride (ldm) that spaces its matrix rows."""
    regs = {op.base.name for op in x.operands
            if type(op) is Address and op.base is not None and type(op.base) is not Symbol}
    if x.op.root in _WMMA_STRIDE and len(x.srcs) > _WMMA_STRIDE[x.op.root]:
        regs |= register_names([x.srcs[_WMMA_STRIDE[x.op.root]]])
    return regs


#: the source operand holding the stride of a wmma.load / wmma.store (after the address and,
#: for a store, the fragment)
_WMMA_STRIDE = {"wmma.load": 1, "wmma.store": 2}


def reads_writable_memory(x: Instruction) -> bool:
    """Whether ``x`` loads from memory the kernel itself may write (not textures, .const,
    kernel .param)."""
    r = x.op.root
    return r in READS_MEMORY and r not in TEXTURE and space_of(x) not in READ_ONLY_SPACES


def space_of(ins: Instruction) -> str:
    """State space ``ins`` accesses: ``surface`` for surface instructions, else its opcode's
    (``generic`` when none is named)."""
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
    sa, sb = space_of(a), space_of(b)
    if sa in READ_ONLY_SPACES or sb in READ_ONLY_SPACES:
        return False
    if sa != sb and sa != "generic" and sb != "generic":
        return False
    ya, yb = _symbol(a), _symbol(b)
    return not (ya is not None and yb is not None and ya != yb)


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
        self.writers = [i for i, x in enumerate(ins) if x.op.root in WRITES_MEMORY]

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
            if reads_writable_memory(x):
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


def register_slice(func: Function, regs: set[str], need: set[int],
                   writes: Sequence[AbstractSet[str]],
                   join: Callable[[int, Instruction], Iterable[str]]) -> set[int]:
    """Flow-insensitive backward slice over names: grows ``need`` (instruction indices) and
    ``regs`` (names) in place until no instruction outside ``need`` writes a name in ``regs``.

    ``writes[i]`` are the names instruction ``i`` writes (a pass may add pseudo-locations such
    as memory); an instruction that joins adds the names ``join(i, x)`` returns (what it reads,
    as the pass defines it; ``join`` may raise to stop). Sweeps run in instruction order, so a
    pass that stops at its first finding stops at the same one every time."""
    ins = func.instructions
    changed = True
    while changed:
        changed = False
        for i, x in enumerate(ins):
            if i in need or regs.isdisjoint(writes[i]):
                continue
            need.add(i)
            changed = True
            regs.update(join(i, x))
    return need
