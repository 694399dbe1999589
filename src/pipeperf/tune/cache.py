"""The results cache of ``pipeperf tune`` and ``analyze --batch``: one SQLite file, one row per
(launch, GPU), keyed by the SHA-256 of the canonical JSON of everything the prediction depends
on (:func:`result_key`).

Why SQLite: one file, transactions, no server, in the standard library; only the client process
(the one that submits the work) reads and writes it, the workers never do, so a cluster needs no
shared file system. Each result is committed as it arrives, so a tune that is interrupted keeps
what it computed, and a re-run or an extended space computes only what is missing. A row whose
payload does not match its checksum is a miss, recomputed and written again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any
from collections.abc import Iterable

from pipeperf.errors import PipeperfError

SCHEMA = """CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    checksum TEXT NOT NULL,
    created REAL NOT NULL
)"""


def canonical(obj: Any) -> str:
    """The one JSON text of ``obj``: sorted keys, no spaces, tuples as lists."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def result_key(fields: dict[str, Any]) -> str:
    """The key of one (launch, GPU): SHA-256 of the canonical JSON of ``fields`` (source digest,
    flags, template arguments, launch, GPU spec digest, analysis options, pipeperf and nvcc versions)."""
    return sha256(canonical(fields))


class ResultCache:
    """Results by key in ``<folder>/results.sqlite``; ``folder=None`` caches nothing."""

    def __init__(self, folder: str | Path | None):
        self.path = None if folder is None else Path(folder) / "results.sqlite"
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)   # one user at a time
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")     # a commit survives the process, not a power cut
                self._db.execute(SCHEMA)
                self._db.commit()
            except (OSError, sqlite3.Error) as e:
                raise PipeperfError(f"results cache {self.path}: {e}: expected a writable folder "
                                    "(--cache-dir DIR, or --no-cache)") from None

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The intact payloads of those ``keys`` that are stored."""
        if self._db is None:
            return {}
        keys = list(dict.fromkeys(keys))
        out: dict[str, dict[str, Any]] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            rows = self._db.execute(f"SELECT key, payload, checksum FROM results WHERE key IN "
                                    f"({','.join('?' * len(chunk))})", chunk).fetchall()
            for key, payload, checksum in rows:
                if sha256(payload) != checksum:
                    continue
                try:
                    out[key] = json.loads(payload)
                except ValueError:
                    continue
        return out

    def put(self, key: str, payload: dict[str, Any]) -> None:
        """Store ``payload`` under ``key`` and commit (a result is kept as soon as it arrives)."""
        if self._db is None:
            return
        text = canonical(payload)
        self._db.execute("INSERT OR REPLACE INTO results (key, payload, checksum, created) VALUES (?, ?, ?, ?)",
                         (key, text, sha256(text), time.time()))
        self._db.commit()

    def __len__(self) -> int:
        if self._db is None:
            return 0
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
