"""Mapper g end to end: traced addresses change the predicted time the way Sec. IV-C of
pipeline-performance-model.txt shows (bank conflicts in a tiled kernel make it slower) and
uncoalesced accesses cost more global-memory bandwidth (Sec. 6.3's R rule)."""


import pytest

from pipeperf.analysis import analyze

N = 1024                   # 1024 blocks: several per SM even on V100's 80 SMs
ARGS = [f"in=rand:f32:{N * N}", f"out=zeros:f32:{N * N}", f"rows={N}", f"cols={N}"]
GRID, BLOCK = f"{N // 32},{N // 32}", "32,8"
GPUS = ["pascal_gtx1060", "volta_v100"]


@pytest.fixture(scope="module")
def runs():
    out = {}
    for k in ("transpose_naive", "transpose_shared", "transpose_padded"):
        out[k] = analyze(f"tests/kernels/{k}.cu", GRID, BLOCK, ARGS, GPUS)
        out[k + "/plain"] = analyze(f"tests/kernels/{k}.cu", GRID, BLOCK, ARGS, GPUS, memory=False)
    return out


def rows(a, gpu, opcode):
    p = next(p for p in a.predictions if p.gpu == gpu)
    return [r for r in p.memory if r["opcode"] == opcode]


def seconds(a, gpu):
    return next(p for p in a.predictions if p.gpu == gpu).seconds


@pytest.mark.slow
@pytest.mark.parametrize("gpu", GPUS)
def test_bank_conflicts_raise_the_predicted_time(runs, gpu):
    confs = rows(runs["transpose_shared"], gpu, "ld.shared.f32")
    frees = rows(runs["transpose_padded"], gpu, "ld.shared.f32")
    assert len(confs) == len(frees) == 4                     # the unrolled loop's four tile reads
    for conf, free in zip(confs, frees):
        # column reads of a 32x32 float tile: all 32 lanes in one bank; padding to 33 spreads them
        assert conf["conflict_degree"] == 31 and free["conflict_degree"] == 0
        assert conf["cpi"] == pytest.approx(32 * free["cpi"])
        assert conf["latency"] == pytest.approx(free["latency"] + 31 * free["cpi"])
    # the row-wise tile writes are conflict-free in both
    assert all(r["conflict_degree"] == 0 for k in ("transpose_shared", "transpose_padded")
               for r in rows(runs[k], gpu, "st.shared.f32"))
    # the same kernels without mapper g differ only by the padding's index arithmetic
    plain = seconds(runs["transpose_shared/plain"], gpu) / seconds(runs["transpose_padded/plain"], gpu)
    assert plain == pytest.approx(1.0, abs=0.05)
    assert seconds(runs["transpose_shared"], gpu) > 1.2 * seconds(runs["transpose_padded"], gpu)


@pytest.mark.slow
@pytest.mark.parametrize("gpu", GPUS)
def test_uncoalesced_access_raises_global_lambda(runs, gpu):
    a = runs["transpose_naive"]
    lds = rows(a, gpu, "ld.global.nc.f32") + rows(a, gpu, "ld.global.f32")
    sts = rows(a, gpu, "st.global.f32")
    assert len(lds) == len(sts) == 4
    for ld, st in zip(lds, sts):
        # row-wise reads: 32 consecutive floats = 4 sectors; column-wise writes: one sector per lane
        assert ld["sectors_per_request"] == 4 and st["sectors_per_request"] == 32
        # each written sector holds 8 consecutive rows: the block's 8 warps (threadIdx.y) write
        # it in turn, so the cache model finds 7 of 8 in L2
        assert st["l2_hit_rate"] == pytest.approx(7 / 8)
        assert st["cpi"] > 2.5 * ld["cpi"]
    # the tiled versions write rows: coalesced, and faster overall than the naive one
    assert all(r["sectors_per_request"] == 4 for r in rows(runs["transpose_padded"], gpu, "st.global.f32"))
    assert seconds(runs["transpose_naive"], gpu) > seconds(runs["transpose_padded"], gpu)
    assert seconds(runs["transpose_naive"], gpu) > seconds(runs["transpose_naive/plain"], gpu)


def test_report_and_json_carry_the_memory_rows(runs):
    from pipeperf.report.analyze_text import format_analysis

    text = format_analysis(runs["transpose_shared"])
    assert "bank-conflict degree 31.00" in text
    k = runs["transpose_shared"].to_dict()["kernels"][0]
    assert any(r.get("conflict_degree") == 31 for r in k["memory"])


@pytest.mark.parametrize("gpu", GPUS)
def test_what_if_fixing_the_pattern_predicts_the_fixed_kernel(runs, gpu):
    def pred(k):
        return next(p for p in runs[k].predictions if p.gpu == gpu)

    padded = pred("transpose_padded")
    assert padded.what_if == {}                                  # nothing to fix: nothing simulated
    fixed = pred("transpose_shared").what_if["no bank conflicts"]
    assert fixed["seconds"] == pytest.approx(padded.seconds, rel=0.05) and fixed["speedup"] > 1.2
    fixed = pred("transpose_naive").what_if["coalesced global accesses"]
    assert fixed["seconds"] == pytest.approx(padded.seconds, rel=0.1) and fixed["speedup"] > 1.5
    assert "no bank conflicts" not in pred("transpose_naive").what_if   # it has no shared memory
