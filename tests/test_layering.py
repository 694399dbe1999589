"""The import graph of ``src/pipeperf`` has no cycle and follows the layer order: every import of
every module (at its top, inside functions and under ``TYPE_CHECKING`` alike, read with ``ast``,
nothing imported) goes to the module's own package or to a lower layer. The order is declared
once, in docs/ARCHITECTURE.md's "Layer order" block (``layer N: package ...``); a package that needs something of a higher one moves
that piece down rather than hiding the import."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src"
ROOT = SRC / "pipeperf"

#: the layers, lowest first: a module may import from its own package and from packages of lower
#: layers only (packages of one layer import nothing of each other). ``_version`` and ``errors``
#: are what every layer may read; ``pipeperf`` (the package's ``__init__``, whose ``analyze`` is
#: the API's) and ``__main__`` are the entry points above everything.
ARCHITECTURE = Path(__file__).parents[1] / "docs" / "ARCHITECTURE.md"
LAYERS: tuple[tuple[str, ...], ...] = tuple(
    tuple(names.split()) for _n, names in re.findall(r"^layer (\d+): (.+)$", ARCHITECTURE.read_text(), re.M))
LAYER = {name: k for k, names in enumerate(LAYERS) for name in names}


def test_the_layer_order_is_numbered_and_names_each_package_once():
    rows = re.findall(r"^layer (\d+): (.+)$", ARCHITECTURE.read_text(), re.M)
    assert [int(n) for n, _ in rows] == list(range(len(rows))) and rows
    named = [name for names in LAYERS for name in names]
    assert len(named) == len(set(named)), "a package in two layers"
    assert sorted(set(named) - {_group(m) for m in MODULES}) == [], "a layer names no package"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    """Every module: the ``.py`` files and the C extensions (by their ``.c`` source)."""
    mods = {_module_name(p): p for p in ROOT.rglob("*.py")}
    for c in ROOT.rglob("*.c"):
        mods.setdefault(_module_name(c), c)
    return mods


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """(module imported, line) of each import in ``path``: ``from P import x`` is an import of
    ``P.x`` where that is a module, else of ``P``; relative imports resolved."""
    if path.suffix != ".py":
        return
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name:
                yield t, node.lineno


GRAPH = {name: sorted(set(_imports(name, path))) for name, path in MODULES.items()}


def _group(module: str) -> str:
    """The layer entry a module belongs to: ``pipeperf.hardware.mapper`` -> ``hardware``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pipeperf"


def test_every_package_has_a_layer():
    assert sorted({_group(m) for m in MODULES} - set(LAYER)) == []


def test_imports_follow_the_layer_order():
    wrong = [f"{MODULES[m].relative_to(SRC)}:{line}: {m} ({_group(m)}) imports {t} ({_group(t)})"
             for m, targets in GRAPH.items() for t, line in targets
             if _group(m) != _group(t) and LAYER[_group(t)] >= LAYER[_group(m)]]
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_cycle_between_modules():
    cycles = _cycles({m: [t for t, _ in targets] for m, targets in GRAPH.items()})
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("graph,cycles", [({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}, [["a", "b", "c"]]),
                                          ({"a": ["b"], "b": [], "c": ["a", "b"]}, [])])
def test_cycle_finder(graph, cycles):
    assert _cycles(graph) == cycles
