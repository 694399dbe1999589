"""Control-flow graph of one PTX function: basic blocks, successors, post-dominators.

A block starts at the first instruction, at every labelled instruction and
after every control transfer (``bra``, ``brx.idx``, ``ret``, ``exit``,
``trap``) -- not only at labels, since nvcc often falls through into an
unlabelled block after a conditional branch.

Post-dominators are computed against a virtual exit node (id ``len(blocks)``)
reached from every block that can leave the function; blocks that cannot
reach it (infinite loops) get a virtual edge to it so every block has an
immediate post-dominator. The immediate post-dominator of a divergent
branch's block is where a SIMT machine reconverges the warp.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeperf.ptx.ir import Function, Instruction

_TERMINATORS = frozenset({"bra", "brx", "ret", "exit", "trap"})
_LEAVES = frozenset({"ret", "exit", "trap"})


@dataclass(slots=True)
class BasicBlock:
    """Instructions ``start`` .. ``end - 1``; ``exits`` if control may leave the function."""

    id: int
    start: int
    end: int
    labels: list[str] = field(default_factory=list)
    succs: list[int] = field(default_factory=list)
    preds: list[int] = field(default_factory=list)
    exits: bool = False

    def __len__(self) -> int:
        return self.end - self.start


class CFG:
    """Basic blocks of ``func``; ``block_of[i]`` is the block of instruction ``i``."""

    def __init__(self, func: Function):
        self.func = func
        ins = func.instructions
        n = len(ins)
        leaders = {0} if n else set()
        for idx in func.labels.values():
            if idx < n:
                leaders.add(idx)
        for i, x in enumerate(ins):
            if x.op.root in _TERMINATORS and i + 1 < n:
                leaders.add(i + 1)
        starts = sorted(leaders)
        self.blocks: list[BasicBlock] = []
        self.block_of: list[int] = [0] * n
        for b, s in enumerate(starts):
            e = starts[b + 1] if b + 1 < len(starts) else n
            self.blocks.append(BasicBlock(b, s, e))
            for i in range(s, e):
                self.block_of[i] = b
        for name, idx in func.labels.items():
            if idx < n:
                self.blocks[self.block_of[idx]].labels.append(name)
        self.exit = len(self.blocks)  # id of the virtual exit node
        for blk in self.blocks:
            self._link(blk, ins[blk.end - 1])
        for blk in self.blocks:
            for s in blk.succs:
                self.blocks[s].preds.append(blk.id)
        self.ipdom: list[int] = self._postdominators()

    # ------------------------------------------------------------------ edges
    def _target(self, label: str) -> int:
        idx = self.func.labels[label]
        return self.exit if idx >= len(self.func.instructions) else self.block_of[idx]

    def _link(self, blk: BasicBlock, last: Instruction) -> None:
        root = last.op.root
        nxt = blk.id + 1 if blk.id + 1 < len(self.blocks) else self.exit
        targets: list[int] = []
        falls = True
        if root == "bra":
            targets.append(self._target(last.srcs[-1].name))
            falls = last.guard is not None
        elif root == "brx":
            for lab in self.func.branch_tables[last.srcs[-1].name]:
                targets.append(self._target(lab))
            falls = last.guard is not None
        elif root in _LEAVES:
            targets.append(self.exit)
            falls = last.guard is not None
        if falls:
            targets.append(nxt)
        for t in targets:
            if t == self.exit:
                blk.exits = True
            elif t not in blk.succs:
                blk.succs.append(t)

    # ------------------------------------------------------------------ post-dominators
    def _postdominators(self) -> list[int]:
        """Immediate post-dominator per block (Cooper, Harvey & Kennedy's
        iterative algorithm on the reversed graph); ``self.exit`` for the exit."""
        nb = len(self.blocks)
        exit_ = self.exit
        # reverse-graph successors = CFG predecessors; exit's are the exiting blocks
        rsucc: list[list[int]] = [list(b.preds) for b in self.blocks] + [
            [b.id for b in self.blocks if b.exits]]
        # blocks that cannot reach the exit get a virtual edge to it
        reach = self._reaches(rsucc, exit_)
        for b in self.blocks:
            if not reach[b.id]:
                rsucc[exit_].append(b.id)
                reach = self._reaches(rsucc, exit_)
        # reverse postorder of the reversed graph, from exit
        order: list[int] = []
        seen = [False] * (nb + 1)
        stack = [(exit_, iter(rsucc[exit_]))]
        seen[exit_] = True
        while stack:
            node, it = stack[-1]
            for s in it:
                if not seen[s]:
                    seen[s] = True
                    stack.append((s, iter(rsucc[s])))
                    break
            else:
                stack.pop()
                order.append(node)
        order.reverse()
        rpo = {b: i for i, b in enumerate(order)}
        # predecessors in the reversed graph = CFG successors (+ exit edge)
        rpred: list[list[int]] = [[] for _ in range(nb + 1)]
        for u in range(nb + 1):
            for v in rsucc[u]:
                rpred[v].append(u)
        ipdom = [-1] * (nb + 1)
        ipdom[exit_] = exit_
        changed = True
        while changed:
            changed = False
            for bi in order[1:]:
                new = -1
                for p in rpred[bi]:
                    if ipdom[p] == -1:
                        continue
                    if new == -1:
                        new = p
                    else:
                        a, c = p, new
                        while a != c:
                            while rpo[a] > rpo[c]:
                                a = ipdom[a]
                            while rpo[c] > rpo[a]:
                                c = ipdom[c]
                        new = a
                if ipdom[bi] != new:
                    ipdom[bi] = new
                    changed = True
        return ipdom[:nb]

    @staticmethod
    def _reaches(rsucc: list[list[int]], start: int) -> list[bool]:
        seen = [False] * len(rsucc)
        seen[start] = True
        stack = [start]
        while stack:
            u = stack.pop()
            for v in rsucc[u]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(v)
        return seen

    # ------------------------------------------------------------------ queries
    def postdominators(self, block: int) -> list[int]:
        """All post-dominators of ``block`` (itself first, the exit last)."""
        out = [block]
        while out[-1] != self.exit:
            out.append(self.ipdom[out[-1]])
        return out

    def reconvergence(self, ins_index: int) -> int | None:
        """Index of the instruction where threads diverging at ``ins_index``
        reconverge (first instruction of the immediate post-dominator), or None
        if they only meet at function exit."""
        b = self.ipdom[self.block_of[ins_index]]
        return None if b == self.exit else self.blocks[b].start

    def branch_instructions(self) -> list[int]:
        """Indices of the control-flow instruction list (HyPA's CFIL): every
        ``bra``/``brx`` and every guarded ``ret``/``exit``/``trap``/``call``."""
        out = []
        for i, x in enumerate(self.func.instructions):
            r = x.op.root
            if r == "bra" or r == "brx" or (x.guard is not None and (r in _LEAVES or r == "call")):
                out.append(i)
        return out
