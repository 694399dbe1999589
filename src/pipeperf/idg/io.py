"""Reading IDGs and kernels from YAML/JSON files, with line numbers in every error.

Formats (docs/commands/simulate.md)::

    name: chain                     # a single warp IDG
    instructions:
      - {id: c1, class: comp}
      - {id: m1, class: mem, deps: [c1]}
      - {id: m2, class: l1hit, completes_after: m1}   # issues at once, done no sooner than
                                                      # m1's result plus its class's after_fill

    name: divergent                 # several warp classes with weights
    warp_classes:
      - {weight: 3, file: even.yaml}
      - weight: 1
        name: odd
        instructions: [...]
    group_classes:                  # optional block shapes: the warp class (index into
      - {weight: 3, warps: [0, 0]}  # warp_classes) of each warp position of a group;
      - {weight: 1, warps: [0, 1]}  # the simulator then runs whole groups of these shapes
"""

from __future__ import annotations

from dataclasses import replace
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path

from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import GroupClass, KernelGraph, WarpClass
from pipeperf.util.gcpause import paused_gc
from pipeperf.util.yamlio import Document, load_document

try:                                    # the node pass in C (setup.py builds it; else Python's)
    from pipeperf.idg._columns import columns as _c_columns
    from pipeperf.idg._columns import scan_json as _c_scan_json
except ImportError:
    _c_columns = _c_scan_json = None

_NODE_KEYS = frozenset({"id", "class", "deps", "barrier", "completes_after"})
_ID, _CLASS = itemgetter("id"), itemgetter("class")


def load_kernel(path: str | Path) -> KernelGraph:
    """Load an IDG file (single IDG or warp classes) as a KernelGraph."""
    fast = _scanned_json(path)
    if fast is not None:
        return fast
    with paused_gc():                   # a tree of 10^4+ small dicts and lists, none in a cycle
        return parse_kernel(load_document(path))


def _scanned_json(path: str | Path) -> KernelGraph | None:
    """A program-written JSON IDG (one IDG of id/class/deps nodes, see ``_columns.scan_json``)
    read straight into arrays in C, without a dict per node: 2 ms for 10^4 nodes where json and
    the node pass take 16. None for any other file, or an unreadable one: load_document then
    reads it, or names its problem."""
    p = Path(path)
    if _c_scan_json is None or p.suffix.lower() != ".json":
        return None
    try:
        data = p.read_bytes()
    except OSError:
        return None
    got = _c_scan_json(data)
    if got is None:
        return None
    name, *cols = got
    kg = KernelGraph.single(IDG.from_columns(p.stem if name is None else name, *cols), str(p))
    kg.check_barriers()
    return kg


def parse_kernel(doc: Document) -> KernelGraph:
    d = doc.data
    if not isinstance(d, dict):
        raise doc.error("expected a mapping with 'instructions' or 'warp_classes'")
    if "warp_classes" in d:
        wcs = d["warp_classes"]
        if not isinstance(wcs, list) or not wcs:
            raise doc.error("'warp_classes' must be a non-empty list", d)
        classes = []
        for k, wc in enumerate(wcs):
            if not isinstance(wc, dict):
                raise doc.error(f"warp class {k + 1}: expected a mapping with weight and instructions or file", wcs)
            weight = wc.get("weight", 1)
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0:
                raise doc.error(f"warp class {k + 1}: 'weight' must be a positive number, got {weight!r}", wc)
            if "file" in wc:
                sub = Path(doc.path).parent / str(wc["file"])
                inner = load_kernel(sub)
                if len(inner.warp_classes) != 1:
                    raise doc.error(f"warp class {k + 1}: '{wc['file']}' must hold a single IDG", wc)
                idg = inner.warp_classes[0].idg
            else:
                idg = parse_idg(doc, wc, default_name=f"{d.get('name', 'kernel')}[{k}]")
            classes.append(WarpClass(idg, float(weight)))
        kg = KernelGraph(str(d.get("name", Path(doc.path).stem)), tuple(classes), doc.path,
                         parse_group_classes(doc, d, len(classes)))
    elif "group_classes" in d:
        raise doc.error("'group_classes' needs 'warp_classes' to refer to", d)
    elif "instructions" in d:
        kg = KernelGraph.single(parse_idg(doc, d, default_name=Path(doc.path).stem), doc.path)
    else:
        raise doc.error("expected key 'instructions' (one IDG) or 'warp_classes' (several)", d)
    kg.check_barriers()
    return kg


def parse_group_classes(doc: Document, d: dict, n_classes: int) -> tuple[GroupClass, ...]:
    """The optional ``group_classes`` list: {weight, warps: [warp-class index per warp position]}."""
    gcs = d.get("group_classes")
    if gcs is None:
        return ()
    if not isinstance(gcs, list) or not gcs:
        raise doc.error("'group_classes' must be a non-empty list of {weight, warps}", d)
    out, size = [], None
    for k, gc in enumerate(gcs):
        where = gc if isinstance(gc, (dict, list)) else gcs
        if not isinstance(gc, dict) or set(gc) - {"weight", "warps"} or "warps" not in gc:
            raise doc.error(f"group class {k + 1}: expected a mapping {{weight, warps: [warp-class indices]}}", where)
        weight, warps = gc.get("weight", 1), gc["warps"]
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0:
            raise doc.error(f"group class {k + 1}: 'weight' must be a positive number, got {weight!r}", gc)
        if (not isinstance(warps, list) or not warps
                or any(isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < n_classes for j in warps)):
            raise doc.error(f"group class {k + 1}: 'warps' must list warp-class indices 0..{n_classes - 1}, "
                            f"one per warp position, got {warps!r}", gc)
        if size is not None and len(warps) != size:
            raise doc.error(f"group class {k + 1}: {len(warps)} warps, but group class 1 has {size}; "
                            "every group class has the same number of warps", gc)
        size = len(warps)
        out.append(GroupClass(tuple(warps), float(weight)))
    return tuple(out)


