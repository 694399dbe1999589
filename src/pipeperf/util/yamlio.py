"""YAML/JSON loading that remembers line numbers.

Users write IDGs and GPU specs by hand; when one is wrong the error must say
``FILE:LINE: what was expected``. PyYAML's node marks give the line of every
mapping, which we keep in a side table keyed by ``id()`` of the built dict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from pipeperf.errors import PipeperfError
from pipeperf.util.files import read_text


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that records the 1-based line of each mapping it builds."""

    lines: dict[int, int]


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=True)
    loader.lines[id(mapping)] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class Document:
    """A parsed YAML/JSON document plus the line of every mapping in it."""

    def __init__(self, data: Any, path: str, lines: dict[int, int]):
        self.data = data
        self.path = path
        self._lines = lines

    def line_of(self, obj: Any) -> int | None:
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
        return Document(data, path, {})
    loader = _LineLoader(text)
    loader.lines = {}
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise PipeperfError(f"invalid YAML: {problem}", file=path,
                            line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()
    return Document(data, path, loader.lines)
