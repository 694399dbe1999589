"""YAML/JSON loading: fast, with the line numbers of the nodes when an error needs them.

Users write IDGs, GPU specs and SW26010 specs by hand; when one is wrong the error must say
``FILE:LINE: what was expected``. Machines write IDGs too, of millions of instructions, and
those must load fast. So a :class:`Document` is parsed fast (JSON with :mod:`json`, YAML
with PyYAML's C loader where it is built, else its SafeLoader) into plain dicts and lists,
and only when a caller asks for the line of a node (to report an error) is the text parsed
again by the one line-tracking loader of the project, :func:`loads_lines`, whose mappings and
lists carry their lines (:class:`LineMap`, :class:`LineList`); the two trees are walked side by
side to give each fast mapping its line.

:func:`loads_lines` is also the loader of the SW26010 specs, which read the lines of keys
and list items, and want duplicate keys and non-scalar keys reported (``strict=True``).
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml

from pipeperf.errors import PipeperfError
from pipeperf.util.files import read_text

#: PyYAML's loader in C where it was built with libyaml; the same constructors as SafeLoader
_FastLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LineMap(dict):
    """A dict that remembers the YAML line of itself and of each key."""

    line: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_lines: dict[Any, int] = {}


class LineList(list):
    """A list that remembers the YAML line of itself and of each item."""

    line: int | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.item_lines: list[int] = []


class _LineLoader(yaml.SafeLoader):
    """SafeLoader (pure Python, for its marks and messages) that builds LineMaps and LineLists."""

    strict = False


class _StrictLineLoader(_LineLoader):
    """Also rejects duplicate keys and keys that are not scalars."""

    strict = True


class _DuplicateKey(Exception):
    def __init__(self, key: str, line: int) -> None:
        super().__init__(key)
        self.key = key
        self.line = line


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineMap:
    loader.flatten_mapping(node)
    out = LineMap()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if loader.strict:
            if not isinstance(key, (str, int, float, bool)):
                raise yaml.constructor.ConstructorError(
                    None, None, f"unsupported key type {type(key).__name__}", key_node.start_mark)
            if key in out:
                raise _DuplicateKey(str(key), line)
        elif not isinstance(key, Hashable):
            raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                    "found unhashable key", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = line
    return out


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    out = LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


class _FastLineLoader(_FastLoader):  # type: ignore[misc,valid-type]
    """The same line tracking on libyaml's nodes (same marks), for finding the lines of a
    document that has already parsed: an error's line in a large file comes in a fraction
    of the pure-Python loader's time."""

    strict = False


for _loader in (_LineLoader, _FastLineLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def loads_lines(text: str, path: str | Path = "<string>", *, strict: bool = False) -> Any:
    """Parse YAML into LineMap/LineList objects; every problem is a PipeperfError naming the
    file and line. ``strict``: a duplicate key or a non-scalar key is an error too."""
    try:
        return yaml.load(text, Loader=_StrictLineLoader if strict else _LineLoader)  # noqa: S506 - SafeLoader
    except _DuplicateKey as exc:
        raise PipeperfError(f"{exc.key}: duplicate key", file=path, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        raise PipeperfError(f"invalid YAML: {exc.problem or 'malformed YAML'}", file=path, line=line) from None
    except yaml.YAMLError as exc:
        raise PipeperfError(f"invalid YAML: {exc}", file=path) from None


def load_lines(path: str | Path, what: str = "file", *, strict: bool = False) -> Any:
    """:func:`loads_lines` of a file; a missing or unreadable file is a PipeperfError naming it."""
    return loads_lines(read_text(path, what), path, strict=strict)


class Document:
    """A parsed YAML/JSON document; :meth:`line_of` gives the line of any mapping in it.

    ``lines`` (``id`` of a mapping -> line) may be given; else they are found on the first
    :meth:`line_of` by parsing ``text`` again with the line-tracking loader.
    """

    def __init__(self, data: Any, path: str, lines: dict[int, int] | None = None, text: str | None = None):
        self.data = data
        self.path = path
        self._lines = lines
        self._text = text

    def line_of(self, obj: Any) -> int | None:
        if self._lines is None:
            self._lines = _match_lines(self.data, self._text)
            self._text = None
        return self._lines.get(id(obj))

    def error(self, message: str, obj: Any = None) -> PipeperfError:
        return PipeperfError(message, file=self.path, line=self.line_of(obj) if obj is not None else None)


def load_document(path: str | Path) -> Document:
    """Read a YAML or JSON file, turning every I/O and syntax problem into a PipeperfError."""
    p = Path(path)
    return parse_document(read_text(p), str(p))


def parse_document(text: str, path: str) -> Document:
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PipeperfError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None
        return Document(data, path, text=text)
    try:
        data = loads_fast(text)
    except yaml.YAMLError:
        # the pure-Python loader's message and line, as ever; should it accept what libyaml
        # did not, its tree is the document
        tracked = loads_lines(text, path)
        return Document(tracked, path, _own_lines(tracked))
    return Document(data, path, text=text)


_STR = yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG
_SEQ = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG
_MAP = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
_MERGE_TAGS = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})


