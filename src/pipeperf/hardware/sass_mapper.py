"""Mapper f for SASS: a SASS instruction -> an instruction class of the GPU database.

The classes are the PTX mapper's (:mod:`pipeperf.hardware.mapper`), so every lambda/Lambda the
database cites applies to the SASS instruction that does the same work on the same unit, and the
same fallback chains resolve a class a GPU lacks. What differs from PTX is which instructions
exist: ptxas folds address arithmetic into addressing modes, fuses integer operations (IADD3,
LOP3, IMAD), runs moves and shifts on the IMAD unit (IMAD.MOV, IMAD.SHL), widens loads and
aggregates warp-uniform integer atomics (REDUX + one RED). Each SASS opcode goes to:

* FFMA/FMUL/FADD (and FMNMX, FSETP, FSEL, FSWZADD) -> fma_f32/mul_f32/add_f32; HFMA2/HMUL2/HADD2
  (HSETP2, HMNMX2) -> fma_f16/mul_f16/add_f16; DFMA/DMUL/DADD (DSETP, DMNMX) -> the f64 classes.
* IMAD (every form: .WIDE, .HI, .MOV, .SHL, .IADD, .X), IMUL, IDP, IMADSP, XMAD -> mul_s32 (the
  IMAD unit); every other integer, logic, move, predicate, select, compare and uniform-datapath
  instruction -> add_s32.
* MUFU.EX2/LG2/RSQ/SIN/COS/TANH -> ex2_f32/lg2_f32/rsqrt_f32/sin_f32/cos_f32/tanh_f32, MUFU.RCP ->
  rcp_approx_f32, MUFU.SQRT -> sqrt_approx_f32, MUFU.RCP64H/RSQ64H -> rcp_approx_f64.
* F2F, F2I, I2F, I2I, FRND, F2FP -> cvt (cvt_f64 when a side is F64); I2FP (sm_86+) -> cvt_i2f.
* LDG/LD -> ld_global_s32, STG/ST -> st_global, ATOMG/ATOM/RED/REDG -> atom_global, LDS/LDSM ->
  ld_shared_f32, STS/STSM -> st_shared, ATOMS -> atom_shared, LDL -> ld_local_s32, STL -> st_local,
  LDC/ULDC -> ld_const, LDGSTS -> cp_async (mapper g refines the memory classes, as for PTX).
* SHFL, REDUX, MATCH -> shfl; BAR -> bar_sync; MEMBAR/FENCE/ERRBAR -> membar.
* HMMA/IMMA/DMMA -> mma_<A>_<acc>_<PTX shape> (``HMMA.16816.F32.BF16`` -> mma_bf16_f32_m16n8k16).
* Branches, convergence barriers (BSSY, BSYNC, WARPSYNC), EXIT, NOP, YIELD, DEPBAR -> control.
"""

from __future__ import annotations

from functools import lru_cache

from pipeperf.hardware.mapper import ALU, resolve
from pipeperf.sass.listing import SassInstr, mma_shape

_F32 = {"FFMA": "fma_f32", "FMUL": "mul_f32", "FADD": "add_f32", "FMNMX": "add_f32", "FSETP": "add_f32",
        "FSEL": "add_f32", "FSWZADD": "add_f32", "FSET": "add_f32", "FCHK": "add_f32"}
_F16 = {"HFMA2": "fma_f16", "HMUL2": "mul_f16", "HADD2": "add_f16", "HSETP2": "add_f16", "HMNMX2": "add_f16",
        "HSET2": "add_f16"}
_F64 = {"DFMA": "fma_f64", "DMUL": "mul_f64", "DADD": "add_f64", "DSETP": "add_f64", "DMNMX": "add_f64"}
_IMAD = {"IMAD", "IMUL", "IDP", "IMADSP", "XMAD", "UIMAD"}
_MUFU = {"EX2": "ex2_f32", "LG2": "lg2_f32", "RSQ": "rsqrt_f32", "SIN": "sin_f32", "COS": "cos_f32",
         "TANH": "tanh_f32", "RCP": "rcp_approx_f32", "SQRT": "sqrt_approx_f32", "RCP64H": "rcp_approx_f64",
         "RSQ64H": "rcp_approx_f64"}
