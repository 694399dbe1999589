"""The instruction-mix kernel converges to Eqs. 43-45 (analytical-models-and-pipeline-model.txt Sec. 4.2)."""

import math

import pytest

from pipeperf.hardware.spec import InstrClass, load_gpu
from pipeperf.idg.paper_kernels import instruction_mix
from pipeperf.simulate import simulate


def type1_ipc(gpu, beta: int) -> float:
    """Throughput of type-1 (ALU) instructions at full occupancy, several rounds of groups."""
    group = gpu.max_warps_per_core // gpu.max_groups_per_core
    m = gpu.max_warps_per_core // group
    r = simulate(instruction_mix(beta, 64), gpu, group, m, total_groups=m * gpu.cores * 4)
    return r.ipc * beta / (beta + 1)


@pytest.mark.parametrize("name", ["fermi_c2050", "pascal_gtx1060"])
@pytest.mark.parametrize("beta", [1, 4, 8, 16])
def test_three_subsystem_models(name, beta):
    gpu = load_gpu(name)
    alu, sfu = gpu.classes["mul_f32"], gpu.classes["cos_f32"]
    l1, l2, il = alu.cpi, sfu.cpi, gpu.issue_limit
    one = gpu.with_classes(cos_f32=InstrClass("cos_f32", alu.subsystem, l2, sfu.latency)).with_issue_limit(math.inf)
    two = gpu.with_issue_limit(math.inf)
    assert type1_ipc(one, beta) == pytest.approx(beta / (beta * l1 + l2), rel=0.03)            # Eq. 43
    assert type1_ipc(two, beta) == pytest.approx(min(1 / l1, beta / l2), rel=0.03)             # Eq. 44
    assert type1_ipc(gpu, beta) == pytest.approx(min(1 / l1, beta / l2, il * beta / (beta + 1)), rel=0.03)  # Eq. 45


def test_issue_limit_is_what_binds_fermi_at_beta_8():
    """Fermi, beta = 8: both pipelines could deliver 1 ALU/cycle, the issue limit caps it at 8/9."""
    gpu = load_gpu("fermi_c2050")
    with_il = type1_ipc(gpu, 8)
    without = type1_ipc(gpu.with_issue_limit(math.inf), 8)
    assert with_il < 0.9 < without
