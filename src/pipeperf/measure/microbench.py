"""Generated CUDA micro-benchmarks that measure the Pipeline model's lambda and Lambda.

Sec. III-B of pipeline-performance-model.txt: "A kernel that consists of a great number of
dependent instructions of the type under investigation is executed for a variety of
occupancies ... The completion and issue latency are derived from the maximal and minimal run
time" (the boat-hull curve of Eq. 1). This module writes those kernels as CUDA C++ with inline
PTX, one per instruction class, plus the instruction-mix kernel over beta (Fig. 11, Sec. 4.2 of
analytical-models-and-pipeline-model.txt), the iterative barrier kernel (Fig. 15, Sec. 6.2) and
mixbench-style peak kernels for the quantitative roofline (Table 3 of
quantitative-roofline-microbenchmarks.txt). ``harness.py`` compiles them with the host harness
(``templates/harness.cu``) and runs them; ``fit.py`` turns the CSVs into a GPU spec.

How the kernels are made trustworthy (each point was checked on nvcc 13.0 SASS for sm_90):

* every step is an ``asm volatile`` PTX instruction whose output register is its own input, so
  neither NVVM nor ptxas can fold, reorder or drop the chain; the chain is unrolled ``unroll``
  times inside a rolled loop, so loop overhead is ~3 instructions per ``unroll`` steps;
* integer adds alternate between two registers (a Fibonacci pair): ``x += y`` repeated with the
  same ``y`` is folded by ptxas into three-input IADD3s (two adds per instruction);
* seeds are kernel parameters mixed with ``threadIdx``: warp-uniform integer chains are
  otherwise moved to the uniform datapath (UIMAD), which has other timing;
* global-memory chains are pointer chases on 32-bit words that hold the low half of the next
  address; the buffer lies in one 4 GiB window, so ``mov.b64 {lo, hi}`` is free and the chain is
  LDG -> LDG with no address arithmetic; shared and local chases load their own address;
* ex2 is measured as ``ex2.approx.ftz.f32`` of ``-x`` (ptxas folds the negation into MUFU.EX2;
  the non-ftz form adds a denormal fix-up of 3 instructions, and ``x = 2^x`` overflows).

Each benchmark names the instruction class it measures and the subsystem that class is given in
the fitted spec (our mapping of Sec. 4.2: alu, sfu, dpu, lsu, mem, barrier).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pipeperf.errors import PipeperfError

KINDS = ("chain", "mix", "barrier", "peak")
MEMORY = {"none": "PP_MEM_NONE", "stream": "PP_MEM_STREAM", "ring": "PP_MEM_RING",
          "words": "PP_MEM_WORDS", "copy": "PP_MEM_COPY"}
#: beta values of the instruction-mix sweep at full occupancy (Fig. 12/13 span 0..32)
MIX_BETAS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
#: beta of the instruction-mix occupancy sweep (Sec. 6.1: "beta = 4, around the ridge point")
MIX_SWEEP_BETA = 4
#: lane strides (in 4-byte words) of the strided global-load chains; 1 is the streaming chain
GLOBAL_STRIDES = (1, 2, 4, 8, 32)


@dataclass(frozen=True)
class Bench:
    """One generated kernel and what the harness needs to run and label it."""

    name: str                 # unique; for chains the instruction class measured
    kind: str                 # chain | mix | barrier | peak
    cls: str                  # instruction class (mix: type 1; barrier: the compute class)
    decl: str                 # C++ run once per thread before the timed region
    step: str                 # C++ (inline PTX) of one step of the chain
    result: str               # float expression stored to the sink (keeps the chain alive)
    unroll: int               # steps per outer iteration (unrolled)
    iters: int                # default outer iterations
    subsystem: str = ""
    cls2: str = ""            # mix: type 2; barrier: the barrier class
    n1_per_step: int = 1      # class-1 instructions per step
    n2_per_step: int = 0      # class-2 instructions per step
    param: int = 0            # beta / lane stride / bank-conflict degree / bytes multiplier
    memory: str = "none"      # global buffer layout, see MEMORY
    ring_lines: int = 0       # ring layout: 128-byte lines per warp (0: fit half of the L2)
    smem_bytes: int = 0       # dynamic shared memory the kernel itself uses
    block: int = 0            # peaks: threads per block
    ops_per_step: float = 0.0  # peaks: operations per thread per step
    unit: str = ""            # peaks: unit of the rate
    ptx: str = ""             # PTX of one step, for the record
    body: str | None = None   # peaks: a complete kernel body instead of decl/step/result
    note: str = ""

    @property
    def ident(self) -> str:
        return "pp_" + "".join(c if c.isalnum() else "_" for c in self.name)

    @property
    def n1_per_iter(self) -> int:
        return self.n1_per_step * self.unroll

    @property
    def n2_per_iter(self) -> int:
        return self.n2_per_step * self.unroll


# ---------------------------------------------------------------- chains (Eq. 1 boat hulls)

_F32 = "float x = a.f1 + 1e-7f * (float)threadIdx.x; const float y = a.f2, z = a.f3; (void)y; (void)z;"
_F64 = "double x = a.d1 + 1e-9 * (double)threadIdx.x; const double y = a.d2, z = a.d3; (void)y; (void)z;"
_U32 = ("unsigned x = a.u1 + 2u * threadIdx.x, y = a.u2 + 2u * threadIdx.x; const unsigned z = a.u3; "
        "(void)y; (void)z;")
_CONSTRAINT = {"f32": "f", "f64": "d", "u32": "r"}
_DECL = {"f32": _F32, "f64": _F64, "u32": _U32}
_RESULT = {"f32": "x", "f64": "(float)x", "u32": "(float)(x ^ y)"}


def _asm(ptx: str, outputs: str, inputs: str = "", clobber: str = "") -> str:
    text = f'asm volatile("{ptx}" : {outputs}'
    if inputs or clobber:
        text += f" : {inputs}"
    if clobber:
        text += f" : {clobber}"
    return text + ");"


def _one(cls: str, sub: str, ptx_op: str, t: str, operands: str, unroll: int = 256, iters: int = 32,
         note: str = "") -> Bench:
    """x = op(x, operands...): a chain through one register (operands name y, z)."""
    c = _CONSTRAINT[t]
    ins = {"": "", "y": f'"{c}"(y)', "yz": f'"{c}"(y), "{c}"(z)'}[operands]
    args = {"": "%0", "y": "%0, %1", "yz": "%0, %1, %2"}[operands]
    ptx = f"{ptx_op} %0, {args};"
    shown = ptx.replace("%0", "x").replace("%1", "y").replace("%2", "z")
    return Bench(cls, "chain", cls, _DECL[t], _asm(ptx, f'"+{c}"(x)', ins), _RESULT[t], unroll, iters,
                 subsystem=sub, ptx=shown, note=note)


def _fib(cls: str, sub: str, ptx_op: str, unroll: int = 128, iters: int = 32) -> Bench:
    """x = op(x, y); y = op(y, x): a dependent chain that no algebra can shorten."""
    step = (_asm(f"{ptx_op} %0, %0, %1;", '"+r"(x)', '"r"(y)') + " "
            + _asm(f"{ptx_op} %0, %0, %1;", '"+r"(y)', '"r"(x)'))
    return Bench(cls, "chain", cls, _U32, step, _RESULT["u32"], unroll, iters, subsystem=sub,
                 n1_per_step=2, ptx=f"{ptx_op} x, x, y; {ptx_op} y, y, x;",
                 note="two registers alternate so the adds cannot be merged")


def _memory_chain(cls: str, load: str, memory: str, stride: int = 1, ring_lines: int = 0,
                  unroll: int = 32, iters: int = 16, note: str = "") -> Bench:
    decl = ("const unsigned long long g = (unsigned long long)a.buf + 4ull * "
            f"((unsigned long long)pp_gwarp() * a.chunk + pp_lane() * {stride}u); "
            "unsigned lo = (unsigned)g; const unsigned hi = (unsigned)(g >> 32);")
    ptx = f"{{ .reg .u64 ad; mov.b64 ad, {{%0, %1}}; {load} %0, [ad]; }}"
    return Bench(cls, "chain", cls, decl, _asm(ptx, '"+r"(lo)', '"r"(hi)'), "(float)lo", unroll, iters,
                 subsystem="mem", param=stride, memory=memory, ring_lines=ring_lines,
                 ptx=f"{load} lo, [{{lo, hi}}]", note=note)


def _shared_chase(cls: str, degree: int) -> Bench:
    decl = ("const unsigned base = (unsigned)__cvta_generic_to_shared(pp_smem); "
            f"const unsigned w = pp_lane() * {degree}u; pp_smem[w] = base + 4u * w; __syncthreads(); "
            "unsigned p = base + 4u * w;")
    ptx = "ld.shared.u32 %0, [%0];"
    return Bench(cls, "chain", cls, decl, _asm(ptx, '"+r"(p)'), "(float)p", 256, 4, subsystem="lsu",
                 param=degree, smem_bytes=128 * degree, ptx="ld.shared.u32 p, [p];",
                 note=f"pointer chase, lane l reads word l*{degree} ({degree}-way bank conflict)"
                 if degree > 1 else "pointer chase, lane l reads word l (conflict free)")


def chain_benchmarks() -> list[Bench]:
    """One dependent-chain kernel per instruction class."""
    return (_arithmetic_chains() + _sfu_chains() + _lsu_chains() + _control_chains()
            + _global_load_chains())


def _arithmetic_chains() -> list[Bench]:
    """Chains of fp32, fp64 and integer arithmetic (the ALU and DPU classes), divisions included."""
    return [
        _one("add_f32", "alu", "add.rn.f32", "f32", "y"),
        _one("mul_f32", "alu", "mul.rn.f32", "f32", "y"),
        _one("fma_f32", "alu", "fma.rn.f32", "f32", "yz"),
        _one("add_f64", "dpu", "add.rn.f64", "f64", "y", iters=16),
        _one("mul_f64", "dpu", "mul.rn.f64", "f64", "y", iters=16),
        _one("fma_f64", "dpu", "fma.rn.f64", "f64", "yz", iters=16),
        _fib("add_s32", "alu", "add.s32"),
        _fib("mul_s32", "alu", "mul.lo.s32"),
        _one("mad_s32", "alu", "mad.lo.s32", "u32", "yz"),
        Bench("div_s32", "chain", "div_s32",
              "int x = 3 + (int)(threadIdx.x & 1u); const int k = (int)a.u3;",
              _asm("div.s32 %0, %1, %0;", '"+r"(x)', '"r"(k)'), "(float)x", 64, 16, subsystem="alu",
              ptx="div.s32 x, k, x;", note="k = 2^31-1: x alternates 3 <-> 715827882 (4 <-> 536870911)"),
        Bench("div_f32", "chain", "div_f32", "float x = 1.5f + 1e-7f * (float)(threadIdx.x & 7u); "
              "const float k = 3.0f * a.f1;", _asm("div.rn.f32 %0, %1, %0;", '"+f"(x)', '"f"(k)'), "x",
              64, 16, subsystem="alu", ptx="div.rn.f32 x, k, x;", note="IEEE division as nvcc emits a/b"),
        Bench("div_f64", "chain", "div_f64", "double x = 1.5 + 1e-9 * (double)(threadIdx.x & 7u); "
              "const double k = 3.0 * a.d1;", _asm("div.rn.f64 %0, %1, %0;", '"+d"(x)', '"d"(k)'),
              "(float)x", 32, 16, subsystem="dpu", ptx="div.rn.f64 x, k, x;"),
    ]


def _sfu_chains() -> list[Bench]:
    """Chains of special functions and conversions (MUFU and the conversion units)."""
    return [
        _one("sin_f32", "sfu", "sin.approx.f32", "f32", "", iters=8),
        _one("cos_f32", "sfu", "cos.approx.f32", "f32", "", iters=8),
        _one("rsqrt_f32", "sfu", "rsqrt.approx.f32", "f32", "", iters=8,
             note="non-ftz form as rsqrtf() emits it (MUFU.RSQ plus denormal fix-up)"),
        Bench("ex2_f32", "chain", "ex2_f32", _F32,
              _asm("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }", '"+f"(x)'), "x", 256, 8,
              subsystem="sfu", ptx="neg.f32 t, x; ex2.approx.ftz.f32 x, t;",
              note="x = 2^-x stays in (0, 1]; ptxas folds the negation into MUFU.EX2"),
        Bench("cvt_f32_s32", "chain", "cvt_f32_s32", _U32,
              _asm("{ .reg .f32 t; cvt.rn.f32.s32 t, %0; mov.b32 %0, t; }", '"+r"(x)'), _RESULT["u32"], 256, 8,
              subsystem="sfu", ptx="cvt.rn.f32.s32 t, x; mov.b32 x, t;",
              note="int -> float; the bit move is free (registers are untyped)"),
        Bench("cvt_s32_f32", "chain", "cvt_s32_f32", _F32,
              _asm("{ .reg .s32 t; cvt.rzi.s32.f32 t, %0; mov.b32 %0, t; }", '"+f"(x)'), "x", 256, 8,
              subsystem="sfu", ptx="cvt.rzi.s32.f32 t, x; mov.b32 x, t;", note="float -> int"),
        Bench("cvt_f64_f32", "chain", "cvt_f64_f32", _F32,
              _asm("{ .reg .f64 t; cvt.f64.f32 t, %0; cvt.rn.f32.f64 %0, t; }", '"+f"(x)'), "x", 128, 8,
              subsystem="dpu", n1_per_step=2, ptx="cvt.f64.f32 t, x; cvt.rn.f32.f64 x, t;",
              note="float <-> double round trip: lambda and Lambda are per conversion"),
    ]


def _lsu_chains() -> list[Bench]:
    """Chains through shared and local memory and through atomics (pointer chases, one word per thread)."""
    return [
        _shared_chase("ld_shared_f32", 1),
        _shared_chase("ld_shared_f32_conflict32", 32),
        Bench("ld_local_s32", "chain", "ld_local_s32",
              "unsigned loc[8]; unsigned p = (unsigned)__cvta_generic_to_local(&loc[threadIdx.x & 7u]); "
              'asm volatile("st.local.u32 [%0], %0;" :: "r"(p) : "memory");',
              _asm("ld.local.u32 %0, [%0];", '"+r"(p)'), "(float)p", 256, 4, subsystem="lsu",
              ptx="ld.local.u32 p, [p];", note="pointer chase in the thread's local memory (L1 hits)"),
        Bench("atom_shared_add_u32", "chain", "atom_shared_add_u32",
              "const unsigned s = (unsigned)__cvta_generic_to_shared(pp_smem) + 4u * (threadIdx.x & 255u); "
              "unsigned v = 1u + pp_lane();",
              _asm("atom.shared.add.u32 %0, [%1], %0;", '"+r"(v)', '"r"(s)', '"memory"'), "(float)v", 64, 8,
              subsystem="lsu", smem_bytes=1024, ptx="atom.shared.add.u32 v, [s], v;",
              note="one word per thread, no contention"),
        Bench("atom_global_add_u32", "chain", "atom_global_add_u32",
              "unsigned* w = (unsigned*)a.buf + pp_gtid(); unsigned v = 1u + pp_lane();",
              _asm("atom.global.add.u32 %0, [%1], %0;", '"+r"(v)', '"l"(w)', '"memory"'), "(float)v", 32, 8,
              subsystem="mem", memory="words", ptx="atom.global.add.u32 v, [w], v;",
              note="one word per thread (coalesced), no contention"),
    ]


def _control_chains() -> list[Bench]:
    """Chains of barriers and of loop iterations (the control-flow classes)."""
    return [
        Bench("bar_sync", "chain", "bar_sync", "", _asm("bar.sync 0;", "", "", '"memory"'), "0.0f", 64, 16,
              subsystem="barrier", ptx="bar.sync 0;", note="a chain of barriers; groups of one warp"),
        Bench("loop", "chain", "loop", _F32, _asm("add.rn.f32 %0, %0, %1;", '"+f"(x)', '"f"(y)'), "x", 1, 4096,
              subsystem="alu", ptx="@p bra LOOP; (counter add, compare, branch) + add.rn.f32",
              note="one iteration of a '#pragma unroll 1' loop whose body is one fp32 add; the "
                   "dependent path is the counter's add, compare and branch (Sec. IV-B)"),
    ]


def _global_load_chains() -> list[Bench]:
    """Chains of global loads: streaming and strided from DRAM, then rings that hit the L2 and the L1."""
    b: list[Bench] = []
    # Streaming and strided chains walk fresh lines (the harness flushes the L2
    # before every run); the chain is short for wide strides to bound the buffer size.
    for s in GLOBAL_STRIDES:
        loads = max(32, 512 // s)
        name = "ld_global_s32" if s == 1 else f"ld_global_s32_stride{s}"
        b.append(_memory_chain(name, "ld.global.u32", "stream", stride=s, unroll=32, iters=loads // 32,
                               note=f"lane l reads word l*{s}; every step a fresh "
                                    f"{'line' if s == 1 else 'set of lines'} (DRAM)"))
    b.append(_memory_chain("ld_global_s32_l2", "ld.global.cg.u32", "ring", ring_lines=0, unroll=64, iters=8,
                           note="ring of lines per warp that fits half of the L2, loaded .cg (LDG.STRONG.GPU: "
                                "not cached in L1, so L2 hits)"))
    b.append(_memory_chain("ld_global_s32_l1", "ld.global.u32", "ring", ring_lines=2, unroll=64, iters=8,
                           note="ring of 2 lines per warp (256 B; 16 KB at 64 warps fits the L1 left beside "
                                "the maximum shared-memory carve-out), plain loads, which sm_70+ cache in L1 "
                                "(ld.global.ca becomes LDG.STRONG.SM on sm_90)"))
    return b


# ---------------------------------------------------------------- instruction mix and barriers

def mix_benchmarks(betas: tuple[int, ...] = MIX_BETAS) -> list[Bench]:
    """Fig. 11: beta dependent mul.f32 (type 1) then one cos.approx.f32 (type 2), repeated."""
    out = []
    for beta in betas:
        mul = _asm("mul.rn.f32 %0, %0, %1;", '"+f"(x)', '"f"(y)')
        step = " ".join([mul] * beta + [_asm("cos.approx.f32 %0, %0;", '"+f"(x)')])
        out.append(Bench(f"mix_b{beta}", "mix", "mul_f32", _F32, step, "x", max(1, 256 // (beta + 1)),
                         8 if beta else 16, subsystem="alu", cls2="cos_f32", n1_per_step=beta, n2_per_step=1,
                         param=beta, ptx=f"{beta} x mul.rn.f32 x, x, y; cos.approx.f32 x, x;"))
    return out


def barrier_benchmarks() -> list[Bench]:
    """Fig. 15: N dependent computational instructions, each followed by a barrier."""
    step = _asm("mul.rn.f32 %0, %0, %1;", '"+f"(x)', '"f"(y)') + " " + _asm("bar.sync 0;", "", "", '"memory"')
    return [Bench("iterative_barrier", "barrier", "mul_f32", _F32, step, "x", 64, 16, subsystem="alu",
                  cls2="bar_sync", n1_per_step=1, n2_per_step=1, ptx="mul.rn.f32 x, x, y; bar.sync 0;")]


# ---------------------------------------------------------------- peaks (Table 3)

def _independent(k: int, t: str, ptx_op: str, operands: str) -> tuple[str, str, str]:
    c = _CONSTRAINT[t]
    ctype = {"f32": "float", "f64": "double", "u32": "unsigned"}[t]
    seed = {"f32": "a.f1 + 1e-3f * {i} + 1e-7f * (float)threadIdx.x",
            "f64": "a.d1 + 1e-3 * {i} + 1e-9 * (double)threadIdx.x",
            "u32": "a.u1 + 2u * ({i}u + threadIdx.x)"}[t]
    ys = {"f32": "const float y = a.f2, z = a.f3;", "f64": "const double y = a.d2, z = a.d3;",
          "u32": "const unsigned y = a.u2 + 2u * threadIdx.x, z = a.u3;"}[t]
    decl = " ".join(f"{ctype} x{i} = {seed.format(i=i)};" for i in range(k)) + " " + ys
    ins = {"y": f'"{c}"(y)', "yz": f'"{c}"(y), "{c}"(z)'}[operands]
    args = {"y": "%0, %0, %1", "yz": "%0, %0, %1, %2"}[operands]
    step = " ".join(_asm(f"{ptx_op} {args};", f'"+{c}"(x{i})', ins) for i in range(k))
    conv = "(float)" if t != "f32" else ""
    result = " + ".join(f"{conv}x{i}" for i in range(k))
    return decl, step, result


def peak_benchmarks() -> list[Bench]:
    """mixbench-style peaks: independent chains at full occupancy, and streaming bandwidth."""
    out = []
    for name, t, op, operands, k, ops, unit in (
            ("T_SP", "f32", "fma.rn.f32", "yz", 8, 2, "GFLOPS"),
            ("T_DP", "f64", "fma.rn.f64", "yz", 4, 2, "GFLOPS"),
            ("T_int", "u32", "mad.lo.s32", "yz", 8, 2, "GIOPS")):
        decl, step, result = _independent(k, t, op, operands)
        out.append(Bench(f"peak_{name}", "peak", name, decl, step, result, 32, 16, block=256,
                         ops_per_step=k * ops, unit=unit, ptx=f"{k} independent {op}",
                         note="a multiply-add counts as two operations (mixbench)"))
    # T_add: four independent Fibonacci pairs (a single repeated add is merged into IADD3s)
    decl = " ".join(f"unsigned x{i} = a.u1 + 2u * ({i}u + threadIdx.x);" for i in range(8))
    step = " ".join(_asm("add.s32 %0, %0, %1;", f'"+r"(x{i})', f'"r"(x{i ^ 1})') for i in range(8))
    out.append(Bench("peak_T_add", "peak", "T_add", decl, step, " + ".join(f"(float)x{i}" for i in range(8)),
                     32, 16, block=256, ops_per_step=8, unit="GIOPS", ptx="4 independent pairs of add.s32"))
    decl = ("const unsigned base = (unsigned)__cvta_generic_to_shared(pp_smem); "
            + " ".join(f"unsigned p{i} = base + 4u * (pp_lane() + {32 * i}u); pp_smem[pp_lane() + {32 * i}u] = p{i};"
                       for i in range(8)) + " __syncthreads();")
    step = " ".join(_asm("ld.shared.u32 %0, [%0];", f'"+r"(p{i})') for i in range(8))
    out.append(Bench("peak_T_ldst", "peak", "T_ldst", decl, step, " + ".join(f"(float)p{i}" for i in range(8)),
                     32, 16, block=256, smem_bytes=1024, ops_per_step=8, unit="GOPS",
                     ptx="8 independent ld.shared.u32 chases"))
    copy = """
  const float4* in = (const float4*)a.buf;
  float4* out = (float4*)a.buf + a.chunk;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  #pragma unroll 1
  for (int it = 0; it < a.iters; ++it)
    for (unsigned long long i = pp_gtid(); i < a.chunk; i += stride) out[i] = in[i];
