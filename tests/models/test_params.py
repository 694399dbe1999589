"""Table 2's parameters and Lambda_app (Eq. 2) derived from an IDG and a GPU spec."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg import IDG, KernelGraph, bundled_kernel
from pipeperf.idg.kernel_graph import WarpClass
from pipeperf.models.params import isolated_schedule, is_memory_class, kernel_params, node_timing
from pipeperf.simulate import simulate

from model_test_helpers import example, random_gpu, random_kernel


def test_example_kernel_has_table2_parameters():
    kp = example()
    assert (kp.alpha_comp, kp.alpha_mem, kp.ci) == (4, 2, 2)
    assert (kp.lam_comp, kp.Lam_comp, kp.lam_mem, kp.Lam_mem) == (1, 4, 2, 6)
    assert kp.busy == {"alu": 4, "mem": 4}


def test_example_lambda_app_is_25_with_the_schedule_of_eq2():
    """c1 0-4, c2 4-8, m1 8-14, c3 14-18, c4 one lambda later 15-19, m2 19-25."""
    kp = example()
    assert kp.lambda_app == 25
    idg = kp.kernel.idgs[0]
    issue, done = isolated_schedule(idg, node_timing(idg, kp.gpu))
    assert dict(zip(idg.ids, issue)) == {"c1": 0, "c2": 4, "m1": 8, "c3": 14, "c4": 15, "m2": 19}
    assert done.max() == 25


def test_simulator_gives_25_cycles_for_one_warp_of_the_example():
    r = simulate(bundled_kernel("example"), load_gpu("example_table2"), 1, 1)
    assert r.cycles == 25


@settings(max_examples=40, deadline=None)
@given(random_kernel(barriers=True), random_gpu(integer=False))
def test_lambda_app_equals_the_simulated_time_of_one_warp(kernel, gpu):
    kp = kernel_params(kernel, gpu)
    assert kp.lambda_app == pytest.approx(simulate(kernel, gpu, 1, 1).cycles, abs=1e-9)


def test_memory_classes_are_named_by_subsystem_or_prefix():
    gpu = load_gpu("pascal_gtx1060")
    mem = {n for n, c in gpu.classes.items() if is_memory_class(c)}
    assert mem == {"ld_global_s32", "ld_local_s32", "ld_shared_f32", "ld_shared_f32_conflict"}


def test_barriers_count_as_sync_and_computation():
    kp = kernel_params(bundled_kernel("iterative_barrier", {"n": "3"}), load_gpu("pascal_gtx1060"))
    assert (kp.alpha_sync, kp.alpha_comp, kp.alpha_mem) == (3, 6, 0)
    assert any("barriers" in n for n in kp.notes)


def test_warp_classes_are_weight_averaged():
    a = IDG.from_nodes("a", ["x", "m"], ["comp", "mem"], [[], ["x"]])           # 1 comp, 1 mem
    b = IDG.from_nodes("b", ["x", "y", "z"], ["comp", "comp", "comp"], [[], ["x"], ["y"]])
    kg = KernelGraph("mixed", (WarpClass(a, 3.0), WarpClass(b, 1.0)))
    kp = kernel_params(kg, load_gpu("example_table2"))
    assert kp.alpha_comp == pytest.approx(0.75 * 1 + 0.25 * 3)
    assert kp.alpha_mem == pytest.approx(0.75)
    assert kp.lambda_app == pytest.approx(0.75 * (4 + 6) + 0.25 * 12)
    assert kp.lam_comp == 1 and kp.Lam_mem == 6
    assert any("weight-averaged" in n for n in kp.notes)


def test_unknown_instruction_class_is_a_user_error():
    kg = KernelGraph.single(IDG.from_nodes("k", ["a"], ["fma_f16"], [[]]))
    with pytest.raises(PipeperfError, match="fma_f16"):
        kernel_params(kg, load_gpu("example_table2"))
