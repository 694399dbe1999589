"""Opcode table: roots, modifiers, types, state spaces and categories."""

from __future__ import annotations

import pytest

from pipeperf.ptx.opcodes import KNOWN, UnknownOpcode, decode_opcode


@pytest.mark.parametrize("text, root, category", [
    ("add.s32", "add", "int"),
    ("add.rn.f32", "add", "fp32"),
    ("fma.rn.f64", "fma", "fp64"),
    ("fma.rn.f16x2", "fma", "fp16"),
    ("add.rn.bf16", "add", "fp16"),
    ("setp.lt.f32", "setp", "fp32"),
    ("setp.ne.s32", "setp", "int"),
    ("set.eq.u32.f64", "set", "fp64"),
    ("mul.wide.u32", "mul", "int"),
    ("mul.hi.u64", "mul", "int"),
    ("sin.approx.ftz.f32", "sin", "sfu"),
    ("ex2.approx.f16", "ex2", "sfu"),
    ("rsqrt.approx.ftz.f64", "rsqrt", "sfu"),
    ("rcp.approx.ftz.f32", "rcp", "sfu"),
    ("rcp.rn.f32", "rcp", "fp32"),
    ("rcp.approx.ftz.f64", "rcp", "fp64"),
    ("sqrt.rn.f64", "sqrt", "fp64"),
    ("div.rn.f32", "div", "fp32"),
    ("div.s64", "div", "int"),
    ("cvt.rn.f32.s32", "cvt", "convert"),
    ("cvt.pack.sat.u8.s32.b32", "cvt.pack", "convert"),
    ("mov.u32", "mov", "move"),
    ("ld.global.nc.v4.f32", "ld", "ld.global"),
    ("ld.shared::cta.u32", "ld", "ld.shared"),
    ("ld.u32", "ld", "ld.generic"),
    ("ld.param.u64", "ld", "ld.param"),
    ("ldu.global.f32", "ldu", "ld.global"),
    ("st.local.v2.f32", "st", "st.local"),
    ("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32", "st.async", "st.shared"),
    ("atom.global.add.f32", "atom", "atom.global"),
    ("red.shared.add.u32", "red", "atom.shared"),
    ("cp.async.ca.shared.global", "cp.async", "cp.async"),
    ("cp.async.wait_group", "cp.async.wait_group", "barrier"),
    ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
     "cp.async.bulk.tensor", "cp.async"),
    ("bar.sync", "bar", "barrier"),
    ("barrier.sync.aligned", "barrier", "barrier"),
    ("bar.warp.sync", "bar.warp", "barrier"),
    ("membar.gl", "membar", "barrier"),
    ("fence.proxy.async.shared::cta", "fence", "barrier"),
    ("mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.try_wait", "barrier"),
    ("bra.uni", "bra", "control"),
    ("brx.idx", "brx", "control"),
    ("call.uni", "call", "control"),
    ("ret", "ret", "control"),
    ("exit", "exit", "control"),
    ("shfl.sync.down.b32", "shfl", "warp"),
    ("vote.sync.ballot.b32", "vote", "warp"),
    ("redux.sync.add.u32", "redux", "warp"),
    ("match.any.sync.b32", "match", "warp"),
    ("activemask.b32", "activemask", "warp"),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", "wmma.mma", "tensor"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma", "tensor"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix", "tensor"),
    ("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "wgmma.mma_async", "tensor"),
    ("wgmma.fence.sync.aligned", "wgmma.fence", "barrier"),
    ("tex.2d.v4.f32.f32", "tex", "tex"),
    ("cvta.to.global.u64", "cvta", "int"),
    ("lop3.b32", "lop3", "int"),
    ("nanosleep.u32", "nanosleep", "other"),
    ("prefetch.global.L2", "prefetch", "other"),
])
def test_decode(text, root, category):
    info = decode_opcode(text)
    assert (info.root, info.category) == (root, category)
    assert info.root + "".join("." + m for m in info.modifiers) == text


def test_types_and_space():
    info = decode_opcode("cvt.rzi.s32.f64")
    assert info.types == ("s32", "f64") and info.space is None
    assert decode_opcode("atom.shared::cluster.cas.b64").space == "shared"


@pytest.mark.parametrize("text", ["frob", "cp.foo", "wmma.add", "mbarrier.hug.b64", "Add.s32"])
def test_unknown(text):
    with pytest.raises(UnknownOpcode):
        decode_opcode(text)


def test_brief_opcode_list_is_known():
    """Every opcode named in the issue's list decodes."""
    names = ["add", "sub", "mul", "mad", "mad24", "mul24", "sad", "div", "rem", "abs", "neg", "min", "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "dp4a", "dp2a", "prmt", "testp", "copysign", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "set", "setp", "selp", "slct", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "mov", "ld", "ldu", "st", "prefetch", "prefetchu", "isspacep", "cvta", "cvt", "cvt.pack", "tex", "tld4", "suld", "sust", "txq", "bar", "barrier", "bar.warp", "membar", "fence", "atom", "red", "redux", "vote", "match", "activemask", "shfl", "elect", "ret", "exit", "trap", "brkpt", "bra", "brx", "call", "mbarrier.init", "cp.async", "cp.async.bulk", "wmma.load", "mma", "ldmatrix", "stmatrix", "wgmma.mma_async", "nanosleep", "pmevent", "griddepcontrol", "setmaxnreg", "applypriority", "discard", "createpolicy", "addc", "subc", "alloca", "stacksave", "stackrestore", "multimem.st", "st.async", "red.async", "getctarank", "mapa"]
    for n in names:
        assert decode_opcode(n).root == n, n
    assert len(KNOWN) > 120
