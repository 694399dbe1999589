"""Branch slices (HyPA's filtered dependency graph), including memory dependences."""

from __future__ import annotations

from pipeperf.ptx import Slicer, parse_ptx


def test_register_slices(branches):
    s = Slicer(branches).branch_slices()
    assert set(s) == {4, 6, 13}
    assert s[4].instructions == {1, 2, 3, 4}
    assert s[6].instructions == {6}
    assert s[13].instructions == {8, 11, 12, 13}
    assert not s[4].via_memory


def test_load_pulls_in_aliasing_store(memslice):
    s = Slicer(memslice).branch_slices()
    # ld.shared [buf+8] may read what st.shared [%r4] wrote, so the store and its
    # address (%r4 = buf + 4*tid) and value (tid*tid) slices join; the store to a
    # different variable ([other+4]) and the global store do not.
    assert s[11].instructions == {0, 1, 2, 3, 4, 5, 9, 10, 11}
    assert s[11].via_memory == {5}
    # .const memory is never written by the kernel
    assert s[14].instructions == {0, 12, 13, 14}
    assert Slicer(memslice).union() == {0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14}


def test_generic_store_aliases_shared_load():
    text = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_p)
{
.reg .pred %p<2>;
.reg .b32 %r<4>;
.reg .b64 %rd<3>;
.shared .align 4 .b8 s[16];
ld.param.u64 %rd1, [k_p];
mov.u32 %r1, 5;
st.u32 [%rd1], %r1;
st.global.u32 [%rd1], %r1;
ld.shared.u32 %r2, [s];
setp.eq.u32 %p1, %r2, 0;
@%p1 bra $L;
$L:
ret;
}
"""
    f = parse_ptx(text).function("k")
    sl = Slicer(f).slice_of(6)
    assert sl.via_memory == {2}                 # generic store may hit shared
    assert sl.instructions == {0, 1, 2, 4, 5, 6}


def test_slices_are_closed_under_dependences(features_module):
    f = features_module.function("features")
    sl = Slicer(f)
    for s in sl.branch_slices().values():
        for i in s.instructions:
            assert set(sl.defuse.deps[i]) <= s.instructions


def test_spin_wait_on_mbarrier_depends_on_its_writers(fixtures_dir):
    from pipeperf.ptx import parse_file

    f = parse_file(fixtures_dir / "hopper.ptx").function("hopper")
    ins = f.instructions
    bra = next(i for i in ins if i.root == "bra")
    s = Slicer(f).slice_of(bra.index)
    roots = {ins[i].root for i in s.via_memory}
    assert roots == {"mbarrier.init", "mbarrier.arrive", "cp.async.bulk.tensor"}
    assert not any(ins[i].root == "st" for i in s.instructions)   # global store: no alias
