"""Space expressions are evaluated from a whitelist of AST nodes, never by eval()."""

from __future__ import annotations

import re

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.tune.expr import Where, parse, whole_number

KNOWN = {"N", "TILE", "BY", "T"}


def ev(text, **env):
    return parse(text, KNOWN)({"N": 512, "TILE": 16, "BY": 4, "T": "float", **env})


def test_arithmetic_comparisons_calls_and_tuples():
    assert ev("N / TILE") == 32.0
    assert ev("cdiv(N + 1, TILE)") == 33
    assert ev("TILE * BY <= 1024 and BY <= TILE") is True
    assert ev("1 < BY < 4") is False                      # chained comparisons
    assert ev("N // TILE, N // TILE") == (32, 32)
    assert ev("2 ** 10 if TILE > 8 else 0") == 1024
    assert ev("'f32' if T == 'float' else 'f64'") == "f32"
    assert ev("max(TILE, BY) % 5") == 1
    assert ev("is_pow2(TILE) and not is_pow2(TILE + 1)") is True


@pytest.mark.parametrize("text, expected", [
    ("__import__('os').system('true')", "unknown function \"__import__('os').system\""),
    ("__import__('os')", "unknown function '__import__'"),
    ("N.real", "Attribute is not allowed"),
    ("[x for x in (1, 2)]", "ListComp is not allowed"),
    ("(lambda: 1)()", "unknown function 'lambda: 1'"),
    ("N if (lambda: 1) else 0", "Lambda is not allowed"),
    ("TILLE * 2", "unknown name 'TILLE'"),
    ("max(N, key=1)", "keyword arguments are not allowed"),
    ("N +", "not an expression"),
])
def test_refused_at_parse_time(text, expected):
    with pytest.raises(PipeperfError, match=re.escape(expected)):
        parse(text, KNOWN, Where("space.yaml", 7))


def test_errors_name_file_line_and_values():
    e = parse("N / (TILE - 16)", KNOWN, Where("space.yaml", 12))
    with pytest.raises(PipeperfError) as err:
        e({"N": 512, "TILE": 16})
    assert str(err.value).startswith("space.yaml:12: 'N / (TILE - 16)': division by zero with N=512, TILE=16")
    big = parse("2 ** (N * N)", KNOWN, Where(option="--grid"))
    with pytest.raises(PipeperfError, match=r"--grid: .*exponent 262144 exceeds 64"):
        big({"N": 512})
    with pytest.raises(PipeperfError, match="cannot evaluate"):
        parse("T * 2", KNOWN)({"T": "float"})              # no arithmetic on a type name but +
    grid = parse("N / 3", KNOWN, Where("s.yaml", 3))
    with pytest.raises(PipeperfError, match=r"s.yaml:3: grid 'N / 3' = 170.66.* expected a whole number"):
        whole_number(grid({"N": 512}), "grid", grid, {"N": 512})
    assert whole_number(8.0, "grid", grid, {}) == 8
