"""Tuning sweeps (issue 20, pipeperf.measure.sweeps): which cases form a sweep, the quality loss of
the least-predicted variant, ties, Spearman and the GPU time of a measured sweep, on synthetic case
records; and the timed_launches expressions of the case files."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.measure.suite import Case, Launch, launches_of, load_suite
from pipeperf.measure.sweeps import find_sweeps, score_sweep, spearman


def _case(cid: str, seconds: float, *, kernel: str = "k", gpu: str = "g", block: int = 256, n: int = 1024,
          flags: tuple[str, ...] = (), group: str | None = None, launches: int | None = 19,
          calibrates: tuple[str, ...] = ()) -> Case:
    launch = Launch("/x/k.cu", kernel, (n // block + 1,), (block,), (f"A=zeros:f64:{n}", f"N={n}"),
                    nvcc_flags=flags)
    return Case(cid, "dram", gpu, launch, seconds, True, "t.yaml:1", group, calibrates=calibrates,
                timed_launches=launches)


def test_a_block_size_sweep_of_one_problem_is_found_and_a_size_sweep_is_not():
    cases = [_case(f"s/g/b{b}", t, block=b) for b, t in ((64, 3.0), (128, 2.0), (256, 2.2))]
    cases += [_case(f"s/g/n{n}", 1.0, n=n, block=32) for n in (2048, 4096)]       # one shape per size
    cases += [_case(f"m/g/it{i}", 1.0, kernel="m", flags=(f"-DIT={i}",)) for i in (0, 8)]
    sweeps, rejected = find_sweeps(cases)
    assert [(s.name, s.kind, s.swept, len(s.cases)) for s in sweeps] == [("s/g/*", "launch shape", "grid, block", 3)]
    why = {r.what: r.reason for r in rejected}
    assert "problem size" in why["k.cu:k on g across 3 problems"] and "(A, N)" in why["k.cu:k on g across 3 problems"]
    assert "build flags differ (-DIT)" in why["k.cu:m on g across 2 problems"]


def test_order_groups_are_code_variant_sweeps_per_gpu():
    cases = [_case(f"r/h/kernel_{i}", t, kernel=f"k{i}", group="red/h") for i, t in ((1, 2.0), (2, 1.0))]
    cases.append(_case("r/h/kernel_3", 1.5, kernel="k3", group="lone/h"))
    sweeps, rejected = find_sweeps(cases)
    assert [(s.name, s.kind, s.swept) for s in sweeps] == [("red/h", "code variant", "kernel")]
    assert [s.variant(c) for s in sweeps for c in s.cases] == ["kernel_1", "kernel_2"]
    assert rejected[0].reason == "a single variant"


def test_loss_is_measured_time_of_the_pick_over_the_best():
    cases = [_case(f"s/g/b{b}", t, block=b, calibrates=("x",) if b == 64 else ())
             for b, t in ((64, 3.0), (128, 2.0), (256, 2.2))]
    (sweep,), _ = find_sweeps(cases)
    sc = score_sweep(sweep, {"s/g/b64": 5.0, "s/g/b128": 4.1, "s/g/b256": 4.0})
    assert (sc.picked, sc.best) == ("b256", "b128")
    assert sc.loss == pytest.approx(0.1)                       # 2.2 / 2.0 - 1
    assert sc.ties == ("b256",)
    assert sc.gpu_sweep_seconds == pytest.approx(19 * (3.0 + 2.0 + 2.2))
    assert sc.calibrating == ("b64",)
    assert sc.spearman == pytest.approx(0.5)


def test_ties_within_one_percent_are_reported_with_their_worst_loss():
    cases = [_case(f"s/g/b{b}", t, block=b) for b, t in ((64, 3.0), (128, 2.0), (256, 2.4))]
    (sweep,), _ = find_sweeps(cases)
    sc = score_sweep(sweep, {"s/g/b64": 5.0, "s/g/b128": 4.03, "s/g/b256": 4.0})
    assert sc.picked == "b256" and sc.ties == ("b128", "b256")
    assert sc.loss == pytest.approx(0.2) and sc.tie_loss == pytest.approx(0.2)
    sc = score_sweep(sweep, {"s/g/b64": 5.0, "s/g/b128": 4.0, "s/g/b256": 4.03})
    assert sc.picked == "b128" and sc.loss == 0 and sc.tie_loss == pytest.approx(0.2)
    assert score_sweep(sweep, {"s/g/b64": 5.0, "s/g/b128": None, "s/g/b256": 4.0}) is None
    no_count = [_case(f"s/g/b{b}", 1.0 + b / 1000, block=b, launches=None) for b in (64, 128)]
    (sweep,), _ = find_sweeps(no_count)
    assert score_sweep(sweep, {"s/g/b64": 1.0, "s/g/b128": 2.0}).gpu_sweep_seconds is None


def test_spearman_uses_average_ranks_and_is_undefined_for_constant_sides():
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([1, 2, 2], [1, 2, 3]) == pytest.approx(0.8660254)
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_timed_launches_expressions_follow_the_benchmarks_loops():
    loop = "2 + 3 * 2 * ((min(30000, max(2000, 1000000000 // size)) + 1) // 2)"
    assert launches_of(loop, ["B=zeros:f64:4096", "size=4096"]) == 2 + 3 * 30000
    assert launches_of(loop, ["size=304919"]) == 2 + 3 * 2 * ((3279 + 1) // 2)
    assert launches_of(19, []) == 19
    with pytest.raises(PipeperfError, match="not an integer"):
        launches_of("__import__('os')", ["size=1"])
    with pytest.raises(PipeperfError, match="not an integer"):
        launches_of("size * 2", ["n=3"])


def test_the_bundled_suite_has_timed_launches_on_every_tuning_sweep():
    from pathlib import Path

    sweeps, _ = find_sweeps(load_suite(Path(__file__).resolve().parents[2] / "validation"))
    assert len(sweeps) >= 60
    assert all(c.timed_launches for s in sweeps for c in s.cases)
