"""A shared-memory wmma.load/store costs its fragment's wavefronts (analysis/memory_trace.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.analysis.memory_trace import _wmma_space_classes
from pipeperf.emulate.wmma import fragment_bytes
from pipeperf.hardware.spec import load_gpu
from pipeperf.ptx.parser import parse_ptx

PTX = Path(__file__).parent / "fixtures" / "wmma_shared_sm80.ptx"


def test_fragments_take_128_bytes_per_bank_cycle():
    func = next(f for f in parse_ptx(PTX.read_text(), str(PTX)).functions if f.name == "k")
    gpu = load_gpu("ampere_a100")
    base = gpu.classes["ld_shared_f32"]
    wmma = {x.op.root + "." + x.modifiers[0]: pc for pc, x in enumerate(func.instructions)
            if x.op.root in ("wmma.load", "wmma.store")}
    assert [fragment_bytes(func.instructions[pc]) for pc in wmma.values()] == [512, 512, 1024]
    classes = _wmma_space_classes(func, gpu, {})
    a, d = classes[wmma["wmma.load.a"]], classes[wmma["wmma.store.d"]]
    assert a.cpi == pytest.approx(4 * base.cpi) and a.latency == pytest.approx(base.latency + 3 * base.cpi)
    assert d.cpi == pytest.approx(8 * gpu.classes["st_shared"].cpi) and "8 shared-memory wavefronts" in d.source
