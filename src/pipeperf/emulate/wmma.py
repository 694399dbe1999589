"""WMMA (warp matrix multiply-accumulate, PTX ISA 9.0 sec. 9.7.14.4) and mma.sync m16n8k16.

WMMA forms emulated (shape: multiplicand type -> accumulator types):

* ``m16n16k16``, ``m32n8k16``, ``m8n32k16``: f16 -> f16 or f32 (C and D independently, so
  f32 C with f16 D and the reverse too), bf16 -> f32, s8/u8 -> s32 (``.satfinite`` clamps);
* ``m16n16k8``: tf32 -> f32; ``m8n8k4``: f64 -> f64 (``.rn``).

Other forms (sub-byte s4/u4/b1, e4m3/e5m2, float ``.satfinite``) are unsupported: they raise
when reached.

WMMA fragment layouts are opaque by specification (sec. 9.7.14.4: "the mapping of matrix
elements to fragment registers is unspecified"), so any layout that load, mma and store agree on
is faithful. Ours: a fragment of an R x C matrix holds E elements per lane, E from the ISA's
fragment tables (sec. 9.7.14.4, "Matrix fragments for WMMA"; what nvcc 13 declares): 16 for f16 A/B (8 .f16x2 registers,
whatever the shape), R*C/32 otherwise (f16 C/D 4 .f16x2; f32/s32 C/D 8; bf16, s8/u8, tf32 and
f64 A/B one 32nd of the matrix in 32-bit registers of 2, 4 or 1 elements, f64 in 64-bit ones).
Lane l holds the row-major flattened elements ``(l mod L) E .. (l mod L) E + E - 1`` with
L = R C / E lanes per copy (f16 A/B are held 2 or 4 times over, as the ISA's 8 registers
imply). So a 16x16 f16 A/B fragment of lane l is row l mod 16, a 16x16 accumulator of lane l
row l // 2, columns 8 (l mod 2) .. +7, and element i of an f16 and of an f32 accumulator of
the same shape is the same matrix element (code that converts one into the other element by
element stays right). Elements sit in their registers little-endian (element 2k in the low half
of f16x2 register k), as nvcc's ``mov.b32 {lo, hi}`` unpacks ``fragment::x``.

Numerics: products of f16/bf16/tf32 values are exact in f32; D = A B + C is computed in f32 and
rounded once to D's type (f16: round to nearest even), i.e. per ``wmma.mma``. tf32 multiplicands
are used as their tf32 bits (the low 13 mantissa bits of the 32-bit container dropped, which is
a no-op on values ``cvt.rna.tf32.f32`` made); integers are exact (int64) and wrap to s32, or
clamp with ``.satfinite``; f64 is computed in f64. ``wmma.mma`` gathers each warp's fragments
into matrices, so it needs whole, converged warps.
"""

from __future__ import annotations

import functools

import re

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.errors import EmulationError
from pipeperf.emulate.memops import _span, count_access, resolve, row_conflicts
from pipeperf.emulate.memory import LOCAL_BASE, SHARED_BASE
from pipeperf.emulate.operands import Unsupported, getter
from pipeperf.emulate.state import RAW
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Instruction, registers_in

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
U32 = np.dtype(np.uint32)

#: shape -> (M, N, K)
SHAPES = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16),
          "m16n16k8": (16, 16, 8), "m8n8k4": (8, 8, 4)}
#: element type -> bytes in memory (and in its register)
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "f32": 4, "s32": 4, "s8": 1, "u8": 1, "f64": 8}
#: shape -> the multiplicand types and their accumulator types (sec. 9.7.14.4, wmma.mma)
_K16_TYPES: dict[str, tuple[str, ...]] = {"f16": ("f16", "f32"), "bf16": ("f32",), "s8": ("s32",),
                                          "u8": ("s32",)}
FORMS: dict[str, dict[str, tuple[str, ...]]] = {
    "m16n16k16": _K16_TYPES, "m32n8k16": _K16_TYPES, "m8n32k16": _K16_TYPES,
    "m16n16k8": {"tf32": ("f32",)}, "m8n8k4": {"f64": ("f64",)}}


