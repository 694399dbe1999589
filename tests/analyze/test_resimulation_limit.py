"""The re-simulation limit: where one simulation of a launch is costly, the what-ifs, the lock-step
check and the advice that re-simulates are skipped with a note, and the prediction is unchanged."""

import pytest

from pipeperf.analysis import analyze
from pipeperf.analysis.options import RESIMULATION_LIMIT
from pipeperf.errors import PipeperfError

N = 512
ARGS = [f"in=rand:f32:{N * N}", f"out=zeros:f32:{N * N}", f"rows={N}", f"cols={N}"]
LAUNCH = dict(grid=f"{N // 32},{N // 32}", block="32,8", args=ARGS, gpus=["volta_v100"])


def _one(**kw):
    a = analyze("tests/kernels/transpose_shared.cu", LAUNCH["grid"], LAUNCH["block"], LAUNCH["args"], LAUNCH["gpus"],
                **kw)
    return a.predictions[0]


def test_a_costly_launch_skips_its_re_simulations_with_a_note():
    full = _one(resimulation_limit=None)
    cut = _one(resimulation_limit=1)          # every launch costs more than one instruction
    assert full.what_if and "no bank conflicts" in full.what_if          # the tile's column reads conflict
    assert [a.kind for a in full.advice] == ["bank conflicts"]           # padding the tile: a what-if's gain
    assert full.phase_sensitivity is not None                            # the lock-step check ran
    assert cut.what_if == {} and cut.phase_sensitivity is None and cut.advice == []
    note = [n for n in cut.notes if "re-simulates were skipped" in n]
    assert len(note) == 1 and "--resimulation-limit 0" in note[0]
    assert not any("re-simulates were skipped" in n for n in full.notes)
    assert cut.seconds == full.seconds                                   # the prediction itself is the same


def test_the_default_limit_leaves_small_launches_alone():
    p = _one()
    assert RESIMULATION_LIMIT > 1_000_000 and p.what_if
    assert not any("re-simulates were skipped" in n for n in p.notes)


def test_a_negative_limit_is_an_error():
    with pytest.raises(PipeperfError, match="resimulation_limit must be >= 0"):
        _one(resimulation_limit=-1)
