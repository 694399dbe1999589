"""The Instruction Dependence Graph (IDG) of one warp, stored as arrays.

Nodes are the dynamic instructions of a warp in program order, each with an
instruction class (mapped to a subsystem, lambda and Lambda by the hardware
spec); edges are def-use dependences in CSR form; barrier nodes synchronise
the warps of a group. Arrays rather than node objects keep graphs of millions
of instructions cheap and let the compiled simulator use them directly.

The arrays are held as buffers (:mod:`array` from a file, NumPy arrays from a generator) and
seen as NumPy arrays only when asked (``cls``, ``dep_ptr``, ...): ``pipeperf simulate`` reads a
file, hands the buffers to the compiled engine and never pays NumPy's import (a tenth of a
second, more than simulating 10^6 warp instructions).
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import accumulate, chain, repeat
from operator import add, lt
from typing import TYPE_CHECKING, Protocol, Union
from collections.abc import Collection, Iterable, Sequence

from pipeperf.errors import PipeperfError

if TYPE_CHECKING:
    import numpy as np

#: a C-contiguous buffer of numbers: ``array.array`` or a NumPy array (NumPy's stubs make an
#: ndarray a buffer from Python 3.12 only: ``memoryview()`` of one carries a type: ignore)
Buffer = Union[array, "np.ndarray"]

class _Lines(Protocol):
    """Each node's source line (None if unknown), by index: a sequence, or a lazy look-up."""

    def __getitem__(self, i: int, /) -> int | None: ...


#: Class names that are barriers even without ``barrier: true`` (and unless ``barrier: false``).
BARRIER_CLASSES = frozenset({"bar_sync", "barrier"})


