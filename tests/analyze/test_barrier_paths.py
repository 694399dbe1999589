"""Barriers as the hardware counts them (issue 38): a barrier is its id and thread count, not the
``bar.sync`` that reaches it. Threads of a block that reach barrier 0 through two ``__syncthreads``,
producer warps that ``bar.arrive`` where consumer warps ``bar.sync``, and a named barrier of the
consumer warps only are emulated and analysed; counts that never meet are still a one-line error."""

import json

import numpy as np
import pytest

from pipeperf.cli.main import main
from pipeperf.emulate import load_module, run_kernel, select_kernel
from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.build import kernel_graph_from_profile, subset_barriers
from pipeperf.idg.graph import IDG
from pipeperf.idg.io import load_kernel

CU = "tests/analyze/kernels/barrier_paths.cu"
GPU = ["--gpu", "pascal_gtx1060", "--no-memory-analysis", "--no-what-if", "--json"]


@pytest.fixture(scope="module")
def module():
    return load_module(CU)


def _specialised_args(tiles: int = 4, grid: int = 64) -> list[str]:
    n = grid * tiles * 128
    return [f"in=rand:f32:{n}", f"out=zeros:f32:{grid * 128}", f"n={n}", f"tiles={tiles}"]


def _analyze(capsys, kernel: str, grid: int, args: list[str], *extra: str) -> dict:
    rc = main(["analyze", CU, "--kernel", kernel, "--grid", str(grid), "--block", "256",
               *[x for a in args for x in ("--arg", a)], *GPU, *extra])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


@pytest.mark.slow
def test_two_syncthreads_on_two_paths_are_one_barrier(module, capsys):
    x = np.random.default_rng(1).random(1024, dtype=np.float32)
    out = np.zeros(1024, np.float32)
    prof = run_kernel(module, 4, 256, [x, out, 1000], kernel="two_paths")
    t = np.arange(256)
    want = []
    for b in range(4):
        v = np.where(b * 256 + t < 1000, x[b * 256:(b + 1) * 256], 0)
        buf = np.where(t < 128, v * 2, v + 1)
        want.append(np.where(t < 128, buf[255 - t], buf[255 - t] * 3))
    assert np.allclose(out[:1000], np.concatenate(want)[:1000])
    assert prof.counts["barriers"] == 4 * 8                 # each warp once, through its own bar.sync
    doc = _analyze(capsys, "two_paths", 4, ["in=rand:f32:1024", "out=zeros:f32:1024", "n=1000"])
    assert doc["kernels"][0]["predictions"]["pipeline"]["cycles"] > 0


def test_producer_arrives_consumer_syncs(module):
    x = np.random.default_rng(2).random(2048, dtype=np.float32)
    out = np.zeros(512, np.float32)
    run_kernel(module, 4, 256, [x, out, 2000, 4], kernel="producer_consumer")
    want = np.where(np.arange(2048) < 2000, x, 0).reshape(4, 4, 128).sum(1)
    assert np.allclose(out.reshape(4, 128), want)


@pytest.mark.parametrize("mode", ["full", "hybrid"])
def test_barrier_ids_in_registers(module, mode):
    """Ids and counts in registers are read per warp; hybrid mode computes them (its slice)."""
    x = np.random.default_rng(3).random(2048, dtype=np.float32)
    out = np.zeros(512, np.float32)
    prof = run_kernel(module, 4, 256, [x, out, 2048, 4], kernel="register_ids", mode=mode)
    if mode == "full":
        assert np.allclose(out.reshape(4, 128), x.reshape(4, 4, 128).sum(1))
    ref = run_kernel(module, 4, 256, [x, np.zeros(512, np.float32), 2048, 4], kernel="consumer_group")
    assert prof.counts["barriers"] == ref.counts["barriers"] == 4 * 4 * (4 * 2 + 4 * 3)


@pytest.mark.parametrize("kernel", ["producer_consumer", "consumer_group", "register_ids"])
def test_warp_specialised_counts_match_full_emulation(kernel, capsys):
    sampled = _analyze(capsys, kernel, 64, _specialised_args())
    exact = _analyze(capsys, kernel, 64, _specialised_args(), "--all-ctas", "--exact")
    assert sampled["launch"]["ctas_emulated"] < exact["launch"]["ctas_emulated"] == 64
    for key in ("inst_executed", "inst_executed_thread", "branches"):
        assert sampled["launch"]["hypa"][key] == exact["launch"]["hypa"][key]
    for doc in (sampled, exact):
        assert doc["kernels"][0]["predictions"]["pipeline"]["cycles"] > 0


def test_named_barrier_of_some_warps_holds_no_group(module):
    """consumer_group's ``bar.sync 3, 128`` (consumers only) is no group barrier: every warp of the
    block then meets the same number (before: 8 against 12, refused as a deadlock)."""
    f = select_kernel(module, "consumer_group")
    named = [f.instructions[p] for p in subset_barriers(f, 256)]      # one per unrolled iteration
    assert named and {(x.opcode, x.srcs[0].value, x.srcs[1].value) for x in named} == {("bar.sync", 3, 128)}
    assert subset_barriers(f, 128) == frozenset()
    prof = run_kernel(module, 2, 256, [np.ones(1024, np.float32), np.zeros(256, np.float32), 1024, 4],
                      kernel="consumer_group", trace_warps=16)
    gpu = load_gpu("pascal_gtx1060")
    built = kernel_graph_from_profile(prof, f, set(gpu.classes), gpu.name)
    kg = built.graph
    kg.check_barriers()
    assert {kg.warp_classes[j].idg.n_barriers for g in kg.group_classes for j in g.warps} == {8}
    consumer = max(kg.idgs, key=lambda g: len(g))
    assert consumer.class_counts()["bar_sync"] == 12


def test_barrier_false_round_trips_through_an_idg_file(tmp_path):
    p = tmp_path / "k.yaml"
    p.write_text("name: k\ninstructions:\n  - {id: a, class: bar_sync}\n"
                 "  - {id: b, class: bar_sync, barrier: false}\n  - {id: c, class: comp, barrier: true}\n")
    g = load_kernel(p).idgs[0]
    assert list(g.barrier) == [True, False, True]
    assert [d.get("barrier") for d in g.to_dict()["instructions"]] == [None, False, True]
    assert list(IDG.from_arrays("k", g.classes, g.cls, g.dep_ptr, g.dep_idx, g.barrier).barrier) == [True, False, True]


def test_counts_that_never_meet_are_a_one_line_deadlock(capsys):
    rc = main(["profile", CU, "--kernel", "counts_never_meet", "--grid", "2", "--block", "128",
               "--arg", "out=zeros:f32:64"])
    err = capsys.readouterr().err.strip()
    assert rc != 0 and "\n" not in err
    assert "barrier deadlock" in err and "barrier 1 waits for 128 threads" in err


def test_threads_that_exit_count_as_arrived(module):
    """``if (tid < 32) __syncthreads();`` in a block of 64: the hardware waits for non-exited threads
    only (PTX ISA, barrier), so the first warp goes on once the second has left."""
    out = np.zeros(64, np.float32)
    run_kernel(module, 2, 64, [out], kernel="first_warp_only")
    assert out[:32].tolist() == [1.0] * 32


def test_unmatched_counts_raise(module):
    with pytest.raises(PipeperfError, match="barrier deadlock"):
        run_kernel(module, 2, 128, [np.zeros(64, np.float32)], kernel="counts_never_meet")
