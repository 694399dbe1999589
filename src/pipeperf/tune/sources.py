"""A kernel's source as data that travels to Dask workers, and its file on the worker.

Why: a worker on another machine has no copy of the user's ``.cu`` and its local headers, and a
results cache keyed by the source's path alone would return stale results after an edit. A
:class:`SourceBundle` holds the text of the file and of every header it includes with
``#include "..."`` relative to the including file (found recursively), and one digest of all
of them (and of the headers found through ``-I`` folders, which are not shipped: those folders
must exist on the workers). :func:`materialize` gives the worker a path to compile: the user's
own file where it is there with the same bytes, else a copy under the cache folder.

Template arguments: a ``__global__`` template has no PTX until it is instantiated, so the copy
of the file gets one line appended that takes the address of ``kernel<args>`` (the source's lines
keep their numbers, and the parameter names are read from the same file as for any kernel).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pipeperf.errors import PipeperfError
from pipeperf.util.cache import cache_dir, digest

_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


@dataclass(frozen=True)
class SourceBundle:
    """The source file (``files[0]``) and its local headers, as (path relative to ``root``, text)."""

    path: str                                # the user's file, absolute
    root: str                                # the folder ``files``' relative paths start from
    files: tuple[tuple[str, str], ...]
    digest: str                              # of every file's path and text, and of -I headers

    @property
    def main(self) -> str:
        return self.files[0][0]


def bundle(path: str | Path, include_dirs: tuple[str, ...] = ()) -> SourceBundle:
    """The file and the headers it includes (recursively); a missing file is a one-line error."""
    src = Path(path).resolve()
    if not src.is_file():
        raise PipeperfError("no such CUDA file", file=str(path))
    found: dict[Path, str] = {src: src.read_text(errors="replace")}     # shipped
    elsewhere: dict[Path, str] = {}               # found through -I: hashed, not shipped
    todo = [src]
    while todo:
        f = todo.pop()
        text = found[f] if f in found else elsewhere[f]
        for name in _INCLUDE.findall(_strip_comments(text)):
            local = (f.parent / name).resolve()
            if local.is_file():
                if local not in found:
                    found[local] = local.read_text(errors="replace")
                    todo.append(local)
                continue
            for d in include_dirs:
                cand = (Path(d) / name).resolve()
                if cand.is_file():
                    if cand not in elsewhere and cand not in found:
                        elsewhere[cand] = cand.read_text(errors="replace")
                        todo.append(cand)
                    break
    root = Path(os.path.commonpath([str(p.parent) for p in found]))
    files = [(PurePosixPath(src.relative_to(root)).as_posix(), found[src])] + sorted(
        (PurePosixPath(p.relative_to(root)).as_posix(), t) for p, t in found.items() if p != src)
    parts: list[str] = []
    for name, text in files:
        parts += [name, text]
    for p in sorted(elsewhere):
        parts += [str(p), elsewhere[p]]
    return SourceBundle(str(src), str(root), tuple(files), digest("source-bundle", *parts))


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def instantiation(kernel: str, template: tuple[str, ...]) -> str:
    """The line that makes nvcc emit ``kernel<template...>``: taking its address instantiates it."""
    return f"\nvoid* pipeperf_tune_instance = (void*)&{kernel}<{', '.join(template)}>;\n"


def materialize(b: SourceBundle, kernel: str | None = None, template: tuple[str, ...] = ()) -> Path:
    """A path on this machine whose file is the bundle's (with the template instantiated): the
    user's own file when it is here, unchanged, and no template is asked for; else a copy under
    ``<cache>/tune-src/<digest>/`` (content-addressed, written atomically, reused)."""
    if not template and _same(b):
        return Path(b.path)
    if template and not kernel:
        raise PipeperfError("template arguments need the kernel's name (kernel: NAME)", file=b.path)
    extra = instantiation(kernel or "", template) if template else ""
    folder = cache_dir() / "tune-src" / digest(b.digest, extra)[:32]
    main = folder / b.main
    if not main.is_file():
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=_mkdir(folder.parent)))
        for name, text in b.files:
            out = tmp / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text + (extra if name == b.main else ""))
        try:
            os.replace(tmp, folder)
        except OSError:                      # another worker wrote it first: same bytes
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return main


def _mkdir(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True)
    return p


def _same(b: SourceBundle) -> bool:
    """Whether every file of the bundle is on this machine where it was, with the same text."""
    root = Path(b.root)
    try:
        return all((root / name).read_text(errors="replace") == text for name, text in b.files)
    except OSError:
        return False
