"""A struct passed by value (``.param .align 8 .b8 p[56]``, Rodinia lavaMD's style) takes its
bytes, its fields read through ``ld.param.v2``/``.v4``; a plain number is refused in one line
rather than packed into the first byte (issue 17)."""

from __future__ import annotations


import numpy as np
import pytest

from pipeperf.emulate import run_kernel
from pipeperf.errors import PipeperfError


CU = r"""
struct P { double a; int n; float w[10]; };      // offsets 0, 8, 12..51; 56 bytes with padding
extern "C" __global__ void k(P p, float* out) { out[threadIdx.x] = p.a + p.n + p.w[threadIdx.x % 10]; }
"""


@pytest.fixture(scope="module")
def cu(tmp_path_factory):
    f = tmp_path_factory.mktemp("s") / "s.cu"
    f.write_text(CU)
    return f


def _struct() -> np.ndarray:
    b = np.zeros(56, np.uint8)
    b[0:8] = np.frombuffer(np.float64(1.5).tobytes(), np.uint8)
    b[8:12] = np.frombuffer(np.int32(7).tobytes(), np.uint8)
    b[12:52] = np.frombuffer(np.arange(10, dtype=np.float32).tobytes(), np.uint8)
    return b


def test_struct_fields_read_from_its_bytes(cu):
    out = np.zeros(32, np.float32)
    run_kernel(cu, 1, 32, [_struct(), out], mode="full")
    np.testing.assert_allclose(out, 8.5 + np.arange(32) % 10)


@pytest.mark.parametrize("value,msg", [(5, "56-byte struct or array passed by value"),
                                       (np.zeros(8, np.uint8), "got 8 bytes; give exactly 56")])
def test_a_number_or_wrong_size_is_refused(cu, value, msg):
    with pytest.raises(PipeperfError, match=msg):
        run_kernel(cu, 1, 32, [value, np.zeros(32, np.float32)])
