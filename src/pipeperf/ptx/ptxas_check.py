"""``--check-ptxas``: ptxas' own verdict on a user's PTX file, as pipeperf's one-line error.

Why: pipeperf's check (:mod:`pipeperf.ptx.check`) follows ptxas closely but not everywhere (its
known gaps are in docs/packages/ptx.md); where ptxas is installed, this asks it. ptxas assembles the
file for the file's own ``.target`` into a scratch folder; its first error becomes
``FILE:LINE: ptxas: MESSAGE`` (ptxas names no column).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from pipeperf.errors import PipeperfError

_LINE_RE = re.compile(r"^ptxas (?P<file>.*?), line (?P<line>\d+); (?:error|fatal)\s*:\s*(?P<msg>.*)$")
_FATAL_RE = re.compile(r"^ptxas (?:error|fatal)\s*:\s*(?P<msg>.*)$")
#: how long ptxas may take on one file
TIMEOUT_S = 300.0


def first_error(output: str, path: str) -> PipeperfError:
    """ptxas' first error in ``output`` as a PipeperfError naming ``path`` (and the line, if ptxas gave one)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for ln in lines:
        m = _LINE_RE.match(ln)
        if m:
            return PipeperfError(f"ptxas: {m.group('msg').strip()}", file=path, line=int(m.group("line")))
    for ln in lines:
        m = _FATAL_RE.match(ln)
        if m and "aborted due to errors" not in m.group("msg"):
            return PipeperfError(f"ptxas: {m.group('msg').strip()}", file=path)
    return PipeperfError(f"ptxas: {lines[0] if lines else 'failed with no message'}", file=path)


def check_with_ptxas(path: str | Path) -> bool:
    """Assemble ``path`` with ptxas for its ``.target``; raise ptxas' first error as a
    PipeperfError. False (nothing checked) where no ptxas is found."""
    from pipeperf.ptx.compile import _target_of
    from pipeperf.ptx.toolkit import find_tool

    try:
        ptxas = find_tool("ptxas")
    except PipeperfError:
        return False
    p = Path(path)
    arch = _target_of(p)
    with tempfile.TemporaryDirectory(prefix="pipeperf-check-") as tmp:
        try:
            r = subprocess.run([ptxas, f"-arch={arch}", str(p), "-o", str(Path(tmp) / "check.cubin")],
                               capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise PipeperfError(f"ptxas took over {TIMEOUT_S:.0f} s", file=str(p)) from None
        except OSError as exc:
            raise PipeperfError(f"cannot run ptxas: {exc.strerror}", file=str(p)) from None
    if r.returncode != 0:
        raise first_error(r.stderr + "\n" + r.stdout, str(p))
    return True
