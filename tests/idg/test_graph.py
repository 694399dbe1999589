"""The IDG data structure and its YAML loader."""

import numpy as np
import pytest

from pipeperf.errors import PipeperfError
from pipeperf.idg import IDG, load_kernel
from pipeperf.idg.kernels import example_kernel, instruction_mix, iterative_barrier


def test_forward_references_are_topologically_sorted():
    g = IDG.from_nodes("t", ["b", "a", "c"], ["x", "y", "x"], [["a"], [], ["b"]])
    assert g.ids == ("a", "b", "c")
    assert list(g.deps_of(1)) == [0] and list(g.deps_of(2)) == [1]


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
