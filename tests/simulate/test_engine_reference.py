"""The simulator's results are bit-identical to those recorded from the Numba engine it replaced
(tests/simulate/engine_cases.py: barriers, warp and group classes, rr and gto, fractional and
unlimited issue, block dispatch, fast-forward, per-instruction profiles)."""

import json

import pytest

from engine_cases import REFERENCE, cases, outcome

_RECORDED = json.loads(REFERENCE.read_text())


@pytest.mark.parametrize("name,kernel,gpu,run", list(cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_same_results_as_recorded(name, kernel, gpu, run):
    assert outcome(kernel, gpu, run) == _RECORDED[name]


def test_every_recorded_case_is_run():
    assert sorted(name for name, *_ in cases()) == sorted(_RECORDED)
