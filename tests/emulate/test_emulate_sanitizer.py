"""Sanitizer behaviour: faults name kernel, PTX line, thread, block and address; budgets stop."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kernel_corpus import CORPUS_DIR as KERNELS

from pipeperf.emulate import run_kernel
from pipeperf.errors import PipeperfError
from pipeperf.ptx import parse_ptx

SAXPY = KERNELS / "ptx" / "saxpy.sm_80.ptx"


def test_out_of_bounds_global_names_everything():
    x = np.zeros(10, np.float32)
    y = np.zeros(1000, np.float32)
    with pytest.raises(PipeperfError) as e:
        run_kernel(SAXPY, 4, 256, [1000, np.float32(1), x, y])
    msg = str(e.value)
    assert e.value.line and e.value.line > 0
    assert "out-of-bounds global" in msg and "kernel saxpy" in msg
    assert "thread (10,0,0) of block (0,0,0)" in msg
    assert re.search(r"address 0x[0-9a-f]+", msg)


def test_out_of_bounds_in_later_block():
    x = np.zeros(1000, np.float32)
    y = np.zeros(600, np.float32)
    with pytest.raises(PipeperfError, match=r"thread \(88,0,0\) of block \(2,0,0\)"):
        run_kernel(SAXPY, 4, 256, [1000, np.float32(1), x, y])


PTX_MISALIGNED = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry bad(.param .u64 p)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2+2];
    st.global.u32 [%rd2], %r1;
    ret;
}
"""

PTX_LOOP = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry spin()
{
$L1:
    bra.uni $L1;
}
"""


def test_misaligned_access():
    m = parse_ptx(PTX_MISALIGNED)
    with pytest.raises(PipeperfError, match="misaligned 4-byte global access") as e:
        run_kernel(m, 1, 32, [np.zeros(4, np.uint32)])
    assert e.value.line == 11


def test_infinite_loop_hits_step_budget():
    with pytest.raises(PipeperfError, match="step budget of 1000"):
        run_kernel(parse_ptx(PTX_LOOP), 1, 32, [], max_steps=1000)


def test_grid_too_large_refused_up_front():
    # a legal CUDA grid whose every CTA would be emulated: more threads than the emulator holds
    with pytest.raises(PipeperfError, match="exceeds the emulator's limit"):
        run_kernel(SAXPY, 2**21 + 1, 1024, [1, np.float32(1), np.zeros(1, np.float32),
                                             np.zeros(1, np.float32)])
    # one CUDA itself refuses
    with pytest.raises(PipeperfError, match="exceeds CUDA's limit"):
        run_kernel(SAXPY, 2**31, 1024, [1, np.float32(1), np.zeros(1, np.float32),
                                         np.zeros(1, np.float32)])


def test_memory_too_large_refused_up_front():
    from pipeperf.emulate import memory
    old = memory.MAX_ARENA
    try:
        import pipeperf.emulate.layout as mach
        mach.MAX_ARENA = 1 << 12
        with pytest.raises(PipeperfError, match="GiB of emulated memory"):
            run_kernel(SAXPY, 1, 32, [1, np.float32(1), np.zeros(4096, np.float32),
                                      np.zeros(1, np.float32)])
    finally:
        mach.MAX_ARENA = old


def test_argument_errors():
    with pytest.raises(PipeperfError, match="no value for parameter"):
        run_kernel(SAXPY, 1, 32, [1, 2.0])
    with pytest.raises(PipeperfError, match="takes 4 arguments"):
        run_kernel(SAXPY, 1, 32, [1, 2.0, np.zeros(1), np.zeros(1), 5])
    with pytest.raises(PipeperfError, match=r"block dimension x = 2048 exceeds CUDA.s limit of 1024"):
        run_kernel(SAXPY, 1, 2048, [1, 2.0, np.zeros(1, np.float32), np.zeros(1, np.float32)])


def test_cuda_names_from_source():
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, np.float32)
    run_kernel(KERNELS / "saxpy.cu", 2, 32, {"n": 64, "a": 3.0, "x": x, "y": y})
    assert np.allclose(y, 3 * x + 1)
