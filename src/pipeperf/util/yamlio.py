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
and list items, and want duplicate keys and non-scalar keys reported (``strict=True``); their
fields are read through :class:`Fields` (typed getters whose every error is
``FILE:LINE: field.path: what was expected``).

Everything that needs PyYAML lives in :mod:`pipeperf.util.yamlparse`, imported on first use:
``pipeperf simulate FILE.json`` reads JSON only (its GPU spec from the cache, see
:func:`load_document`) and does not pay for PyYAML's import.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Mapping

from pipeperf.errors import PipeperfError
from pipeperf.util.files import read_text
from pipeperf.util.yamllines import LineMap


def load_lines(path: str | Path, what: str = "file", *, strict: bool = False) -> Any:
    """:func:`loads_lines` of a file; a missing or unreadable file is a PipeperfError naming it."""
    return loads_lines(read_text(path, what), path, strict=strict)


class Document:
    """A parsed YAML/JSON document; :meth:`line_of` gives the line of any mapping in it.

    ``lines`` (``id`` of a mapping -> line) may be given; else they are found on the first
    :meth:`line_of` by parsing ``text`` again with the line-tracking loader.
    """

    def __init__(self, data: Any, path: str, lines: Mapping[int, int | None] | None = None,
                 text: str | None = None):
        self.data = data
        self.path = path
        self._lines: Mapping[int, int | None] | None = lines
        self._text = text

    def line_of(self, obj: Any) -> int | None:
        if self._lines is None:
            self._lines = _match_lines(self.data, self._text)
            self._text = None
        return self._lines.get(id(obj))

    def error(self, message: str, obj: Any = None) -> PipeperfError:
        return PipeperfError(message, file=self.path, line=self.line_of(obj) if obj is not None else None)


def load_document(path: str | Path, *, cache: bool | str = False) -> Document:
    """Read a YAML or JSON file, turning every I/O and syntax problem into a PipeperfError.

    ``cache``: keep a YAML file's parsed data as JSON in the user's cache (:mod:`pipeperf.util.cache`,
    keyed by the text's hash and, given a string, that tag: the versions the caller's reading depends
    on, e.g. :func:`pipeperf.hardware.schema.cache_tag`, so an entry of another version is a miss), so
    the next run reads it with :mod:`json` and without importing PyYAML: the GPU specs, read by every
    command, take a tenth of what PyYAML's import takes."""
    p = Path(path)
    return parse_document(read_text(p), str(p), cache=cache)


def parse_document(text: str, path: str, *, cache: bool | str = False) -> Document:
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PipeperfError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None
        return Document(data, path, text=text)
    if cache:
        from pipeperf.util import cache as store

        key = store.digest("yaml-as-json", cache if isinstance(cache, str) else "", text)
        hit = store.load("yaml", key)
        if hit is not None:
            return Document(hit["data"], path, text=text)
    from pipeperf.util import yamlparse

    try:
        data = yamlparse.loads_fast(text)
    except yamlparse.yaml.YAMLError:
        # the pure-Python loader's message and line, as ever; should it accept what libyaml
        # did not, its tree is the document
        tracked = yamlparse.loads_lines(text, path)
        return Document(tracked, path, _own_lines(tracked))
    if cache and _json_faithful(data):
        store.store("yaml", key, {"data": data})
    return Document(data, path, text=text)


def _json_faithful(data: Any) -> bool:
    """Whether JSON gives ``data`` back as it is (no dates, no numeric keys, no NaN)."""
    try:
        return json.loads(json.dumps(data)) == data
    except (TypeError, ValueError):
        return False


def loads_lines(text: str, path: str | Path = "<string>", *, strict: bool = False) -> Any:
    """YAML into LineMap/LineList objects (:func:`pipeperf.util.yamlparse.loads_lines`)."""
    from pipeperf.util import yamlparse

    return yamlparse.loads_lines(text, path, strict=strict)


def loads_fast(text: str) -> Any:
    """YAML as ``yaml.safe_load`` reads it, faster (:func:`pipeperf.util.yamlparse.loads_fast`)."""
    from pipeperf.util import yamlparse

    return yamlparse.loads_fast(text)


def __getattr__(name: str) -> Any:
    """The loaders of :mod:`pipeperf.util.yamlparse` (``_FastLineLoader``, ...), imported on first use."""
    if name.startswith("_") and not name.startswith("__"):
        from pipeperf.util import yamlparse

        if hasattr(yamlparse, name):
            return getattr(yamlparse, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _own_lines(tracked: Any) -> dict[int, int | None]:
    """``id`` -> line of every LineMap in a tree of the line-tracking loader."""
    out: dict[int, int | None] = {}
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


def _match_lines(data: Any, text: str | None) -> dict[int, int | None]:
    """``id`` -> line of every mapping of ``data``, found by parsing ``text`` (YAML, or JSON,
    which is YAML too) with line tracking and walking both trees side by side; a mapping the
    two parses disagree on gets no line."""
    from pipeperf.util.yamlparse import _tracked

    tracked = _tracked(text) if text is not None else None
    if tracked is None:
        return {}
    out: dict[int, int | None] = {}
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


# -- validated fields of a line-tracked document (the SW26010 specs) --------------------------

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

    def mapping(self, key: str, *, required: bool = False) -> Fields | None:
        if key not in self.data:
            if required:
                self.require(key)
            return None
        return Fields(self.data[key], self.field(key), self.file, self.key_line(key))

    def items(self, key: str, *, required: bool = False, nonempty: bool = False) -> list[Item]:
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
