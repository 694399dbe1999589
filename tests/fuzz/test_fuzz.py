"""Fuzz: mutated corpus PTX and random command lines end in a result or a one-line error.

The default run is a few hundred cases; ``benchmarks/fuzz.py`` runs thousands with the same code."""

from __future__ import annotations

import pytest

from fuzz_cases import counts_from_env, fuzz_args, fuzz_ptx

PTX_CASES, ARG_VECTORS, SEED = counts_from_env()


def _report(outcome, what: str) -> str:
    shown = "\n\n".join(outcome.failures[:5])
    return f"{len(outcome.failures)} of the {what} failed (first 5):\n{shown}"


@pytest.mark.slow
def test_mutated_ptx_never_tracebacks_or_hangs(tmp_path):
    out = fuzz_ptx(PTX_CASES, SEED, tmp_path)
    assert not out.failures, _report(out, f"{PTX_CASES} mutated PTX files")
    assert out.ran + out.refused >= PTX_CASES          # (and every 10th emulated one analysed too)
    assert out.refused > PTX_CASES // 10 and out.ran > PTX_CASES // 10     # both outcomes are exercised


@pytest.mark.slow
def test_random_command_lines_never_traceback():
    out = fuzz_args(ARG_VECTORS, SEED)
    assert not out.failures, _report(out, f"{ARG_VECTORS} argument vectors")
    assert out.ran + out.refused == ARG_VECTORS
    assert out.refused > ARG_VECTORS // 10 and out.ran > ARG_VECTORS // 20
