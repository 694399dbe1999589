"""pipeperf: predict and explain GPU kernel performance without running on the GPU.

``pipeperf.analyze(path, grid=..., block=..., args={...}, gpus=[...])`` is the notebook API
(:func:`pipeperf.api.analyze`, returning an :class:`pipeperf.api.AnalysisReport`); it is imported
on first use, so ``import pipeperf`` stays cheap. The analysis pipeline itself is the package
:mod:`pipeperf.analysis`.
"""

from pipeperf._version import __version__

__all__ = ["__version__", "analyze"]


def __getattr__(name: str):
    """``pipeperf.analyze``: :func:`pipeperf.api.analyze`, imported on first use."""
    if name == "analyze":
        from pipeperf.api import analyze

        return analyze
    raise AttributeError(f"module 'pipeperf' has no attribute {name!r}")
