"""Memory operations: ld, st, atom, red and cp.async, and what every access goes through.

:func:`resolve` turns a thread group's addresses into (arena, byte offsets) of their state
space, checked (alignment, the window of a generic address, the bounds of the buffer the
access must stay in, of shared, local and constant memory); :func:`count_access` keeps the
memory statistics (requests, 32-byte sectors, shared-memory bank conflicts). Handlers look
both up as module functions: no per-access indirection beyond the call.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from pipeperf.emulate import groups as G
from pipeperf.emulate.errors import EmulationError, HybridFallback
from pipeperf.emulate.memory import CONST_BASE, GLOBAL_BASE, LOCAL_BASE, SHARED_BASE, _bounds
from pipeperf.emulate.operands import Getter, Handler, Unsupported, getter, setter
from pipeperf.emulate.state import NP, RAW, State
from pipeperf.hardware import request_scan
from pipeperf.hardware.request_scan import warp_sectors as _warp_sectors
from pipeperf.ptx.cuda_names import base_name
from pipeperf.ptx.ir import TYPE_BYTES, Instruction, Sink, Symbol, Vector

_U64 = np.dtype(np.uint64)
#: a global access's (least offset, greatest offset, OR of the addresses) in one C pass, or None
_span = _bounds.span if _bounds is not None else None


def load_store(x: Instruction, m: Any, full: bool) -> Handler:
    """ld, st, atom, red: ``full=False`` (hybrid mode, data not in the slice) resolves, checks and
    counts the access but moves no data (a skipped store taints its bytes)."""
    r = x.root
    space = x.space or "generic"
    t = x.types[-1]
    dt = NP[t] if t in NP else RAW[TYPE_BYTES[t]]
    esz = dt.itemsize
    vec = 1
    for mm in x.modifiers:
        if mm in ("v2", "v4", "v8"):
            vec = int(mm[1:])
    if r == "ld":
        addr_op, data_op = x.srcs[0], x.dsts[0]
    elif r == "st":
        addr_op, data_op = x.dsts[0] if x.dsts else x.srcs[0], x.srcs[-1]
        if not x.dsts:
            addr_op = x.srcs[0]
    else:
        addr_op = x.srcs[0]
        data_op = None
    if space == "param":
        return _parameter(x, m, addr_op, data_op, dt)
    ag = m.layout.address(addr_op, space)
    items = data_op.items if type(data_op) is Vector else (data_op,)
    nbytes = esz * vec
    is_load = r == "ld"
    if r == "ld":
        sets = [setter(it, dt) for it in items] if full else None
    elif r == "st":
        gets = [getter(it, dt, m) for it in items] if full else None
    else:
        return _atomic(x, m, ag, dt, space, full)
    signed_small = dt.kind == "i" and esz < 4
    shift = esz.bit_length() - 1

    def h(st, ix):
        addr = np.asarray(ag(st, ix), np.uint64)
        arena, bidx, sp = resolve(m, st, ix, addr, space, nbytes, x, full, full or not is_load)
        count_access(m, st, ix, addr, sp, nbytes, is_load)
        if st.traced_any:
            m.counters.record_addresses(st, ix, addr)
        if not full:
            if not is_load:
                arena.taint(bidx, nbytes)
            return
        if is_load:
            if arena.dirty(bidx, nbytes):
                raise HybridFallback()
        else:
            arena.clean(bidx, nbytes)
        v = arena.view(dt)
        e = bidx >> shift
        if is_load:
            for k, s in enumerate(sets):
                val = v[e + k]
                s(st, ix, val.astype(np.int32) if signed_small else val)
        else:
            for k, g in enumerate(gets):
                v[e + k] = g(st, ix)
    return h



def _parameter(x: Instruction, m: Any, addr_op, data_op, dt: np.dtype) -> Handler:
    """ld/st of the .param space: a kernel parameter's load reads constant bytes (.v2/.v4: a
    by-value struct's fields); call-sequence parameters are per-thread storage."""
    r, esz = x.root, dt.itemsize
    if r == "ld" and type(addr_op.base) is Symbol and addr_op.base.name in m.layout.param_off:
        o = m.layout.param_off[addr_op.base.name] + addr_op.offset
        items = data_op.items if type(data_op) is Vector else (data_op,)
        vals = np.frombuffer(bytes(m.layout.param_bytes[o:o + esz * len(items)]), dt)
        pairs = [(setter(it, dt), vals[k]) for k, it in enumerate(items) if type(it) is not Sink]

        def h(st, ix):
            for dst, val in pairs:
                dst(st, ix, val)
        return h
    key = (addr_op.base.name, addr_op.offset)
    if r == "st":
        g = getter(data_op, dt, m)

        def h(st, ix):
            st.param_store(key, dt)[ix] = np.asarray(g(st, ix), dt).view(RAW[esz])
        return h
    dst = setter(data_op, dt)
    return lambda st, ix: dst(st, ix, st.param_store(key, dt)[ix].view(dt))


