"""Shared fixtures: run the CLI in-process and capture its output and exit code."""

from __future__ import annotations

import pytest

from pipeperf.cli.main import main


@pytest.fixture
def cli(capsys):
    def run(*argv: str) -> tuple[int, str, str]:
        try:
            rc = main(list(argv))
        except SystemExit as exc:       # argparse usage errors
            rc = exc.code
        out, err = capsys.readouterr()
        return rc, out, err
    return run
