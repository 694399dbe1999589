"""The IDG data structure and its YAML loader."""

import numpy as np
import pytest

from pipeperf.errors import PipeperfError
from pipeperf.idg import IDG, load_kernel
from pipeperf.idg.paper_kernels import example_kernel, instruction_mix, iterative_barrier


def test_forward_references_are_topologically_sorted():
    g = IDG.from_nodes("t", ["b", "a", "c"], ["x", "y", "x"], [["a"], [], ["b"]])
    assert g.ids == ("a", "b", "c")
    assert list(g.deps_of(1)) == [0] and list(g.deps_of(2)) == [1]


def test_loading_in_columns_gives_the_per_node_result(tmp_path):
    """A well-formed file is read by the C node pass (io._c_columns) or column by column
    (io._columns, graph._csr_in_order); anything else (unsorted or repeated deps, numeric ids,
    barrier keys) by the per-node path: the same IDG."""
    import json
    import random

    from pipeperf.idg import io

    rng = random.Random(3)
    nodes = [{"id": f"n{i}", "class": rng.choice(["a", "b", "bar_sync"])} for i in range(300)]
    for i, n in enumerate(nodes[1:], 1):
        n["deps"] = [f"n{j}" for j in sorted(rng.sample(range(max(0, i - 6), i), min(i, rng.randint(0, 3))))]
    variants = {"plain": nodes,
                "unsorted": [dict(n, deps=n.get("deps", [])[::-1] * 2) for n in nodes],
                "barrier key": [dict(n, barrier=True) if i % 50 == 7 else n for i, n in enumerate(nodes)],
                "forward": nodes[1:] + nodes[:1]}
    assert io._columns(nodes) is not None and io._columns(variants["barrier key"]) is None
    if io._c_columns is not None:       # the C node pass takes the plain file only
        assert io._c_columns(nodes) is not None
        odd = [nodes[:5] + [{"id": "x", "class": "a", "deps": ["nowhere"]}], nodes[:5] + nodes[4:6],
               nodes[:5] + [{"id": 7, "class": "a"}], nodes[:5] + [{"id": "x", "class": "a", "deps": "n1"}],
               nodes[:5] + [{"id": "x", "class": "a", "deps": ["n2", "n2"]}], ({"id": "a", "class": "a"},)]
        assert all(io._c_columns(v) is None for v in [*odd, *list(variants.values())[1:]])
    base = None
    for name, ns in variants.items():
        p = tmp_path / f"{name.replace(' ', '_')}.json"
        p.write_text(json.dumps({"name": "k", "instructions": ns}))
        g = load_kernel(p).idgs[0]
        slow = IDG.from_nodes("k", [n["id"] for n in ns], [n["class"] for n in ns],
                              [n.get("deps", []) for n in ns],
                              [bool(n.get("barrier")) for n in ns])
        for h in (g, slow):
            got = (h.ids, h.classes, bytes(h.cls_buf), bytes(h.dep_ptr_buf), bytes(h.dep_idx_buf), bytes(h.barrier_buf))
            if name in ("plain", "unsorted"):
                base = base or got
                assert got == base, name
            else:
                assert got[0] == slow.ids and got[3:5] == (bytes(slow.dep_ptr_buf), bytes(slow.dep_idx_buf)), name


def test_example_kernel_structure_and_longest_path():
    g = example_kernel().idgs[0]
    assert g.class_counts() == {"comp": 4, "mem": 2}
    lat = np.where(g.cls == g.classes.index("comp"), 4.0, 6.0)
    assert g.longest_path(lat) == 24.0       # 3 comps + 2 mems on the critical path


def test_generated_kernels():
    mix = instruction_mix(beta=3, n=5).idgs[0]
    assert len(mix) == 20 and mix.class_counts() == {"mul_f32": 15, "cos_f32": 5}
    bar = iterative_barrier(4).idgs[0]
    assert bar.n_barriers == 4 and list(np.flatnonzero(bar.barrier)) == [1, 3, 5, 7]


def test_yaml_roundtrip(tmp_path):
    import yaml
    g = example_kernel().idgs[0]
    p = tmp_path / "g.yaml"
    p.write_text(yaml.safe_dump(g.to_dict()))
    back = load_kernel(p).idgs[0]
    assert back.ids == g.ids and np.array_equal(back.dep_idx, g.dep_idx)


def test_duplicate_id_names_line(tmp_path):
    p = tmp_path / "d.yaml"
    p.write_text("name: d\ninstructions:\n  - {id: a, class: x}\n  - {id: a, class: x}\n")
    with pytest.raises(PipeperfError, match=r"d.yaml:4: duplicate instruction id 'a'"):
        load_kernel(p)


def test_mismatched_barriers_are_refused(tmp_path):
    p = tmp_path / "b.yaml"
    p.write_text("name: b\nwarp_classes:\n"
                 "  - {weight: 1, instructions: [{id: s, class: bar_sync}]}\n"
                 "  - {weight: 1, instructions: [{id: a, class: mul_f32}]}\n")
    with pytest.raises(PipeperfError, match="different numbers of barriers"):
        load_kernel(p)


def test_weights_assign_warps_in_proportion():
    k = load_kernel("examples/idg/divergent.yaml")
    a = k.assign(400)
    assert np.bincount(a).tolist() == [300, 100]
    assert np.bincount(a[:4]).tolist() == [3, 1]         # interleaved, not blocked


def test_buffers_and_their_numpy_views_agree():
    """A file's IDG holds array buffers, a generator's NumPy arrays; both read the same."""
    import numpy as np

    from pipeperf.idg.paper_kernels import chain

    g = IDG.from_nodes("g", ["a", "b", "c", "d"], ["x", "bar_sync", "y", "x"], [[], ["a"], ["a", "b"], ["c"]],
                       [False, False, True, False])
    assert g.cls.dtype == np.int32 and g.cls.tolist() == list(g.cls_buf) == [0, 1, 2, 0]
    assert g.dep_ptr.tolist() == [0, 0, 1, 3, 4] and g.dep_idx.tolist() == [0, 0, 1, 2]
    assert g.barrier.tolist() == [False, True, True, False] and g.n_barriers == 2
    assert g.class_counts() == {"x": 2, "bar_sync": 1, "y": 1}
    c = chain(5, "x").warp_classes[0].idg
    assert c.class_counts() == {"x": 5} and c.n_barriers == 0 and c.n_edges == 4


def test_fractional_weights_normalise_as_numpy_sums():
    """smooth_round_robin divides by the weights' sum; it is rounded as numpy.sum rounds it
    (pairwise), so assignments stay what they were when NumPy computed them."""
    import random

    import numpy as np

    from pipeperf.idg.kernel_graph import _pairwise_sum

    rng = random.Random(16)
    for n in list(range(1, 20)) + [127, 128, 129, 300, 1000]:
        w = [rng.uniform(0.01, 10.0) for _ in range(n)]
        assert _pairwise_sum(w) == float(np.sum(np.array(w)))
