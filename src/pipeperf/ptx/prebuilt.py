"""Stored compiles: nvcc's PTX and ptxas' ``-v`` reports recorded where the tools are, for machines
without nvcc and ptxas (the test suite's store is ``tests/fixtures/compiled``).

``$PIPEPERF_PREBUILT_DIR`` names read-only stores (folders, ``os.pathsep``-separated). They are read
only when the tool is missing: a machine with nvcc compiles as usual, and without nvcc a compile
with no stored entry is the usual one-line "nvcc not found" error. A run with the tools and
``$PIPEPERF_PREBUILT_RECORD=FOLDER`` writes every compile and resource report it makes into that
store (``scripts/refresh_test_ptx.py`` does it for the test suite).

A stored entry's key holds what the output depends on and that names no machine: for nvcc the
source's bytes, the target, ``-lineinfo`` and the flags; for ptxas the PTX text without its
``.file`` paths, the target and the options. Neither the tool's version nor the source's folder is
in it, so a store written in one checkout with one nvcc serves another checkout with none. The
PTX's ``.file`` paths under the source's folder are stored relative to it and given back under the
folder of the file asked for; the headers the source included from that folder must still have the
bytes they had (the toolkit's headers are not checked: there is no toolkit to check them against).
Internal-linkage symbols keep the name hash nvcc derived from the recording's path.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from pipeperf.util import cache

#: stands for the source's folder in a stored PTX's ``.file`` paths
SRC_DIR = "${SRCDIR}"
_FILE_RE = re.compile(r'^(\s*\.file\s+\d+\s+")([^"]*)(")', re.M)
_FILE_LINE_RE = re.compile(rb"^[ \t]*\.file[ \t].*$", re.M)


def stores() -> list[Path]:
    """The folders of ``$PIPEPERF_PREBUILT_DIR``, in order."""
    return [Path(p).expanduser() for p in os.environ.get("PIPEPERF_PREBUILT_DIR", "").split(os.pathsep) if p]


def _record_dir() -> Path | None:
    d = os.environ.get("PIPEPERF_PREBUILT_RECORD")
    return Path(d).expanduser() if d else None


def _ptx_key(source: bytes, arch: str, lineinfo: bool, extra_args: tuple[str, ...]) -> str:
    return cache.digest("prebuilt nvcc -ptx", source, arch, "-lineinfo" if lineinfo else "", *extra_args)


def _ptxas_key(ptx: bytes, arch: str, extra: tuple[str, ...]) -> str:
    return cache.digest("prebuilt ptxas", arch, *extra, _FILE_LINE_RE.sub(b"", ptx))


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def load_ptx(cu: Path, arch: str, lineinfo: bool, extra_args: tuple[str, ...]) -> str | None:
    """The stored PTX of ``cu`` (resolved) for these options, its ``.file`` paths under ``cu``'s
    folder; None when no store has it or a header it included from that folder changed."""
    try:
        key = _ptx_key(cu.read_bytes(), arch, lineinfo, extra_args)
    except OSError:
        return None
    for root in stores():
        hit = cache.load("ptx", key, root)
        if hit is None or not isinstance(hit.get("ptx"), str) or not isinstance(hit.get("deps"), dict):
            continue
        if all(_sha256(cu.parent / rel) == sha for rel, sha in hit["deps"].items()):
            here = str(cu.parent)
            return _FILE_RE.sub(lambda m: m.group(1) + m.group(2).replace(SRC_DIR, here, 1) + m.group(3),  # noqa: B023
                                hit["ptx"])
    return None


def record_ptx(cu: Path, arch: str, lineinfo: bool, extra_args: tuple[str, ...], ptx: str,
               deps: dict[str, str] | None) -> None:
    """Write ``cu``'s PTX to the store of ``$PIPEPERF_PREBUILT_RECORD`` (nothing when unset, or when
    the included files are unknown)."""
    root = _record_dir()
    if root is None or deps is None:
        return
    folder = str(cu.parent) + os.sep
    local = {}
    for path, sha in deps.items():
        norm = os.path.normpath(path)
        if norm.startswith(folder) and os.path.normpath(cu) != norm:
            local[os.path.relpath(norm, cu.parent)] = sha

    def rel(m: re.Match) -> str:
        path = m.group(2)
        return m.group(1) + (SRC_DIR + os.sep + path[len(folder):] if path.startswith(folder) else path) + m.group(3)

    cache.store("ptx", _ptx_key(cu.read_bytes(), arch, lineinfo, extra_args),
                {"ptx": _FILE_RE.sub(rel, ptx), "deps": dict(sorted(local.items())), "source": cu.name}, root)


def load_ptxas(ptx: bytes, arch: str, extra: tuple[str, ...]) -> str | None:
    """The stored ptxas report on this PTX (its ``.file`` paths aside), or None."""
    key = _ptxas_key(ptx, arch, extra)
    for root in stores():
        hit = cache.load("ptxas", key, root)
        if hit is not None and isinstance(hit.get("output"), str):
            return hit["output"]
    return None


def record_ptxas(ptx: bytes, arch: str, extra: tuple[str, ...], output: str) -> None:
    """Write ptxas' report to the store of ``$PIPEPERF_PREBUILT_RECORD`` (nothing when unset),
    without its "Compile time" lines (they change from run to run)."""
    root = _record_dir()
    if root is not None:
        report = "".join(ln for ln in output.splitlines(keepends=True) if "Compile time = " not in ln)
        cache.store("ptxas", _ptxas_key(ptx, arch, extra), {"output": report}, root)


def load_sass(ptx: bytes, arch: str, options: tuple[str, ...] = ()) -> str | None:
    """The stored SASS listing (``nvdisasm -gi -c``) of this PTX for ``arch`` and ptxas ``options``, or None."""
    key = _ptxas_key(ptx, arch, ("sass-gi", *options))
    for root in stores():
        hit = cache.load("sass", key, root)
        if hit is not None and isinstance(hit.get("listing"), str):
            return hit["listing"]
    return None


_SASS_FILE_RE = re.compile(r'((?://## File |inlined at )")([^"]*/)([^"/]*")')


def record_sass(ptx: bytes, arch: str, listing: str, options: tuple[str, ...] = ()) -> None:
    """Write a SASS listing to the store of ``$PIPEPERF_PREBUILT_RECORD`` (nothing when unset), its
    source files by base name (the SASS path matches lines by base name and line: nothing of the
    recording machine is kept)."""
    root = _record_dir()
    if root is not None:
        cache.store("sass", _ptxas_key(ptx, arch, ("sass-gi", *options)), {"listing": _SASS_FILE_RE.sub(r"\1\3", listing)}, root)
