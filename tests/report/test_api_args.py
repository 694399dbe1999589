"""``pipeperf.analyze``'s arguments: a dict by name (numbers, NumPy arrays, spec strings) or a list
of ``--arg`` strings, grid and block as ints, tuples or strings; on a real kernel whose loop
count depends on its input (collatz_steps), so an array's contents show in the prediction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pipeperf
from pipeperf.errors import PipeperfError

KERNEL = str(Path(__file__).parents[1] / "kernels" / "collatz_steps.cu")
N = 1024
LAUNCH = dict(grid=4, block=256, gpus="volta_v100", sweep=False, what_if=False)


def _pipeline(report) -> float:
    return report.predictions[0].predictions["pipeline"]["cycles"]


def _predictions(report) -> list:
    return [k["predictions"] for k in report.to_dict()["kernels"]]


def test_dict_of_arrays_is_the_npy_files(tmp_path):
    """A dict of NumPy arrays, numbers and specs predicts what the CLI's list of strings with the
    same arrays in .npy files does."""
    start = np.random.default_rng(1).integers(1, 10_000, N).astype(np.uint32)
    np.save(tmp_path / "start.npy", start)
    by_dict = pipeperf.analyze(KERNEL, args={"start": start, "steps": "zeros:u32:1024", "n": N, "max_steps": 200},
                               **LAUNCH)
    by_list = pipeperf.analyze(KERNEL, args=[f"start={tmp_path / 'start.npy'}", "steps=zeros:u32:1024",
                                             f"n={N}", "max_steps=200"], **LAUNCH)
    assert isinstance(by_dict, pipeperf.api.AnalysisReport)
    assert _predictions(by_dict) == _predictions(by_list)


def test_array_contents_drive_the_emulation():
    """All ones (no Collatz step) against all 27s (111 steps each): the array is the buffer's
    contents, and an output array receives the writes of a full emulation (every CTA is traced here)."""
    short = pipeperf.analyze(KERNEL, args={"start": np.ones(N, np.uint32), "steps": np.zeros(N, np.uint32),
                                           "n": N, "max_steps": 200}, mode="full", **LAUNCH)
    steps = np.zeros(N, np.uint32)
    long = pipeperf.analyze(KERNEL, args={"start": np.full(N, 27, np.uint32), "steps": steps, "n": N,
                                          "max_steps": 200}, mode="full", **LAUNCH)
    assert _pipeline(long) > 5 * _pipeline(short)
    assert (steps == 111).all()


def test_grid_and_block_as_ints_tuples_or_strings():
    args = {"start": "arange:u32:1024", "steps": "zeros:u32:1024", "n": N, "max_steps": 200}
    shapes = [(4, 256), ((4,), (256,)), ((4, 1, 1), (256, 1)), ("4", "256,1")]
    cycles = {_pipeline(pipeperf.analyze(KERNEL, args=args, **{**LAUNCH, "grid": g, "block": b})) for g, b in shapes}
    assert len(cycles) == 1


def test_array_dtype_checked_as_a_npy_file_is():
    args = {"start": np.ones(N, np.float32), "steps": np.zeros(N, np.uint32), "n": N, "max_steps": 200}
    with pytest.raises(PipeperfError, match=r"parameter start .* holds float32; convert it .*allow_dtype_mismatch=True"):
        pipeperf.analyze(KERNEL, args=args, **LAUNCH)
    pipeperf.analyze(KERNEL, args=args, allow_dtype_mismatch=True, **LAUNCH)     # its bytes as they are
    with pytest.raises(PipeperfError, match=r"parameter n .* not a pointer, but got a uint32 array"):
        pipeperf.analyze(KERNEL, args={**args, "start": np.ones(N, np.uint32), "n": np.ones(4, np.uint32)}, **LAUNCH)


def test_args_as_a_lone_string_is_refused():
    with pytest.raises(PipeperfError, match="args: a dict by parameter name"):
        pipeperf.analyze(KERNEL, args="n=1024", **LAUNCH)
