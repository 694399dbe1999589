"""Advice (issue 18): each item's predicted time comes from re-simulating the changed kernel, and
re-analysing the fixed kernel gives that time within 10 %: bank conflicts (transpose without /
with padding), uncoalesced reads (a copy down columns / along rows), occupancy through the block
size (32 vs 256 threads), serialised same-address atomics (per element / combined per warp) and a
long dependency chain (one accumulator / two)."""


import pytest

from pipeperf.analysis import analyze
from pipeperf.analysis.advice import MIN_GAIN

K = "tests/analyze/kernels/"


def advice(a, gpu, kind):
    p = next(p for p in a.predictions if p.gpu == gpu)
    gains = [x.gain for x in p.advice]
    assert gains == sorted(gains, reverse=True) and all(g >= MIN_GAIN for g in gains)
    return next(x for x in p.advice if x.kind == kind)


def seconds(a, gpu):
    return next(p for p in a.predictions if p.gpu == gpu).seconds


@pytest.mark.slow
@pytest.mark.parametrize("gpu", ["pascal_gtx1060", "volta_v100"])
def test_bank_conflicts(gpu):
    n = 1024
    args = [f"in=rand:f32:{n * n}", f"out=zeros:f32:{n * n}", f"rows={n}", f"cols={n}"]
    bad = analyze("tests/kernels/transpose_shared.cu", "32,32", "32,8", args, [gpu])
    a = advice(bad, gpu, "bank conflicts")
    assert "transpose_shared.cu:18" in a.text and a.change["source_line"] == 18
    fixed = analyze("tests/kernels/transpose_padded.cu", "32,32", "32,8", args, [gpu])
    assert a.seconds_after == pytest.approx(seconds(fixed, gpu), rel=0.1)
    assert not any(x.kind == "bank conflicts" for x in fixed.predictions[0].advice)


@pytest.mark.slow
@pytest.mark.parametrize("gpu", ["pascal_gtx1060", "volta_v100"])
def test_uncoalesced_access(gpu):
    n = 1024
    args = [f"in=rand:f32:{n * n}", f"out=zeros:f32:{n * n}", f"n={n}"]
    bad = analyze(K + "copy_pair.cu", n * n // 256, 256, args, [gpu], kernel="copy_columns")
    a = advice(bad, gpu, "uncoalesced access")
    assert "copy_pair.cu:7" in a.text
    fixed = analyze(K + "copy_pair.cu", n * n // 256, 256, args, [gpu], kernel="copy_rows")
    assert a.seconds_after == pytest.approx(seconds(fixed, gpu), rel=0.1)


@pytest.mark.slow
def test_occupancy_through_the_block_size():
    gpu, n = "pascal_gtx1060", 1 << 20
    args = [f"x=rand:f32:{n}", f"y=zeros:f32:{n}", f"n={n}"]
    bad = analyze(K + "poly_eval.cu", n // 32, 32, args, [gpu])
    assert bad.predictions[0].limited_by == "blocks"
    a = advice(bad, gpu, "occupancy")
    t = a.change["block"]
    assert t > 32 and a.change["grid"] * t == n
    fixed = analyze(K + "poly_eval.cu", n // t, t, args, [gpu])
    assert a.seconds_after == pytest.approx(seconds(fixed, gpu), rel=0.1)


@pytest.mark.slow
def test_serialised_atomics():
    gpu, n = "kepler_gtx650ti", 1 << 20       # the GPU whose database has the same-address atomic rate
    args = [f"x=rand:f32:{n}", "sum=zeros:f32:1", f"n={n}"]
    bad = analyze(K + "sum_pair.cu", n // 256, 256, args, [gpu], kernel="sum_atomic")
    a = advice(bad, gpu, "atomics")
    assert "sum_pair.cu:7" in a.text and a.gain > 0.5
    fixed = analyze(K + "sum_pair.cu", n // 256, 256, args, [gpu], kernel="sum_warp")
    assert a.seconds_after == pytest.approx(seconds(fixed, gpu), rel=0.1)
    assert not any(x.kind == "atomics" for x in fixed.predictions[0].advice)


@pytest.mark.slow
def test_dependency_chain():
    gpu, blocks, threads, m = "volta_v100", 80, 32, 64       # one warp per SM: nothing hides the chain
    n = blocks * threads
    args = [f"x=rand:f64:{8 * n}", f"out=zeros:f64:{n}", f"m={m}"]
    bad = analyze(K + "dot_pair.cu", blocks, threads, args, [gpu], kernel="chain_one")
    a = advice(bad, gpu, "dependency chain")
    assert "dot_pair.cu:10" in a.text and a.change["chain_links_simulated"] >= 8   # loop periods may be skipped
    fixed = analyze(K + "dot_pair.cu", blocks, threads, args, [gpu], kernel="chain_two")
    assert a.seconds_after == pytest.approx(seconds(fixed, gpu), rel=0.1)


@pytest.mark.slow
def test_advice_on_a_skipped_loop_is_extrapolated_as_the_launch():
    """A what-if re-simulates the shorter IDGs the launch was extrapolated from, too: with the
    loop's periods skipped it predicts what the exact analysis (every iteration) predicts."""
    gpu, args = "volta_v100", [f"out=zeros:f32:{160 * 32 * 8}", "m=64"]
    fast, exact = (analyze(K + "loop_conflicts.cu", 160, "32,8", args, [gpu], kernel="conflicted", exact=e)
                   for e in (False, True))
    assert "periodic loops" in " ".join(fast.predictions[0].notes)
    a, b = advice(fast, gpu, "bank conflicts"), advice(exact, gpu, "bank conflicts")
    assert a.seconds_after == pytest.approx(b.seconds_after, rel=0.02)
