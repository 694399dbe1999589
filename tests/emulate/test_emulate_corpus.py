"""Full mode reproduces the NumPy reference outputs of the CUDA corpus kernels."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_corpus import load_manifest, make_case

from pipeperf.emulate import run_kernel
from pipeperf.errors import PipeperfError

#: Every corpus kernel is emulated (wmma, mma.sync and cp.async included).
UNSUPPORTED: set[str] = set()
SUPPORTED = [s.name for s in load_manifest() if s.name not in UNSUPPORTED]


def emulate_case(name: str, arch: str = "sm_80", mode: str = "full"):
    case = make_case(name)
    spec = case.spec
    args = case.fresh_args()
    prof = run_kernel(spec.ptx_path(arch), spec.grid, spec.block, args, kernel=name,
                      shared=spec.shared, mode=mode)
    names = [p.name for p in spec.params]
    outputs = {o: args[names.index(o)] for o in spec.outputs}
    return case, prof, outputs


def test_at_least_15_kernels_are_supported():
    assert len(SUPPORTED) >= 15
    for must in ("saxpy", "reduce_shared", "matmul_tiled", "transpose_shared", "histogram_shared",
                 "stencil1d", "scan_hillis_steele", "reduce_warp_shfl", "divergent",
                 "collatz_steps", "noinline_call", "daxpy", "half_arith"):
        assert must in SUPPORTED


@pytest.mark.parametrize("name", SUPPORTED)
def test_full_mode_matches_reference(name):
    case, prof, outputs = emulate_case(name)
    assert case.check(outputs) == []
    assert prof.counts["inst_executed_warp"] > 0


@pytest.mark.parametrize("name", ["reduce_warp_shfl", "warp_scan_shfl", "saxpy", "matmul_tiled",
                                  "noinline_call", "bitops"])
@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
def test_other_targets(name, arch):
    case, _, outputs = emulate_case(name, arch)
    assert case.check(outputs) == []


def test_inputs_are_not_modified_when_not_outputs():
    case = make_case("saxpy")
    args = case.fresh_args()
    x_before = args[2].copy()
    run_kernel(case.spec.ptx_path("sm_80"), case.spec.grid, case.spec.block, args)
    assert np.array_equal(args[2], x_before)
    assert not np.array_equal(args[3], case.args[3])  # y was written


PTX_LOP3 = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry uses_lop3(.param .u64 p)
{
    .reg .b32 %r<4>;
    mov.u32 %r1, 7;
    lop3.b32 %r2, %r1, %r1, %r1, 0xE8;
    ret;
}
"""


def test_unsupported_is_named():
    from pipeperf.ptx import parse_ptx
    with pytest.raises(PipeperfError, match=r"unsupported instruction lop3\.b32") as e:
        run_kernel(parse_ptx(PTX_LOP3), 1, 32, [np.zeros(1, np.uint32)])
    assert e.value.line == 9


def test_tensor_core_kernels():
    for name in ("wmma_gemm", "mma_sync_m16n8k16", "async_copy_scale"):
        case, prof, outputs = emulate_case(name)
        assert case.check(outputs) == [], name
    assert prof.by_category["warp"].get("tensor", 0) == 0  # cp.async is not a tensor op