def resolve(m: Any, st: State, ix, addr, space: str, nbytes: int, x: Instruction,
            touch: bool = True, index: bool = True):
    """(arena, byte index per thread, resolved space) for an access, checked; with ``touch``
    the generated input bytes a global access reaches are made first (an access whose data
    is not emulated, as hybrid mode's skipped ones, passes False). ``index=False``: a shared
    access's byte indices are not wanted (a hybrid-mode load only counted: None is returned)."""
    if space == "generic":
        a0 = int(np.min(addr)) if np.size(addr) else GLOBAL_BASE
        if a0 >= GLOBAL_BASE:
            space = "global"
        elif SHARED_BASE <= a0 < LOCAL_BASE:
            space, addr = "shared", addr - np.uint64(SHARED_BASE)
        elif LOCAL_BASE <= a0 < CONST_BASE:
            space, addr = "local", addr - np.uint64(LOCAL_BASE)
        elif a0 >= CONST_BASE:
            space, addr = "const", addr - np.uint64(CONST_BASE)
        else:                        # below every window: a null or non-pointer value
            fault(m, st, ix, int(np.argmin(addr)), a0, "generic access outside every state "
                        "space's window (a null or not a generic pointer)", x)
    addr = np.broadcast_to(addr, (G.size(ix),)) if np.ndim(addr) == 0 else addr
    amask = np.uint64(min(nbytes, 16) - 1)
    # a global access of plain lanes: range and alignment in one C pass (the same values)
    # and a shared one's alignment and greatest offset (a plain lane array: one pass)
    pre = _span(addr, GLOBAL_BASE if space == "global" else 0) if _span is not None and \
        (space == "global" or space == "shared") and type(addr) is np.ndarray and addr.dtype == _U64 and \
        addr.ndim == 1 and addr.size and addr.flags.c_contiguous else None
    if amask and (np.any(addr & amask) if pre is None else pre[2] & int(amask)):
        bad = int(np.flatnonzero(addr & amask)[0])
        fault(m, st, ix, bad, int(addr[bad]), f"misaligned {nbytes}-byte {space} access", x)
    if space in ("global",):
        off = _i64(addr) - GLOBAL_BASE
        lo, hi = (int(off.min()), int(off.max())) if pre is None else (pre[0], pre[1])
        own = m.layout.own.get(id(x))
        if m.gmem.oob_sinks:
            off = _sink_out_of_bounds(m, off, lo, hi, nbytes, own, x)
            lo, hi = int(off.min()), int(off.max())
        elif own is not None and (lo < own[0] or hi + nbytes > own[1]):
            bad = int(np.flatnonzero((off < own[0]) | (off + nbytes > own[1]))[0])
            fault(m, st, ix, bad, int(addr[bad]),
                        f"out-of-bounds global access of {nbytes} bytes: {own[2]} has {own[1] - own[0]} "
                        f"bytes and this access reaches its bytes [{lo - own[0]}, {hi + nbytes - own[0]}) "
                        "(--oob warn goes on, counting such accesses)",
                        x)
        if own is None and not m.gmem.oob_sinks and not m.gmem.span_ok(lo, hi, nbytes) and \
                not (ok := m.gmem.check(off, nbytes)).all():
            bad = int(np.flatnonzero(~ok)[0])
            fault(m, st, ix, bad, int(addr[bad]),
                        f"out-of-bounds global access of {nbytes} bytes "
                        f"(nearest: {m.gmem.owner(int(off[bad]))}; --oob warn goes on, counting such accesses)", x)
        if touch:
            m.gmem.touch(off, nbytes, lo, hi)
        return m.gmem.arena, off, "global"
    if space == "shared":
        off = _i64(addr)
        if (int(off.max()) if pre is None else pre[1]) + nbytes > m.layout.shared_bytes:
            bad = int(np.flatnonzero(off + nbytes > m.layout.shared_bytes)[0])
            fault(m, st, ix, bad, int(addr[bad]),
                        f"out-of-bounds shared access (CTA has {m.layout.shared_bytes} bytes)", x)
        return m.smem, (st.smem_base[ix] + off) if index else None, "shared"
    if space == "local":
        off = _i64(addr)
        if not st.top:
            raise EmulationError("local memory in device functions is not emulated",
                                 file=m.file, line=x.line)
        ok = off + nbytes <= m.layout.local_bytes
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            fault(m, st, ix, bad, int(addr[bad]), "out-of-bounds local access", x)
        return m.lmem, st.tix[ix] * m.layout.local_bytes + off, "local"
    if space == "const":
        off = _i64(addr)
        ok = off + nbytes <= len(m.layout.const.bytes)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            fault(m, st, ix, bad, int(addr[bad]), "out-of-bounds const access", x)
        return m.layout.const, off, "const"
    raise EmulationError(f"{x.opcode}: state space {space} not supported",
                         file=m.file, line=x.line)

