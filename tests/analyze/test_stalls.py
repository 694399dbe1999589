"""Time per source line (issue 18): every warp slot's cycles of the simulated SM charged to an
instruction, summed per CUDA line; the lines and the idle slots add up to the simulated time,
and a transpose with 32-way bank conflicts spends most of it on its shared-memory load's line."""

import json

import pytest

from pipeperf.analysis import analyze

N = 1024
ARGS = [f"in=rand:f32:{N * N}", f"out=zeros:f32:{N * N}", f"rows={N}", f"cols={N}"]
GPUS = ["pascal_gtx1060", "volta_v100"]


@pytest.fixture(scope="module")
def transpose():
    return analyze("tests/kernels/transpose_shared.cu", f"{N // 32},{N // 32}", "32,8", ARGS, GPUS)


@pytest.mark.parametrize("gpu", GPUS)
def test_line_times_sum_to_the_simulated_time(transpose, gpu):
    p = next(p for p in transpose.predictions if p.gpu == gpu)
    lines = sum(t.cycles for t in p.source_lines) + sum(r["cycles"] for r in p.time_not_on_lines)
    assert lines == pytest.approx(p.cycles, rel=1e-9)
    shares = sum(t.share for t in p.source_lines) + sum(r["share_pct"] for r in p.time_not_on_lines) / 100
    assert shares == pytest.approx(1.0, rel=1e-9)
    for t in p.source_lines:              # each line's reasons, and its PTX lines, make up its share
        assert sum(v for _, v in t.reasons) == pytest.approx(t.share, rel=1e-9)
        assert sum(v for _, v, _ in t.ptx) == pytest.approx(t.share, rel=1e-9)


@pytest.mark.parametrize("gpu", GPUS)
def test_the_top_line_of_a_bank_conflicted_transpose_is_its_shared_load(transpose, gpu):
    p = next(p for p in transpose.predictions if p.gpu == gpu)
    conflicted = [r for r in p.memory if r["opcode"] == "ld.shared.f32" and r["conflict_degree"] == 31]
    top = p.source_lines[0]
    assert (top.file, top.line) == (conflicted[0]["source_file"], conflicted[0]["source_line"])
    assert {r["ptx_line"] for r in conflicted} <= set(top.ptx_lines)
    assert top.top_reason == "pipeline busy (lsu)"     # the conflicts hold the shared-memory pipeline
    by_ptx = {n: (v, r) for n, v, r in top.ptx}
    loads = sum(by_ptx[r["ptx_line"]][0] for r in conflicted)
    assert loads > 0.5 * top.share and all(by_ptx[r["ptx_line"]][1] == "pipeline busy (lsu)" for r in conflicted)


def test_json_carries_every_line(transpose):
    k = json.loads(json.dumps(transpose.to_dict()))["kernels"][0]
    rows = k["source_lines"]
    assert len(rows) == len(transpose.predictions[0].source_lines)
    assert {"file", "line", "ptx_lines", "share_pct", "cycles", "reasons"} <= set(rows[0])
    total = sum(r["share_pct"] for r in rows) + sum(r["share_pct"] for r in k["time_not_on_lines"])
    assert total == pytest.approx(100, abs=0.01)
