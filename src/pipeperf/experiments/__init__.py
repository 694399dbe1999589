"""The source papers' experiments, one small module each, run by ``pipeperf reproduce``.

Each module has ``TITLE`` (one line), ``SOURCE`` (the paper and its table or figure) and
``run(out: Path) -> framework.Outcome``; it reuses pipeperf's own commands and APIs, so an
experiment is a definition (which kernels, GPUs and settings, which printed numbers to put
beside ours), not a second implementation. :data:`EXPERIMENTS` orders them for ``--list``.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from types import ModuleType

from pipeperf.errors import PipeperfError

#: experiment name -> module of this package (the order of ``pipeperf reproduce --list``)
EXPERIMENTS: dict[str, str] = {
    "pipeline-example-kernel": "pipeline_example",
    "pipeline-instruction-mix": "pipeline_instruction_mix",
    "pipeline-table6-throughput": "pipeline_table6",
    "pipeline-barrier": "pipeline_barrier",
    "pipeline-matmul": "pipeline_matmul",
    "rodinia-occupancy": "rodinia_occupancy",
    "konstantinidis-lavamd": "konstantinidis_lavamd",
    "sw26010-double-buffering": "sw26010_double_buffering",
    "sw26010-dma-granularity": "sw26010_dma_granularity",
    "sw26010-active-cpes": "sw26010_active_cpes",
    "hypa-table2-networks": "hypa_networks",
}


def module(name: str) -> ModuleType:
    """The experiment's module; an unknown name is a one-line error that lists the known ones."""
    if name not in EXPERIMENTS:
        raise PipeperfError(f"no experiment '{name}' (known: {', '.join(EXPERIMENTS)})")
    return importlib.import_module(f"{__name__}.{EXPERIMENTS[name]}")


def run(name: str, out: Path) -> Path:
    """Run one experiment end to end into ``out``/NAME/ and return its README's path."""
    from pipeperf.experiments.framework import write_outcome

    mod = module(name)
    folder = out / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        outcome = mod.run(folder)
        return write_outcome(name, mod.TITLE, mod.SOURCE, outcome, folder, time.perf_counter() - t0)
    except OSError as exc:           # an unwritable --out: one line, not a traceback
        raise PipeperfError(f"cannot write the results of {name}: {exc.strerror or exc}",
                            file=exc.filename or str(folder)) from None
