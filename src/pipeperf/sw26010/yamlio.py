"""Line-aware YAML reading and field validation for SW26010 spec files.

Every user mistake in a spec (missing field, negative size, unknown key) must
become one line ``FILE:LINE: field.path: message``; this module keeps the YAML
line of every key so the message can point at it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import yaml

from pipeperf.errors import PipeperfError
from pipeperf.util.files import read_text


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
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineMap:
    loader.flatten_mapping(node)
    out = LineMap()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, (str, int, float, bool)):
            raise yaml.constructor.ConstructorError(
                None, None, f"unsupported key type {type(key).__name__}", key_node.start_mark
            )
        if key in out:
            raise _DuplicateKey(str(key), line)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = line
    return out


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    out = LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


class _DuplicateKey(Exception):
    def __init__(self, key: str, line: int) -> None:
        super().__init__(key)
        self.key = key
        self.line = line


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml(path: str | Path) -> Any:
    """Parse a YAML file into LineMap/LineList objects; errors name the file."""
    path = Path(path)
    return loads_yaml(read_text(path, "spec"), path)


def loads_yaml(text: str, path: str | Path = "<string>") -> Any:
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except _DuplicateKey as exc:
        raise PipeperfError(f"{exc.key}: duplicate key", file=path, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        problem = exc.problem or "malformed YAML"
        raise PipeperfError(f"invalid YAML: {problem}", file=path, line=line) from None
    except yaml.YAMLError as exc:
        raise PipeperfError(f"invalid YAML: {exc}", file=path) from None


class Fields:
    """Typed, validated access to one mapping of a spec file.

    ``path`` is the dotted field path used in messages (``dma[0].arrays[1]``).
    """

    def __init__(self, data: Any, path: str, file: str | Path, line: int | None = None) -> None:
        self.file = str(file)
        self.path = path
        if not isinstance(data, dict):
            where = path or "top level"
            raise PipeperfError(f"{where}: expected a mapping, got {_kind(data)}", file=self.file, line=line)
        self.data = data
        self.line = getattr(data, "line", None) or line

    # -- helpers -------------------------------------------------------------
    def field(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def key_line(self, key: str) -> int | None:
        lines = getattr(self.data, "key_lines", {})
        return lines.get(key, self.line)

    def error(self, key: str | None, message: str) -> PipeperfError:
        if key is None:
            return PipeperfError(f"{self.path or 'top level'}: {message}", file=self.file, line=self.line)
        return PipeperfError(f"{self.field(key)}: {message}", file=self.file, line=self.key_line(key))

    def has(self, key: str) -> bool:
        return key in self.data

    def check_keys(self, allowed: Iterable[str]) -> None:
        allowed = list(allowed)
        for key in self.data:
            if key not in allowed:
                raise self.error(str(key), f"unknown key (allowed: {', '.join(allowed)})")

    def require(self, key: str) -> Any:
        if key not in self.data:
            raise PipeperfError(f"{self.field(key)}: missing required field", file=self.file,
                                line=self.line)
        return self.data[key]

    # -- typed getters -------------------------------------------------------
    def string(self, key: str, default: str | None = None, *, required: bool = False,
               choices: Iterable[str] | None = None) -> str | None:
        if key not in self.data:
            if required:
                self.require(key)
            return default
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_kind(value)}")
        if choices is not None and value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}, got '{value}'")
        return value

    def boolean(self, key: str, default: bool = False) -> bool:
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_kind(value)}")
        return value

    def number(self, key: str, default: float | None = None, *, required: bool = False,
               integer: bool = False, minimum: float | None = None, positive: bool = False,
               maximum: float | None = None) -> Any:
        if key not in self.data:
            if required:
                self.require(key)
            return default
        return check_number(self.data[key], self.error_for(key), integer=integer,
                            minimum=minimum, positive=positive, maximum=maximum)

    def error_for(self, key: str):
        return lambda message: self.error(key, message)

    def mapping(self, key: str, *, required: bool = False) -> "Fields | None":
        if key not in self.data:
            if required:
                self.require(key)
            return None
        return Fields(self.data[key], self.field(key), self.file, self.key_line(key))

    def items(self, key: str, *, required: bool = False, nonempty: bool = False) -> list["Item"]:
        """The entries of a list field, each with its own path and line."""
        if key not in self.data:
            if required:
                self.require(key)
            return []
        value = self.data[key]
        if not isinstance(value, list):
            raise self.error(key, f"expected a list, got {_kind(value)}")
        if nonempty and not value:
            raise self.error(key, "must not be empty")
        lines = getattr(value, "item_lines", [])
        out = []
        for i, item in enumerate(value):
            line = lines[i] if i < len(lines) else self.key_line(key)
            out.append(Item(item, f"{self.field(key)}[{i}]", self.file, line))
        return out


class Item:
    """One list entry: its value, dotted path and line."""

    def __init__(self, value: Any, path: str, file: str, line: int | None) -> None:
        self.value = value
        self.path = path
        self.file = file
        self.line = line

    def fields(self) -> Fields:
        return Fields(self.value, self.path, self.file, self.line)

    def error(self, message: str) -> PipeperfError:
        return PipeperfError(f"{self.path}: {message}", file=self.file, line=self.line)


def check_number(value: Any, error, *, integer: bool = False, minimum: float | None = None,
                 positive: bool = False, maximum: float | None = None) -> Any:
    """Validate a scalar number; ``error(message)`` builds the exception."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"expected a number, got {_kind(value)}")
    if integer and not (isinstance(value, int) or float(value).is_integer()):
        raise error(f"expected an integer, got {value}")
    if value != value or value in (float("inf"), float("-inf")):
        raise error(f"expected a finite number, got {value}")
    if positive and value <= 0:
        raise error(f"must be > 0, got {value}")
    if minimum is not None and value < minimum:
        raise error(f"must be >= {minimum:g}, got {value}")
    if maximum is not None and value > maximum:
        raise error(f"must be <= {maximum:g}, got {value}")
    return int(value) if integer else value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string '{value}'"
    return type(value).__name__
