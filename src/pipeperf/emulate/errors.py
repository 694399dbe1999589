"""What emulation raises: a fault of the emulated program, and hybrid mode's retry signal."""

from __future__ import annotations

from pipeperf.errors import PipeperfError


class EmulationError(PipeperfError):
    """The emulated kernel did something CUDA would fault on, or the emulator cannot follow."""


class HybridFallback(Exception):
    """A needed load read bytes a skipped store wrote: rerun with the conservative slice."""