@dataclass(frozen=True, eq=False)
class IDG:
    """One warp's IDG. Node ``i`` depends on ``dep_idx[dep_ptr[i]:dep_ptr[i+1]]`` (all < i).

    ``cls_buf`` (int32 class index per node), ``dep_ptr_buf`` (int64, n+1), ``dep_idx_buf``
    (int32, each < its node) and ``barrier_buf`` (one byte per node, 0/1) are the stored
    buffers; ``cls``, ``dep_ptr``, ``dep_idx`` and ``barrier`` are NumPy views of them."""

    name: str
    ids: tuple[str, ...]
    classes: tuple[str, ...]
    cls_buf: Buffer
    dep_ptr_buf: Buffer
    dep_idx_buf: Buffer
    barrier_buf: Buffer
    pcs: np.ndarray | None = None   # int64 PTX instruction index per node (graphs built from traces)
    #: int32 per node: the earlier node whose result this node's cannot precede, though the warp
    #: issues it without waiting (-1: none; None: no node has one): a load hitting L1 sectors the
    #: warp is still fetching gets its data with that fill (:func:`pipeperf.idg.build.warp_idg`)
    fill: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def without_barriers(self, ids: Collection[str]) -> IDG:
        """This IDG with the nodes ``ids`` no group barriers (``barrier: false`` in a file: a named
        barrier of some of a block's warps, counted as an instruction of its class only)."""
        bar = bytearray(memoryview(self.barrier_buf).cast("B"))  # type: ignore[arg-type]  # ndarray: see Buffer
        for i, node_id in enumerate(self.ids):
            if node_id in ids:
                bar[i] = 0
        return replace(self, barrier_buf=array("b", bytes(bar)))

    @cached_property
    def cls(self) -> np.ndarray:
        import numpy as np
        return np.frombuffer(self.cls_buf, np.int32)

    @cached_property
    def dep_ptr(self) -> np.ndarray:
        import numpy as np
        return np.frombuffer(self.dep_ptr_buf, np.int64)

    @cached_property
    def dep_idx(self) -> np.ndarray:
        import numpy as np
        return np.frombuffer(self.dep_idx_buf, np.int32)

    @cached_property
    def barrier(self) -> np.ndarray:
        import numpy as np
        return np.frombuffer(self.barrier_buf, np.bool_)

    @property
    def n_edges(self) -> int:
        return int(self.dep_ptr_buf[-1])

    @cached_property
    def n_barriers(self) -> int:
        return memoryview(self.barrier_buf).cast("B").tobytes().count(1)  # type: ignore[arg-type]  # ndarray: see Buffer

    def class_of(self, i: int) -> str:
        return self.classes[int(self.cls_buf[i])]

    def deps_of(self, i: int) -> np.ndarray:
        return self.dep_idx[self.dep_ptr[i]:self.dep_ptr[i + 1]]

    def class_counts(self) -> dict[str, int]:
        """Number of instructions per class (the alpha's of the analytical models)."""
        return dict(self._class_counts)

    @cached_property
    def _class_counts(self) -> dict[str, int]:
        counts = Counter(memoryview(self.cls_buf).cast("B").cast("i"))  # type: ignore[arg-type]  # ndarray: see Buffer
        return {c: counts[k] for k, c in enumerate(self.classes) if counts[k]}

    def longest_path(self, weight: np.ndarray) -> float:
        """Length of the heaviest dependence chain when node i costs ``weight[i]``."""
        import numpy as np
        finish = np.zeros(len(self), dtype=np.float64)
        ptr, idx = self.dep_ptr, self.dep_idx
        for i in range(len(self)):
            start = finish[idx[ptr[i]:ptr[i + 1]]].max() if ptr[i + 1] > ptr[i] else 0.0
            finish[i] = start + weight[i]
        return float(finish.max()) if len(self) else 0.0

    def to_dict(self) -> dict:
        out = []
        for i, node_id in enumerate(self.ids):
            d: dict = {"id": node_id, "class": self.class_of(i)}
            deps = [self.ids[j] for j in self.deps_of(i)]
            if deps:
                d["deps"] = deps
            if bool(self.barrier[i]) != (self.class_of(i) in BARRIER_CLASSES):
                d["barrier"] = bool(self.barrier[i])     # (false: a barrier of some warps only)
            if self.fill is not None and self.fill[i] >= 0:
                d["completes_after"] = self.ids[int(self.fill[i])]
            out.append(d)
        return {"name": self.name, "instructions": out}

    @classmethod
    def from_nodes(
        cls,
        name: str,
        ids: Sequence[str],
        classes: Sequence[str],
        deps: Sequence[Iterable[str]],
        barrier: Sequence[bool] | None = None,
        *,
        where: str | None = None,
        lines: _Lines | None = None,
    ) -> IDG:
        """Build and validate an IDG from per-node lists (ids, class names, dependence ids).

        Dependences may point forward in the list; nodes are then put in a stable
        topological order. A cycle or a missing id is a PipeperfError naming the node.
        """
        n = len(ids)
        line_of = (lambda i: lines[i]) if lines is not None else (lambda i: None)
        # the per-node work is done by C-level builtins (dict, map, bytes) where it can be: a file
        # of 10^4 instructions loads in the time the simulator takes for a few warps of it
        index: dict[str, int] = dict(zip(ids, range(n)))
        if len(index) < n:
            seen: set[str] = set()
            for i, node_id in enumerate(ids):
                if node_id in seen:
                    raise PipeperfError(f"duplicate instruction id '{node_id}'", file=where, line=line_of(i))
                seen.add(node_id)
        lookup = index.__getitem__
        csr = _csr_in_order(deps, lookup, n)
        if csr is not None:             # the common case: every row sorted, unique and backward
            ptr, flat = csr
            class_names, cls_arr, bar = _class_columns(classes, barrier, n)
            return cls(name, tuple(ids), class_names, cls_arr, ptr, flat, bar)
        dep_lists, forward = _checked_dep_lists(ids, deps, index, where, line_of)
        # machine-written IDGs are in program order already; only forward dependences need a sort
        ordered_ids, ordered = ids, classes
        if forward:
            order = _stable_topological_order(dep_lists)
            if order is None:
                cyc = _find_cycle(dep_lists)
                path = " -> ".join(ids[k] for k in cyc)
                raise PipeperfError(f"dependence cycle: {path}", file=where, line=line_of(cyc[0]))
            pos = [0] * n
            for new, old in enumerate(order):
                pos[old] = new
            dep_lists = [sorted(pos[j] for j in dep_lists[old]) for old in order]
            ordered_ids, ordered = [ids[o] for o in order], [classes[o] for o in order]
            if barrier is not None:
                barrier = [barrier[o] for o in order]
        ptr = array("q", accumulate(map(len, dep_lists), initial=0))
        flat = array("i", chain.from_iterable(dep_lists))
        class_names, cls_arr, bar = _class_columns(ordered, barrier, n)
        return cls(name, tuple(ordered_ids), class_names, cls_arr, ptr, flat, bar)

    @classmethod
    def from_columns(cls, name: str, ids: tuple[str, ...], class_names: tuple[str, ...], cls_bytes: bytes,
                     ptr_bytes: bytes, idx_bytes: bytes) -> IDG:
        """An IDG from io's C node pass (``_columns.columns``): the ids, the classes in order of
        first appearance, and the int32 class per node, int64 CSR pointers and int32 targets as
        bytes, checked there (known ids, each row backward, sorted and without repeats)."""
        cls_arr, ptr, flat = array("i"), array("q"), array("i")
        cls_arr.frombytes(cls_bytes)
        ptr.frombytes(ptr_bytes)
        flat.frombytes(idx_bytes)
        is_bar = [c in BARRIER_CLASSES for c in class_names]
        bar = array("b", bytes(map(is_bar.__getitem__, cls_arr)) if any(is_bar) else bytes(len(ids)))
        return cls(name, ids, class_names, cls_arr, ptr, flat, bar)

    @classmethod
    def from_arrays(cls, name: str, classes: Sequence[str], cls_arr: np.ndarray, dep_ptr: np.ndarray,
                    dep_idx: np.ndarray, barrier: np.ndarray | None = None,
                    ids: Sequence[str] | None = None, pcs: np.ndarray | None = None,
                    fill: np.ndarray | None = None) -> IDG:
        """Fast constructor for generated graphs already in topological order (deps < node);
        ``fill``: see :attr:`fill`."""
        import numpy as np
        n = len(cls_arr)
        dep_ptr = np.ascontiguousarray(dep_ptr, dtype=np.int64)
        dep_idx = np.ascontiguousarray(dep_idx, dtype=np.int32)
        if len(dep_ptr) != n + 1 or dep_ptr[0] != 0 or dep_ptr[-1] != len(dep_idx):
            raise ValueError("dep_ptr does not match dep_idx")
        owner = np.repeat(np.arange(n), np.diff(dep_ptr))
        if len(dep_idx) and (dep_idx >= owner).any():
            raise ValueError("generated IDG is not in topological order")
        names = tuple(classes)
        cls_arr = np.ascontiguousarray(cls_arr, dtype=np.int32)
        if barrier is not None:         # given per node: a barrier class's node may be no group barrier
            bar = np.array(barrier, dtype=bool)
        else:
            bar = np.zeros(n, dtype=bool)
            for k, c in enumerate(names):
                if c in BARRIER_CLASSES:
                    bar |= cls_arr == k
        node_ids = tuple(ids) if ids is not None else tuple(f"i{k}" for k in range(n))
        if fill is not None:
            fill = np.ascontiguousarray(fill, dtype=np.int32)
            if len(fill) != n or ((fill < -1) | (fill >= np.arange(n))).any():
                raise ValueError("fill must name an earlier node (or -1) per node")
            if not (fill >= 0).any():
                fill = None
        return cls(name, node_ids, names, cls_arr, dep_ptr, dep_idx, bar,
                   None if pcs is None else np.asarray(pcs, dtype=np.int64), fill)


