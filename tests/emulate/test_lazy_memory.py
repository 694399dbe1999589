"""Device memory costs what is touched (issue 16): generated inputs (``rand:f32:N``...) are made
per 64 KiB page on first touch, reproducibly (element i's value depends only on the buffer's
seed and i, never on which CTAs ran or in which order pages were touched), and a sampled launch
over 1 GiB inputs costs the pages its CTAs reach, not the buffers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from kernel_corpus import CORPUS_DIR as KERNELS

from pipeperf.emulate import Launch, load_module, run_kernel, select_kernel
from pipeperf.emulate.launch import PAGE_BYTES, GeneratedBuffer, bind_args, dim3, parse_arg_value
from pipeperf.emulate.machine import Machine
from pipeperf.emulate.memory import GLOBAL_BASE, GlobalMemory
from pipeperf.errors import PipeperfError

SAXPY = KERNELS / "ptx" / "saxpy.sm_80.ptx"
COLLATZ = KERNELS / "ptx" / "collatz_steps.sm_80.ptx"
DIVERGENT = KERNELS / "ptx" / "divergent.sm_80.ptx"
SPECS = ["rand:f32", "rand:f64", "rand:f16", "rand:i32", "rand:u8", "arange:i16", "arange:f64",
         "ones:u32", "zeros:f32"]


@pytest.mark.parametrize("spec", SPECS)
def test_generated_values_do_not_depend_on_page_order(spec):
    kind, t = spec.split(":")
    buf = parse_arg_value(f"{spec}:{3 * PAGE_BYTES + 77}", lazy=True)
    assert isinstance(buf, GeneratedBuffer) and buf.n_pages > 3
    whole = np.asarray(buf)
    assert whole.shape == (buf.count,) and whole.dtype == buf.dtype
    again = np.asarray(parse_arg_value(f"{spec}:{3 * PAGE_BYTES + 77}", lazy=True))
    assert np.array_equal(whole, again, equal_nan=True)
    # the eager form (the Python API's array) holds the same values
    assert np.array_equal(whole, parse_arg_value(f"{spec}:{3 * PAGE_BYTES + 77}"), equal_nan=True)
    # pages made in any order, each alone, give the same elements
    order = np.random.default_rng(7).permutation(buf.n_pages)
    parts = {int(q): buf.page(int(q)) for q in order}
    assert np.array_equal(np.concatenate([parts[q] for q in range(buf.n_pages)]), whole,
                          equal_nan=True)
    # a shorter buffer of the same kind is a prefix: values depend on the index only
    short = np.asarray(parse_arg_value(f"{spec}:{PAGE_BYTES + 5}", lazy=True))
    assert np.array_equal(short, whole[:len(short)], equal_nan=True)
    if kind == "rand":
        other = np.asarray(GeneratedBuffer(kind, buf.dtype, buf.count, seed=1))
        assert not np.array_equal(other, whole)
        if buf.dtype.kind == "f":
            assert whole.min() >= 0 and whole.max() <= 1 and np.unique(whole).size > 100  # f16 rounds up to 1
        else:
            assert whole.min() >= 0 and whole.max() <= 99 and np.unique(whole).size == 100
    elif kind == "arange":
        assert np.array_equal(whole, np.arange(buf.count).astype(buf.dtype))
    else:
        assert np.all(whole == (1 if kind == "ones" else 0))


@pytest.mark.parametrize("t", ["f32", "f64", "f16", "i32", "u8"])
def test_first_page_keeps_the_values_of_the_whole_buffer_generator(t):
    """Before pages, every rand input was ``default_rng(0)`` drawn whole; page 0 of seed 0 is
    that stream's start, so inputs of at most one page keep their values; later pages differ."""
    buf = parse_arg_value(f"rand:{t}:{2 * PAGE_BYTES}", lazy=True)      # 2 to 16 pages
    rng = np.random.default_rng(0)
    old = (rng.random(buf.count) if buf.dtype.kind == "f" else rng.integers(0, 100, buf.count)
           ).astype(buf.dtype)
    new = np.asarray(buf)
    e = buf.page_elems
    assert np.array_equal(new[:e], old[:e]) and not np.array_equal(new[e:], old[e:])


