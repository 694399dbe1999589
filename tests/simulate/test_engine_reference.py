"""The compiled engine's own checks: every vector width of its candidate scan gives the reference
engine's results, an unbuilt engine is a one-line error, the core checks its input record and its
flattening helpers check their buffers. (Its results against the plain-Python reference engine:
test_reference_engine.py.)"""

import pytest

from test_reference_engine import _SMALL_CASES, _case_input, assert_same, random_input


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_every_scan_width_gives_the_reference_results(isa):
    """The candidate scan's vector widths (picked by cpuid at import) agree bit for bit with the
    reference engine, on cores of up to 64 warps (the scan's word) and beyond."""
    from pipeperf.simulate import _engine

    was = _engine.scan_isa()
    try:
        _engine.scan_isa(isa)
    except ValueError:
        pytest.skip(f"{isa} is not available on this CPU")
    try:
        for name in _SMALL_CASES:
            assert_same(_case_input(name))
        for seed in range(40):
            assert_same(random_input(seed, wide=seed < 4))
    finally:
        _engine.scan_isa(was)


def test_an_unbuilt_engine_is_one_line_naming_the_fix(monkeypatch):
    from pipeperf.errors import PipeperfError
    from pipeperf.idg.paper_kernels import chain
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.simulate import PreparedKernel, engine

    monkeypatch.setattr(engine, "_engine", None)
    monkeypatch.setattr(engine, "_MISSING", "No module named 'pipeperf.simulate._engine'", raising=False)
    with pytest.raises(PipeperfError, match="pip install -e"):
        PreparedKernel(chain(10), load_gpu("pascal_gtx1060")).run(1, 1)


def test_the_compiled_core_checks_its_arrays():
    from dataclasses import replace

    import numpy as np

    from pipeperf.simulate import engine

    i64, f64 = np.int64, np.float64
    one = engine.EngineInput(
        off=np.zeros(1, i64), length=np.array([2], i64), sub=np.zeros(2, i64), lam=np.ones(2), Lam=np.ones(2),
        Lret=np.ones(2), is_bar=np.zeros(2, bool), bar_prev=np.full(2, -1, i64), dep_ptr=np.array([0, 0, 1], i64),
        dep_idx=np.array([0], i64), minlam=np.ones(1), fill=None, fill_cycles=None, fifo=None,
        warp_cls=np.zeros(1, i64), group_size=1, n_groups=1, n_resident=1, issue_limit=1.0, scheduler=engine.RR,
        dispatch=0.0, interval=0.0, record=True)
    r = engine.run_core(one)
    assert (r.status, r.end, r.issued, r.busy.tolist()) == (engine.OK, 2.0, 2, [2.0])   # issues at 0 and 1
    with pytest.raises(ValueError, match="outside its warp"):
        engine.run_core(replace(one, dep_idx=np.array([5], i64)))
    with pytest.raises(ValueError, match="array lengths"):
        engine.run_core(replace(one, lam=np.ones(3)))
    with pytest.raises(ValueError, match="RR \\(0\\) or GTO"):
        engine.run_core(replace(one, scheduler=7))
    with pytest.raises(TypeError, match="float64"):
        engine.run_core(replace(one, lam=np.ones(2, np.float32)))
    with pytest.raises(AttributeError, match="no attribute 'off'"):
        engine._engine.run_core(object(), *(np.zeros(0, t) for t in (f64, i64, i64, f64, f64)), None, None)


def test_the_flattening_helpers_check_their_buffers():
    from array import array

    from pipeperf.simulate import engine

    out = array("d", bytes(8 * 3))
    engine.take(array("d", [0.5, 2.0]), array("i", [1, 0, 1]), out)
    assert out.tolist() == [2.0, 0.5, 2.0]
    wide = array("q", bytes(8 * 3))
    engine.widen(array("i", [0, 5, 7]), 10, wide)
    assert wide.tolist() == [10, 15, 17]
    with pytest.raises(ValueError, match="outside the table"):
        engine.take(array("d", [0.5]), array("i", [1, 0, 0]), out)
    with pytest.raises(ValueError, match="both be int64 or both float64"):
        engine.take(array("q", [1]), array("i", [0, 0, 0]), out)
    with pytest.raises(ValueError, match="one item per index"):
        engine.take(array("d", [0.5]), array("i", [0, 0]), out)
    with pytest.raises(TypeError, match="int32 or int64"):
        engine.widen(array("d", [1.0, 2.0, 3.0]), 0, wide)
