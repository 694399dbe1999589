"""pipeperf's on-disk cache: where it lives, and content-addressed JSON entries.

An entry is found by a key that hashes everything its result depends on, and carries a checksum
of its payload: a truncated, edited or foreign file is a miss (the caller recomputes and writes
it again), never a wrong result. Writes go through a temporary file and a rename, so parallel
runs (``validate --jobs``) never read half an entry; a cache that cannot be written only costs
the recomputation.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """``$PIPEPERF_CACHE_DIR``, else ``$PIPEPERF_CACHE`` (its older name), else
    ``$XDG_CACHE_HOME/pipeperf``, else ``~/.cache/pipeperf``."""
    for var in ("PIPEPERF_CACHE_DIR", "PIPEPERF_CACHE"):
        if os.environ.get(var):
            return Path(os.environ[var]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pipeperf"


def _sha256():
    """The interpreter's own SHA-256 (the same digest as hashlib's): importing hashlib loads
    OpenSSL and builds every algorithm, a few milliseconds of every command that reads a GPU spec
    (its cache key)."""
    try:
        from _sha2 import sha256            # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256()


def digest(*parts: str | bytes) -> str:
    """SHA-256 of ``parts``, each length-prefixed so that ('ab', 'c') and ('a', 'bc') differ."""
    h = _sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def _checksum(payload: Any) -> str:
    return digest(json.dumps(payload, sort_keys=True, separators=(",", ":")))


def entry_path(kind: str, key: str, root: Path | None = None) -> Path:
    """Where ``key``'s entry lives: in the cache, or in the store at ``root``."""
    return (cache_dir() if root is None else Path(root)) / kind / f"{key}.json"


def load(kind: str, key: str, root: Path | None = None) -> dict | None:
    """The payload stored under ``key``, or None when absent or not intact."""
    try:
        doc = json.loads(entry_path(kind, key, root).read_text(encoding="utf-8"))
    except (OSError, ValueError, RuntimeError):       # RuntimeError: no home directory to cache in
        return None
    if not isinstance(doc, dict) or doc.get("key") != key or not isinstance(doc.get("payload"), dict):
        return None
    if doc.get("sha256") != _checksum(doc["payload"]):
        return None
    return doc["payload"]


def store(kind: str, key: str, payload: dict, root: Path | None = None) -> None:
    """Write ``payload`` under ``key`` (atomically; silently skipped where the cache is not writable)."""
    text = json.dumps({"key": key, "sha256": _checksum(payload), "payload": payload})
    import tempfile                     # only on a write: a read (the common case) needs none

    try:
        path = entry_path(kind, key, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, RuntimeError):
        pass
