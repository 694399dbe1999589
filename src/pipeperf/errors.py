"""User-facing errors.

Every mistake a user can make (bad file, unknown GPU, malformed PTX) raises
:class:`PipeperfError`; the CLI prints it as one line and exits with code 2,
so users never see a Python traceback for their own mistakes.
"""

from __future__ import annotations

from pathlib import Path


class PipeperfError(Exception):
    """An error caused by the user's input, reported as ``FILE:LINE[:COLUMN]: message``."""

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None,
                 column: int | None = None):
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
            where += ": "
        return where + self.message
