"""pipeperf: predict and explain GPU kernel performance without running on the GPU.

``pipeperf.analyze(path, grid=..., block=..., args=[...], gpus=[...])`` is the notebook API
(:mod:`pipeperf.api`); it is imported on first use, so ``import pipeperf`` stays cheap.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``pipeperf.analyze``: the package :mod:`pipeperf.analyze`, callable as
    :func:`pipeperf.api.analyze` (imported on first use)."""
    if name == "analyze":
        import importlib

        return importlib.import_module("pipeperf.analyze")
    raise AttributeError(f"module 'pipeperf' has no attribute {name!r}")
