"""Instruction counts and ILP counted from a compute block's loop body (``body:``), not typed."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.sw26010.body import count_body
from pipeperf.sw26010.model import predict
from pipeperf.sw26010.processor import bundled_processor

from .helpers import kernel_from_text

P = bundled_processor()        # Table I: L_floating 9, L_fixed 1, L_SPM 3, L_div/sqrt 34, ILP <= 8


def test_distance_accumulation_counts_and_critical_path():
    # two SPM loads (3), the difference once (common subexpression), the square, the sum:
    # loads 3 -> sub 12 -> mul 21 -> add 30 cycles
    c = count_body("ans += (p[f] - c[f]) * (p[f] - c[f])", P)
    assert (c.floating, c.fixed, c.spm, c.div_sqrt) == (3, 0, 2, 0)
    assert c.critical_path == 30
    assert c.ilp == pytest.approx((3 * 9 + 2 * 3) / 30)


def test_independent_chains_raise_ilp_and_integers_are_fixed_point():
    four = "\n".join(f"y{k} = a[i] * b{k}" for k in range(4))
    c = count_body(four, P)
    assert (c.floating, c.spm) == (4, 1) and c.critical_path == 3 + 9
    assert c.ilp == pytest.approx((4 * 9 + 3) / 12)
    idx = count_body("k = i * n + j\nv = a[k]", P, integers=["i", "n", "j"])
    assert (idx.fixed, idx.floating, idx.spm) == (2, 0, 1)


def test_division_and_sqrt_are_not_pipelined():
    c = count_body("r = sqrt(x * x + y * y)\nq = m / r", P)
    assert (c.floating, c.div_sqrt) == (3, 2)
    # mul 9, add 18, sqrt 52, div 86; pipelined 27 over (86 - 68)
    assert c.critical_path == 86 and c.ilp == pytest.approx(27 / 18)


def test_a_store_invalidates_the_element_and_reassignment_the_expression():
    c = count_body("a[i] = a[i] + 1\nb = a[i]", P)
    assert c.spm == 3                               # load, store, load again
    assert count_body("s = s + x\ns = s + x", P).floating == 2


def test_block_with_body_predicts_as_the_same_counts_typed():
    body = kernel_from_text("""kernel: k
active_cpes: 64
loops: {n: 100}
compute:
  blocks:
    - {name: b, per: [n], body: "ans += (p[f] - c[f]) * (p[f] - c[f])"}
""")
    typed = kernel_from_text(f"""kernel: k
active_cpes: 64
loops: {{n: 100}}
compute:
  blocks:
    - {{name: b, per: [n], floating: 3, spm: 2, ilp: {33 / 30}}}
""")
    assert predict(body).us("t_comp") == pytest.approx(predict(typed).us("t_comp"))


@pytest.mark.parametrize("block, message", [
    ('{name: b, body: "x = y * z", floating: 3}', "either a 'body'"),
    ('{name: b, body: "if x: y = 1"}', "body line 1: expected one assignment"),
    ('{name: b, body: "x = foo(y)"}', "unsupported expression"),
    ('{name: b, body: "x = y * z", integers: i}', "list of variable"),
])
def test_body_mistakes_name_the_file_and_field(block, message):
    text = f"kernel: k\nactive_cpes: 8\ncompute:\n  blocks:\n    - {block}\n"
    with pytest.raises(PipeperfError) as e:
        kernel_from_text(text, "spec.yaml")
    assert message in str(e.value) and "spec.yaml" in str(e.value)


def test_kmeans_example_is_the_reproduced_reconstruction(examples):
    """examples/sw26010/kmeans_body.yaml is the 32-point row of `pipeperf reproduce
    sw26010-dma-granularity`: one description, two ways in."""
    from pipeperf.experiments.sw26010_dma_granularity import description
    from pipeperf.sw26010.kernel import load_kernel, parse_kernel

    ours = predict(load_kernel(examples / "kmeans_body.yaml"))
    again = predict(parse_kernel(description(32), "<reconstruction>"))
    assert ours.t_total_us == pytest.approx(again.t_total_us)
    assert ours.terms["avg_ilp"] == pytest.approx(again.terms["avg_ilp"]) and 1 < ours.terms["avg_ilp"] < 2
