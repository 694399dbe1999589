"""The built-in networks' multiply-add counts against their published figures (within 2 %); the
figures and their sources are pipeperf.network.builtin.PUBLISHED."""

from __future__ import annotations

import pytest

pytest.importorskip("onnx")

from pipeperf.network.builtin import NETWORKS, PUBLISHED, builtin_model
from pipeperf.network.graph import load_graph
from pipeperf.network.lower import plan


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_flops_match_the_published_multiply_adds(name):
    p = plan(load_graph(builtin_model(name)))
    assert not p.unsupported
    macs = sum(layer.macs for layer in p.layers)
    published = PUBLISHED[name]
    assert abs(macs / published.macs - 1) < 0.02, (name, macs, published)


def test_every_builtin_lowers_completely_and_shares_identical_layers():
    assert len(NETWORKS) >= 8
    for name in NETWORKS:
        p = plan(load_graph(builtin_model(name)))
        assert not p.unsupported, name
    r50 = plan(load_graph(builtin_model("resnet50")))
    launches = [la.key() for layer in r50.layers for la in layer.launches]
    assert len(set(launches)) < len(launches) / 2        # identical blocks of a stage share one analysis


def test_batch_replaces_the_first_dimension():
    p = plan(load_graph(builtin_model("resnet18"), batch=4))
    assert p.batch == 4 and sum(layer.macs for layer in p.layers) == pytest.approx(4 * 1.8141e9, rel=1e-3)


def test_every_builtin_has_a_published_count():
    """A built-in network is one of a paper's, checked against its published multiply-adds (LeNet-5's
    partial C3 connection table has no ONNX form, so no built-in claims to be it)."""
    assert set(NETWORKS) == set(PUBLISHED)
