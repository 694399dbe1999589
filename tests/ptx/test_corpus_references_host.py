"""The executable references of the corpus agree with the kernel sources themselves, run on the CPU
through tests/kernels/host/cuda_host_shim.h (a few kernels here; all of them with
`python3 scripts/check_references_host.py`)."""
from __future__ import annotations

import pytest
from host_check import HOST_UNSUPPORTED, have_compiler, run_on_host
from kernel_corpus import load_manifest

pytestmark = pytest.mark.skipif(not have_compiler(), reason="needs g++ and the CUDA headers")


# One integer kernel (exact wrap-around arithmetic), one with block barriers, one with warp votes.
@pytest.mark.slow
@pytest.mark.parametrize("name", ["hash_lcg", "scan_hillis_steele", "vote"])
def test_kernel_source_matches_reference_on_host(name):
    case, results = run_on_host(name, seed=1)
    assert case.check(results) == []


@pytest.mark.slow
def test_host_runner_catches_a_wrong_reference():
    case, results = run_on_host("strided_copy", seed=2)
    results["out"][5] += 1.0
    assert case.check(results) and "first at [5]" in case.check(results)[0]


def test_unsupported_kernels_exist_and_are_refused():
    names = {s.name for s in load_manifest()}
    assert set(HOST_UNSUPPORTED) <= names
    with pytest.raises(ValueError, match="cannot run on the host"):
        run_on_host("wmma_gemm")