#: PTX roots whose out-of-bounds global accesses read (from the zero sink) under --oob warn
_READS = frozenset(("ld", "ldu", "cp", "prefetch", "tex", "tld4"))


def _sink_out_of_bounds(m: Any, off: np.ndarray, lo: int, hi: int, nbytes: int, own, x: Instruction) -> np.ndarray:
    """``--oob warn``: the lanes' offsets with those out of bounds (of the instruction's own buffer
    where known, else of every allocation) sent to a sink, counted per PTX line
    (``counters.out_of_bounds``: [loads, stores]); a real GPU reads whatever lies there."""
    if own is not None:
        if lo >= own[0] and hi + nbytes <= own[1]:
            return off
        bad = (off < own[0]) | (off + nbytes > own[1])
    else:
        if m.gmem.span_ok(lo, hi, nbytes):
            return off
        bad = ~m.gmem.check(off, nbytes)
        if not bad.any():
            return off
    load = x.root in _READS
    row = m.counters.out_of_bounds.setdefault(x.line, [0, 0])
    row[0 if load else 1] += int(bad.sum())
    return np.where(bad, m.gmem.sink(load), off)


def fault(m: Any, st: State, ix, k: int, addr: int, what: str, x: Instruction) -> NoReturn:
    """Raise the fault of thread ``k`` of ``ix`` at ``addr``, naming its thread and block."""
    t = int(G.as_array(ix)[k]) if G.size(ix) else 0
    local, tid = divmod(int(st.tix[t]), m.block_threads)
    blk = int(m._batch_ctas[local])
    bx, by, bz = unflat(blk, m.launch.grid)
    tx, ty, tz = unflat(tid, m.launch.block)
    raise EmulationError(f"kernel {base_name(m.kernel.name)}: {what} at address {addr:#x} by thread "
                         f"({tx},{ty},{tz}) of block ({bx},{by},{bz}) in `{x}`",
                         file=m.file, line=x.line)


