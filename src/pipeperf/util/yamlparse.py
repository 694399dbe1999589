"""The PyYAML side of :mod:`pipeperf.util.yamlio`: the C loader, the line-tracking loaders and
the fast tree builder. Imported on first use, so a command that reads only JSON (an IDG file
and a GPU spec from the cache) does not pay for PyYAML's import."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml

from pipeperf.errors import PipeperfError
from pipeperf.util.yamllines import LineList, LineMap

#: PyYAML's loader in C where it was built with libyaml; the same constructors as SafeLoader
_FastLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
        return yaml.load(text, Loader=_StrictLineLoader if strict else _LineLoader)
    except _DuplicateKey as exc:
        raise PipeperfError(f"{exc.key}: duplicate key", file=path, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        raise PipeperfError(f"invalid YAML: {exc.problem or 'malformed YAML'}", file=path, line=line) from None
    except yaml.YAMLError as exc:
        raise PipeperfError(f"invalid YAML: {exc}", file=path) from None


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


def _tracked(text: str) -> Any:
    """``text`` through the line-tracking loader (libyaml's parser where built), or None."""
    try:
        return yaml.load(text, Loader=_FastLineLoader)
    except yaml.YAMLError:
        try:
            return loads_lines(text)
        except PipeperfError:
            return None
