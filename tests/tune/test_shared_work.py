"""What ``tune`` shares between the GPUs and variants of one run (mapper g's per-emulation parts
memoised across GPUs, the PTX parsed once, no per-line time, no emulator bank-conflict count) must
not move a prediction: every analysed row equals ``analyze`` of that variant on that GPU alone,
in a fresh memo, with the per-line time and the what-ifs on (issue 39, tuning throughput)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.tune import tune
from pipeperf.tune.cache import ResultCache
from pipeperf.tune.spacefile import CliSpace, load_space
from pipeperf.tune.work import OK

HERE = Path(__file__).parent


def _alone(launch, gpu: str, options: dict):
    """``analyze`` of one launch on one GPU with nothing memoised from earlier analyses."""
    from pipeperf.analysis import analyze
    from pipeperf.util import memo

    memo._MEMO.clear()
    a = analyze(launch.path, launch.grid, launch.block, list(launch.args), [gpu], kernel=launch.kernel,
                shared=launch.shared, nvcc_flags=list(launch.flags), **options)
    return a.predictions[0]


def _check_rows(space, rows) -> int:
    checked = 0
    for r in rows:
        if r.outcome.status != OK:
            continue
        p = _alone(r.item.launch, r.gpu, dict(space.options))
        o = r.outcome
        assert (o.seconds, o.cycles, o.bound) == (float(p.seconds), float(p.cycles), p.bound_by), \
            (r.item.label, r.gpu)
        assert o.occupancy == float(p.occupancy) and o.blocks_per_sm == int(p.blocks_per_sm)
        checked += 1
    return checked


def test_shared_work_gives_the_rows_of_separate_analyses(tmp_path):
    """Two tile sizes x two block shapes x both paddings on three GPUs, in one in-process run: the
    variants share PTX (and so parsed modules) within a tile size and mapper g's memo across GPUs."""
    cli = CliSpace(defines=["TILE=4,8"], params=["BY=1,4"])
    space = load_space(str(HERE / "matmul_small.yaml"), cli)
    res = tune(space, scheduler="none", cache=ResultCache(None))
    assert _check_rows(space, res.result.rows) == 24


@pytest.mark.slow
def test_shared_work_gives_the_rows_of_separate_analyses_whole_space(tmp_path):
    space = load_space(str(HERE / "matmul_small.yaml"), CliSpace())
    res = tune(space, scheduler="none", cache=ResultCache(None))
    assert _check_rows(space, res.result.rows) == 3 * 28


def test_memo_drops_the_entries_of_dead_inputs():
    """An entry whose input died can never hit again (identity): it is dropped at the next store
    rather than holding its (possibly large) value until SIZE newer entries push it out."""
    import numpy as np

    from pipeperf.util import memo

    memo._MEMO.clear()
    a, b = np.arange(3), np.arange(4)
    calls = []
    assert memo.by_identity("t", (a,), None, lambda: calls.append(1) or 1) == 1
    assert memo.by_identity("t", (a,), None, lambda: calls.append(2) or 2) == 1 and calls == [1]
    del a
    memo.by_identity("t", (b,), None, lambda: 3)
    assert len(memo._MEMO) == 1


def test_a_ptx_text_handed_in_is_parsed_once():
    """Builds from tune's compiles parse each (text, label, file) once; another file is another
    module (its ``file`` names it)."""
    from pipeperf.analysis.builds import _parsed

    ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"
    a, b = _parsed(ptx, "k.cu [sm_80]", "/x/k.cu"), _parsed(ptx, "k.cu [sm_80]", "/x/k.cu")
    c = _parsed(ptx, "k.cu [sm_80]", "/y/k.cu")
    assert a is b and c is not a and c.file == "/y/k.cu" and a.kernels[0].name == "k"


