"""Line-aware YAML reading and field validation for SW26010 spec files.

Every user mistake in a spec (missing field, negative size, unknown key) must
become one line ``FILE:LINE: field.path: message``; the project's line-tracking
loader (:func:`pipeperf.util.yamlio.loads_lines`, strict: duplicate keys are errors)
keeps the YAML line of every key so the message can point at it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from pipeperf.errors import PipeperfError
from pipeperf.util.yamlio import load_lines, loads_lines


def load_yaml(path: str | Path) -> Any:
    """Parse a YAML spec into LineMap/LineList objects; errors (duplicate keys too) name the file."""
    return load_lines(path, "spec", strict=True)


def loads_yaml(text: str, path: str | Path = "<string>") -> Any:
    return loads_lines(text, path, strict=True)


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
