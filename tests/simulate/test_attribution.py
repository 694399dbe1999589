"""Stall attribution: with ``attribute=True`` every warp slot's every cycle is charged to an
instruction and a reason (or to idle), the charges sum to slots x cycles, and the simulation's
results are the recorded ones (attribution only reads the engine's state)."""

import pytest

from engine_cases import cases, outcome


@pytest.mark.parametrize("name,kernel,gpu,run", list(cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_slot_cycle_is_charged_once_and_results_are_unchanged(name, kernel, gpu, run):
    from pipeperf.simulate.simulator import PreparedKernel

    run = {k: v for k, v in run.items() if k != "profile"}
    first_come = run.pop("first_come", ())
    r = PreparedKernel(kernel, gpu, first_come).run(**run, attribute=True)
    a = r.attribution
    assert a is not None and a.cells.shape[1] == len(a.reasons)
    assert a.total == pytest.approx(a.slots * r.cycles, rel=1e-9)
    if not run.get("fast_forward"):
        assert (a.cells >= 0).all()
        # each instruction issues once per warp that runs it: the issued column counts the issues
        assert a.cells[:, 0].sum() == pytest.approx(r.instructions_on_core, rel=1e-9)
    r_fields = {"cycles": r.cycles.hex(), "issue_cycles": r.issue_cycles.hex(), "issued": r.instructions_on_core,
                "busy": {k: float(v).hex() for k, v in r.subsystem_busy.items()}, "seconds": r.seconds.hex()}
    assert r_fields == outcome(kernel, gpu, {**run, "first_come": first_come})   # bit for bit the run without attribution


def test_a_dependent_chain_waits_on_its_producers():
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.paper_kernels import chain
    from pipeperf.simulate.simulator import PreparedKernel

    r = PreparedKernel(chain(50, "ld_global_s32"), load_gpu("pascal_gtx1060")).run(1, 1, 1, attribute=True)
    a = r.attribution
    waits = a.cells[:, a.reasons.index("waiting on global load")].sum()
    assert waits > 0.9 * a.total       # a chain of loads on one warp waits on loads nearly always


def test_attribution_arrays_are_checked():
    from array import array

    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.paper_kernels import chain
    from pipeperf.simulate import _engine
    from pipeperf.simulate.simulator import PreparedKernel

    p = PreparedKernel(chain(5), load_gpu("pascal_gtx1060"))
    inp = p.engine_input(array("q", [0]), 1, 1, 1, "rr", attribute=True)
    outs = [array("d", [0.0] * len(p.subsystems))] + [array(t) for t in "qqdd"]
    with pytest.raises(ValueError, match="attr must be"):
        _engine.run_core(inp, *outs, array("d", [0.0] * (len(p.sub) * 3)), array("d", [0.0, 0.0]))