def count_access(m: Any, st: State, ix, addr, space: str, nbytes: int, is_load: bool,
                 rows: int | None = None, conflicts: int | None = None, group=None) -> None:
    """Requests, sectors and bank conflicts of one access (when memory statistics are kept);
    ``rows``: ``addr`` holds that many whole warps' requests of equal width, warp after warp
    (a wmma fragment's elements of full warps: bank conflicts row by row, no sort by warp);
    ``conflicts``: a shared access's bank conflicts when the caller knows them; ``group``: the
    threads whose warps make the requests when ``ix`` repeats them (a fragment's elements)."""
    if not m.memory:
        return
    c = m.counters
    reqs = ix if group is None else group
    if space == "global":
        w = st.wid[ix]
        if _warp_sectors is not None and type(addr) is np.ndarray and addr.dtype == _U64 and \
                addr.shape == w.shape and addr.flags.c_contiguous and w.flags.c_contiguous:
            n = _warp_sectors(w, addr, nbytes)          # in C: the same count, one call
        else:
            n = _warp_sector_count(w, addr, nbytes)
        req = G.count_warps(st.wid, reqs)
        if is_load:
            c.global_load_requests += req
            c.global_load_sectors += n
        else:
            c.global_store_requests += req
            c.global_store_sectors += n
    elif space == "shared":
        if conflicts is None and not m.bank_counts:
            conflicts = 0                   # (not asked for: analyze reads mapper g's wavefronts)
        elif conflicts is None:
            conflicts = bank_conflicts(m, st, ix, addr, nbytes) if rows is None else \
                row_conflicts((addr >> np.uint64(2)).reshape(rows, -1))
        c.shared_bank_conflicts += conflicts
        req = G.count_warps(st.wid, reqs)
        c.shared_requests += req
        if is_load:
            c.shared_load_requests += req
        else:
            c.shared_store_requests += req
    elif space == "local":
        c.local_requests += G.count_warps(st.wid, reqs)


def _warp_sector_count(w: np.ndarray, addr: np.ndarray, nbytes: int) -> int:
    """The distinct (warp, 32-byte sector) pairs of lanes of warps ``w`` at ``addr``, a lane
    touching the sectors of its first and last byte (NumPy; ``hardware.request_scan.warp_sectors``
    is the same count in C)."""
    first = addr >> np.uint64(5)
    last = (addr + np.uint64(nbytes - 1)) >> np.uint64(5)
    key = (w.astype(np.uint64) << np.uint64(40)) | (first & np.uint64((1 << 40) - 1))
    n = _distinct(key)
    if np.any(last != first):
        key2 = (w.astype(np.uint64) << np.uint64(40)) | (last & np.uint64((1 << 40) - 1))
        n = _distinct(np.concatenate((key, key2)))
    return n


def copy_async(x: Instruction, m: Any, full: bool) -> Handler:
    """cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size]: done at once
    (a global load and a shared store; bytes past src-size are zero). The traced warps' source
    addresses are logged as a load's (mapper g analyses the copy as a global load of cp-size
    bytes per lane); the shared destination's addresses are not logged."""
    dst_g, src_g = m.layout.address(x.srcs[0], "shared"), m.layout.address(x.srcs[1], "global")
    size = int(x.srcs[2].value)
    src_size = int(x.srcs[3].value) if len(x.srcs) > 3 and hasattr(x.srcs[3], "value") \
        else size
    dt = RAW[size] if size in RAW else np.dtype(np.uint32)
    n = size // dt.itemsize
    shift = dt.itemsize.bit_length() - 1

    def h(st, ix):
        sa = np.asarray(src_g(st, ix), np.uint64)
        da = np.asarray(dst_g(st, ix), np.uint64)
        garena, gb, gsp = resolve(m, st, ix, sa, "global", size, x, full)
        sarena, sb, ssp = resolve(m, st, ix, da, "shared", size, x)
        count_access(m, st, ix, sa, gsp, size, True)
        count_access(m, st, ix, da, ssp, size, False)
        if st.traced_any:                   # the global source, as a load's (mapper g); the
            m.counters.record_addresses(st, ix, sa)     # shared destination is not logged
        if not full:
            return
        gv, sv = garena.view(dt), sarena.view(dt)
        ge, se = gb >> shift, sb >> shift
        for k in range(n):
            if (k + 1) * dt.itemsize <= src_size:
                sv[se + k] = gv[ge + k]
            else:
                sv[se + k] = 0
    return h


