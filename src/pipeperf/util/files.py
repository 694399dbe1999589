"""Reading a user's text file with the project's one-line errors."""

from __future__ import annotations

from pathlib import Path

from pipeperf.errors import PipeperfError


def read_text(path: str | Path, what: str = "file") -> str:
    """The file's text; a missing, unreadable or non-UTF-8 file is a PipeperfError naming it."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PipeperfError("no such file", file=p) from None
    except IsADirectoryError:
        raise PipeperfError(f"expected a {what}, found a directory", file=p) from None
    except UnicodeDecodeError:
        raise PipeperfError(f"not a UTF-8 text {what}", file=p) from None
    except OSError as exc:
        raise PipeperfError(f"cannot read {what}: {exc.strerror}", file=p) from None
