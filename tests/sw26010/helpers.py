"""Shared helpers for the SW26010 tests."""

from __future__ import annotations

from pathlib import Path

from pipeperf.sw26010.kernel import parse_kernel
from pipeperf.util.yamlio import loads_lines

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sw26010"

# Table I: mem_bw / Freq / Trans_size = 32e9 / 1.45e9 / 256 transactions per cycle, so one
# transaction of one CPE occupies the core group's bandwidth for 11.6 cycles (Eq. 4).
CYCLES_PER_TRANSACTION = 256 * 1.45 / 32


def kernel_from_text(text: str, name: str = "test.yaml"):
    return parse_kernel(loads_lines(text, name, strict=True), name)