_CVT = {"F2F", "F2I", "I2F", "I2I", "FRND", "F2FP", "F2IP"}        # I2FP: cvt_i2f (sass_class_of)
_MEMORY = {"LDG": "ld_global_s32", "LD": "ld_global_s32", "STG": "st_global", "ST": "st_global",
           "ATOMG": "atom_global", "ATOM": "atom_global", "RED": "atom_global", "REDG": "atom_global",
           "LDS": "ld_shared_f32", "LDSM": "ld_shared_f32", "STS": "st_shared", "STSM": "st_shared",
           "ATOMS": "atom_shared", "LDL": "ld_local_s32", "STL": "st_local", "LDC": "ld_const",
           "LDGSTS": "cp_async"}
_WARP = {"SHFL", "REDUX", "MATCH", "VOTE"}
_CONTROL = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL", "KILL", "BSSY", "BSYNC", "WARPSYNC", "NOP", "YIELD",
            "DEPBAR", "BMOV", "BPT", "NANOSLEEP", "BREAK"}
_MMA_TYPES = {"BF16": "bf16", "TF32": "tf32", "S8": "i8", "U8": "i8", "S4": "i4", "U4": "i4", "E4M3": "f8",
              "E5M2": "f8"}


def memory_space(x: SassInstr) -> tuple[str, str] | None:
    """(space, kind) of a memory instruction: space global/shared/local, kind load/store/atomic."""
    space = {"LDG": "global", "LD": "global", "STG": "global", "ST": "global", "ATOMG": "global",
             "ATOM": "global", "RED": "global", "REDG": "global", "LDS": "shared", "LDSM": "shared",
             "STS": "shared", "STSM": "shared", "ATOMS": "shared", "LDL": "local", "STL": "local",
             "LDGSTS": "global"}.get(x.opcode)
    if space is None:
        return None
    kind = ("atomic" if x.opcode in ("ATOMG", "ATOM", "RED", "REDG", "ATOMS")
            else "store" if x.opcode.startswith("ST") else "load")
    return space, kind


def access_bytes(x: SassInstr) -> int:
    """Bytes per thread of a memory instruction, from its width modifier (4 by default)."""
    for m in x.modifiers:
        if m in ("128",):
            return 16
        if m in ("64",):
            return 8
        if m in ("U8", "S8"):
            return 1
        if m in ("U16", "S16"):
            return 2
    if x.opcode == "LDSM":                                # ldmatrix .x1/.x2/.x4: 4 B per matrix per lane
        return 4 * int(next((m for m in x.modifiers if m in ("1", "2", "4")), "1"))
    return 4


def _mma(x: SassInstr) -> str:
    m, n, k = mma_shape(x) or ((8, 8, 4) if x.opcode == "DMMA" else (16, 8, 16))
    if x.opcode == "DMMA":
        return f"mma_f64_f64_m{m}n{n}k{k}"
    if x.opcode == "IMMA":
        a = next((_MMA_TYPES[t] for t in x.modifiers if t in _MMA_TYPES), "i8")
        return f"mma_{a}_s32_m{m}n{n}k{k}"
    a = next((_MMA_TYPES[t] for t in x.modifiers if t in _MMA_TYPES), "f16")
    acc = "f32" if "F32" in x.modifiers else "f16"
    return f"mma_{a}_{acc}_m{m}n{n}k{k}"


@lru_cache(maxsize=8192)
def sass_class_of(x: SassInstr) -> str:
    """The most specific class of ``x`` (module docstring)."""
    op = x.opcode
    if op in _F32:
        return _F32[op]
    if op in _F16:
        return _F16[op]
    if op in _F64:
        return _F64[op]
    if op in _IMAD:
        return "mul_s32"
    if op == "MUFU":
        return _MUFU.get(x.modifiers[0] if x.modifiers else "", "cos_f32")
    if op == "I2FP":                      # sm_86+: an integer into f32 (I2FP.F32.U32 / .S32)
        return "cvt_i2f"
    if op in _CVT:
        return "cvt_f64" if "F64" in x.modifiers else "cvt"
    if op in _MEMORY:
        return _MEMORY[op]
    if op in ("ULDC",):
        return "ld_const"
    if op in _WARP:
        return "shfl" if op != "VOTE" else ALU
    if op == "BAR":
        return "bar_sync"
    if op in ("MEMBAR", "FENCE", "ERRBAR", "CCTL"):
        return "membar"
    if op in ("HMMA", "IMMA", "DMMA"):
        return _mma(x)
    if op in _CONTROL:
        return "control"
    return ALU


def map_sass(x: SassInstr, available: set[str] | frozenset[str], gpu: str = "") -> str:
    """The class of ``x`` the GPU defines (its fallback chain applied)."""
    return resolve(sass_class_of(x), available, gpu)
