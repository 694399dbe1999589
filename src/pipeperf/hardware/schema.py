"""The version of the GPU spec file format, and what changed between versions.

Every GPU file says ``schema_version: N``. A file of a newer version than this pipeperf knows
is refused in one line (its fields may mean something this code does not do); an older one is
migrated step by step by :data:`MIGRATIONS`, or refused naming what changed since
(:data:`CHANGES`, as Kerncraft's machine files' ``CHANGES_SINCE``). ``docs/gpu-schema.md`` is
the changelog for people; bump :data:`SCHEMA_VERSION`, add a line to :data:`CHANGES` and, where
old files can be converted, a function to :data:`MIGRATIONS` in the same commit.

Parsed specs are cached as JSON keyed by the schema version and pipeperf's version
(:func:`cache_tag`), so a cache entry never outlives the code that read it.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from pipeperf.errors import PipeperfError

#: the version of the GPU files this pipeperf reads and writes
SCHEMA_VERSION = 2

#: what each version changed (the version it introduced -> a sentence); docs/gpu-schema.md in full
CHANGES: dict[int, str] = {
    1: "first versioned format: 'schema_version' added; every other key as before it "
       "(files without the key are read as version 1)",
    2: "optional 'base_clock_ghz' (the vendor's base clock) and 'memory.dram_bytes' (the device "
       "memory) added; a version-1 file is a valid version-2 file",
}

#: version N -> a function turning version N's top-level mapping into version N + 1's
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: lambda data: dict(data),           # 2 only adds optional keys
}

#: the version of a file without ``schema_version`` (written before the key existed)
UNVERSIONED = 1

KEY = "schema_version"


def cache_tag() -> str:
    """What a cached parse of a GPU file depends on besides its text."""
    from pipeperf._version import __version__

    return f"gpu-schema {SCHEMA_VERSION}, pipeperf {__version__}"


def migrate(data: dict[str, Any], error: Callable[[str], PipeperfError]) -> dict[str, Any]:
    """``data`` (a GPU file's top-level mapping) in the current version; ``error(message)`` builds
    the one-line error for a version this code cannot read."""
    v = data.get(KEY, UNVERSIONED)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise error(f"'{KEY}' must be a whole number from 1 to {SCHEMA_VERSION}, got {v!r}")
    if v > SCHEMA_VERSION:
        raise error(f"GPU file of {KEY} {v}, newer than this pipeperf reads ({SCHEMA_VERSION}): "
                    "upgrade pipeperf (docs/gpu-schema.md lists the versions)")
    while v < SCHEMA_VERSION:
        step = MIGRATIONS.get(v)
        if step is None:
            since = "; ".join(f"{n}: {CHANGES[n]}" for n in sorted(CHANGES) if n > v)
            raise error(f"GPU file of {KEY} {v} cannot be converted to version {SCHEMA_VERSION} "
                        f"(changed since: {since}); update it as docs/gpu-schema.md says")
        data = {**step(data), KEY: v + 1}
        v += 1
    return data
