"""Profiler number formats: grouping, locale decimals, n/a."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.measure.csvnumbers import detect_decimal, parse_number


@pytest.mark.parametrize("values, decimal", [
    (["1,234,567", "12.5"], "."),
    (["27.595.520", "9,00"], ","),
    (["1.234,56"], ","),
    (["1,234.56"], "."),
    (["1,234", "17"], "."),  # nothing tells: the C locale
    (["535", "n/a", "version 1.2.3"], "."),
])
def test_detect_decimal(values, decimal):
    assert detect_decimal(values) == decimal


def test_detect_decimal_conflict():
    with pytest.raises(PipeperfError, match="mixed number formats"):
        detect_decimal(["1,234,567", "9,00"], "f.csv")


@pytest.mark.parametrize("raw, decimal, value", [
    ("1,234,567", ".", 1234567.0),
    ("27.595.520", ",", 27595520.0),
    ("1.234,56", ",", 1234.56),
    ("  512.80 ", ".", 512.8),
    ("1.5e+06", ".", 1.5e6),
    ("-3", ".", -3.0),
    ("inf", ".", float("inf")),
])
def test_parse_number(raw, decimal, value):
    assert parse_number(raw, decimal) == value


@pytest.mark.parametrize("raw", ["n/a", "N/A", "", "(!) n/a", "-"])
def test_not_available_is_none(raw):
    assert parse_number(raw) is None


@pytest.mark.parametrize("raw, message", [
    ("12,34,567", "misplaced thousands"),
    ("1.2.3", "two decimal separators"),
    ("1.234,5", "after the decimal"),
    ("12 GB/s", "not a number"),
])
def test_malformed_numbers(raw, message):
    with pytest.raises(PipeperfError, match=message) as info:
        parse_number(raw, ".", "f.csv", 7)
    assert info.value.line == 7