def loads_fast(text: str) -> Any:
    """YAML text as ``yaml.safe_load`` reads it, faster: libyaml composes the nodes, and the plain
    strings, lists and mappings that make up nearly all of an IDG are built here directly
    rather than through the constructor's per-node dispatch (which then builds the rest:
    numbers, booleans, nulls, dates, merge keys, and the errors of unknown tags or unhashable keys)."""
    loader = _FastLoader(text)
    try:
        node = loader.get_single_node()
        return None if node is None else _build(loader, node, {})
    finally:
        loader.dispose()


def _build(loader: Any, node: yaml.Node, memo: dict[int, Any]) -> Any:
    tag = node.tag
    if tag == _STR and isinstance(node, yaml.ScalarNode):
        return node.value
    if id(node) in memo:                                # an alias of a list or mapping built before
        return memo[id(node)]
    if tag == _SEQ and isinstance(node, yaml.SequenceNode):
        out: list = []
        memo[id(node)] = out
        out.extend(_build(loader, child, memo) for child in node.value)
        return out
    if tag == _MAP and isinstance(node, yaml.MappingNode) and not any(k.tag in _MERGE_TAGS for k, _ in node.value):
        mapping: dict = {}
        memo[id(node)] = mapping
        try:
            for key_node, value_node in node.value:
                mapping[_build(loader, key_node, memo)] = _build(loader, value_node, memo)
            return mapping
        except TypeError:                               # an unhashable key: the constructor's error
            del memo[id(node)]
    return loader.construct_object(node, deep=True)


def _own_lines(tracked: Any) -> dict[int, int]:
    """``id`` -> line of every LineMap in a tree of the line-tracking loader."""
    out: dict[int, int] = {}
    stack = [tracked]
    while stack:
        t = stack.pop()
        if isinstance(t, LineMap):
            if id(t) not in out:
                out[id(t)] = t.line
                stack.extend(t.values())
        elif isinstance(t, list):
            stack.extend(t)
    return out


def _tracked(text: str) -> Any:
    """``text`` through the line-tracking loader (libyaml's parser where built), or None."""
    try:
        return yaml.load(text, Loader=_FastLineLoader)  # noqa: S506 - CSafeLoader/SafeLoader
    except yaml.YAMLError:
        try:
            return loads_lines(text)
        except PipeperfError:
            return None


def _match_lines(data: Any, text: str | None) -> dict[int, int]:
    """``id`` -> line of every mapping of ``data``, found by parsing ``text`` (YAML, or JSON,
    which is YAML too) with line tracking and walking both trees side by side; a mapping the
    two parses disagree on gets no line."""
    tracked = _tracked(text) if text is not None else None
    if tracked is None:
        return {}
    out: dict[int, int] = {}
    stack = [(data, tracked)]
    while stack:
        a, t = stack.pop()
        if isinstance(a, dict) and isinstance(t, LineMap):
            if id(a) in out:
                continue
            out[id(a)] = t.line
            stack.extend((v, t[k]) for k, v in a.items() if k in t)
        elif isinstance(a, list) and isinstance(t, list) and len(a) == len(t):
            stack.extend(zip(a, t))
    return out