def bank_conflicts(m: Any, st: State, ix, addr, nbytes: int) -> int:
    """Extra shared-memory wavefronts: per warp request, the most distinct 4-byte words
    mapped to one of the 32 banks, minus one (32 banks x 4 bytes; source: CUDA C
    Programming Guide, "Shared Memory" of compute capability 5.x+)."""
    words = addr >> np.uint64(2)
    k = max(1, nbytes // 4)
    if np.ndim(words) == 0:
        return 0  # one word for the whole warp: a broadcast
    n = G.size(ix)
    if (type(ix) is slice and ix.start % 32 == 0 and n % 32 == 0
            and m.block_threads % 32 == 0 and np.ndim(words) == 1):
        W = words.reshape(n // 32, 32)
        p = m.block_threads // 32
        if len(W) > p and len(W) % p == 0 and ix.start % m.block_threads == 0 and \
                (W.reshape(-1, p, 32) == W[:p]).all():     # every CTA's requests alike (a sum over rows)
            return len(W) // p * bank_conflicts(m, st, slice(ix.start, ix.start + 32 * p), addr[:32 * p], nbytes)
        if request_scan.AVAILABLE:                  # in C: the k words of each lane at once
            return request_scan.row_bank_conflicts(W, k)
        if k > 1:
            W = np.concatenate([W + np.uint64(j) for j in range(k)], axis=1)
        return row_conflicts(W)
    w = st.wid[ix]
    starts, _ = G.segments(w)
    span = np.maximum.reduceat(words, starts) - np.minimum.reduceat(words, starts)
    if np.all(span < np.uint64(32 - (k - 1))):
        return 0
    wd = np.concatenate([words + np.uint64(j) for j in range(k)]) if k > 1 else words
    ww = np.tile(w, k) if k > 1 else w
    key = np.unique((ww.astype(np.uint64) << np.uint64(32)) | (wd & np.uint64(0xFFFFFFFF)))
    bank = (key & np.uint64(31)) | ((key >> np.uint64(32)) << np.uint64(5))
    ub, cnt = np.unique(bank, return_counts=True)
    starts, _ = G.segments(ub >> np.uint64(5))
    ways = np.maximum.reduceat(cnt, starts) if len(starts) else np.empty(0, np.int64)
    return int(np.sum(ways - 1))


def row_conflicts(W: np.ndarray) -> int:
    """:func:`bank_conflicts` of requests given as rows of 4-byte word addresses (one row per warp
    request, any width: a wmma fragment's row holds every element of the warp's 32 lanes); in C
    where the extension is built (:func:`~pipeperf.hardware.request_scan.row_bank_conflicts`)."""
    if request_scan.AVAILABLE:
        return request_scan.row_bank_conflicts(W)
    span = W.max(1) - W.min(1)
    narrow = span < np.uint64(32)  # words within 32 consecutive: distinct banks
    if narrow.all():
        return 0
    W = W[~narrow]
    nw = len(W)
    lo = W.min(1) & ~np.uint64(31)
    rel = (W - lo[:, None]).astype(np.int64)    # bank = rel mod 32: lo is a multiple of 32 words
    width = -(-(int(rel.max()) + 1) // 32) * 32
    if nw * width <= max(1 << 16, 16 * W.size):   # rows of few words: mark them, no sort
        rel += (np.arange(nw, dtype=np.int64) * width)[:, None]
        marks = np.zeros(nw * width, np.uint8)
        marks[rel.reshape(-1)] = 1
        return int(marks.reshape(nw, width // 32, 32).sum(1, dtype=np.int32).max(1).sum()) - nw
    S = np.sort(W, axis=1)
    distinct = np.ones(S.shape, bool)
    distinct[:, 1:] = S[:, 1:] != S[:, :-1]
    bank = (S & np.uint64(31)).astype(np.int64) + 32 * np.arange(nw)[:, None]
    cnt = np.bincount(bank[distinct], minlength=nw * 32).reshape(nw, 32).max(1)
    return int(np.sum(cnt - 1))


#: atomic operations on one element, applied lane by lane in thread order where lanes conflict:
#: (current value, operand a, operand b of cas) -> new value
ATOMIC = {
    "add": lambda cur, a, b: cur + a,
    "inc": lambda cur, a, b: 0 if cur >= a else cur + 1,
    "dec": lambda cur, a, b: a if (cur == 0 or cur > a) else cur - 1,
    "min": lambda cur, a, b: min(cur, a),
    "max": lambda cur, a, b: max(cur, a),
    "exch": lambda cur, a, b: a,
    "cas": lambda cur, a, b: b if cur == a else cur,
    "and": lambda cur, a, b: cur & a,
    "or": lambda cur, a, b: cur | a,
    "xor": lambda cur, a, b: cur ^ a,
}


def _atomic(x: Instruction, m: Any, ag: Getter, dt: np.dtype, space: str, full: bool) -> Handler:
    """atom (returns the old value) and red; an integer add is one segmented sum."""
    op = next((mm for mm in x.modifiers if mm in ATOMIC), None)
    if op is None:
        raise Unsupported(x.opcode)
    update = ATOMIC[op]
    gets = [getter(s, dt, m) for s in x.srcs[1:]]
    dst = setter(x.dsts[0], dt) if x.root == "atom" else None
    esz = dt.itemsize
    integer_add = op == "add" and dt.kind in "iu"

    def h(st, ix):
        addr = np.asarray(ag(st, ix), np.uint64)
        arena, bidx, sp = resolve(m, st, ix, addr, space, esz, x, full)
        count_access(m, st, ix, addr, sp, esz, False)
        m.counters.atomics += G.count_warps(st.wid, ix)
        if st.traced_any:
            m.counters.record_addresses(st, ix, addr)
        if not full:
            arena.taint(bidx, esz)
            return
        if arena.dirty(bidx, esz):
            raise HybridFallback()
        v = arena.view(dt)
        e = np.broadcast_to(bidx // esz, (G.size(ix),))
        vals = [np.broadcast_to(np.asarray(g(st, ix), dt), (G.size(ix),)) for g in gets]
        if integer_add:
            old = _add_in_order(v, e, vals[0], dt)
        else:
            old = np.empty(len(e), dt)
            a, b = vals[0], vals[1] if len(vals) > 1 else None
            for k in range(len(e)):  # conflicting atomics in thread order
                i = e[k]
                cur = v[i]
                old[k] = cur
                v[i] = update(cur, a[k], b[k] if b is not None else None)
        if dst is not None:
            dst(st, ix, old)
    return h


def _add_in_order(v: np.ndarray, e: np.ndarray, vals: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Integer atomic adds of ``vals`` to elements ``e`` of ``v`` as if lane by lane in thread
    order: the old values each lane sees (a segmented running sum), ``v`` updated."""
    old = np.empty(len(e), dt)
    order = np.argsort(e, kind="stable")
    es, vs = e[order], vals[order].astype(np.int64)
    starts, lengths = G.segments(es)
    csum = np.cumsum(vs)
    before = csum - vs
    seg_base = np.repeat(before[starts], lengths)
    o = v[es].astype(np.int64) + (before - seg_base)
    old[order] = o.astype(dt)
    tot = np.add.reduceat(vs, starts) if len(starts) else vs
    v[es[starts]] = (v[es[starts]].astype(np.int64) + tot).astype(dt)
    return old


def _i64(addr: np.ndarray) -> np.ndarray:
    return addr.view(np.int64) if addr.dtype == np.uint64 else addr.astype(np.int64)


def _distinct(key: np.ndarray) -> int:
    if len(key) == 0:
        return 0
    d = np.diff(key.astype(np.int64) if key.dtype != np.int64 else key)
    if np.all(d >= 0) if len(d) else True:
        return 1 + int(np.count_nonzero(d))
    return len(np.unique(key))


def unflat(i: int, dims) -> tuple[int, int, int]:
    x = i % dims[0]
    y = (i // dims[0]) % dims[1]
    z = i // (dims[0] * dims[1])
    return x, y, z
