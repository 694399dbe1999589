"""The campaign's manifest: command, date, driver, nvcc, clocks and every step's status and files.

JSON beside the CSVs (``data/measurements/<gpu>/manifest.json``); a step whose status is
``done`` and whose files all exist is skipped on the next run, which is what makes a campaign
resumable across the lent machine's 10-minute commands.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipeperf.errors import PipeperfError

NAME = "manifest.json"


@dataclass
class StepRecord:
    """One step's outcome: done, failed (why) or skipped (why); its files relative to the folder."""

    status: str
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class Manifest:
    gpu: str
    commands: list[str] = field(default_factory=list)      # every command line that added to it
    date: str = ""
    driver: str = ""
    nvcc: str = ""
    arch: str = ""                                         # the target the benchmarks were built for
    reference: str = ""                                    # the published entry validate scores with
    clock_ghz: float = 0.0                                 # cycles <-> seconds of the derived numbers
    device: dict[str, str] = field(default_factory=dict)   # nvidia-smi facts, clocks included
    steps: dict[str, StepRecord] = field(default_factory=dict)

    def done(self, step: str, folder: Path) -> bool:
        """The step finished and every file it wrote is still there."""
        r = self.steps.get(step)
        return bool(r and r.status == "done" and all((folder / f).is_file() for f in r.files))

    def save(self, folder: Path) -> Path:
        path = folder / NAME
        d = asdict(self)
        path.write_text(json.dumps(d, indent=1) + "\n", encoding="utf-8")
        return path


def load_manifest(folder: Path, gpu: str) -> Manifest:
    """The folder's manifest, or a new one; a damaged file is a one-line error, not a restart."""
    path = folder / NAME
    if not path.is_file():
        return Manifest(gpu)
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        steps = {k: StepRecord(**v) for k, v in d.pop("steps", {}).items()}
        return Manifest(**d, steps=steps)
    except (ValueError, TypeError) as exc:
        raise PipeperfError(f"not a campaign manifest ({exc}); move it away to start again", file=path) from None