def _csr_in_order(deps: Sequence[Iterable[str]], lookup, n: int) -> tuple[array, array] | None:
    """(dep_ptr, dep_idx) when every node's dependences name known ids, earlier nodes only, in
    increasing order without repeats (what a machine-written file or a trace gives), checked in
    C-level passes over all edges at once (operator functions: no per-edge bytecode): every
    edge's target must be below its node (backward), and its key ``node * n + target`` below
    the next edge's (rows sorted, without repeats). None otherwise: from_nodes' per-node path sorts, reorders or
    names the error."""
    try:
        flat = list(map(lookup, chain.from_iterable(deps)))
    except (KeyError, TypeError):
        return None
    lens = list(map(len, deps))  # type: ignore[arg-type]  # each node's deps: a list or tuple
    if not all(map(lt, flat, chain.from_iterable(map(repeat, range(n), lens)))):
        return None
    keys = list(map(add, chain.from_iterable(map(repeat, range(0, n * n, n), lens)), flat))
    if not all(map(lt, keys, keys[1:])):
        return None
    return array("q", accumulate(lens, initial=0)), array("i", flat)


def _class_columns(classes: Sequence[str], barrier: Sequence[bool] | None,
                   n: int) -> tuple[tuple[str, ...], array, array]:
    """(class names in order of first appearance, int32 class per node, barrier byte per node):
    a barrier is a barrier class or a node marked ``barrier``."""
    class_names = {c: k for k, c in enumerate(dict.fromkeys(classes))}
    cls_arr = array("i", map(class_names.__getitem__, classes))
    is_bar = [c in BARRIER_CLASSES for c in class_names]
    bar = array("b", bytes(map(is_bar.__getitem__, cls_arr)) if any(is_bar) else bytes(n))
    if barrier is not None:
        for i, b in enumerate(barrier):
            if b:
                bar[i] = 1
    return tuple(class_names), cls_arr, bar