def _shape(x: Instruction) -> tuple[int, int, int]:
    shape = next((s for s in x.modifiers if s in SHAPES), None)
    if shape is None:
        got = next((s for s in x.modifiers if re.fullmatch(r"m\d+n\d+k\d+", s)), "?")
        raise Unsupported(f"{x.opcode} (WMMA shape {got} is not emulated, only "
                          f"{', '.join(SHAPES)})")
    return SHAPES[shape]


def _check_type(x: Instruction, t: str, acc: bool) -> None:
    shape = next(s for s in x.modifiers if s in SHAPES)
    ok = {a for v in FORMS[shape].values() for a in v} if acc else set(FORMS[shape])
    if t not in ok:
        what = "accumulator" if acc else "multiplicand"
        raise Unsupported(f"{x.opcode} ({t} {what}s are not emulated at {shape}, only "
                          f"{', '.join(sorted(ok))})")


def _dims(frag: str, mnk: tuple[int, int, int]) -> tuple[int, int]:
    """Rows and columns of a fragment's matrix: A M x K, B K x N, C/D M x N."""
    m, n, k = mnk
    return {"a": (m, k), "b": (k, n)}.get(frag, (m, n))


def fragment_kind(x: Instruction) -> tuple[str, int]:
    """(fragment, element bytes) of a ``wmma.load``/``wmma.store``: "a", "b" or "c" as the load
    names it, "d" for a store; 0 bytes for an element type this module does not know."""
    frag = x.modifiers[0] if x.op.root == "wmma.load" and x.modifiers else "d"
    return frag, ELEMENT_BYTES.get(x.types[0] if x.types else "", 0)


def fragment_bytes(x: Instruction) -> int | None:
    """Bytes a warp's ``wmma.load``/``wmma.store`` moves: its fragment's matrix (A M x K, B K x N,
    C/D M x N) times the element size; None for a form this module does not know."""
    shape = next((s for s in x.modifiers if s in SHAPES), None)
    frag, element = fragment_kind(x)
    if shape is None or not element or frag not in ("a", "b", "c", "d"):
        return None
    rows, cols = _dims(frag, SHAPES[shape])
    return rows * cols * element


def _per_lane(frag: str, t: str, rows: int, cols: int) -> int:
    """Elements of one lane's fragment (the ISA's tables): f16 A/B 16, else a 32nd of it."""
    return 16 if t == "f16" and frag in "ab" else rows * cols // 32


def _regs(op) -> list[str]:
    """A fragment operand's register names in order (ptx.ir.registers_in, the one walker)."""
    return [r.name for r in registers_in(op)]


def _reg_dtype(t: str) -> np.dtype:
    return RAW[8] if t == "f64" else U32


def _check_count(x: Instruction, names: list[str], frag: str, t: str, e: int) -> None:
    want = e * ELEMENT_BYTES[t] // _reg_dtype(t).itemsize
    if len(names) != want:
        raise PipeperfError(f"{x.opcode}: a {t} {frag} fragment has {want} registers, not "
                            f"{len(names)}", line=x.line)


