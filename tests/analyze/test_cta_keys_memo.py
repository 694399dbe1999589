"""Mapper g's cross-CTA reuse evaluates each global PC's CTA keys once per emulation, not once per
GPU (issue 39, tuning throughput): the keys depend on the launch alone, so every GPU's
``shared_by`` must equal what it was with the keys evaluated for that GPU."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path


from pipeperf.analysis import cta_sharing
from pipeperf.analysis.memory_trace import share_across_ctas, traced_accesses
from pipeperf.emulate import run_kernel, select_kernel
from pipeperf.hardware.memory import analyze_accesses
from pipeperf.hardware.spec import load_gpu
from pipeperf.ptx.load import compile_module
from pipeperf.util import memo

MATMUL = Path(__file__).resolve().parents[2] / "examples" / "tune" / "matmul_tiled.cu"


def test_cta_keys_once_per_emulation_same_shared_by(monkeypatch):
    prof = run_kernel(MATMUL, [4, 4], [8, 2], ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32",
                                               "pitch=9"], kernel="matmul_tiled", shared=2 * 8 * 9 * 4,
                      mode="hybrid", trace_warps=16, trace_blocks="spread", arch="sm_80", nvcc_flags=["-DTILE=8"],
                      trace_addresses=False, bank_conflicts=False)
    func = select_kernel(compile_module(MATMUL, "sm_80", ["-DTILE=8"])[0], "matmul_tiled")
    acc = traced_accesses(prof.memory_log, func)
    calls = []
    real = cta_sharing.cta_keys
    monkeypatch.setattr(cta_sharing, "cta_keys", lambda *a, **k: calls.append(1) or real(*a, **k))
    memo._MEMO.clear()

    def shared_by(gpu, code):
        stats = analyze_accesses(acc, 1e4, 2, 64.0)
        share_across_ctas(stats, func, load_gpu(gpu), (4, 4, 1), (8, 2, 1), {"n": 32, "pitch": 9},
                          wave_ctas=8, warps_per_cta=2, traced_ctas=8, code=code)
        return {pc: st.shared_by for pc, st in stats.items() if st.space == "global"}

    alone = [shared_by(g, None) for g in ("ampere_a100", "volta_v100")]
    assert len(calls) == 2 and any(v > 1.0 for v in alone[0].values())    # B's columns are shared
    calls.clear()
    together = [shared_by(g, replace(acc).pc) for g in ("ampere_a100", "volta_v100")]
    assert len(calls) == 1 and together == alone