def parse_idg(doc: Document, d: dict, default_name: str) -> IDG:
    instrs = d.get("instructions")
    if not isinstance(instrs, list) or not instrs:
        raise doc.error("'instructions' must be a non-empty list of {id, class, deps}", d)
    if _c_columns is not None:
        got = _c_columns(instrs)
        if got is not None:
            return IDG.from_columns(str(d.get("name", default_name)), *got)
    fast = _columns(instrs)
    if fast is not None:
        return IDG.from_nodes(str(d.get("name", default_name)), *fast, None,
                              where=doc.path, lines=_NodeLines(doc, instrs))
    ids, classes, deps = [], [], []
    bars: list[bool] | None = None      # only when some node says ``barrier:``
    after: dict[int, str] = {}          # node -> the id its completes_after names
    unbarred: set[str] = set()          # ``barrier: false``: a barrier class's node no group waits at
    for k, node in enumerate(instrs):
        if not isinstance(node, dict):
            raise doc.error(f"instruction {k + 1}: expected a mapping like {{id: c1, class: comp, deps: [...]}}", d)
        if not node.keys() <= _NODE_KEYS:
            raise doc.error(f"instruction {k + 1}: unknown key '{sorted(set(node) - _NODE_KEYS)[0]}' "
                            f"(expected id, class, deps, barrier, completes_after)", node)
        try:
            node_id, cls = node["id"], node["class"]
        except KeyError:
            raise doc.error(f"instruction {k + 1}: needs 'id' and 'class'", node) from None
        dl = node.get("deps") or ()
        if type(dl) is not list:
            if isinstance(dl, (str, int)):
                dl = [dl]
            elif not isinstance(dl, (list, tuple)):
                raise doc.error(f"instruction '{node_id}': 'deps' must be a list of ids", node)
        ids.append(node_id if type(node_id) is str else str(node_id))
        classes.append(cls if type(cls) is str else str(cls))
        # ids read as numbers (YAML ``1``) are matched as their text, as the ids are; str.join is
        # the C-speed test that every dependence is text already
        try:
            "".join(dl)
        except TypeError:
            dl = [str(x) for x in dl]
        deps.append(dl)
        if "barrier" in node:
            if bars is None:
                bars = [False] * k
            bars.append(bool(node["barrier"]))
            if not node["barrier"]:
                unbarred.add(ids[-1])
        elif bars is not None:
            bars.append(False)
        if "completes_after" in node:
            after[k] = str(node["completes_after"])
    g = IDG.from_nodes(str(d.get("name", default_name)), ids, classes, deps, bars,
                       where=doc.path, lines=_NodeLines(doc, instrs))
    if unbarred:
        g = g.without_barriers(unbarred)
    return _with_fill(doc, g, instrs, ids, after) if after else g


def _with_fill(doc: Document, g: IDG, instrs: list, ids: list[str], after: dict[int, str]) -> IDG:
    """``g`` with each ``completes_after`` (node k of the file -> the id it names) as
    :attr:`IDG.fill`: the named node must come earlier in the warp's order."""
    import numpy as np

    index = {x: i for i, x in enumerate(g.ids)}
    fill = np.full(len(g), -1, np.int32)
    for k, target in after.items():
        me = index[ids[k]]
        j = index.get(target)
        if j is None:
            raise doc.error(f"instruction '{ids[k]}': completes_after names '{target}', which is not "
                            "an instruction of this IDG", instrs[k])
        if j >= me:
            raise doc.error(f"instruction '{ids[k]}': completes_after must name an earlier instruction, "
                            f"not '{target}'", instrs[k])
        fill[me] = j
    return replace(g, fill=fill)


def _columns(instrs: list) -> tuple[list, list, list] | None:
    """(ids, classes, deps) of a list of well-formed nodes (mappings of text ids and classes, deps
    lists of text, no ``barrier:`` or ``completes_after:`` key), each column taken by a C-level
    pass (map, itemgetter, set, str.join) rather than a Python loop per node; None for anything
    else, which parse_idg's loop then converts or names in an error."""
    if set(map(type, instrs)) != {dict} or not all(map(_NODE_KEYS.issuperset, instrs)) \
            or any(map(dict.__contains__, instrs, repeat("barrier"))) \
            or any(map(dict.__contains__, instrs, repeat("completes_after"))):
        return None
    try:
        ids, classes = list(map(_ID, instrs)), list(map(_CLASS, instrs))
    except KeyError:
        return None
    deps = list(map(dict.get, instrs, repeat("deps"), repeat(())))
    if set(map(type, ids)) != {str} or set(map(type, classes)) != {str} or not set(map(type, deps)) <= {list, tuple}:
        return None
    try:
        "".join(chain.from_iterable(deps))
    except TypeError:
        return None
    return ids, classes, deps


class _NodeLines:
    """The line of each instruction, looked up only when an error names one."""

    def __init__(self, doc: Document, nodes: list) -> None:
        self._doc, self._nodes = doc, nodes

    def __getitem__(self, i: int) -> int | None:
        return self._doc.line_of(self._nodes[i])