def _memory(bufs):
    """A GlobalMemory holding ``bufs`` after a small buffer, so that they start off a page
    boundary (their pages straddle the arena's)."""
    g = GlobalMemory()
    g.allocate("pad", 1000, np.arange(250, dtype=np.float32))
    addrs = [g.allocate(f"b{k}", b.nbytes, b) for k, b in enumerate(bufs)]
    g.finish()
    return g, addrs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_memory_touched_in_any_order_reads_the_same(seed):
    bufs = [GeneratedBuffer("rand", np.float64, 5 * PAGE_BYTES // 8 + 3),
            GeneratedBuffer("arange", np.int32, 2 * PAGE_BYTES // 4 + 1),
            GeneratedBuffer("zeros", np.float32, 4 * PAGE_BYTES)]
    g, addrs = _memory(bufs)
    assert g.pages_made == 0
    assert g.read_back(addrs[0], np.empty(0, np.float64)).size == 0
    rng = np.random.default_rng(seed)
    # scattered 8-byte accesses into the first buffer, in a random order of pages
    off0 = addrs[0] - GLOBAL_BASE
    for q in rng.permutation(5):
        idx = rng.integers(q * PAGE_BYTES // 8, min((q + 1) * PAGE_BYTES // 8, bufs[0].count), 7)
        g.touch(off0 + 8 * idx, 8)
        got = g.arena.view(np.dtype(np.float64))[(off0 // 8) + idx]
        assert np.array_equal(got, np.asarray(bufs[0])[idx])
    for k, (b, a) in enumerate(zip(bufs, addrs)):
        assert np.array_equal(g.read_back(a, np.empty(b.count, b.dtype)), np.asarray(b)), k
    # zeros are never generated: 5 + 1 pages of rand (it ends past a page), 2 + 1 of arange
    assert g.pages_made == 6 + 3


def test_store_before_load_is_not_overwritten_by_a_later_page():
    """A buffer page is made at the first touch of any arena page it overlaps, so a store into
    one arena page is not overwritten when a neighbouring arena page is touched later."""
    buf = GeneratedBuffer("rand", np.float32, 3 * PAGE_BYTES // 4)
    g, (a,) = _memory([buf])
    off = a - GLOBAL_BASE
    v = g.arena.view(np.dtype(np.float32))
    last = np.array([off + buf.nbytes - 4])             # the buffer's last element
    g.touch(last, 4)
    v[last // 4] = -1.0
    g.touch(np.array([off]), 4)                          # its first element, another arena page
    for q in range(buf.n_pages):                         # then every page, one element each
        g.touch(np.array([off + q * PAGE_BYTES + 40]), 4)
    got = g.read_back(a, np.empty(buf.count, np.float32))
    want = np.asarray(buf).copy()
    want[-1] = -1.0
    assert np.array_equal(got, want)


def test_out_of_bounds_stays_exact_with_generated_inputs():
    # y holds 999 elements: thread 999 (thread 231 of block 3) is the first past its end
    with pytest.raises(PipeperfError, match=r"out-of-bounds global.*thread \(231,0,0\) of block \(3,0,0\)"):
        run_kernel(SAXPY, 4, 256, ["1000", "2", "rand:f32:1000", "rand:f32:999"])
    n = 2 * PAGE_BYTES // 4                                # a page-sized input read one past its end
    with pytest.raises(PipeperfError, match=r"out-of-bounds global.*thread \(0,0,0\) of block \(128,0,0\)"):
        run_kernel(SAXPY, 129, 256, [str(n + 1), "2", f"rand:f32:{n}", f"rand:f32:{n + 256}"],
                   ctas=[0, 128])


def _machine(path, grid, block, args, **kw):
    module = load_module(path)
    func = select_kernel(module, None)
    values, names = bind_args(func, args)
    m = Machine(module, func, Launch(dim3(grid, "grid"), dim3(block, "block"), values, names), **kw)
    m.run()
    return m


def test_generated_inputs_compute_what_their_arrays_compute():
    n = 3 * PAGE_BYTES // 4 + 100                          # pages straddle: x does not end on one
    m = _machine(SAXPY, -(-n // 256), 256, [str(n), "2", f"rand:f32:{n}", f"rand:f32:{n}"])
    x, y = (np.asarray(parse_arg_value(f"rand:f32:{n}")) for _ in range(2))
    run_kernel(SAXPY, -(-n // 256), 256, [n, np.float32(2), x, y])
    got = m.gmem.read_back(GLOBAL_BASE + m.gmem.starts[1], np.empty(n, np.float32))
    assert np.array_equal(got, y)
    assert np.array_equal(y, np.float32(2) * x + x)        # same seed: x and y hold equal values


@pytest.mark.parametrize("mode", ["full", "hybrid"])
@pytest.mark.parametrize("path,args", [
    (COLLATZ, ["rand:u32:5000", "zeros:u32:5000", "5000", "1000"]),
    (DIVERGENT, ["rand:f32:5000", "zeros:f32:5000", "5000"])])
def test_profile_with_generated_inputs_equals_with_arrays(mode, path, args):
    lazy = run_kernel(path, 20, 256, args, mode=mode).to_dict()
    eager = run_kernel(path, 20, 256, [parse_arg_value(a) for a in args], mode=mode).to_dict()
    for d in (lazy, eager):
        for k in [k for k in d if "second" in k]:          # timings of the emulation itself
            del d[k]
    assert lazy == eager


def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc/self/status")
def test_sampled_launch_over_1gib_rand_costs_what_it_touches():
    n = 1 << 28                                            # 1 GiB of f32 each
    nblocks = n // 256
    ctas = [0, 1, 77, 1000, nblocks // 3, nblocks // 2, nblocks - 2, nblocks - 1]
    run_kernel(SAXPY, 4, 256, ["1000", "2", "rand:f32:1000", "rand:f32:1000"])   # warm imports
    before = _rss_bytes()
    prof = run_kernel(SAXPY, nblocks, 256, [str(n), "2", f"rand:f32:{n}", f"rand:f32:{n}"],
                      mode="full", ctas=ctas)
    grown = _rss_bytes() - before
    assert prof.counts["partial"] and prof.counts["ctas_emulated"] == len(ctas)
    # 8 CTAs x 2 buffers touch ~1 MiB of 64 KiB pages; the 2 GiB of inputs are never made
    assert grown < 64 << 20, grown


def test_analysis_turns_numpys_huge_pages_off_unless_the_user_set_them():
    """The steady allocator switches NumPy's madvise(MADV_HUGEPAGE) off (page-fault stalls on
    systems that compact memory for madvised regions), but never overrides the user's choice."""
    import os
    import subprocess
    import sys

    code = ("from pipeperf.util.alloc import steady_allocator; steady_allocator(); import numpy as np; "
            "core = getattr(np, '_core', None) or np.core; print(core.multiarray._get_madvise_hugepage())")
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    out = subprocess.run([sys.executable, "-c", code], env={**env, "NUMPY_MADVISE_HUGEPAGE": "1"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_kept_freed_pages_are_not_faulted_in_again():
    """``keep_freed`` (tune's ``trim_heap=False``): 200 MB of heap arrays freed and allocated
    again come back without fresh pages; with the steady allocator alone glibc returns the
    heap's free top to the system at the free, and every page faults in again."""
    import subprocess

    code = ("import resource, numpy as np; from pipeperf.util import alloc; alloc.steady_allocator(); {keep}\n"
            "def round():\n    xs = [np.ones(1 << 17) for _ in range(200)]\n    del xs\n"
            "round(); f = resource.getrusage(resource.RUSAGE_SELF).ru_minflt; round()\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f)")
    faults = [int(subprocess.run([sys.executable, "-c", code.format(keep=k)], capture_output=True, text=True,
                                 check=True).stdout) for k in ("", "alloc.keep_freed()")]
    assert faults[0] > 40_000 and faults[1] < 5_000, faults
