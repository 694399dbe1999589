"""Executable NumPy references for every kernel of the CUDA test corpus.

Each function draws the kernel's input buffers (as the manifest's ``inputs`` line says) and computes
the final contents of its output buffers (the manifest's ``reference`` line), with a tolerance per
output: (0, 0) means bit-exact. Inputs are chosen so that most fp32 results are exact (small
integers, dyadic fractions), which keeps the comparison independent of summation order and of
fma contraction; where rounding cannot be avoided the tolerance says so.

Use through ``kernel_corpus.make_case(name)``, which takes sizes and scalar arguments from the
manifest (``spec.scalars`` / ``spec.buffers``), so the two files cannot drift apart silently.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from collections.abc import Callable

import numpy as np

f16, f32, f64 = np.float16, np.float32, np.float64
i32, u32, u64 = np.int32, np.uint32, np.uint64
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


@dataclasses.dataclass
class Ref:
    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]
    tolerance: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)


REFERENCES: dict[str, Callable[[np.random.Generator, object], Ref]] = {}


def ref(name: str):
    def register(fn):
        REFERENCES[name] = fn
        return fn
    return register


# ---- helpers ----------------------------------------------------------------------------------

def small_ints(rng, lo, hi, size, dtype=f32):
    """Integers in [lo, hi] stored as ``dtype`` (exact in every float type used here)."""
    return rng.integers(lo, hi + 1, size).astype(dtype)


def uniform(rng, lo, hi, size, dtype=f32):
    return rng.uniform(lo, hi, size).astype(dtype)


def pad(a, length, value=0):
    out = np.full(length, value, dtype=a.dtype)
    out[: a.size] = a
    return out


def threads(spec) -> int:
    """Total threads of the launch."""
    return int(np.prod(spec.grid) * np.prod(spec.block))


def fma32(a, b, c):
    """float32 fma: the product of two float32 is exact in float64, so one rounding of a*b+c
    in float64 then to float32 can differ from a true fma only in double-rounding corner cases,
    which the tolerances of the affected kernels absorb."""
    return (a.astype(f64) * b + c).astype(f32)


def fp16_round(x64):
    """Round float64 values to float16 once (NumPy converts float64 -> float16 directly)."""
    return np.asarray(x64, dtype=f64).astype(f16)


# ---- BLAS-like --------------------------------------------------------------------------------

@ref("saxpy")
def _saxpy(rng, spec):
    n, a = spec.scalars["n"], f32(spec.scalars["a"])
    x, y = uniform(rng, -1, 1, n), uniform(rng, -1, 1, n)
    # a*x is exact in float64 and adding y once more rounds once: the fma result up to double rounding.
    want = (f64(a) * x.astype(f64) + y.astype(f64)).astype(f32)
    return Ref({"x": x, "y": y}, {"y": want}, {"y": (1e-6, 1e-7)})


@ref("daxpy")
def _daxpy(rng, spec):
    n, a = spec.scalars["n"], f64(spec.scalars["a"])
    x, y = uniform(rng, -1, 1, n, f64), uniform(rng, -1, 1, n, f64)
    return Ref({"x": x, "y": y}, {"y": a * x + y}, {"y": (1e-15, 1e-16)})


# ---- reductions and scans -----------------------------------------------------------------------

def _block_sums(x, spec):
    nb, bs = spec.grid[0], spec.block[0]
    return pad(x, nb * bs).reshape(nb, bs).sum(1).astype(x.dtype)


@ref("reduce_shared")
def _reduce_shared(rng, spec):
    x = small_ints(rng, -8, 8, spec.scalars["n"])
    return Ref({"in": x}, {"out": _block_sums(x, spec)})


@ref("reduce_warp_shfl")
def _reduce_warp_shfl(rng, spec):
    x = small_ints(rng, -8, 8, spec.scalars["n"])
    return Ref({"in": x}, {"out": pad(x, threads(spec)).reshape(-1, 32).sum(1).astype(f32)})


@ref("reduce_cg")
def _reduce_cg(rng, spec):
    x = small_ints(rng, -100, 100, spec.scalars["n"], i32)
    return Ref({"in": x}, {"out": _block_sums(x, spec)})


@ref("reduce_threadfence")
def _reduce_threadfence(rng, spec):
    x = small_ints(rng, -100, 100, spec.scalars["n"], i32)
    partial = _block_sums(x, spec)
    return Ref({"in": x}, {"partial": partial, "total": np.array([x.sum()], i32)})


@ref("scan_hillis_steele")
def _scan(rng, spec):
    n = spec.scalars["n"]
    x = small_ints(rng, -100, 100, n, i32)
    s = np.cumsum(pad(x, threads(spec)).reshape(spec.grid[0], spec.block[0]), axis=1)
    return Ref({"in": x}, {"out": s.ravel()[:n].astype(i32)})


@ref("warp_scan_shfl")
def _warp_scan(rng, spec):
    n = spec.scalars["n"]
    x = small_ints(rng, -100, 100, n, i32)
    s = np.cumsum(pad(x, threads(spec)).reshape(-1, 32), axis=1)
    spread = np.repeat(s.max(1, keepdims=True) - s[:, :1], 32, axis=1)
    return Ref({"in": x}, {"scan": s.ravel()[:n].astype(i32), "spread": spread.ravel()[:n].astype(i32)})


# ---- matrices and stencils ------------------------------------------------------------------------

def _matmul_case(rng, spec):
    n = spec.scalars["n"]
    a, b = small_ints(rng, -4, 4, n * n), small_ints(rng, -4, 4, n * n)
    c = (a.reshape(n, n).astype(f64) @ b.reshape(n, n)).astype(f32).ravel()
    return Ref({"A": a, "B": b}, {"C": c})


ref("matmul_naive")(_matmul_case)
ref("matmul_tiled")(_matmul_case)


def _transpose_case(rng, spec):
    rows, cols = spec.scalars["rows"], spec.scalars["cols"]
    x = uniform(rng, -1, 1, rows * cols)
    return Ref({"in": x}, {"out": np.ascontiguousarray(x.reshape(rows, cols).T).ravel()})


for _name in ("transpose_naive", "transpose_shared", "transpose_padded"):
    ref(_name)(_transpose_case)


@ref("stencil1d")
def _stencil1d(rng, spec):
    n = spec.scalars["n"]
    x = small_ints(rng, -8, 8, n)
    p = np.pad(x.astype(f64), 3)
    out = sum((k + 4) * p[3 + k: 3 + k + n] for k in range(-3, 4))
    return Ref({"in": x}, {"out": out.astype(f32)})


@ref("stencil2d")
def _stencil2d(rng, spec):
    w, h = spec.scalars["width"], spec.scalars["height"]
    x = small_ints(rng, -8, 8, w * h)
    g = x.reshape(h, w).astype(f64)
    out = g.copy()
    out[1:-1, 1:-1] = 0.25 * (g[1:-1, :-2] + g[1:-1, 2:] + g[:-2, 1:-1] + g[2:, 1:-1]) - g[1:-1, 1:-1]
    return Ref({"in": x}, {"out": out.astype(f32).ravel()})


@ref("const_fir")
def _const_fir(rng, spec):
    n = spec.scalars["n"]
    taps = np.array([0.5, -0.25, 0.125, 1.0, 2.0, -1.0, 0.75, 0.0625])
    lut = np.array([j * j - 5 * j + 3 for j in range(16)], i32)
    x = small_ints(rng, -8, 8, n + 7)
    sel = rng.integers(0, 1000, n).astype(i32)
    out = sum(taps[k] * x[k: k + n].astype(f64) for k in range(8))
    return Ref({"in": x, "sel": sel}, {"out": out.astype(f32), "lut_out": lut[sel & 15]})


# ---- histograms and atomics --------------------------------------------------------------------------

def _histogram_case(rng, spec):
    n = spec.scalars["n"]
    data = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(u32)
    return Ref({"data": data}, {"bins": np.bincount(data & 63, minlength=64).astype(u32)})


ref("histogram_global")(_histogram_case)
ref("histogram_shared")(_histogram_case)


@ref("atomics_mix")
def _atomics_mix(rng, spec):
    n = spec.scalars["n"]
    # multiples of 4 plus 0 or 1: only 16 of the 32 residues of x & 31 occur, so flags has zeros
    x = (rng.integers(-250, 251, n) * 4 + rng.integers(0, 2, n)).astype(i32)
    stats0 = np.array([np.iinfo(i32).min, np.iinfo(i32).max, 0, 0], i32)
    xu = x.view(u32).astype(np.uint64)
    sumsq = int((xu * xu % (1 << 32)).sum() % (1 << 32))
    mask = 0
    for v in (x & 31).tolist():
        mask |= 1 << v
    stats = np.array([int(x.max()) & M32, int(x.min()) & M32, sumsq, mask], np.uint64).astype(u32).view(i32)
    flags = np.zeros(32, u32)
    flags[np.unique(x & 31)] = 1
    return Ref({"x": x, "stats": stats0}, {"stats": stats, "flags": flags})


@ref("vote")
def _vote(rng, spec):
    n = spec.scalars["n"]
    x = rng.integers(-5, 5, n).astype(i32)
    x[32:64] = rng.integers(1, 5, 32)
    x[64:96] = rng.integers(-5, 1, 32)
    p = pad(x > 0, threads(spec)).reshape(-1, 32)
    ballot = (p.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(1).astype(u32)
    return Ref({"x": x}, {"ballot": ballot, "any": p.any(1).astype(i32), "all": p.all(1).astype(i32)})


# ---- control flow ----------------------------------------------------------------------------------

@ref("divergent")
def _divergent(rng, spec):
    n = spec.scalars["n"]
    x = small_ints(rng, -4, 4, n)
    v = x.astype(f64)
    odd = v.copy()
    for k in range(8):
        odd = odd * 0.5 + k
    out = np.where(np.arange(n) % 2 == 1, odd, v * v - 3.0)
    return Ref({"x": x}, {"out": out.astype(f32)})


@ref("switch_case")
def _switch_case(rng, spec):
    n = spec.scalars["n"]
    op, a, b = (rng.integers(-(1 << 31), 1 << 31, n).astype(i32) for _ in range(3))
    out = []
    for o, x, y in zip((op & 7).tolist(), a.tolist(), b.tolist()):
        s = y & 31
        r = [x + y, x - y, x * y, x & y, x | y, x ^ y, (x << s), x >> s][o]
        out.append(r & M32)
    return Ref({"op": op, "a": a, "b": b}, {"out": np.array(out, np.uint64).astype(u32).view(i32)})


@ref("collatz_steps")
def _collatz(rng, spec):
    n, cap = spec.scalars["n"], spec.scalars["max_steps"]
    start = rng.integers(1, 10000, n).astype(u32)
    start[:4] = [1, 0, 6171, 27]
    steps = []
    for x in start.tolist():
        s = 0
        while x != 1 and s < cap:
            x = (3 * x + 1) & M32 if x & 1 else x >> 1
            s += 1
        steps.append(s)
    return Ref({"start": start}, {"steps": np.array(steps, u32)})


@ref("noinline_call")
def _noinline_call(rng, spec):
    n = spec.scalars["n"]
    a, b, c = (f64(f32(spec.scalars[k])) for k in "abc")
    x = (rng.integers(-32, 33, n) / 16).astype(f32)
    v = x.astype(f64)
    y = ((a * v + b) * v + c) + ((c * -v + b) * -v + a)
    k = np.clip(3 * np.arange(n) - 7, 0, n - 1).astype(i32)
    return Ref({"x": x}, {"y": y.astype(f32), "k": k})


@ref("local_array")
def _local_array(rng, spec):
    n = spec.scalars["n"]
    x = small_ints(rng, -8, 8, n)
    sel = rng.integers(0, 256, n).astype(i32)
    v = x.astype(f64)

    def buf(k):
        return v * k + k * k

    out = buf(sel & 15) + buf((sel >> 4) & 15)
    return Ref({"x": x, "sel": sel}, {"out": out.astype(f32)})


@ref("selp_ternary")
def _selp(rng, spec):
    n, lo, hi = spec.scalars["n"], spec.scalars["lo"], spec.scalars["hi"]
    x = (rng.integers(-24, 25, n) / 8).astype(f32)
    k = small_ints(rng, -100, 100, n, i32)
    c = np.clip(x.astype(f64), lo, hi)
    out = np.where(k & 1, 2 * c, c + 3)
    return Ref({"x": x, "k": k}, {"out": out.astype(f32), "iout": np.where(x > 0, k, -k).astype(i32)})


@ref("poly_unrolled")
def _poly_unrolled(rng, spec):
    x = uniform(rng, -0.9, 0.9, spec.scalars["n"])
    acc = np.zeros(x.size)
    for k in range(16):
        acc = acc * x + (k + 1)
    return Ref({"x": x}, {"y": acc.astype(f32)}, {"y": (1e-5, 1e-5)})


@ref("loop_unroll1")
def _loop_unroll1(rng, spec):
    x = uniform(rng, -0.9, 0.9, spec.scalars["n"])
    acc = np.zeros(x.size)
    for k in range(spec.scalars["iters"]):
        acc = acc * x + (k + 1)
    return Ref({"x": x}, {"y": acc.astype(f32)}, {"y": (1e-5, 1e-5)})


# ---- math ------------------------------------------------------------------------------------------

@ref("math_fp32")
def _math_fp32(rng, spec):
    x = uniform(rng, 0.05, 8, spec.scalars["n"])
    v = x.astype(f64)
    out = np.concatenate([np.sin(v), np.cos(v), np.exp(v), np.log(v), np.sqrt(v), 1 / np.sqrt(v)])
    return Ref({"x": x}, {"out": out.astype(f32)}, {"out": (1e-6, 1e-6)})


@ref("fast_math")
def _fast_math(rng, spec):
    n = spec.scalars["n"]
    x, y = uniform(rng, 0.1, 3, n), uniform(rng, 0.5, 2, n)
    v, w = x.astype(f64), y.astype(f64)
    out = np.concatenate([np.sin(v), np.cos(v), np.exp(v), np.log(v), v / w])
    return Ref({"x": x, "y": y}, {"out": out.astype(f32)}, {"out": (2e-6, 2e-6)})


@ref("math_fp64")
def _math_fp64(rng, spec):
    x = uniform(rng, 0.1, 4, spec.scalars["n"], f64)
    exact_fma = np.array([float(Fraction(v) * Fraction(v) - 1) for v in x.tolist()])
    out = np.concatenate([np.sqrt(x), np.exp(x), 1.0 / x, exact_fma])
    return Ref({"x": x}, {"out": out}, {"out": (1e-14, 1e-15)})


def _divisor(rng, n, dtype):
    return (rng.uniform(0.5, 4, n) * rng.choice([-1.0, 1.0], n)).astype(dtype)


@ref("div_f32")
def _div_f32(rng, spec):
    n = spec.scalars["n"]
    a, b = uniform(rng, -10, 10, n), _divisor(rng, n, f32)
    # float64 division then rounding to float32 is correctly rounded for float32 operands.
    return Ref({"a": a, "b": b}, {"q": (a.astype(f64) / b).astype(f32)})


@ref("div_f64")
def _div_f64(rng, spec):
    n = spec.scalars["n"]
    a, b = uniform(rng, -10, 10, n, f64), _divisor(rng, n, f64)
    return Ref({"a": a, "b": b}, {"q": a / b})


# ---- integers -------------------------------------------------------------------------------------

@ref("int_divmod")
def _int_divmod(rng, spec):
    n = spec.scalars["n"]
    a = rng.integers(-10**6, 10**6 + 1, n).astype(i32)
    a[:2] = [2**31 - 1, -2**31]
    b = (rng.integers(1, 51, n) * rng.choice([-1, 1], n)).astype(i32)
    b[:2] = [7, -3]  # never INT32_MIN / -1 (overflow)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.sign(a64) * np.sign(b64) * (np.abs(a64) // np.abs(b64))  # C: truncate toward zero
    r = a64 - q * b64
    ua = a.view(u32)
    return Ref({"a": a, "b": b}, {"q": q.astype(i32), "r": r.astype(i32), "u": (ua // 10 + ua % 7).astype(u32)})


@ref("bitops")
def _bitops(rng, spec):
    n = spec.scalars["n"]
    x = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(u32)
    x[:4] = [0, 0xFFFFFFFF, 1, 0x80000000]
    vals = x.tolist()
    popc = [bin(v).count("1") for v in vals]
    clz = [32 - v.bit_length() for v in vals]
    brev = [int(f"{v:032b}"[::-1], 2) for v in vals]
    ffs = [(v & -v).bit_length() for v in vals]
    shifts = [((v << 7) & M32) ^ (v >> 3) for v in vals]
    sar = [((v - (1 << 32) if v >> 31 else v) >> 5) & M32 for v in vals]
    rotl = [((v << 13) | (v >> 19)) & M32 for v in vals]
    out = np.array(popc + clz + brev + ffs + shifts + sar + rotl, np.uint64).astype(u32)
    return Ref({"x": x}, {"out": out})


@ref("hash_lcg")
def _hash_lcg(rng, spec):
    n = spec.scalars["n"]
    seed = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(u32)
    seed[0] = 0
    h32, h64 = [], []
    for s in seed.tolist():
        w = s * 2654435761
        z = (w * 6364136223846793005 + 1442695040888963407) & M64
        z ^= z >> 33
        z = (z * 0xFF51AFD7ED558CCD) & M64
        z ^= z >> 33
        h = ((s * 0x9E3779B9) >> 32) ^ (z >> 32)
        h ^= (h << 13) & M32
        h ^= h >> 17
        h ^= (h << 5) & M32
        h32.append(h)
        h64.append((z + ((z * 0x9E3779B97F4A7C15) >> 64)) & M64)
    return Ref({"seed": seed}, {"out32": np.array(h32, u32), "out64": np.array(h64, u64)})


@ref("int2_swizzle")
def _int2_swizzle(rng, spec):
    x = rng.integers(-(1 << 30), 1 << 30, spec.buffers["in"]).astype(i32)
    v = x.reshape(-1, 2).astype(np.int64)
    return Ref({"in": x}, {"out": np.stack([v[:, 1], v[:, 0] + v[:, 1]], 1).ravel().astype(i32)})


# ---- fp16 -----------------------------------------------------------------------------------------

@ref("half_arith")
def _half_arith(rng, spec):
    n = spec.scalars["n"]
    a, b = uniform(rng, -4, 4, n, f16), uniform(rng, -4, 4, n, f16)
    x, y = a.astype(f64), b.astype(f64)
    c = fp16_round(x * y + x)  # exact in float64, then one rounding (fma.rn.f16)
    d = fp16_round(fp16_round(x + y).astype(f64) * x)
    f = (x + 0.5 * y).astype(f32)  # exact sum, one rounding
    g = (f * f32(0.1)).astype(f16)
    return Ref({"a": a, "b": b}, {"c": c, "d": d, "f": f, "g": g})


@ref("half2_axpy")
def _half2_axpy(rng, spec):
    n = 2 * spec.scalars["n2"]
    x, y = uniform(rng, -4, 4, n, f16), uniform(rng, -4, 4, n, f16)
    a = f64(f16(spec.scalars["a"]))
    return Ref({"x": x, "y": y}, {"y": fp16_round(a * x.astype(f64) + y.astype(f64))})


@ref("half2_compare")
def _half2_compare(rng, spec):
    n2 = spec.scalars["n2"]
    pool = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 6e-8, 65504.0, np.inf, -np.inf, np.nan], f16)
    a = rng.choice(pool, (n2, 2))
    b = rng.choice(pool, (n2, 2))
    kind = rng.integers(0, 4, n2)
    b[kind == 0] = a[kind == 0]                       # both lanes equal (NaN lanes stay unordered)
    b[kind == 1, 0] = a[kind == 1, 0]                 # the low lane equal
    x, y = a.astype(f64), b.astype(f64)
    nan = np.isnan(x) | np.isnan(y)
    one, canon = 0x3C00, 0x7FFF                       # f16 1.0 and CUDA's canonical NaN

    def bits(v):                                      # f16 bit patterns of float64 values
        return np.asarray(v, f64).astype(f16).view(np.uint16).astype(np.int64)

    def flag(t, on=one):
        return np.where(t, on, 0)

    # max ignores a NaN operand (canonical NaN when both are); min.NaN returns NaN if either is;
    # both order -0 below +0
    hi = np.where(np.isnan(x), y, np.where(np.isnan(y), x, np.where(x > y, x, y)))
    hi = np.where((x == 0) & (y == 0), np.where(np.signbit(x), y, x), hi)
    hi_bits = np.where(np.isnan(x) & np.isnan(y), canon, bits(hi))
    lo = np.where((x == 0) & (y == 0), np.where(np.signbit(x), x, y), np.where(x < y, x, y))
    lo_bits = np.where(nan, canon, bits(lo))
    partner = a.view(np.uint16).astype(np.int64)[np.arange(n2) ^ 1]
    lanes = np.stack([flag(x == y), flag(x > y), flag((x != y) | nan), flag(np.isnan(x)),
                      hi_bits, lo_bits, partner], axis=1)          # (n2, 7, 2)
    h = (lanes[..., 0] | lanes[..., 1] << 16).astype(u32).ravel()
    mask = flag((x < y) | nan, 0xFFFF)
    both = ((x == y).all(1) * 1) | ((x > y).all(1) * 2) | ((x <= y).all(1) * 4)
    tid = np.arange(n2) % spec.block[0]
    u = np.stack([mask[:, 0] | mask[:, 1] << 16, both, 32 * 1000 + tid % 32], axis=1).astype(u32).ravel()
    return Ref({"a": a.ravel(), "b": b.ravel()}, {"h": h, "u": u})


def _gemm_case(rng, spec):
    m, n, k = spec.scalars["M"], spec.scalars["N"], spec.scalars["K"]
    a, b = small_ints(rng, -3, 3, m * k, f16), small_ints(rng, -3, 3, k * n, f16)
    c = (a.reshape(m, k).astype(f64) @ b.reshape(k, n).astype(f64)).astype(f32).ravel()
    return Ref({"A": a, "B": b}, {"C": c})


ref("wmma_gemm")(_gemm_case)
ref("mma_sync_m16n8k16")(_gemm_case)


# ---- vectors, shared memory, copies -----------------------------------------------------------------

@ref("vec4_scale")
def _vec4(rng, spec):
    a = f32(spec.scalars["a"])
    x = uniform(rng, -1, 1, spec.buffers["x"])
    v = x.reshape(-1, 4)
    y = np.stack([a * v[:, 0], a * v[:, 1], a * v[:, 2], v[:, 3] + v[:, 0]], 1).ravel()
    return Ref({"x": x}, {"y": y.astype(f32)})


@ref("dynamic_smem_reverse")
def _dyn_reverse(rng, spec):
    n = spec.scalars["n"]
    x = rng.integers(0, 10000, n).astype(i32)
    out = pad(x, threads(spec), -1).reshape(spec.grid[0], spec.block[0])[:, ::-1].ravel()[:n]
    return Ref({"in": x}, {"out": np.ascontiguousarray(out)})


@ref("async_copy_scale")
def _async_copy(rng, spec):
    n, a = spec.scalars["n"], f32(spec.scalars["a"])
    x = uniform(rng, -1, 1, n)
    out = a * pad(x, threads(spec)).reshape(spec.grid[0], spec.block[0])[:, ::-1].ravel()[:n]
    return Ref({"in": x}, {"out": out.astype(f32)})


@ref("strided_copy")
def _strided(rng, spec):
    n, stride = spec.scalars["n"], spec.scalars["stride"]
    x = uniform(rng, -1, 1, n)
    return Ref({"in": x}, {"out": x[(np.arange(n) * stride) % n]})


# ---- micro-benchmarks -----------------------------------------------------------------------------

@ref("fma_chain")
def _fma_chain(rng, spec):
    n, iters = spec.scalars["n"], spec.scalars["iters"]
    x = small_ints(rng, -8, 8, n * iters)
    acc = np.zeros(n)
    for k in range(iters):
        v = x[k * n:(k + 1) * n].astype(f64)
        for _ in range(8):
            acc = acc * 0.5 + v
    return Ref({"in": x}, {"out": acc.astype(f32)}, {"out": (1e-5, 1e-5)})


@ref("mix_alu_sfu")
def _mix(rng, spec):
    x = uniform(rng, -1, 1, spec.buffers["data"])
    v = x.astype(f64)
    for _ in range(spec.scalars["reps"]):
        for _ in range(4):
            v = v * f64(f32(0.999)) + f64(f32(0.001))
        v = np.cos(v)
    return Ref({"data": x}, {"data": v.astype(f32)}, {"data": (1e-5, 1e-5)})


@ref("iterative_barrier")
def _iter_barrier(rng, spec):
    x = uniform(rng, -1, 1, spec.buffers["data"])
    s = x.astype(f64).reshape(spec.grid[0], spec.block[0])
    for _ in range(spec.scalars["iters"]):
        s = 0.5 * s + 0.25 * np.roll(s, -1, axis=1)
    return Ref({"data": x}, {"data": s.ravel().astype(f32)}, {"data": (1e-5, 1e-6)})
