"""The results as one .tar.gz small enough to come back from the lent machine (8 files of 16 MiB).

Everything under the campaign folder goes in; when the archive would exceed :data:`MAX_BYTES`,
the largest raw CSVs are left out, largest first, and the step says which in the manifest.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from pipeperf.errors import PipeperfError

MAX_BYTES = 16 * 2**20


def write_archive(folder: Path, target: Path, max_bytes: int = MAX_BYTES) -> list[str]:
    """Write ``target``; return the files left out to stay within ``max_bytes``."""
    if not str(target).endswith((".tar.gz", ".tgz")):
        raise PipeperfError("the archive must be a .tar.gz (or .tgz) file", file=target)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.resolve() != target.resolve())
    droppable = sorted((p for p in files if p.parent.name in ("raw", "calibrate")), key=lambda p: -p.stat().st_size)
    left: list[Path] = []
    while True:
        _write(folder, target, [p for p in files if p not in left])
        if target.stat().st_size <= max_bytes:
            return [str(p.relative_to(folder)) for p in left]
        if not droppable:
            target.unlink()
            raise PipeperfError(f"the results do not fit {max_bytes / 2**20:.0f} MiB even without the raw CSVs",
                                file=target)
        left.append(droppable.pop(0))


def _write(folder: Path, target: Path, files: list[Path]) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(target, "w:gz") as tar:
            for p in files:
                tar.add(p, arcname=str(Path(folder.name) / p.relative_to(folder)))
    except OSError as exc:
        raise PipeperfError(f"cannot write the archive: {exc.strerror}", file=target) from None
