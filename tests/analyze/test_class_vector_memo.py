"""class_vector is kept for the last few (function, GPU, classes, overrides) (issue 39: a tuning
run's variants share parsed kernels and mapper g names their PCs' classes alike): a repeated call
returns what a fresh computation gives, and any other GPU, class set or override is computed anew."""

from __future__ import annotations

from pathlib import Path

from pipeperf.analysis import shared_idgs
from pipeperf.emulate import select_kernel
from pipeperf.hardware.spec import load_gpu
from pipeperf.ptx.load import compile_module

MATMUL = Path(__file__).resolve().parents[2] / "examples" / "tune" / "matmul_tiled.cu"


def test_kept_vector_equals_a_fresh_one_and_keys_on_everything(monkeypatch):
    func = select_kernel(compile_module(MATMUL, "sm_80", ["-DTILE=8"])[0], "matmul_tiled")
    a100, v100 = load_gpu("ampere_a100"), load_gpu("volta_v100")
    calls = []
    real = shared_idgs._class_vector
    monkeypatch.setattr(shared_idgs, "_class_vector", lambda *a: calls.append(a[2]) or real(*a))
    monkeypatch.setattr(shared_idgs, "_VECTORS", {})
    first = shared_idgs.class_vector(func, set(a100.classes), a100.name, {})
    assert shared_idgs.class_vector(func, set(a100.classes), a100.name, {}) == first and len(calls) == 1
    assert first == real(func, set(a100.classes), a100.name, {})
    pc = next(i for i, x in enumerate(func.instructions) if x.op.root == "ld")
    over = shared_idgs.class_vector(func, set(a100.classes), a100.name, {pc: "mine@L1"})
    assert over[pc] == "mine@L1" and over != first and len(calls) == 2
    other = shared_idgs.class_vector(func, set(v100.classes), v100.name, {})
    assert other == real(func, set(v100.classes), v100.name, {}) and len(calls) == 3
    fewer = set(a100.classes) - {first[pc]}
    assert shared_idgs.class_vector(func, fewer, a100.name, {}) != first and len(calls) == 4
