"""Mapper f: a PTX instruction (opcode + types + state space) -> an instruction class of the GPU database.

Two steps. :func:`class_of` names the *most specific* class of an instruction (``add.s32`` ->
``add_s32``, ``div.rn.f32`` -> ``div_f32``, ``st.shared`` -> ``st_shared``). :func:`resolve` then
picks the first class of that class's fallback chain (:data:`FALLBACKS`) that the GPU defines:
the seed GPUs define only what the papers measured (Table 5 of analytical-models-and-pipeline-
model.txt, Tables II/III of pipeline-performance-model.txt), the V100/A100/H100 files much more.
A class that the GPU lacks together with all its fallbacks is a PipeperfError naming the GPU and
the class (tensor-core classes have no fallback: a GPU without them cannot run ``mma``).

Class of each opcode (:func:`class_of`)
---------------------------------------
* fp32 ``add/sub/min/max/abs/neg/copysign/testp/setp/set`` -> ``add_f32``; ``mul`` -> ``mul_f32``;
  ``fma/mad`` -> ``fma_f32``. f16/bf16 (and x2) -> ``add_f16``/``mul_f16``/``fma_f16``;
  fp64 -> ``add_f64``/``mul_f64``/``fma_f64``.
* integer ``add/sub/min/max/abs/neg``, logic, shifts, bit ops (``popc clz brev bfe bfi bfind prmt
  lop3 shf ...``), int ``setp/set``, ``selp/slct``, ``mov``, ``cvta``, ``isspacep``, carry
  chains, video ops, ``vote/activemask/elect``, integer->integer ``cvt`` (sign/zero extension or
  truncation: a move or shift on the integer ALU) -> ``add_s32`` (64-bit forms too).
* integer ``mul/mad/mul24/mad24/dp4a/dp2a/madc`` -> ``mul_s32`` (``.wide`` and ``.hi`` of 32-bit
  operands are one IMAD); 64-bit ``mul.lo/mul.hi/mad`` -> ``mul_s64``. ``div/rem`` -> ``div_s32``
  (``div_s64`` for 64-bit).
* Division, reciprocal and square root, by rounding -- the two meanings of "div.f32":
  ``div.rn/rz/rm/rp.f32`` (IEEE, what nvcc emits for ``a/b``: a Newton subroutine) -> ``div_f32``;
  ``div.approx.f32`` and ``div.full.f32`` (one MUFU.RCP plus a multiply; what Table 5's
  ``div.f32`` measured: its lambda is 3x ``mul.f32`` and its Lambda 12.5-45 cycles, far below the
  ~200-cycle IEEE sequence) -> ``div_approx_f32``. Likewise ``rcp.rn.f32`` -> ``rcp_f32``,
  ``rcp.approx.f32`` -> ``rcp_approx_f32``, ``sqrt.rn.f32`` -> ``sqrt_f32``, ``sqrt.approx.f32`` ->
  ``sqrt_approx_f32``; fp64 ``div``/``rcp.rn``/``sqrt.rn`` -> ``div_f64``/``rcp_f64``/``sqrt_f64``
  (Table 5's ``div.f64`` is the IEEE one: PTX has no approximate f64 division),
  ``rcp.approx.ftz.f64`` -> ``rcp_approx_f64``.
* SFU: ``sin/cos/ex2/lg2/rsqrt/tanh`` -> ``sin_f32/cos_f32/ex2_f32/lg2_f32/rsqrt_f32/tanh_f32``
  (f16 forms too).
* ``cvt`` involving a float type -> ``cvt`` (``cvt_f64`` when one side is f64), an integer to f32
  -> ``cvt_i2f`` (from compute capability 8.6 ptxas makes it an I2FP, not the I2F of the SFU-rate
  conversions: the GPUs that have the class say what it costs, the others fall back to ``cvt``);
  ``cvt.pack`` -> ``add_s32``.
* Memory, by state space (generic addresses count as global; mapper g, hardware/memory.py, refines
  the lambda/Lambda of these classes, so their names are stable): ``ld/ldu`` global ->
  ``ld_global_s32``, ``st`` -> ``st_global``, ``atom/red`` -> ``atom_global``; shared ->
  ``ld_shared_f32``/``st_shared``/``atom_shared``; local -> ``ld_local_s32``/``st_local``;
  ``ld.const`` -> ``ld_const``; ``ld/st.param`` -> ``ld_param``; ``cp.async*`` -> ``cp_async``;
  ``prefetch/discard/applypriority`` -> ``prefetch``; ``tex/tld4`` -> ``tex``; ``suld/sust/sured``
  -> the global load/store/atomic; ``ldmatrix``/``stmatrix`` -> ``ld_shared_f32``/``st_shared``;
  ``wmma.load``/``wmma.store`` -> the load/store class of their state space.
* ``shfl``, ``match``, ``redux``, ``movmatrix`` -> ``shfl`` (warp-wide exchange).
* ``bar/barrier`` (sync, arrive, red; cluster barriers too) -> ``bar_sync``; ``bar.warp.sync`` ->
  ``add_s32`` (no CTA-wide wait); ``membar/fence`` -> ``membar``; ``mbarrier.*`` and
  ``cp.async.mbarrier.arrive`` -> ``atom_shared`` (mbarriers are shared-memory words updated
  atomically); async-group commits/waits (``cp.async.*_group``, ``wgmma.*``) -> ``add_s32``
  (one issue slot; the wait itself is a dependence of the IDG, not an instruction latency).
* ``bra/brx/call/ret/exit/trap/brkpt/nanosleep/pmevent/griddepcontrol`` -> ``control``.
* Tensor cores: ``wmma.mma``/``mma`` -> ``mma_<A>_<acc>_<shape>`` with A the multiplicand type
  (f16, bf16, tf32, f64, i8 for s8/u8, i4 for s4/u4, b1, f8 for e4m3/e5m2), acc the accumulator
  type and shape the PTX shape; wmma ``m32n8k16``/``m8n32k16`` use ``m16n16k16`` (the same 4096
  MACs). ``wgmma.mma_async`` -> ``wgmma_<A>_<acc>_<shape>``, ``tcgen05.*`` -> ``tcgen05``.

Fallback chains (:data:`FALLBACKS`; the first class the GPU defines is used)
-------------------------------------------------------------------------------
* ``add_f32`` -> mul_f32, fma_f32: the same FP32 pipeline and rate (Table II: fadd = fmadd on
  every GPU measured); ``fma_f32`` -> mul_f32, add_f32 and ``mul_f32`` -> fma_f32, add_f32 alike.
* ``add_s32`` -> add_f32, mul_f32: single-issue integer ALU operations the papers did not measure;
  the cheapest measured ALU class stands in for them (add_f32 where Table II gives it, else
  Table 5's mul.f32). ``control`` -> add_s32, add_f32, mul_f32: a branch
  takes one issue slot of the ALU/branch unit, unmeasured in the papers.
* ``mul_s32`` -> add_s32, mul_f32; ``mul_s64`` -> mul_s32 (emulated by ~3-4 IMAD: the fallback
  underestimates); ``div_s32`` -> mul_s32 (a gross underestimate, kept only for user files: every
  bundled GPU defines div_s32); ``div_s64`` -> div_s32 (longer subroutine: underestimates).
* ``add_f16``/``mul_f16``/``fma_f16`` -> the f32 class of the same operation: V100/A100/H100
  run f16x2 at or above the FP32 rate (whitepapers), so the f32 class is the conservative bound.
* ``add_f64`` -> fma_f64, mul_f64; ``fma_f64`` -> mul_f64, add_f64; ``mul_f64`` -> fma_f64,
  add_f64: DADD, DMUL and DFMA run on the same DP units at the same rate.
* ``div_f32`` -> div_approx_f32: the seed GPUs measured only the approximate division (Table 5);
  the IEEE sequence is that plus a Newton refinement and a slow-path test, so the fallback
  underestimates it. ``div_approx_f32`` -> div_f32 (the other way round: overestimates).
  ``rcp_f32`` -> div_f32, div_approx_f32 (rcp.rn is div.rn with a constant numerator).
* ``rcp_approx_f32``, ``sqrt_approx_f32`` -> rsqrt_f32, cos_f32: one MUFU operation on the SFU;
  ``sqrt_f32`` -> sqrt_approx_f32, rsqrt_f32, cos_f32 (the IEEE form is one MUFU.RSQ plus an FFMA
  fix-up; the SFU op bounds its throughput). ``sin_f32``, ``ex2_f32``, ``rsqrt_f32``, ``tanh_f32``
  -> cos_f32 and ``lg2_f32`` -> ex2_f32, cos_f32: the same SFU (Table 5 measured only cos).
  ``rcp_approx_f64`` -> cos_f32 (one MUFU.RCP64H).
* ``rcp_f64``, ``sqrt_f64`` -> div_f64: the same DFMA Newton sequence after one MUFU op.
* ``cvt_i2f`` -> cvt (before compute capability 8.6 an integer-to-float conversion is an I2F).
* ``cvt`` -> cos_f32: on compute capability 3.x-8.x the CUDA C Programming Guide's throughput
  table gives "all other type conversions" the SFU rate (Fermi's conversions are faster than its
  SFU: the fallback overestimates there). ``cvt_f64`` -> cvt, mul_f64: the same table gives
  conversions from/to 64-bit types about the fp64 rate on cc 2.0-6.1 (the microbenchmarks of
  pipeperf.measure time them on the DP subsystem too); on cc 7.5, whose fp64 is much slower than
  its conversions, mul_f64 overestimates.
* ``st_global`` -> ld_global_s32; ``atom_global`` -> ld_global_s32; ``prefetch``, ``tex``,
  ``cp_async`` -> ld_global_s32: the same global memory path (a store or an L2 atomic is cheaper
  in latency; the load's numbers overestimate). ``membar`` -> st_global, ld_global_s32: a fence
  waits until the warp's earlier global writes are acknowledged, a store round trip.
* ``ld_shared_f32`` -> ld_local_s32: both go through the load/store unit and L1-speed SRAM;
  ``st_shared`` -> ld_shared_f32, ld_local_s32; ``atom_shared`` -> st_shared, ld_shared_f32,
  ld_local_s32 (a shared atomic is a read-modify-write of the same banks); ``st_local`` ->
  ld_local_s32.
* ``ld_const`` -> add_s32, add_f32, mul_f32 and ``ld_param`` -> ld_const, add_s32, add_f32,
  mul_f32: a (uniform) constant-cache hit is an operand fetched by the issuing instruction.
* ``shfl`` -> ld_shared_f32, ld_local_s32, add_s32, add_f32, mul_f32: shuffles use the shared-
  memory crossbar of the load/store unit.
* ``bar_sync`` has no fallback (Table 5 gives it for every seed GPU); nor has ``div_f64`` (so
  ``rcp_f64``/``sqrt_f64`` end there too): Table 5 gives Turing's div.f64 as "-", and no class is
  within a factor of ten of a DFMA Newton sequence, so fp64 division on turing_rtx2070 is an error.
* Tensor cores: ``mma_<A>_f16_<shape>`` -> ``mma_<A>_f32_<shape>`` (V100/A100/H100 whitepapers:
  the same rate with f16 or f32 accumulate; GeForce parts are faster with f16, so the fallback is
  conservative). Nothing else: a GPU without the class cannot run the instruction (V100 has no
  m16n8k16 and no bf16/tf32/int8; Turing runs only the f16 and integer shapes its whitepaper rates;
  the other seed GPUs have no tensor cores), which is an error, not an estimate.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from collections.abc import Callable, Iterable

from pipeperf.errors import PipeperfError

ALU = "add_s32"

#: class -> the classes tried, in order, when a GPU lacks it (reasons: module docstring).
FALLBACKS: dict[str, tuple[str, ...]] = {
    "add_f32": ("mul_f32", "fma_f32"),
    "fma_f32": ("mul_f32", "add_f32"),
    "mul_f32": ("fma_f32", "add_f32"),
    "add_s32": ("add_f32", "mul_f32"),
    "control": ("add_s32", "add_f32", "mul_f32"),
    "mul_s32": ("add_s32", "mul_f32"),
    "mul_s64": ("mul_s32",),
    "div_s32": ("mul_s32",),
    "div_s64": ("div_s32",),
    "add_f16": ("add_f32", "mul_f32"),
    "mul_f16": ("mul_f32",),
    "fma_f16": ("fma_f32", "mul_f32"),
    "add_f64": ("fma_f64", "mul_f64"),
    "fma_f64": ("mul_f64", "add_f64"),
    "mul_f64": ("fma_f64", "add_f64"),
    "div_f32": ("div_approx_f32",),
    "div_approx_f32": ("div_f32",),
    "rcp_f32": ("div_f32", "div_approx_f32"),
    "rcp_approx_f32": ("rsqrt_f32", "cos_f32"),
    "sqrt_approx_f32": ("rsqrt_f32", "cos_f32"),
    "sqrt_f32": ("sqrt_approx_f32", "rsqrt_f32", "cos_f32"),
    "sin_f32": ("cos_f32",),
    "ex2_f32": ("cos_f32",),
    "rsqrt_f32": ("cos_f32",),
    "tanh_f32": ("cos_f32",),
    "lg2_f32": ("ex2_f32", "cos_f32"),
    "rcp_approx_f64": ("cos_f32",),
    "rcp_f64": ("div_f64",),
    "sqrt_f64": ("div_f64",),
    "cvt": ("cos_f32",),
    "cvt_i2f": ("cvt", "cos_f32"),
    "cvt_f64": ("cvt", "mul_f64"),
    "st_global": ("ld_global_s32",),
    "atom_global": ("ld_global_s32",),
    "prefetch": ("ld_global_s32",),
    "tex": ("ld_global_s32",),
    "cp_async": ("ld_global_s32",),
    "membar": ("st_global", "ld_global_s32"),
    "ld_shared_f32": ("ld_local_s32",),
    "st_shared": ("ld_shared_f32", "ld_local_s32"),
    "atom_shared": ("st_shared", "ld_shared_f32", "ld_local_s32"),
    "st_local": ("ld_local_s32",),
    "ld_const": ("add_s32", "add_f32", "mul_f32"),
    "ld_param": ("ld_const", "add_s32", "add_f32", "mul_f32"),
    "shfl": ("ld_shared_f32", "ld_local_s32", "add_s32", "add_f32", "mul_f32"),
    "bar_sync": (),
    "cos_f32": (),
    "div_f64": (),
    "ld_global_s32": (),
    "ld_local_s32": (),
}

#: state space of every memory class (what mapper g, hardware/memory.py, keys on).
STATE_SPACE: dict[str, str] = {
    "ld_global_s32": "global", "st_global": "global", "atom_global": "global", "prefetch": "global",
    "tex": "global", "cp_async": "global",
    "ld_shared_f32": "shared", "st_shared": "shared", "atom_shared": "shared",
    "ld_local_s32": "local", "st_local": "local", "ld_const": "const", "ld_param": "param",
}

_MMA = re.compile(r"(w?g?mma)_([a-z0-9]+)_([a-z0-9]+)_(m\d+n\d+k\d+)$")
_SHAPE = re.compile(r"m\d+n\d+k\d+$")
_WMMA_SAME_VOLUME = {"m32n8k16": "m16n16k16", "m8n32k16": "m16n16k16"}
_MMA_TYPE = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "f64": "f64", "s8": "i8", "u8": "i8",
             "s4": "i4", "u4": "i4", "b1": "b1", "e4m3": "f8", "e5m2": "f8", "f32": "f32"}

_INT_ALU = {"add", "sub", "min", "max", "abs", "neg", "and", "or", "xor", "not", "cnot", "shl", "shr",
            "mov", "setp", "set", "selp", "slct", "popc", "clz", "brev", "bfe", "bfi", "bfind", "bmsk",
            "szext", "fns", "prmt", "lop3", "shf", "addc", "subc", "sad", "cvta", "isspacep", "mapa",
            "getctarank", "istypep", "vote", "activemask", "elect", "cvt.pack", "txq", "suq",
            "createpolicy", "alloca", "stacksave", "stackrestore", "setmaxnreg", "bar.warp",
            "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel", "tensormap.replace"}
_ASYNC_GROUP = {"cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all", "cp.async.bulk.commit_group",
                "cp.async.bulk.wait_group", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group"}
_VIDEO_ALU = re.compile(r"v(add|sub|absdiff|min|max|shl|shr|set|avrg)[24]?$")
_FLOAT_ALU = {"add", "sub", "min", "max", "abs", "neg", "copysign", "testp", "setp", "set"}
_INT_MUL = {"mul", "mad", "mul24", "mad24", "dp4a", "dp2a", "madc", "vmad"}
_SFU = {"sin", "cos", "ex2", "lg2", "rsqrt", "tanh"}
_CONTROL = {"bra", "brx", "call", "ret", "exit", "trap", "brkpt", "nanosleep", "pmevent", "griddepcontrol"}
_WARP = {"shfl", "match", "redux", "movmatrix"}
_BARRIER = {"bar", "barrier", "barrier.cluster"}
_FENCE = {"membar", "fence", "tensormap.cp_fenceproxy"}
_F16 = {"f16", "f16x2", "bf16", "bf16x2"}
_FLOATS = {"f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "e4m3", "e5m2", "e4m3x2", "e5m2x2",
           "e2m1", "e2m1x2", "e2m3", "e3m2", "e2m3x2", "e3m2x2", "ue8m0", "ue8m0x2", "ue4m3"}
_IEEE_ROUNDING = {"rn", "rz", "rm", "rp"}


def _fp(types: tuple[str, ...]) -> str | None:
    """Widest float type among ``types``: 'f64', 'f32', 'f16' or None (integer/bit types)."""
    ts = set(types)
    if "f64" in ts:
        return "f64"
    if ts & {"f32", "tf32"}:
        return "f32"
    if ts & _FLOATS:
        return "f16"
    return None


def _is_64bit_int(types: tuple[str, ...]) -> bool:
    return any(t in ("s64", "u64", "b64") for t in types)


def _memory(kind: str, space: str | None) -> str:
    """ld/st/atom class by state space (generic -> global)."""
    if space == "shared":
        return {"ld": "ld_shared_f32", "st": "st_shared", "atom": "atom_shared"}[kind]
    if space == "local":
        return {"ld": "ld_local_s32", "st": "st_local", "atom": "atom_global"}[kind]
    if space == "const":
        return "ld_const"
    if space == "param":
        return "ld_param"
    return {"ld": "ld_global_s32", "st": "st_global", "atom": "atom_global"}[kind]


def _tensor(root: str, types: tuple[str, ...], modifiers: tuple[str, ...]) -> str:
    """``mma_<A>_<acc>_<shape>`` of a wmma.mma / mma / wgmma.mma_async (module docstring)."""
    shape = next((m for m in modifiers if _SHAPE.match(m)), None)
    if shape is None:
        raise PipeperfError(f"tensor-core instruction '{root}' without an mNnNkN shape")
    if root == "wmma.mma":
        shape = _WMMA_SAME_VOLUME.get(shape, shape)
        # f16 multiplicands are implicit: wmma.mma...shape.dtype.ctype; others list d.a.b.c
        a = types[1] if len(types) >= 3 else "f16"
    else:
        a = types[1] if len(types) >= 3 else (types[0] if types else "f16")
    acc = types[0] if types else "f32"
    if root == "wmma.mma" and len(types) == 2 and "f32" in types:
        acc = "f32"
    prefix = "wgmma" if root.startswith("wgmma") else "mma"
    return f"{prefix}_{_MMA_TYPE.get(a, a)}_{acc}_{shape}"


class _Op(NamedTuple):
    """What :func:`class_of` reads of one instruction."""

    root: str
    types: tuple[str, ...]
    space: str | None
    modifiers: tuple[str, ...]
    fp: str | None              # :func:`_fp` of the types


_Rule = Callable[[_Op], str]


def _is(cls: str) -> _Rule:
    return lambda o: cls


def _no_class(o: _Op) -> str:
    raise PipeperfError(f"no instruction class for PTX opcode '{o.root}' (types {'.'.join(o.types) or '-'})")


def _by_fp(f64: str, f32: str, f16: str, integer: _Rule = _no_class) -> _Rule:
    """The float class by the widest float type; ``integer`` for integer/bit types."""
    return lambda o: integer(o) if o.fp is None else {"f64": f64, "f32": f32, "f16": f16}[o.fp]


def _int_mul(o: _Op) -> str:
    return "mul_s64" if _is_64bit_int(o.types) and "wide" not in o.modifiers else "mul_s32"


def _cvt(o: _Op) -> str:
    if o.fp is None:
        return ALU
    if o.fp == "f64":
        return "cvt_f64"
    # cvt{.rnd}.dtype.atype: a 8- to 32-bit integer atype into an f32 dtype (64-bit ones stay I2F)
    return "cvt_i2f" if len(o.types) == 2 and o.types[0] == "f32" and o.types[1] in _I2FP_SOURCES else "cvt"


#: the integer types whose conversion to f32 ptxas makes an I2FP from compute capability 8.6
_I2FP_SOURCES = frozenset({"s8", "s16", "s32", "u8", "u16", "u32"})


def _rcp_sqrt(o: _Op) -> str:
    approx = "approx" in o.modifiers
    if o.fp == "f64":
        return "rcp_approx_f64" if approx and o.root == "rcp" else f"{o.root}_f64"
    if o.fp is None:
        raise PipeperfError(f"'{o.root}' needs a float type (types {'.'.join(o.types) or '-'})")
    return f"{o.root}_approx_f32" if approx else f"{o.root}_f32"


def _div_rem(o: _Op) -> str:
    if o.fp == "f64":
        return "div_f64"
    if o.fp is None:
        return "div_s64" if _is_64bit_int(o.types) else "div_s32"
    mods = set(o.modifiers)
    if o.root == "div" and mods & _IEEE_ROUNDING:
        return "div_f32"
    if o.root == "div" and mods & {"approx", "full"}:
        return "div_approx_f32"
    raise PipeperfError(f"'{o.root}' with float type needs .rn/.rz/.rm/.rp, .approx or .full")


def _roots(names: Iterable[str], rule: _Rule) -> dict[str, _Rule]:
    return dict.fromkeys(names, rule)


_ADD = _by_fp("add_f64", "add_f32", "add_f16")
#: class rule of each instruction name (module docstring); later entries override earlier ones,
#: so a name in two groups takes the more specific rule (``add``: float ALU, else integer ALU)
_BY_ROOT: dict[str, _Rule] = {
    **_roots(_INT_ALU, _is(ALU)),
    **_roots(_INT_MUL, _int_mul),
    **_roots(_FLOAT_ALU, _ADD),
    **_roots(_FLOAT_ALU & _INT_ALU, _by_fp("add_f64", "add_f32", "add_f16", _is(ALU))),
    "mul": _by_fp("mul_f64", "mul_f32", "mul_f16", _int_mul),
    "fma": _by_fp("fma_f64", "fma_f32", "fma_f16"),
    "mad": _by_fp("fma_f64", "fma_f32", "fma_f16", _int_mul),
    **_roots(("div", "rem"), _div_rem),
    **_roots(("rcp", "sqrt"), _rcp_sqrt),
    **{r: _is(f"{r}_f32") for r in _SFU},
    "cvt": _cvt,
    "suld": _is("ld_global_s32"), "sust": _is("st_global"), "sured": _is("atom_global"),
    **_roots(("tex", "tld4"), _is("tex")),
    **_roots(("prefetch", "prefetchu", "discard", "applypriority"), _is("prefetch")),
    "red.async": _is("atom_shared"),
    **_roots(("atom", "red"), lambda o: _memory("atom", o.space)),
    **_roots(("st.async", "st.bulk"), _is("st_shared")),
    "st": lambda o: _memory("st", o.space),
    **_roots(("ld", "ldu"), lambda o: _memory("ld", o.space)),
    **_roots(_ASYNC_GROUP, _is(ALU)),
    **_roots(_WARP, _is("shfl")),
    **_roots(_CONTROL, _is("control")),
    "cp.async.mbarrier.arrive": _is("atom_shared"),
    **_roots(_FENCE, _is("membar")),
    **_roots(_BARRIER, _is("bar_sync")),
    "ldmatrix": _is("ld_shared_f32"), "stmatrix": _is("st_shared"),
    "wmma.load": lambda o: _memory("ld", o.space),
    "wmma.store": lambda o: _memory("st", o.space),
    **_roots(("wmma.mma", "mma", "wgmma.mma_async"), lambda o: _tensor(o.root, o.types, o.modifiers)),
}
#: families of instruction names, tried in order for a name :data:`_BY_ROOT` lacks
_BY_FAMILY: tuple[tuple[Callable[[str], object], _Rule], ...] = (
    (lambda r: r.startswith("tcgen05"), _is("tcgen05")),
    (lambda r: r.startswith("mbarrier."), _is("atom_shared")),
    (lambda r: r.startswith("multimem."),
     lambda o: {"multimem.ld_reduce": "ld_global_s32", "multimem.st": "st_global"}.get(o.root, "atom_global")),
    (lambda r: ".prefetch" in r, _is("prefetch")),
    (lambda r: r.startswith(("cp.async", "cp.reduce.async")), _is("cp_async")),
    (_VIDEO_ALU.match, _is(ALU)),
)


def class_of(root: str, types: tuple[str, ...] = (), space: str | None = None,
             modifiers: tuple[str, ...] = ()) -> str:
    """The most specific database class of one PTX instruction (table: module docstring)."""
    rule = _BY_ROOT.get(root)
    if rule is None:
        rule = next((r for match, r in _BY_FAMILY if match(root)), _no_class)
    return rule(_Op(root, types, space, modifiers, _fp(types)))


def class_of_opcode(text: str) -> str:
    """Class of an opcode spelled as in PTX, e.g. ``div.rn.f32`` or ``ld.shared.v4.f32``."""
    from pipeperf.ptx.opcodes import UnknownOpcode, decode_opcode

    try:
        op = decode_opcode(text)
    except UnknownOpcode:
        raise PipeperfError(f"unknown PTX opcode '{text}'") from None
    return class_of(op.root, op.types, op.space, op.modifiers)


def fallbacks(cls: str) -> tuple[str, ...]:
    """The classes tried after ``cls`` (:data:`FALLBACKS`, plus the tensor-core rules)."""
    if cls in FALLBACKS:
        return FALLBACKS[cls]
    m = _MMA.match(cls)
    if not m:
        return ()
    prefix, a, acc, shape = m.groups()
    return (f"{prefix}_{a}_f32_{shape}",) if acc == "f16" else ()


def state_space_of(cls: str) -> str | None:
    """'global', 'shared', 'local', 'const' or 'param' for a memory class, else None."""
    return STATE_SPACE.get(cls)


def resolve(cls: str, available: set[str] | frozenset[str], gpu: str) -> str:
    """``cls`` if the GPU defines it, else the first of its fallbacks it defines; a PipeperfError
    naming the GPU and the class otherwise."""
    if cls in available:
        return cls
    chain = fallbacks(cls)
    for c in chain:
        if c in available:
            return c
    why = f"nor its fallbacks {', '.join(chain)}" if chain else "and it has no fallback"
    if _MMA.match(cls) or cls == "tcgen05":
        why += ("; a tensor-core instruction: the GPU file defines no tensor-core class of this type and"
                " shape, and GPUs without such tensor cores cannot run it")
    raise PipeperfError(f"GPU '{gpu}' has no instruction class '{cls}' ({why})")


def map_instruction(ins, available: set[str] | None = None, gpu: str = "") -> str:
    """Class of a parsed :class:`pipeperf.ptx.ir.Instruction`, resolved against ``available``."""
    op = ins.op
    c = class_of(op.root, tuple(op.types), op.space, tuple(op.modifiers))
    return c if available is None else resolve(c, available, gpu)
