"""Register def-use graph of one function, from reaching definitions.

HyPA (Sec. III-A, Definition 1) links instruction ``v_l`` to ``v_i`` when a
source register of ``v_i`` was written by ``v_l``. We compute that with
reaching definitions over the CFG (once per function, bit sets as Python
ints), so loops and branches give exactly the writes that can flow into each
read, not merely "earlier lines".

What counts as a location:

* registers, resolved to their declaring ``{ }`` scope (inline-asm blocks may
  redeclare ``%temp``); a register declared in a nested scope gets the key
  ``name@scope``;
* ``.param`` symbols of call sequences (``param:NAME``): ``st.param [p]``
  and ``call (ret), f, (p)`` write them, ``ld.param [ret]`` reads them, so a
  slice follows values through device-function calls' arguments and results;
* the carry flag (``%cc``) written by ``.cc`` instructions and read by
  ``addc``/``subc``/``madc``;
* destination registers of ``wgmma.mma_async`` are read as well as written.

A guarded (``@%p``) write does not kill earlier definitions: the old value
survives in threads whose predicate is false.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Iterator

from pipeperf.ptx.cfg import CFG
from pipeperf.ptx.ir import Address, Function, Instruction, ParamList, Register, Symbol, registers_in

CC = "%cc"
_CARRY_USERS = frozenset({"addc", "subc", "madc"})


class _Resolver:
    """Maps a register name used in scope ``s`` to its location key."""

    def __init__(self, func: Function):
        self.parent = {s.id: s.parent for s in func.scopes}
        self.declared: dict[int, set[str]] = {}
        for d in func.reg_decls:
            if d.scope:
                self.declared.setdefault(d.scope, set()).update(d.registers())
        self.cache: dict[tuple[str, int], str] = {}

    def key(self, name: str, scope: int) -> str:
        if not self.declared or scope == 0:
            return name
        k = (name, scope)
        r = self.cache.get(k)
        if r is None:
            s = scope
            r = name
            while s > 0:
                if name in self.declared.get(s, ()):
                    r = f"{name}@{s}"
                    break
                s = self.parent[s]
            self.cache[k] = r
        return r


def _names(op) -> list[str]:
    return [op.name] if type(op) is Register else [r.name for r in registers_in(op)]


def _param_syms(op) -> list[str]:
    if type(op) is ParamList:
        return ["param:" + x.name for x in op.items if type(x) is Symbol]
    return []


def locations(ins: Instruction, resolve=None) -> tuple[list[str], list[str]]:
    """(written, read) location keys of one instruction (see module doc)."""
    root = ins.op.root
    defs: list[str] = []
    uses: list[str] = []
    if root == "call":
        for o in ins.dsts:
            defs += _param_syms(o)
        for o in ins.srcs:
            if type(o) is ParamList:
                uses += _param_syms(o)
            else:
                uses += _names(o)
    else:
        for o in ins.dsts:
            defs += _names(o)
        srcs = ins.srcs
        if ins.op.space == "param" and srcs and type(srcs[0]) is Address \
                and type(srcs[0].base) is Symbol:
            (defs if root == "st" else uses).append("param:" + srcs[0].base.name)
            srcs = srcs[1:]
        for o in srcs:
            uses += _names(o)
        if root == "wgmma.mma_async":
            uses += [d for d in defs if not d.startswith("param:")]
    if ins.guard is not None:
        uses.append(ins.guard.name)
    if resolve is not None and ins.scope:
        defs = [d if d.startswith("param:") else resolve(d, ins.scope) for d in defs]
        uses = [u if u.startswith("param:") else resolve(u, ins.scope) for u in uses]
    if "cc" in ins.op.modifiers:
        defs.append(CC)
    if root in _CARRY_USERS:
        uses.append(CC)
    return defs, uses


#: DefUse.of's results by the function's id (the function kept with it), the last few
_OF: dict[int, tuple[Function, DefUse]] = {}
_OF_SIZE = 8


@dataclass(eq=False)
class DefUse:
    """Def-use graph: ``deps[i]`` are the instructions whose writes reach a read
    of instruction ``i``; ``users[j]`` the instructions reading what ``j`` wrote;
    ``reaching[i][key]`` the writers per read location (empty tuple: the value
    comes from outside -- an uninitialised register or a caller's argument);
    ``defs[i]``/``uses[i]`` the location keys instruction ``i`` writes/reads.
    Built by :meth:`of` (the analysis), so the record itself is plain data."""

    func: Function
    cfg: CFG
    defs: list[list[str]]
    uses: list[list[str]]
    reaching: list[dict[str, tuple[int, ...]]]
    deps: list[tuple[int, ...]]
    users: list[tuple[int, ...]]

    @classmethod
    def of(cls, func: Function, cfg: CFG | None = None) -> DefUse:
        """The def-use graph of ``func`` by reaching definitions over its CFG; without ``cfg``,
        kept for the last few functions asked for (the emulator's bounds check and mapper g's
        cross-CTA reuse ask for the same kernel's, and a tuning run's variants share parsed
        kernels: :func:`pipeperf.analysis.builds._parsed`). A parsed function is not changed
        after parsing, and the entry holds it, so its ``id`` names it while the entry lives."""
        if cfg is None:
            hit = _OF.get(id(func))
            if hit is not None and hit[0] is func:
                return hit[1]
            du = cls._of(func, CFG(func))
            if len(_OF) >= _OF_SIZE:
                _OF.pop(next(iter(_OF)))
            _OF[id(func)] = (func, du)
            return du
        return cls._of(func, cfg)

    @classmethod
    def _of(cls, func: Function, cfg: CFG) -> DefUse:
        resolve = _Resolver(func).key
        defs: list[list[str]] = []
        uses: list[list[str]] = []
        for x in func.instructions:
            d, u = locations(x, resolve)
            defs.append(d)
            uses.append(u)
        return cls(func, cfg, defs, uses, *_reaching(func, cfg, defs, uses))

    def edges(self) -> list[tuple[int, int]]:
        """All (writer, reader) instruction pairs (Definition 1's edge set E)."""
        return [(j, i) for i, deps in enumerate(self.deps) for j in deps]

    def backward(self, starts: Iterable[int]) -> Iterator[int]:
        """``starts`` and every instruction whose writes reach one of them, transitively (the
        register slice of those instructions' results), each as it is reached, so a caller
        that has its answer stops the walk."""
        stack = list(starts)
        seen = set(stack)
        deps = self.deps
        while stack:
            i = stack.pop()
            yield i
            for j in deps[i]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)


#: _reaching's results by the content they depend on (the locations each instruction writes and
#: reads, which of them are guarded, the blocks and their edges): ``analyze`` parses one module per
#: GPU target, and builds whose code is the same ask for the same dataflow once per GPU
_REACHING: dict[int, tuple] = {}
_REACHING_SIZE = 16


def _reaching(func: Function, cfg: CFG, defs: list[list[str]], uses: list[list[str]]):
    """(reaching, deps, users) of :class:`DefUse` (memoised by content, each caller given its own
    copy of the mutable parts)."""
    ins = func.instructions
    key = hash((tuple(map(tuple, defs)), tuple(map(tuple, uses)), tuple(x.guard is not None for x in ins),
                tuple((b.start, b.end, tuple(b.preds), tuple(b.succs)) for b in cfg.blocks)))
    hit = _REACHING.get(key)
    if hit is None:
        hit = _reaching_of(func, cfg, defs, uses)
        if len(_REACHING) >= _REACHING_SIZE:
            _REACHING.pop(next(iter(_REACHING)))
        _REACHING[key] = hit
    reaching, deps, users = hit
    return [dict(r) for r in reaching], list(deps), list(users)


def _reaching_of(func: Function, cfg: CFG, defs: list[list[str]], uses: list[list[str]]):
    """(reaching, deps, users): every definition numbered, one bit each (Python ints as bit
    sets), gen/kill per block, a worklist to the fixed point, then each read's reaching writers."""
    ins = func.instructions
    def_ins, all_defs, def_bits = _number_defs(defs)
    gen, kill = _gen_kill(ins, cfg, all_defs, def_bits)
    inn = _block_in_sets(cfg, gen, kill)
    return _read_writers(ins, cfg, uses, inn, def_ins, all_defs, def_bits)


def _number_defs(defs: list[list[str]]) -> tuple[list[int], dict[str, int], list[list[tuple[str, int]]]]:
    """Every definition numbered in program order: (instruction of each definition, bit set of
    each location's definitions, each instruction's (location, bit) pairs)."""
    def_ins: list[int] = []
    all_defs: dict[str, int] = {}
    def_bits: list[list[tuple[str, int]]] = []
    for i in range(len(defs)):
        row = []
        for k in defs[i]:
            bit = 1 << len(def_ins)
            def_ins.append(i)
            all_defs[k] = all_defs.get(k, 0) | bit
            row.append((k, bit))
        def_bits.append(row)
    return def_ins, all_defs, def_bits


def _gen_kill(ins: list[Instruction], cfg: CFG, all_defs: dict[str, int],
              def_bits: list[list[tuple[str, int]]]) -> tuple[list[int], list[int]]:
    """Per block, the definitions it generates (live at its end) and those it kills; a guarded
    definition kills nothing (it may not execute)."""
    blocks = cfg.blocks
    gen = [0] * len(blocks)
    kill = [0] * len(blocks)
    for b in blocks:
        g = k_ = 0
        for i in range(b.start, b.end):
            guarded = ins[i].guard is not None
            for key, bit in def_bits[i]:
                if guarded:
                    g |= bit
                else:
                    mask = all_defs[key]
                    g = (g & ~mask) | bit
                    k_ |= mask
        gen[b.id] = g
        kill[b.id] = k_
    return gen, kill


def _block_in_sets(cfg: CFG, gen: list[int], kill: list[int]) -> list[int]:
    """The definitions reaching each block's entry: a worklist iteration to the fixed point."""
    blocks = cfg.blocks
    inn = [0] * len(blocks)
    out = list(gen)
    work = list(range(len(blocks)))
    on = [True] * len(blocks)
    while work:
        bi = work.pop()
        on[bi] = False
        x = 0
        for p in blocks[bi].preds:
            x |= out[p]
        inn[bi] = x
        o = gen[bi] | (x & ~kill[bi])
        if o != out[bi]:
            out[bi] = o
            for s in blocks[bi].succs:
                if not on[s]:
                    on[s] = True
                    work.append(s)
    return inn


def _read_writers(ins: list[Instruction], cfg: CFG, uses: list[list[str]], inn: list[int],
                  def_ins: list[int], all_defs: dict[str, int], def_bits: list[list[tuple[str, int]]]):
    """(reaching, deps, users): walking each block from its in-set, the writers reaching each
    read location, each instruction's writers, and each instruction's readers."""
    n = len(ins)
    reaching: list[dict[str, tuple[int, ...]]] = [{} for _ in range(n)]
    deps: list[tuple[int, ...]] = [()] * n
    users: list[list[int]] = [[] for _ in range(n)]
    for b in cfg.blocks:
        cur = inn[b.id]
        for i in range(b.start, b.end):
            r: dict[str, tuple[int, ...]] = {}
            dep: set[int] = set()
            for key in uses[i]:
                if key in r:
                    continue
                x = cur & all_defs.get(key, 0)
                writers = []
                while x:
                    low = x & -x
                    writers.append(def_ins[low.bit_length() - 1])
                    x ^= low
                r[key] = tuple(sorted(writers))
                dep.update(writers)
            reaching[i] = r
            deps[i] = tuple(sorted(dep))
            for j in dep:
                users[j].append(i)
            guarded = ins[i].guard is not None
            for key, bit in def_bits[i]:
                if guarded:
                    cur |= bit
                else:
                    cur = (cur & ~all_defs[key]) | bit
    return reaching, deps, [tuple(sorted(set(u))) for u in users]
