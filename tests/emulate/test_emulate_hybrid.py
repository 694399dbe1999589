"""Hybrid mode (HyPA) gives full mode's counts while executing a fraction of the instructions."""

from __future__ import annotations

import pytest

from test_emulate_corpus import SUPPORTED, emulate_case

VOLATILE = {"seconds", "thread_instructions_per_second", "inst_emulated_thread",
            "fraction_emulated"}


@pytest.mark.parametrize("name", SUPPORTED)
def test_hybrid_counts_equal_full(name):
    _, full, _ = emulate_case(name, mode="full")
    _, hyb, _ = emulate_case(name, mode="hybrid")
    for k, v in full.counts.items():
        if k not in VOLATILE:
            assert hyb.counts[k] == v, k
    assert hyb.by_opcode == full.by_opcode
    assert full.counts["fraction_emulated"] == 1.0
    assert 0 < hyb.counts["fraction_emulated"] <= 1.0


def test_hybrid_emulates_less_on_compute_kernels():
    for name in ("saxpy", "matmul_tiled", "fma_chain", "mix_alu_sfu"):
        _, hyb, _ = emulate_case(name, mode="hybrid")
        assert hyb.counts["fraction_emulated"] < 0.75, name


def test_hybrid_does_not_write_outputs():
    case, _, outputs = emulate_case("fma_chain", mode="hybrid")
    assert case.check(outputs) != []