"""
    read = """
  const float4* in = (const float4*)a.buf;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned acc = 0;
  #pragma unroll 1
  for (int it = 0; it < a.iters; ++it)
    for (unsigned long long i = pp_gtid(); i < a.chunk; i += stride) {
      const float4 v = in[i];
      acc ^= __float_as_uint(v.x) ^ __float_as_uint(v.y) ^ __float_as_uint(v.z) ^ __float_as_uint(v.w);
    }
  if (acc == 0x7f7f7f7fu) a.sink[pp_gtid()] = (float)acc;
"""
    out.append(Bench("peak_B_mem_copy", "peak", "B_mem", "", "", "", 1, 1, block=256, param=2, memory="copy",
                     unit="GB/s", body=copy, ptx="ld.global.v4.f32 + st.global.v4.f32, grid-stride",
                     note="device-to-device copy; bytes read plus bytes written"))
    out.append(Bench("peak_B_mem_read", "peak", "B_mem", "", "", "", 1, 1, block=256, param=1, memory="copy",
                     unit="GB/s", body=read, ptx="ld.global.v4.f32, grid-stride, xor-reduced",
                     note="read-only stream (mixbench's ro variant)"))
    return out


def all_benchmarks() -> list[Bench]:
    """Every benchmark ``pipeperf calibrate`` runs, in run order."""
    return chain_benchmarks() + mix_benchmarks() + barrier_benchmarks() + peak_benchmarks()


def select(benches: list[Bench], only: str | None = None, kinds: str | None = None) -> list[Bench]:
    """Filter by comma-separated names (or class names) and kinds; unknown ones are an error."""
    out = list(benches)
    if kinds:
        wanted = [k.strip() for k in kinds.split(",") if k.strip()]
        bad = [k for k in wanted if k not in KINDS]
        if bad:
            raise PipeperfError(f"unknown benchmark kind '{bad[0]}': expected {', '.join(KINDS)}")
        out = [b for b in out if b.kind in wanted]
    if only:
        names = [n.strip() for n in only.split(",") if n.strip()]
        known = {b.name for b in benches}
        bad = [n for n in names if n not in known]
        if bad:
            raise PipeperfError(f"unknown benchmark '{bad[0]}' (known: {', '.join(sorted(known))})")
        out = [b for b in out if b.name in names]
    if not out:
        raise PipeperfError("no benchmark selected")
    return out


# ---------------------------------------------------------------- code generation

_KERNEL = """
extern "C" __global__ void {ident}(PPArgs a) {{
  extern __shared__ __align__(16) unsigned pp_smem[];
  {decl}{prime}
  pp_gate(a);
  const unsigned long long t0 = pp_clock();
  #pragma unroll 1
  for (int it = 0; it < a.iters; ++it) {{
    #pragma unroll
    for (int u = 0; u < {unroll}; ++u) {{
      {step}
    }}
  }}
  a.sink[pp_gtid()] = {result};
  const unsigned long long t1 = pp_clock();
  pp_record(a, t0, t1);
}}
"""

_PEAK = """
extern "C" __global__ void {ident}(PPArgs a) {{
  extern __shared__ __align__(16) unsigned pp_smem[];
  {decl}
  #pragma unroll 1
  for (int it = 0; it < a.iters; ++it) {{
    #pragma unroll
    for (int u = 0; u < {unroll}; ++u) {{
      {step}
    }}
  }}
  a.sink[pp_gtid()] = {result};
}}
"""

_PEAK_BODY = """
extern "C" __global__ void {ident}(PPArgs a) {{{body}}}
"""

_KIND_ENUM = {"chain": "PP_CHAIN", "mix": "PP_MIX", "barrier": "PP_BARRIER", "peak": "PP_PEAK"}


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kernel_source(b: Bench, order: int = 0) -> str:
    """CUDA C++ of one benchmark kernel plus its static registration (``order``: run order)."""
    if b.kind not in KINDS:
        raise PipeperfError(f"benchmark '{b.name}': unknown kind '{b.kind}'")
    if b.body is not None:
        text = _PEAK_BODY.format(ident=b.ident, body=b.body)
    else:
        template = _PEAK if b.kind == "peak" else _KERNEL
        prime = ""
        if b.memory == "ring":   # one untimed lap, so the timed loads all hit the cache
            prime = f"\n  #pragma unroll 1\n  for (unsigned i = 0; i < a.prime; ++i) {{ {b.step} }}"
        text = template.format(ident=b.ident, decl=b.decl, step=b.step, result=b.result, unroll=b.unroll,
                               prime=prime)
    reg = (f"static const int {b.ident}_reg = pp_register(PPBench{{{_c_string(b.name)}, {_KIND_ENUM[b.kind]}, "
           f"{_c_string(b.cls)}, {_c_string(b.cls2)}, {_c_string(b.subsystem)}, (const void*){b.ident}, "
           f"{b.n1_per_iter}, {b.n2_per_iter}, {b.iters}, {b.param}, {MEMORY[b.memory]}, {b.ring_lines}, "
           f"{b.smem_bytes}, {b.block}, {b.ops_per_step * b.unroll!r}, 0.0, {_c_string(b.unit)}, "
           f"{_c_string(b.ptx)}, {order}}});\n")
    return text + reg


def template_text(name: str) -> str:
    """Text of a file shipped in ``measure/templates`` (package data)."""
    return resources.files("pipeperf.measure").joinpath("templates", name).read_text(encoding="utf-8")


def write_sources(out_dir: str | Path, benches: list[Bench] | None = None, units: int = 1) -> dict[str, list[Path]]:
    """Write the harness and the kernels split over ``units`` translation units.

    Returns ``{"kernels": [...], "harness": [harness.cu]}``; the header sits beside them.
    Splitting lets the kernels compile in parallel; each unit registers its own kernels.
    """
    benches = all_benchmarks() if benches is None else benches
    names = [b.name for b in benches]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise PipeperfError(f"duplicate benchmark name '{dup[0]}'")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_common.cuh").write_text(template_text("bench_common.cuh"))
    (out / "harness.cu").write_text(template_text("harness.cu"))
    units = max(1, min(units, len(benches)))
    # balance the units by a rough cost: instructions the compiler must handle
    cost = sorted(((b.unroll * max(1, b.n1_per_step + b.n2_per_step), b) for b in benches),
                  key=lambda cb: -cb[0])
    groups: list[list[Bench]] = [[] for _ in range(units)]
    load = [0] * units
    for c, b in cost:
        i = load.index(min(load))
        groups[i].append(b)
        load[i] += c
    order = {b.name: i for i, b in enumerate(benches)}
    paths = []
    for i, group in enumerate(groups):
        group.sort(key=lambda b: order[b.name])
        text = ("// Generated by pipeperf.measure.microbench: do not edit.\n"
                '#include "bench_common.cuh"\n' + "".join(kernel_source(b, order[b.name]) for b in group))
        p = out / f"pp_bench_{i}.cu"
        p.write_text(text)
        paths.append(p)
    return {"kernels": paths, "harness": [out / "harness.cu"]}


def occupancy_plan(max_warps: int, max_blocks: int, quick: bool = False) -> list[tuple[int, int]]:
    """(warps per block, blocks per SM) for every occupancy W = 1..max_warps the SM can hold.

    The group is the smallest number of warps that divides W with W / group <= max_blocks
    (one-warp groups up to the block limit, so each occupancy step is one more resident
    block); this mirrors the harness, which computes the same plan on the device.
    ``quick`` keeps 1, 2, 3, 4, 6, 8, 12, 16, ... (about 1.5x apart).
    """
    plan = []
    for w in range(1, max_warps + 1):
        if quick and w not in _quick_set(max_warps):
            continue
        for g in range(1, min(w, 32) + 1):
            if w % g == 0 and w // g <= max_blocks:
                plan.append((g, w // g))
                break
    return plan


def _quick_set(max_warps: int) -> set[int]:
    s = {max_warps}
    v = 1
    while v <= max_warps:
        s.update({v, v + v // 2} if v >= 2 else {v})
        v *= 2
    return {w for w in s if 1 <= w <= max_warps}


def estimated_launches(benches: list[Bench], max_warps: int = 64, max_blocks: int = 32, reps: int = 5,
                       quick: bool = False) -> int:
    """How many kernel launches a calibration makes (to keep a run inside its time budget)."""
    plan = len(occupancy_plan(max_warps, max_blocks, quick))
    n = 0
    for b in benches:
        if b.kind == "chain":
            n += plan * (reps + 1)
        elif b.kind == "mix":
            n += (reps + 1) * (1 + (plan if b.param == MIX_SWEEP_BETA else 0))
        elif b.kind == "barrier":
            groups = [g for g in (1, 2, 4, 8, 16, 32) if g <= max_warps]
            n += sum(min(max_blocks, max_warps // g) for g in groups) * (reps + 1)
        else:
            n += reps + 8
    return n


def describe(benches: list[Bench]) -> list[dict[str, object]]:
    """Plain rows for listing (``pipeperf calibrate --list``)."""
    return [{"name": b.name, "kind": b.kind, "class": b.cls, "subsystem": b.subsystem, "ptx": b.ptx,
             "n_per_warp": b.n1_per_iter * b.iters, "note": b.note} for b in benches]


__all__ = ["Bench", "KINDS", "MIX_BETAS", "MIX_SWEEP_BETA", "GLOBAL_STRIDES", "chain_benchmarks",
           "mix_benchmarks", "barrier_benchmarks", "peak_benchmarks", "all_benchmarks", "select",
           "kernel_source", "write_sources", "occupancy_plan", "estimated_launches", "describe",
           "template_text"]
