"""Mapper f: a PTX instruction (opcode + types + state space) -> an instruction class of the GPU database.

The GPU YAML files define few classes (those the papers measured: Table 5 of
analytical-models-and-pipeline-model.txt, Tables II/III of pipeline-performance-model.txt), so
every PTX opcode is mapped onto the nearest measured class. The whole table is :func:`class_of`;
the choices, and why:

* fp32 ``add/sub/min/max/abs/neg`` -> ``add_f32``; ``mul`` -> ``mul_f32``; ``fma/mad`` -> ``fma_f32``.
* fp64 arithmetic -> ``mul_f64`` (the only measured fp64 pipeline class; add/fma fp64 run on the
  same DP units at the same rate on these GPUs), fp64 ``div/rcp/sqrt`` -> ``div_f64``.
* integer ``mul/mad`` -> ``mul_s32``; ``div/rem`` -> ``div_s32`` (``div_f32`` for f32 div/rcp).
* simple integer/logic/shift/mov/setp/selp/cvt and control flow (``bra``, ``ret``) -> ``add_f32``:
  single-issue ALU operations, which the papers did not measure separately; ``add_f32`` has
  the cheap-ALU lambda/Lambda (cheapest measured alu class).
* ``sin/cos/ex2/lg2/rsqrt/sqrt.approx/rcp.approx/tanh`` -> ``cos_f32`` (the SFU class).
* ``ld/st.global`` (and generic, atomics, ``ld.param`` of pointers is not memory) -> ``ld_global_s32``;
  ``ld/st.shared`` -> ``ld_shared_f32`` (else ``ld_local_s32`` when the GPU lacks it: both use the
  load/store unit); ``ld/st.local`` -> ``ld_local_s32``; ``ld.param/ld.const`` -> ``add_f32``
  (served from the constant cache, treated as cheap).
* ``bar/barrier`` -> ``bar_sync``.

Unknown opcodes raise a PipeperfError naming them; a class the GPU lacks raises one naming the GPU.
"""

from __future__ import annotations

from pipeperf.errors import PipeperfError

ALU = "add_f32"

_SFU = {"sin", "cos", "ex2", "lg2", "rsqrt", "tanh"}
_SIMPLE = {"add", "sub", "min", "max", "abs", "neg", "and", "or", "xor", "not", "shl", "shr", "mov",
           "setp", "set", "selp", "slct", "cvt", "cvta", "bra", "ret", "exit", "brx.idx", "call", "popc",
           "clz", "brev", "bfe", "bfi", "prmt", "lop3", "shf", "copysign", "testp", "fns", "bfind",
           "mul24", "mad24", "sad", "vote", "shfl", "activemask", "membar", "fence", "nanosleep",
           "isspacep", "mapa", "discard", "prefetch", "prefetchu", "match", "redux", "pmevent", "trap"}
_MEMORY = {"ld", "st", "ldu", "atom", "red", "cp.async", "ld.global.nc"}


def _fp(types: tuple[str, ...]) -> str | None:
    for t in types:
        if t in ("f64",):
            return "f64"
    for t in types:
        if t in ("f32", "f16", "f16x2", "bf16", "bf16x2", "ftz"):
            return "f32"
    return None


def class_of(root: str, types: tuple[str, ...] = (), space: str | None = None,
             modifiers: tuple[str, ...] = ()) -> str:
    """The database class of one PTX instruction (see the module docstring for the table)."""
    fp = _fp(types)
    if root in ("bar", "barrier", "bar.sync", "barrier.sync", "bar.warp"):
        return "bar_sync" if root != "bar.warp" else ALU
    if root in _MEMORY or root.startswith("cp.async") or root.startswith("atom") or root.startswith("red"):
        if root.startswith("cp.async") and "wait" in root or root.startswith("cp.async.commit"):
            return ALU
        sp = space or "global"
        if sp in ("param", "const"):
            return ALU
        if sp == "shared":
            return "ld_shared_f32"
        if sp == "local":
            return "ld_local_s32"
        return "ld_global_s32"
    if root in _SFU or (root in ("sqrt", "rcp") and "approx" in modifiers and fp != "f64"):
        return "cos_f32"
    if root in ("div", "rem", "rcp", "sqrt"):
        if fp == "f64":
            return "div_f64"
        if fp == "f32":
            return "div_f32"
        return "div_s32"
    if fp == "f64" and root in ("add", "sub", "mul", "fma", "mad", "min", "max", "abs", "neg"):
        return "mul_f64"
    if root in ("fma", "mad") and fp == "f32":
        return "fma_f32"
    if root == "mul" and fp == "f32":
        return "mul_f32"
    if root in ("mul", "mad", "mul.hi", "mad.hi", "mul.wide", "mad.wide", "mad.lo", "mul.lo", "dp4a", "dp2a"):
        return "mul_s32"
    if root in _SIMPLE:
        return ALU
    raise PipeperfError(f"no instruction class for PTX opcode '{root}' (types {'.'.join(types) or '-'})")


def resolve(cls: str, available: set[str], gpu: str) -> str:
    """``cls`` if the GPU defines it, else its documented fallback; a PipeperfError otherwise."""
    if cls in available:
        return cls
    fallback = {"ld_shared_f32": "ld_local_s32", "fma_f32": "mul_f32", "add_f32": "mul_f32",
                "div_s32": "mul_s32"}.get(cls)
    if fallback and fallback in available:
        return fallback
    raise PipeperfError(f"GPU '{gpu}' has no instruction class '{cls}' (nor a fallback)")


def map_instruction(ins, available: set[str] | None = None, gpu: str = "") -> str:
    """Class of a parsed :class:`pipeperf.ptx.ir.Instruction`, resolved against ``available``."""
    op = ins.op
    c = class_of(op.root, tuple(op.types), op.space, tuple(op.modifiers))
    return c if available is None else resolve(c, available, gpu)
