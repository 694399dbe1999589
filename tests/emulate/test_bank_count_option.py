"""``run_kernel(bank_conflicts=False)`` (what ``analyze`` asks: it takes mapper g's wavefronts of
the traced warps and reads no emulator count of them) leaves every count and trace as it is but
the shared-memory bank conflicts, which it does not count."""

from pathlib import Path

from pipeperf.emulate import run_kernel

ROOT = Path(__file__).parents[2]


def test_counts_and_traces_equal_but_the_bank_conflicts():
    args = ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32", "pitch=32"]   # rows 32 words apart: conflicts
    kw = dict(kernel="matmul_tiled", shared=2048, mode="hybrid", trace_warps=8, nvcc_flags=["-DTILE=8"],
              trace_blocks="spread", ctas="traced")
    on = run_kernel(ROOT / "examples/tune/matmul_tiled.cu", (4, 4), (8, 4), args, **kw)
    off = run_kernel(ROOT / "examples/tune/matmul_tiled.cu", (4, 4), (8, 4), args, bank_conflicts=False, **kw)
    assert on.counts["shared_bank_conflicts"] > 0 and off.counts["shared_bank_conflicts"] == 0
    rest = set(on.counts) - {"shared_bank_conflicts", "launch", "seconds", "thread_instructions_per_second"}
    assert {k: on.counts[k] for k in rest} == {k: off.counts[k] for k in rest}
    assert list(on.traces) == list(off.traces)
    for w in on.traces:
        assert [(e["pc"], e["active"]) for e in on.traces[w]] == [(e["pc"], e["active"]) for e in off.traces[w]]
