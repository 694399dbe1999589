"""One real analysis shared by the report tests (:mod:`report_launch`), with the occupancy sweep,
through the notebook API."""

from __future__ import annotations


import pytest

from report_launch import TRANSPOSE, TRANSPOSE_LAUNCH


@pytest.fixture(scope="session")
def transpose_report():
    """The :class:`pipeperf.api.AnalysisReport` of the transpose launch."""
    import pipeperf

    return pipeperf.analyze(TRANSPOSE, **TRANSPOSE_LAUNCH)