def _checked_dep_lists(ids: Sequence[str], deps: Sequence[Iterable[str]], index: dict[str, int],
                       where: str | None, line_of) -> tuple[list[list[int]], bool]:
    """from_nodes' per-node path: each node's dependences as sorted unique indices, and whether
    any points forward; a missing id or a self-dependence is a PipeperfError naming the node."""
    lookup = index.__getitem__
    dep_lists: list[list[int]] = []
    forward = False                 # some dependence points to a later node
    for i, ds in enumerate(deps):
        try:
            row = list(map(lookup, ds))
        except KeyError:
            missing = next(d for d in ds if d not in index)
            raise PipeperfError(f"instruction '{ids[i]}' depends on missing id '{missing}'",
                                file=where, line=line_of(i)) from None
        if len(row) > 1:
            row = sorted(set(row))
        if row and row[-1] >= i:
            if i in row:
                raise PipeperfError(f"instruction '{ids[i]}' depends on itself (a cycle)",
                                    file=where, line=line_of(i))
            forward = True
        dep_lists.append(row)
    return dep_lists, forward


def _stable_topological_order(deps: list[list[int]]) -> list[int] | None:
    """Kahn's algorithm taking the lowest index first, so program order is kept where legal."""
    n = len(deps)
    indeg = [len(d) for d in deps]
    users: list[list[int]] = [[] for _ in range(n)]
    for i, ds in enumerate(deps):
        for j in ds:
            users[j].append(i)
    heap = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    order: list[int] = []
    while heap:
        i = heapq.heappop(heap)
        order.append(i)
        for u in users[i]:
            indeg[u] -= 1
            if indeg[u] == 0:
                heapq.heappush(heap, u)
    return order if len(order) == n else None


def _find_cycle(deps: list[list[int]]) -> list[int]:
    """One dependence cycle, as node indices, for the error message."""
    color = [0] * len(deps)
    stack_pos: dict[int, int] = {}
    path: list[int] = []

    def visit(start: int) -> list[int] | None:
        stack = [(start, iter(deps[start]))]
        color[start] = 1
        stack_pos[start] = 0
        path.append(start)
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                color[node] = 2
                path.pop()
                stack_pos.pop(node, None)
                continue
            if color[nxt] == 1:
                return path[stack_pos[nxt]:] + [nxt]
            if color[nxt] == 0:
                color[nxt] = 1
                stack_pos[nxt] = len(path)
                path.append(nxt)
                stack.append((nxt, iter(deps[nxt])))
        return None

    for s in range(len(deps)):
        if color[s] == 0:
            cyc = visit(s)
            if cyc:
                return cyc
    return [0]