def test_defuse_of_a_function_is_built_once_and_equals_a_fresh_one():
    from pipeperf.analysis.builds import _parsed
    from pipeperf.ptx.cfg import CFG
    from pipeperf.ptx.defuse import DefUse

    ptx = (".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           ".reg .b64 %rd<3>;\n.reg .b32 %r<3>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n"
           "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd2, %rd1, %rd2;\nst.global.u32 [%rd2], %r1;\nret;\n}\n")
    f = _parsed(ptx, "d.cu [sm_80]", "/d/d.cu").kernels[0]
    a, b = DefUse.of(f), DefUse.of(f)
    fresh = DefUse.of(f, CFG(f))
    assert a is b and fresh is not a
    assert (a.deps, a.users, a.reaching, a.defs, a.uses) == (fresh.deps, fresh.users, fresh.reaching, fresh.defs,
                                                              fresh.uses)
    g = _parsed(ptx, "d.cu [sm_80]", "/e/d.cu").kernels[0]        # an equal function, another object
    assert DefUse.of(g) is not a and DefUse.of(g).func is g


def test_the_hybrid_slice_of_a_function_is_kept_and_handed_out_as_a_copy():
    from pipeperf.analysis.builds import _parsed
    from pipeperf.emulate.hybrid import _needed, needed_instructions

    ptx = (".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           ".reg .b64 %rd<3>;\n.reg .b32 %r<3>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n"
           "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd2, %rd1, %rd2;\nadd.s32 %r2, %r1, 1;\n"
           "st.global.u32 [%rd2], %r2;\nret;\n}\n")
    f = _parsed(ptx, "h.cu [sm_80]", "/h/h.cu").kernels[0]
    for memory in (True, False):
        a = needed_instructions(f, memory)
        assert a == _needed(f, memory)
        a.add(999)                                      # the caller's copy
        assert 999 not in needed_instructions(f, memory)
    assert needed_instructions(f, True) != needed_instructions(f, False)


def test_gpus_naming_every_class_alike_share_one_idg_build(monkeypatch):
    """An analysis on GPUs whose classes the IDG builder names alike builds the IDGs once
    (analysis/shared_idgs.py); each GPU still simulates them with its own lambda/Lambda."""
    import pipeperf.idg.build as idg_build
    from pipeperf.analysis import analyze
    from pipeperf.util import memo

    calls = []
    real = idg_build.kernel_graph_from_profile

    def counted(*a, **k):
        calls.append(a[3])
        return real(*a, **k)

    monkeypatch.setattr(idg_build, "kernel_graph_from_profile", counted)
    args = ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32", "pitch=9"]

    def run(gpus):
        memo._MEMO.clear()
        calls.clear()
        a = analyze(HERE.parents[1] / "examples/tune/matmul_tiled.cu", (4, 4), (8, 4), args, gpus,
                    shared=576, nvcc_flags=["-DTILE=8"], trace_warps=16, what_if=False, models=False)
        return [p.seconds for p in a.predictions], list(calls)

    one, built_one = run(["ampere_a100"])
    both, built_both = run(["ampere_a100", "ampere_a100_80gb"])
    assert built_both == built_one                  # the second GPU's builds all shared
    assert both[0] == one[0] and both[1] != both[0]  # ... and its own time (its bandwidth)
    # other targets (sm_70, sm_90): other parsed PTX whose functions compare equal; a target whose
    # SASS holds other loaded bytes in flight (sm_90 here) orders the PTX's loads otherwise and
    # builds its own IDGs (issue 36: idg.build.load_hoisting)
    three, built_three = run(["ampere_a100", "volta_v100", "hopper_h100"])
    assert built_three == built_one + ["hopper_h100"] and three[0] == one[0]
    assert three[1:] == [run([g])[0][0] for g in ("volta_v100", "hopper_h100")]


def test_memo_computes_each_time_for_an_input_it_cannot_weakly_reference():
    """Traces widened to 64-lane warps are a plain dict: never memoised (no weak reference)."""
    from pipeperf.util import memo

    d: dict = {}
    calls = []
    for _ in range(2):
        memo.by_identity("t", (d,), None, lambda: calls.append(1))
    assert len(calls) == 2
