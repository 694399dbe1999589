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

from pipeperf.ptx.cfg import CFG
from pipeperf.ptx.ir import (
    Address,
    Function,
    HandleRef,
    Instruction,
    NotPred,
    ParamList,
    Register,
    Symbol,
    Vector,
)

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


def _regs(op, out: list[str]) -> None:
    t = type(op)
    if t is Register:
        out.append(op.name)
    elif t is Address:
        if type(op.base) is Register:
            out.append(op.base.name)
    elif t is NotPred:
        out.append(op.reg.name)
    elif t is Vector or t is HandleRef or t is ParamList:
        for item in op.items:
            _regs(item, out)
    elif t is tuple:
        for item in op:
            _regs(item, out)


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
                _regs(o, uses)
    else:
        for o in ins.dsts:
            _regs(o, defs)
        srcs = ins.srcs
        if ins.op.space == "param" and srcs and type(srcs[0]) is Address \
                and type(srcs[0].base) is Symbol:
            if root == "st":
                defs.append("param:" + srcs[0].base.name)
                for o in srcs[1:]:
                    _regs(o, uses)
            else:
                uses.append("param:" + srcs[0].base.name)
                for o in srcs[1:]:
                    _regs(o, uses)
        else:
            for o in srcs:
                _regs(o, uses)
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


class DefUse:
    """Def-use graph: ``deps[i]`` are the instructions whose writes reach a read
    of instruction ``i``; ``users[j]`` the instructions reading what ``j`` wrote;
    ``reaching[i][key]`` the writers per read location (empty tuple: the value
    comes from outside -- an uninitialised register or a caller's argument)."""

    def __init__(self, func: Function, cfg: CFG | None = None):
        self.func = func
        self.cfg = cfg if cfg is not None else CFG(func)
        ins = func.instructions
        n = len(ins)
        res = _Resolver(func)
        resolve = res.key
        self.defs: list[list[str]] = []
        self.uses: list[list[str]] = []
        for x in ins:
            d, u = locations(x, resolve)
            self.defs.append(d)
            self.uses.append(u)
        # number every definition; all_defs[key] = bit set of its definitions
        def_ins: list[int] = []
        all_defs: dict[str, int] = {}
        def_bits: list[list[tuple[str, int]]] = []
        for i in range(n):
            row = []
            for k in self.defs[i]:
                bit = 1 << len(def_ins)
                def_ins.append(i)
                all_defs[k] = all_defs.get(k, 0) | bit
                row.append((k, bit))
            def_bits.append(row)
        blocks = self.cfg.blocks
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
        inn = [0] * len(blocks)
        out = list(gen)
        work = list(range(len(blocks)))
        on = [True] * len(blocks)
        while work:
            b = work.pop()
            on[b] = False
            x = 0
            for p in blocks[b].preds:
                x |= out[p]
            inn[b] = x
            o = gen[b] | (x & ~kill[b])
            if o != out[b]:
                out[b] = o
                for s in blocks[b].succs:
                    if not on[s]:
                        on[s] = True
                        work.append(s)
        self.reaching: list[dict[str, tuple[int, ...]]] = [{} for _ in range(n)]
        self.deps: list[tuple[int, ...]] = [()] * n
        users: list[list[int]] = [[] for _ in range(n)]
        for b in blocks:
            cur = inn[b.id]
            for i in range(b.start, b.end):
                r: dict[str, tuple[int, ...]] = {}
                dep: set[int] = set()
                for key in self.uses[i]:
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
                self.reaching[i] = r
                self.deps[i] = tuple(sorted(dep))
                for j in dep:
                    users[j].append(i)
                guarded = ins[i].guard is not None
                for key, bit in def_bits[i]:
                    if guarded:
                        cur |= bit
                    else:
                        cur = (cur & ~all_defs[key]) | bit
        self.users: list[tuple[int, ...]] = [tuple(sorted(set(u))) for u in users]

    def edges(self) -> list[tuple[int, int]]:
        """All (writer, reader) instruction pairs (Definition 1's edge set E)."""
        return [(j, i) for i, deps in enumerate(self.deps) for j in deps]
