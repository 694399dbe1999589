"""A one-SM toy GPU running a kernel written as an IDG file: the engine tests worked out by hand."""

from __future__ import annotations

from pathlib import Path

from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.io import load_kernel
from pipeperf.simulate.simulator import FIRST_COME, PreparedKernel

#: one SM at 1 GHz issuing one instruction per cycle; the classes (and any section) follow
HEADER = "name: toy\ncores: 1\nclock_ghz: 1.0\nissue_limit: 1\nclasses:\n"


def prepared(tmp: Path, body: str, gpu_rest: str, first_come: tuple[str, ...] = FIRST_COME) -> PreparedKernel:
    """Kernel ``k`` on the toy GPU whose classes and further sections are ``gpu_rest``: ``body`` is
    its IDG's nodes (YAML list items), or a whole IDG file when it starts with ``name:``."""
    (tmp / "k.yaml").write_text(body if body.startswith("name:") else "name: k\ninstructions:\n" + body)
    (tmp / "g.yaml").write_text(HEADER + gpu_rest)
    return PreparedKernel(load_kernel(str(tmp / "k.yaml")), load_gpu(str(tmp / "g.yaml")), first_come)