def _elements(lane: np.ndarray, e: int, rows: int, cols: int):
    """(rows, cols) of each lane's fragment elements (module docstring), shape (n, e)."""
    flat = ((lane % (rows * cols // e)) * e)[:, None] + np.arange(e)[None, :]
    return flat // cols, flat % cols


@functools.lru_cache(maxsize=64)
def _lane_offsets(e: int, rows: int, cols: int, stride: int, col: bool) -> np.ndarray:
    """Element offsets (in elements) of lanes 0..31's fragment elements at a uniform ``stride``,
    shape (32, e): the same for every warp, so a load indexes it by lane instead of recomputing it."""
    r, c = _elements(np.arange(32), e, rows, cols)
    return (c * stride + r if col else r * stride + c).astype(np.int64)


def _access(m, x: Instruction, st, ix, addr_g, stride_g, frag: str, t: str, e: int,
            mnk, is_load: bool, full: bool = True):
    """(arena, element index per fragment element) of a load or store, counted; ``full=False``
    (the data is not moved): None once counted."""
    rows, cols = _dims(frag, mnk)
    col = "col" in x.modifiers
    size = ELEMENT_BYTES[t]
    space = x.space or "generic"
    base = np.asarray(addr_g(st, ix), np.uint64)
    stride = np.asarray(stride_g(st, ix) if stride_g else (rows if col else cols)).astype(np.int64)
    if not full and _counted_shared(m, x, st, ix, base, stride, e, rows, cols, col, size, space, is_load):
        return None
    lane = st.lane[ix]
    if stride.size and stride.min() == stride.max():     # uniform: one table for every warp
        el = _lane_offsets(e, rows, cols, int(stride.reshape(-1)[0]), col)[lane]
    else:
        r, c = _elements(lane, e, rows, cols)
        s = stride[..., None]
        el = c * s + r if col else r * s + c
    addr = np.broadcast_to(base, (G.size(ix),))[:, None] + (el * size).astype(np.uint64)
    flat = addr.reshape(-1)
    rep = np.repeat(G.as_array(ix), e)
    arena, bidx, sp = resolve(m, st, rep, flat, space, size, x)
    _note_line(m, x, space, sp, int(stride.reshape(-1)[0]) * size if stride.size else 0, len(rep))
    whole = _whole_warps(m, ix, size)
    conflicts = None
    if whole and sp == "shared" and m.memory and stride.size and stride.min() == stride.max():
        conflicts = _warp_rows_conflicts(base, G.size(ix) // 32, e, rows, cols, int(stride.reshape(-1)[0]), col, size)
    count_access(m, st, rep, flat, sp, size, is_load, rows=G.size(ix) // 32 if whole else None,
                 conflicts=conflicts, group=ix)
    return arena.view(RAW[size]), bidx // size


def _whole_warps(m, ix, size: int) -> bool:
    """``ix`` is whole warps, lanes 0..31 in order (a fragment row per warp), of elements <= 4 bytes."""
    return (type(ix) is slice and ix.start % 32 == 0 and G.size(ix) % 32 == 0 and m.block_threads % 32 == 0
            and size <= 4)


@functools.lru_cache(maxsize=64)
def _lane_span(e: int, rows: int, cols: int, stride: int, col: bool, size: int, warps: int) -> tuple[np.ndarray, int]:
    """Byte offset of each lane's lowest fragment element at a uniform ``stride`` for ``warps`` whole
    warps (uint64, read-only), and the highest element's byte offset of any lane."""
    el = _lane_offsets(e, rows, cols, stride, col)
    lo = np.tile(el.min(1) * size, warps).astype(np.uint64)
    lo.flags.writeable = False
    return lo, int(el.max()) * size


def _counted_shared(m, x: Instruction, st, ix, base, stride, e: int, rows: int, cols: int, col: bool,
                    size: int, space: str, is_load: bool) -> bool:
    """A shared-memory fragment access of whole warps at a uniform stride whose data is not moved
    (hybrid mode), checked and counted without its per-element addresses: True when done. The
    checks of :func:`resolve` (the generic window by the lowest address, alignment, the CTA's shared
    bytes) pass for every element exactly when they pass for each lane's lowest element and for the
    highest element of all (an element's offset is a multiple of its size); the bank conflicts come per warp from
    :func:`_row_table`. False (then the elements are resolved and counted one by one, which also
    raises the exact fault) when any condition does not hold."""
    if not (_whole_warps(m, ix, size) and space in ("shared", "generic") and stride.size
            and stride.min() == stride.max()):
        return False
    n, s = G.size(ix), int(stride.reshape(-1)[0])
    conflicts = _warp_rows_conflicts(base, n // 32, e, rows, cols, s, col, size) if m.memory else 0
    if conflicts is None:
        return False
    lo, hi = _lane_span(e, rows, cols, s, col, size, n // 32)
    low, top = base + lo, np.asarray(np.max(base) + np.uint64(hi), np.uint64)
    sp = "shared"
    if not _certainly_shared(m, low, int(top), space, size):
        try:   # every lane's lowest element (the window, alignment: an element's offset is a multiple of
            # its size), then the highest element of all (the end of the CTA's shared memory, in the same window)
            _, _, sp = resolve(m, st, ix, low, space, size, x, False)
            _, _, sp2 = resolve(m, st, ix, top, space, size, x, False)
        except EmulationError:
            return False
        if sp != "shared" or sp2 != "shared":
            return False
    _note_line(m, x, space, sp, s * size, n)
    count_access(m, st, ix, None, sp, size, is_load, conflicts=conflicts)
    return True


def _certainly_shared(m, low: np.ndarray, top: int, space: str, size: int) -> bool:
    """True when :func:`resolve`'s checks of the lanes' lowest elements ``low`` and the highest
    element ``top`` certainly pass in the shared space: every address in the shared window (for a
    generic access; SHARED_BASE is a multiple of 16, so alignment is the address's own), aligned,
    and within the CTA's shared bytes. One C pass over ``low`` (its least and greatest address and
    their OR) instead of resolve's ten NumPy passes; False (then resolve decides, and names any
    fault) where unsure."""
    if _span is None or low.dtype != np.uint64 or low.ndim != 1 or not low.size or not low.flags.c_contiguous:
        return False
    least, most, bits = _span(low, 0)
    if least < 0 or (bits | top) & (min(size, 16) - 1):
        return False
    if space == "generic":
        if not (least >= SHARED_BASE and most < LOCAL_BASE and SHARED_BASE <= top < LOCAL_BASE):
            return False
        most, top = most - SHARED_BASE, top - SHARED_BASE
    elif space != "shared":
        return False
    return max(most, top) + size <= m.layout.shared_bytes


def _note_line(m, x: Instruction, space: str, sp: str, row_bytes: int, n: int) -> None:
    """The line's resolved state space (generic accesses) and its row distance, for mapper g."""
    if getattr(m, "counters", None) is not None:
        if space == "generic":
            m.counters.resolved_spaces.setdefault(x.line, sp)
        rows = m.counters.wmma_row_bytes
        if x.line not in rows and n:          # the first warp's: once per line, not per execution
            rows[x.line] = row_bytes


@functools.lru_cache(maxsize=256)
def _row_table(e: int, rows: int, cols: int, stride: int, col: bool, size: int, low: int) -> int:
    """Bank conflicts of one warp's fragment request (:func:`memops.row_conflicts` of its row of
    32 x e words) at a base address of ``low`` mod 4 with a uniform ``stride``: adding a multiple
    of 4 bytes to every address rotates the banks and keeps the words distinct, so the count is
    the same for every warp of that base mod 4."""
    el = _lane_offsets(e, rows, cols, stride, col).reshape(1, -1)
    return row_conflicts(((el * size + low) >> 2).astype(np.uint64))


def _warp_rows_conflicts(base: np.ndarray, nw: int, e: int, rows: int, cols: int, stride: int, col: bool,
                         size: int) -> int | None:
    """Bank conflicts of ``nw`` whole warps' fragment requests at a uniform stride whose lanes share
    one base address per warp (as the ISA requires): each warp's count from :func:`_row_table` (equal
    to counting the rows); None when a warp's lanes disagree (then the rows are counted)."""
    if np.ndim(base) == 0:
        return nw * _row_table(e, rows, cols, stride, col, size, int(base) & 3)
    b = base.reshape(nw, 32)
    first = b[:, 0]
    if not (b == first[:, None]).all():
        return None
    lows = np.bincount((first & np.uint64(3)).astype(np.int64), minlength=4)
    return sum(int(n) * _row_table(e, rows, cols, stride, col, size, k) for k, n in enumerate(lows) if n)


def load(m, x: Instruction, full: bool = True):
    """wmma.load.{a,b,c}: each lane's fragment from its matrix in memory (row or column major);
    ``full=False``: only counted and logged (hybrid mode, the fragment outside the slice)."""
    mnk, frag, t = _shape(x), x.modifiers[0], x.types[0]
    _check_type(x, t, frag == "c")
    names = _regs(x.dsts[0])
    rows, cols = _dims(frag, mnk)
    e = _per_lane(frag, t, rows, cols)
    _check_count(x, names, frag, t, e)
    ag = m.layout.address(x.srcs[0], x.space or "generic")
    stride_g = getter(x.srcs[1], U32, m) if len(x.srcs) > 1 else None
    rdt = _reg_dtype(t)

    def h(st, ix):
        got = _access(m, x, st, ix, ag, stride_g, frag, t, e, mnk, True, full)
        if not full:
            return
        arena, idx = got
        raw = np.ascontiguousarray(arena[idx].reshape(-1, e)).view(rdt)
        for k, nme in enumerate(names):
            st.reg(nme, rdt)[ix] = raw[:, k]
    return h


def store(m, x: Instruction, full: bool = True):
    """wmma.store.d: each lane's accumulator fragment to its matrix in memory; ``full=False``: only
    counted and logged (hybrid mode: what it writes is outside the slice)."""
    mnk, t = _shape(x), x.types[0]
    _check_type(x, t, True)
    names = _regs(x.srcs[1])
    rows, cols = _dims("d", mnk)
    e = _per_lane("d", t, rows, cols)
    _check_count(x, names, "d", t, e)
    ag = m.layout.address(x.srcs[0], x.space or "generic")
    stride_g = getter(x.srcs[2], U32, m) if len(x.srcs) > 2 else None
    rdt = _reg_dtype(t)

    def h(st, ix):
        got = _access(m, x, st, ix, ag, stride_g, "d", t, e, mnk, False, full)
        if not full:
            return
        arena, idx = got
        raw = np.stack([st.reg(nme, rdt)[ix] for nme in names], axis=1)
        arena[idx.reshape(-1)] = np.ascontiguousarray(raw).view(arena.dtype).reshape(-1)
    return h


def _decode(raw: np.ndarray, t: str) -> np.ndarray:
    """Elements' raw bits as the numbers the tensor core multiplies (f32, f64 or int64)."""
    if t == "f16":
        return raw.view(F16).astype(F32)
    if t == "bf16":
        return (raw.astype(U32) << np.uint32(16)).view(F32)
    if t == "tf32":
        return (raw & np.uint32(0xFFFFE000)).view(F32)
    if t == "f32":
        return raw.view(F32)
    if t == "f64":
        return raw.view(F64)
    return raw.view({"s8": np.int8, "u8": np.uint8, "s32": np.int32}[t]).astype(np.int64)


def mma(m, x: Instruction):
    """wmma.mma: D = A B + C per warp (module docstring for the forms and numerics)."""
    mnk = _shape(x)
    d, a, b, c = (_regs(op) for op in (x.dsts[0], x.srcs[0], x.srcs[1], x.srcs[2]))
    if len(x.types) == 2:               # f16 multiplicands are implicit: .dtype.ctype
        td, tc = x.types
        ta = tb = "f16"
    elif len(x.types) == 4:             # .dtype.atype.btype.ctype
        td, ta, tb, tc = x.types
    else:
        raise Unsupported(f"{x.opcode} (types .{'.'.join(x.types)})")
    _check_type(x, ta, False)
    shape = next(s for s in x.modifiers if s in SHAPES)
    if tb != ta or td not in FORMS[shape][ta] or tc not in FORMS[shape][ta]:
        raise Unsupported(f"{x.opcode} ({ta}/{tb} multiplicands with {tc} C and {td} D are "
                          "not emulated)")
    sat = "satfinite" in x.modifiers
    if sat and td != "s32":
        raise Unsupported(f"{x.opcode} (.satfinite is emulated for integer WMMA only)")
    if td == "f64" and any(r in x.modifiers for r in ("rz", "rm", "rp")):
        raise Unsupported(f"{x.opcode} (only .rn f64 WMMA is emulated)")
    dims = {f: _dims(f, mnk) for f in "abc"}
    lanes = {f: _per_lane(f, t, *dims[f]) for f, t in (("a", ta), ("b", tb), ("c", tc))}
    for f, names, t in (("a", a, ta), ("b", b, tb), ("c", c, tc), ("d", d, td)):
        _check_count(x, names, f, t, lanes["c" if f == "d" else f])

    def h(st, ix):
        t = G.as_array(ix)
        if len(t) % 32 or np.any(st.lane[t] != np.tile(np.arange(32), len(t) // 32)):
            raise PipeperfError("wmma.mma needs all 32 lanes of each warp active",
                                line=x.line)
        nw = len(t) // 32

        def frag(names, f, ty):
            rdt = _reg_dtype(ty)
            raw = np.ascontiguousarray(np.stack([st.reg(n, rdt)[ix] for n in names], axis=1))
            el = raw.view(RAW[ELEMENT_BYTES[ty]]).reshape(nw, 32, lanes[f])
            rows, cols = dims[f]
            return _decode(el[:, :rows * cols // lanes[f], :].reshape(nw, rows, cols), ty)
        A, B, C = frag(a, "a", ta), frag(b, "b", tb), frag(c, "c", tc)
        if td == "s32":
            D = np.matmul(A, B) + C
            if sat:
                D = np.clip(D, -2**31, 2**31 - 1)
            out = (D & 0xFFFFFFFF).astype(np.uint32)
        elif td == "f64":
            out = (np.matmul(A, B) + C).view(np.uint64)
        else:
            D = np.matmul(A, B).astype(F32) + C.astype(F32)
            out = D.astype(F16 if td == "f16" else F32)
        raw = np.ascontiguousarray(out.reshape(nw * 32, -1)).view(_reg_dtype(td))
        for k, n in enumerate(d):
            st.reg(n, _reg_dtype(td))[ix] = raw[:, k]
    return h


def _lane_map():
    """Fragment coordinates of mma.m16n8k16 (PTX ISA 9.0, sec. 9.7.14.5.8, f16 A/B, f32 C/D):
    g = lane >> 2, t = lane & 3."""
    lane = np.arange(32)
    g, t = lane >> 2, lane & 3
    i8, i4 = np.arange(8), np.arange(4)
    a_row = g[:, None] + 8 * ((i8[None, :] >> 1) & 1)
    a_col = 2 * t[:, None] + (i8[None, :] & 1) + 8 * (i8[None, :] >= 4)
    b_row = 2 * t[:, None] + (i4[None, :] & 1) + 8 * (i4[None, :] >= 2)
    b_col = np.broadcast_to(g[:, None], (32, 4))
    c_row = g[:, None] + 8 * (i4[None, :] >= 2)
    c_col = 2 * t[:, None] + (i4[None, :] & 1)
    return a_row, a_col, b_row, b_col, c_row, c_col


def build_mma(m, x: Instruction):
    """mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 with the ISA's fragment layout."""
    if "m16n8k16" not in x.modifiers or x.types != ("f32", "f16", "f16", "f32") or \
            "row" not in x.modifiers or "col" not in x.modifiers:
        raise PipeperfError(f"{x.opcode}: only mma.m16n8k16.row.col.f32.f16.f16.f32 is emulated",
                            line=x.line)
    d, a, b, c = (_regs(op) for op in (x.dsts[0], x.srcs[0], x.srcs[1], x.srcs[2]))
    a_row, a_col, b_row, b_col, c_row, c_col = _lane_map()

    def h(st, ix):
        t = G.as_array(ix)
        if len(t) % 32 or np.any(st.lane[t] != np.tile(np.arange(32), len(t) // 32)):
            raise PipeperfError("mma.sync needs all 32 lanes of each warp active", line=x.line)
        nw = len(t) // 32
        w = np.arange(nw)[:, None, None]

        def halves(names, k):
            raw = np.stack([st.reg(n, np.dtype(np.uint32))[ix] for n in names], axis=1)
            return np.ascontiguousarray(raw).view(F16).reshape(nw, 32, k).astype(F32)
        A = np.zeros((nw, 16, 16), F32)
        A[w, a_row[None], a_col[None]] = halves(a, 8)
        B = np.zeros((nw, 16, 8), F32)
        B[w, b_row[None], b_col[None]] = halves(b, 4)
        C = np.zeros((nw, 16, 8), F32)
        C[w, c_row[None], c_col[None]] = np.stack(
            [st.reg(n, F32)[ix].view(F32) for n in c], axis=1).reshape(nw, 32, 4)
        D = (np.matmul(A, B) + C).astype(F32)
        out = D[w, c_row[None], c_col[None]].reshape(-1, 4)
        for k, n in enumerate(d):
            st.reg(n, F32)[ix] = out[:, k].view(np.uint32)
    return h
