"""The SIMT machine: runs a kernel over batches of whole CTAs, grouping threads by PC.

Scheduling (why it reconverges): every thread has a PC; the machine always runs
the lowest pending PC for *all* threads waiting there, so threads that split at
a branch meet again where the paths join (the immediate post-dominator in
nvcc's block layout), and each instruction costs one vectorised NumPy
operation however many warps execute it. Warp-level counts are the number of
distinct warps among those threads. ``bar.sync`` holds a CTA's threads until
all its live threads have arrived.
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from pipeperf.util.progress import progress
from pipeperf.emulate import groups as G
from pipeperf.emulate.counters import Counters
from pipeperf.emulate.launch import GeneratedBuffer
from pipeperf.emulate.memory import (CONST_BASE, GLOBAL_BASE, LOCAL_BASE, MAX_ARENA,
                                     SHARED_BASE, Arena, GlobalMemory)
from pipeperf.emulate.ops import Unsupported, compile_instruction, getter, setter
from pipeperf.emulate.state import NP, RAW, State
from pipeperf.errors import PipeperfError
from pipeperf.ptx.cuda_names import base_name
from pipeperf.ptx.ir import (TYPE_BYTES, Address, Function, Instruction, Module,
                             ParamList, Register, Sink, Symbol, Vector)

OP, BRA, EXIT, BAR, CALL, RET, BRX = range(7)
MAX_THREADS = 1 << 31
ADDRESS_MASK = {w: (1 << w) - 1 for w in (8, 16, 32, 64)}  # by address width in bits
MEMORY_ROOTS = ("ld", "st", "atom", "red", "cp.async", "wmma.load", "wmma.store")  # refuse launches that could not finish in reasonable time


#: a kernel's constant bank: 64 KiB (CUDA C Programming Guide, "Device Memory Accesses: Constant Memory")
CONST_BYTES = 64 << 10


class EmulationError(PipeperfError):
    pass


class HybridFallback(Exception):
    """A needed load read bytes a skipped store wrote: rerun with the conservative slice."""


class Program:
    """A function compiled to handlers; ``kind[i]`` says how the loop treats instruction i."""

    def __init__(self, m: "Machine", func: Function, needed: set[int] | None):
        self.func = func
        ins = func.instructions
        self.n = len(ins)
        self.kind: list[int] = []
        self.handler: list[Any] = []
        self.target: list[int] = []
        self.guard: list[Any] = []
        self.emulated = np.zeros(self.n, bool)
        for i, x in enumerate(ins):
            r = x.root
            tgt = -1
            if r == "bra":
                k = BRA
                tgt = func.labels[x.srcs[0].name]
            elif r == "brx":
                k = BRX
                table = func.branch_tables.get(x.srcs[1].name) if len(x.srcs) > 1 else None
                if table is None:
                    h_ = _raiser(m, x, f"brx.idx table {x.srcs[1] if len(x.srcs) > 1 else '?'} "
                                       f"is not a .branchtargets list of this function")
                    self.brx_tables = getattr(self, "brx_tables", {})
                    self.brx_tables[i] = h_
                else:
                    self.brx_tables = getattr(self, "brx_tables", {})
                    self.brx_tables[i] = (x.srcs[0].name, np.array([func.labels[t] for t in table]))
            elif r in ("exit", "trap"):
                k = EXIT
            elif r == "ret":
                k = RET if func.kind == "func" else EXIT
            elif r in ("bar", "barrier") and "warp" not in x.modifiers:
                k = BAR
            elif r == "call":
                k = CALL
            else:
                k = OP
            self.kind.append(k)
            self.target.append(tgt)
            self.guard.append(None if x.guard is None else (x.guard.name, x.guard_neg))
            h = None
            if k == OP and (needed is None or i in needed or
                            (x.root in MEMORY_ROOTS and m.memory)):
                try:
                    h = m.compile(x, full=needed is None or i in needed)
                except Unsupported as exc:
                    why = str(exc)
                    why = why[len(x.opcode):].strip() if why.startswith(x.opcode) else f"({why})"
                    why = f" {why}" if why else ""
                    h = _raiser(m, x, f"unsupported instruction {x.opcode}{why}")
                except PipeperfError as exc:
                    if exc.line is not None:
                        raise
                    raise PipeperfError(f"kernel {m.kernel.name}: {x.opcode}: {exc.message}", file=m.file,
                                        line=x.line) from None
                except (IndexError, AttributeError, TypeError, KeyError, ValueError, StopIteration) as exc:
                    # operands of a shape the builder cannot take (a missing destination, an
                    # immediate where a register or address belongs): ptxas would refuse the file
                    raise PipeperfError(f"kernel {m.kernel.name}: cannot emulate this {x.opcode}: its operands "
                                        f"are not what it takes ({type(exc).__name__})",
                                        file=m.file, line=x.line) from None
                self.emulated[i] = needed is None or i in needed
            elif k != OP:
                self.emulated[i] = needed is None or k in (BRA, BRX, CALL) or x.guard is not None
            self.handler.append(h)


def _raiser(m, x: Instruction, msg: str):
    def h(st, ix):
        raise EmulationError(f"kernel {m.kernel.name}: {msg}", file=m.file, line=x.line)
    return h


class Machine:
    """One kernel launch. ``mode`` is ``full`` or ``hybrid``."""

    def __init__(self, module: Module, kernel: Function, launch, mode: str = "full",
                 max_steps: int = 10_000_000, batch_threads: int = 1 << 18,
                 file: str | None = None, trace_warps: int = 0, memory: bool = True,
                 optimistic: bool = False, trace: np.ndarray | None = None,
                 ctas: np.ndarray | None = None, trace_cap: int | None = None, fast_loops: bool = False):
        """``trace``: sorted launch-wide warp ids to trace (default: the first ``trace_warps``);
        ``ctas``: sorted CTA linear indices to emulate (default: all), the rest are skipped.
        ``trace_cap``: entries kept per traced warp (the rest are executed and counted only).
        ``fast_loops``: jump over the iterations of periodic loops (:mod:`pipeperf.emulate.loops`)."""
        self.module, self.kernel, self.launch, self.mode = module, kernel, launch, mode
        self.file = file or module.file
        self.max_steps = max_steps
        wpc = (launch.threads_per_block + 31) // 32
        if trace is None:
            trace = np.arange(min(int(trace_warps), launch.num_blocks * wpc), dtype=np.int64)
        self.trace_ids = np.asarray(trace, np.int64)
        self.trace_warps = len(self.trace_ids)
        self.ctas = None if ctas is None else np.asarray(ctas, np.int64)
        self.memory = memory or mode == "full"  # False: memory statistics are not collected
        # optimistic hybrid: loads in the slice do not pull every store in; skipped stores
        # poison their bytes and a needed load of a poisoned byte aborts (HybridFallback)
        tensor = any(x.root in ("wmma.load", "wmma.store", "wmma.mma", "mma", "cp.async")
                     for f in module.functions for x in f.instructions)
        # (skipped stores can only poison bytes when their addresses are computed: memory)
        self.optimistic = optimistic and mode == "hybrid" and not tensor and memory
        self.counters = Counters(trace_cap, self.trace_ids)
        self.counters.trace.cap = trace_cap
        from pipeperf.emulate.loops import LoopSkipper

        self.loops = LoopSkipper(self) if fast_loops else None
        B = launch.threads_per_block
        if B > 1024:
            raise PipeperfError(f"block of {B} threads exceeds the CUDA limit of 1024")
        self.block_threads = B
        emulated = launch.num_blocks if self.ctas is None else len(self.ctas)
        total = B * emulated
        if total > MAX_THREADS:                  # only what is emulated counts: a sample of a huge grid is fine
            raise PipeperfError(f"{emulated} emulated blocks x {B} threads = {total} "
                                f"threads exceeds the emulator's limit of {MAX_THREADS}")
        self.cta_per_batch = max(1, batch_threads // B)
        self.gmem = GlobalMemory()
        self._layout()
        self._own = self._access_buffers()
        self.programs: dict[str, Program] = {}
        needed = None
        if mode == "hybrid":
            from pipeperf.emulate.hybrid import needed_instructions
            needed = needed_instructions(kernel, memory, self.optimistic)
        elif mode != "full":
            raise PipeperfError(f"unknown mode {mode!r} (full, hybrid)")
        self.programs[kernel.name] = Program(self, kernel, needed)

    # ------------------------------------------------------------------ layout
    def _aggregate_bytes(self, p, v, size: int, label: str) -> bytes:
        """The bytes of a by-value aggregate parameter (``.param .align 8 .b8 s[56]``: a struct):
        an array of exactly ``size`` bytes (e.g. ``zeros:u8:56`` or a .npy of the struct); a
        number is refused rather than packed into the first byte."""
        decl = f".param .{p.type} {p.name}" + "".join(f"[{d}]" for d in p.dims)
        where = f"parameter {label} of {base_name(self.kernel.name)}"
        if isinstance(v, (np.ndarray, GeneratedBuffer)):
            raw = np.ascontiguousarray(np.asarray(v)).tobytes()
            if len(raw) == size:
                return raw
            raise PipeperfError(f"{where} is a {size}-byte value passed by "
                                f"value ({decl}): got {len(raw)} bytes; give exactly {size} (e.g. "
                                f"zeros:u8:{size}, or a .npy file of the struct's bytes)", file=self.file)
        raise PipeperfError(f"{where} is a {size}-byte struct or array passed "
                            f"by value ({decl}), not a number: give its {size} bytes (e.g. zeros:u8:{size}, "
                            "or a .npy file of the struct's bytes)", file=self.file)

    def _layout(self) -> None:
        L = self.launch
        self.sym: dict[str, tuple[str, int]] = {}
        # kernel parameters: bytes, pointers become device addresses
        self.param_bytes = bytearray()
        self.param_off: dict[str, int] = {}
        self.buffers: list[tuple[int, int, np.ndarray]] = []
        self._buffer_param: dict[str, str] = {}
        for k, (p, v) in enumerate(zip(self.kernel.params, L.args)):
            size = TYPE_BYTES.get(p.type, 8) * max(1, int(np.prod([d or 1 for d in p.dims])))
            align = p.align or min(size, 8)
            while len(self.param_bytes) % align:
                self.param_bytes.append(0)
            self.param_off[p.name] = len(self.param_bytes)
            label = L.label(k, p.name)          # messages name the CUDA parameter
            if p.dims:                          # a struct or array passed by value: its bytes
                self.param_bytes += self._aggregate_bytes(p, v, size, label)
                continue
            if isinstance(v, (np.ndarray, GeneratedBuffer)):
                if size != 8:
                    raise PipeperfError(f"parameter {label} of {base_name(self.kernel.name)} is .{p.type}, "
                                        f"not a pointer, but got an array", file=self.file)
                addr = self.gmem.allocate(label, v.nbytes, v)
                self._buffer_param[label] = p.name       # the bounds check matches PTX parameter names
                if isinstance(v, np.ndarray):     # a generated input is nobody's result
                    self.buffers.append((k, addr, v))
                raw = np.uint64(addr).tobytes()
            else:
                dt = NP.get(p.type, RAW.get(size))
                if dt is None:
                    raise PipeperfError(f"parameter {label}: type .{p.type} not supported")
                if dt.kind == "f":
                    raw = np.asarray(v, dt).tobytes()
                else:
                    if isinstance(v, (float, np.floating)) and not float(v).is_integer():
                        raise PipeperfError(f"parameter {p.name} of {self.kernel.name} is .{p.type}: expected an "
                                            f"integer, got {v!r}", file=self.file)
                    raw = np.asarray(int(v) & ((1 << (8 * dt.itemsize)) - 1),
                                     RAW[dt.itemsize]).tobytes()
            self.param_bytes += raw
        self.param_bytes += bytes(8)
        # module variables
        const = bytearray()
        shared_off = 0
        for v in self.module.globals:
            if v.size_bytes > MAX_ARENA:     # before any bytes are made for it
                raise PipeperfError(f"module variable {v.name} declares {v.size_bytes:,} bytes, more than the "
                                    f"emulator's {MAX_ARENA >> 30} GiB", file=self.file, line=getattr(v, "line", None))
            if v.space == "const" and len(const) + v.size_bytes > CONST_BYTES:
                raise PipeperfError(f"constant variable {v.name} does not fit in CUDA's {CONST_BYTES >> 10} KiB of "
                                    "constant memory", file=self.file, line=getattr(v, "line", None))
            if v.space == "global":
                self.sym[v.name] = ("global", self.gmem.allocate(v.name, max(v.size_bytes, 1),
                                                                 _init(v)))
            elif v.space == "const":
                a = v.align or v.element_bytes or 4
                while len(const) % a:
                    const.append(0)
                self.sym[v.name] = ("const", len(const))
                const += _init(v) or bytes(v.size_bytes)
            elif v.space == "shared":
                shared_off = self._place_shared(v, shared_off)
        funcs = [f for f in self.module.functions if f.has_body]
        local_off = 0
        for f in funcs:
            for v in f.variables:
                if v.space == "shared":
                    shared_off = self._place_shared(v, shared_off)
                elif v.space == "local" and f is self.kernel:
                    a = v.align or 8
                    local_off = (local_off + a - 1) // a * a
                    self.sym[v.name] = ("local", local_off)
                    local_off += v.size_bytes
        dyn = [v for v in self.module.globals if v.space == "shared" and v.size_bytes == 0]
        shared_off = (shared_off + 15) // 16 * 16
        for v in dyn:
            self.sym[v.name] = ("shared", shared_off)
        self.shared_bytes = (shared_off + L.shared + 15) // 16 * 16
        self.local_bytes = (local_off + 15) // 16 * 16
        self.const = Arena(len(const))
        self.const.bytes[:len(const)] = np.frombuffer(bytes(const), np.uint8)
        self.gmem.finish(getattr(self, "optimistic", False))
        need = self.gmem.size + self.cta_per_batch * (self.shared_bytes + self.block_threads *
                                                      (self.local_bytes + 256))
        if need > MAX_ARENA:
            raise PipeperfError(f"launch needs {need / 2**30:.1f} GiB of emulated memory, "
                                f"more than the {MAX_ARENA / 2**30:.0f} GiB limit")

    def _access_buffers(self) -> dict[int, tuple[int, int, str]]:
        """The buffer each global ld/st/atom/red of the kernel must stay in (its affine address's
        base, :func:`pipeperf.emulate.bounds.access_buffers`): ``{id(x): (start, end, name)}`` in
        arena offsets, the name as messages give it (the CUDA name first when known)."""
        from pipeperf.emulate.bounds import access_buffers

        names = getattr(self.launch, "param_names", None)
        cuda = dict(zip((p.name for p in self.kernel.params), names.cuda if names is not None else ()))
        spans = {}
        for label, s, e in zip(self.gmem.names, self.gmem.starts, self.gmem.ends):
            n = self._buffer_param.get(label, label)
            spans[n] = (s, e, f"`{cuda[n]}` ({n})" if cuda.get(n) else f"`{n}`")
        return access_buffers(self.kernel, self.launch, spans)

    def _place_shared(self, v, off: int) -> int:
        if v.size_bytes == 0:
            return off
        a = v.align or v.element_bytes or 4
        off = (off + a - 1) // a * a
        self.sym[v.name] = ("shared", off)
        return off + v.size_bytes

    def getter(self, op, dt):
        return getter(op, dt, self)

    def symbol_address(self, name: str) -> int:
        if name in self.sym:
            space, off = self.sym[name]
            return off
        if name in self.param_off:
            return self.param_off[name]
        raise Unsupported(f"symbol {name}")

    # ------------------------------------------------------------------ compile
    def compile(self, x: Instruction, full: bool = True):
        r = x.root
        if r in ("ld", "st", "atom", "red"):
            return self._mem_handler(x, full)
        if r == "shfl":
            return self._shfl(x)
        if r in ("vote", "redux"):
            return self._vote(x)
        if r == "cp.async":
            return self._cp_async(x, full)
        if r in ("cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all"):
            return lambda st, ix: None  # copies complete synchronously here
        if r in ("wmma.load", "wmma.store", "wmma.mma"):
            from pipeperf.emulate import wmma
            return wmma.build(self, x)
        if r == "mma":
            from pipeperf.emulate import wmma
            return wmma.build_mma(self, x)
        if r.startswith(("cp", "wmma", "mma")):
            raise Unsupported("tensor/async-copy instructions are not emulated")
        return compile_instruction(x, self)

    # ------------------------------------------------------------------ memory
    def _address(self, op: Address, space: str = "generic"):
        """Getter of the byte address ``op`` names, with PTX's width rules (PTX ISA, Addresses as
        Operands: addresses are zero-extended to the width needed and truncated to the state
        space's): ``[reg+imm]`` is a sum at the address's width, so a 32-bit register's sum wraps
        mod 2^32 before it is zero-extended (nvcc's ``s - 4`` then ``[r+8]``), and .shared and
        .local addresses are 32-bit, so a wider register's sum is truncated to that width too."""
        mask = ADDRESS_MASK[32 if space in ("shared", "local") else 64]
        base = op.base
        off = op.offset
        if base is None:
            a = np.uint64(off & mask)
            return lambda st, ix: a
        if type(base) is Symbol:
            if base.name in self.sym:
                a = np.uint64((self.sym[base.name][1] + off) & mask)
            elif base.name in self.param_off:
                a = np.uint64((self.param_off[base.name] + off) & mask)
            else:
                raise PipeperfError(f"'{base.name}' is not a variable or parameter this module declares")
            return lambda st, ix: a
        name = base.name
        o = np.uint64(off & ADDRESS_MASK[64])
        masks = {k: np.uint64(mask & ADDRESS_MASK[8 * k]) for k in (1, 2, 4, 8)}
        full = mask == ADDRESS_MASK[64]

        def g(st, ix):
            r = st.reg(name, np.dtype(np.uint64))[ix]
            if r.dtype == np.uint64 and full:
                return r + o
            return (r.astype(np.uint64) + o) & masks[r.dtype.itemsize]
        return g

    def _mem_handler(self, x: Instruction, full: bool):
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
        # kernel-parameter loads read constant bytes
        if space == "param" and r == "ld" and type(addr_op.base) is Symbol \
                and addr_op.base.name in self.param_off:
            o = self.param_off[addr_op.base.name] + addr_op.offset
            items = data_op.items if type(data_op) is Vector else (data_op,)
            vals = np.frombuffer(bytes(self.param_bytes[o:o + esz * len(items)]), dt)
            pairs = [(setter(it, dt), vals[k]) for k, it in enumerate(items) if type(it) is not Sink]

            def h(st, ix):          # ld.param (.v2/.v4: a by-value struct's fields) reads constants
                for dst, val in pairs:
                    dst(st, ix, val)
            return h
        if space == "param":  # call-sequence parameters: per-thread storage
            key = (addr_op.base.name, addr_op.offset)
            if r == "st":
                g = getter(data_op, dt, self)

                def h(st, ix):
                    st.param_store(key, dt)[ix] = np.asarray(g(st, ix), dt).view(RAW[esz])
                return h
            dst = setter(data_op, dt)
            return lambda st, ix: dst(st, ix, st.param_store(key, dt)[ix].view(dt))
        ag = self._address(addr_op, space)
        items = data_op.items if type(data_op) is Vector else (data_op,)
        nbytes = esz * vec
        is_load = r == "ld"
        if r == "ld":
            sets = [setter(it, dt) for it in items] if full else None
        elif r == "st":
            gets = [getter(it, dt, self) for it in items] if full else None
        else:
            return self._atom_handler(x, ag, dt, space, full)
        signed_small = dt.kind == "i" and esz < 4
        shift = esz.bit_length() - 1

        def h(st, ix):
            addr = np.asarray(ag(st, ix), np.uint64)
            arena, bidx, sp = self._resolve(st, ix, addr, space, nbytes, x, full)
            self._stats(st, ix, addr, sp, nbytes, is_load)
            if st.traced_any:
                self.counters.record_addresses(st, ix, addr)
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

    def _resolve(self, st: State, ix, addr, space: str, nbytes: int, x: Instruction,
                 touch: bool = True):
        """(arena, byte index per thread, resolved space) for an access, checked; with ``touch``
        the generated input bytes a global access reaches are made first (an access whose data
        is not emulated, as hybrid mode's skipped ones, passes False)."""
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
                self._fault(st, ix, int(np.argmin(addr)), a0, "generic access outside every state "
                            "space's window (a null or not a generic pointer)", x)
        addr = np.broadcast_to(addr, (G.size(ix),)) if np.ndim(addr) == 0 else addr
        amask = np.uint64(min(nbytes, 16) - 1)
        if amask and np.any(addr & amask):
            bad = int(np.flatnonzero(addr & amask)[0])
            self._fault(st, ix, bad, int(addr[bad]), f"misaligned {nbytes}-byte {space} access", x)
        if space in ("global",):
            off = _i64(addr) - GLOBAL_BASE
            lo, hi = int(off.min()), int(off.max())
            own = self._own.get(id(x))
            if own is not None and (lo < own[0] or hi + nbytes > own[1]):
                bad = int(np.flatnonzero((off < own[0]) | (off + nbytes > own[1]))[0])
                self._fault(st, ix, bad, int(addr[bad]),
                            f"out-of-bounds global access of {nbytes} bytes: {own[2]} has {own[1] - own[0]} "
                            f"bytes and this access reaches its bytes [{lo - own[0]}, {hi + nbytes - own[0]})",
                            x)
            if own is None and not self.gmem.span_ok(lo, hi, nbytes) and \
                    not (ok := self.gmem.check(off, nbytes)).all():
                bad = int(np.flatnonzero(~ok)[0])
                self._fault(st, ix, bad, int(addr[bad]),
                            f"out-of-bounds global access of {nbytes} bytes "
                            f"(nearest: {self.gmem.owner(int(off[bad]))})", x)
            if touch:
                self.gmem.touch(off, nbytes, lo, hi)
            return self.gmem.arena, off, "global"
        if space == "shared":
            off = _i64(addr)
            if int(off.max()) + nbytes > self.shared_bytes:
                bad = int(np.flatnonzero(off + nbytes > self.shared_bytes)[0])
                self._fault(st, ix, bad, int(addr[bad]),
                            f"out-of-bounds shared access (CTA has {self.shared_bytes} bytes)", x)
            return self.smem, st.smem_base[ix] + off, "shared"
        if space == "local":
            off = _i64(addr)
            if not st.top:
                raise EmulationError("local memory in device functions is not emulated",
                                     file=self.file, line=x.line)
            ok = off + nbytes <= self.local_bytes
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                self._fault(st, ix, bad, int(addr[bad]), "out-of-bounds local access", x)
            return self.lmem, st.tix[ix] * self.local_bytes + off, "local"
        if space == "const":
            off = _i64(addr)
            ok = off + nbytes <= len(self.const.bytes)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                self._fault(st, ix, bad, int(addr[bad]), "out-of-bounds const access", x)
            return self.const, off, "const"
        raise EmulationError(f"{x.opcode}: state space {space} not supported",
                             file=self.file, line=x.line)

    def _fault(self, st: State, ix, k: int, addr: int, what: str, x: Instruction):
        t = int(G.as_array(ix)[k]) if G.size(ix) else 0
        local, tid = divmod(int(st.tix[t]), self.block_threads)
        blk = int(self._batch_ctas[local])
        bx, by, bz = _unflat(blk, self.launch.grid)
        tx, ty, tz = _unflat(tid, self.launch.block)
        raise EmulationError(f"kernel {base_name(self.kernel.name)}: {what} at address {addr:#x} by thread "
                             f"({tx},{ty},{tz}) of block ({bx},{by},{bz}) in `{x}`",
                             file=self.file, line=x.line)

    def _stats(self, st: State, ix, addr, space: str, nbytes: int, is_load: bool) -> None:
        if not self.memory:
            return
        c = self.counters
        if space == "global":
            w = st.wid[ix]
            first = addr >> np.uint64(5)
            last = (addr + np.uint64(nbytes - 1)) >> np.uint64(5)
            key = (w.astype(np.uint64) << np.uint64(40)) | (first & np.uint64((1 << 40) - 1))
            n = _distinct(key)
            if np.any(last != first):
                key2 = (w.astype(np.uint64) << np.uint64(40)) | (last & np.uint64((1 << 40) - 1))
                n = _distinct(np.concatenate((key, key2)))
            req = G.count_warps(st.wid, ix)
            if is_load:
                c.global_load_requests += req
                c.global_load_sectors += n
            else:
                c.global_store_requests += req
                c.global_store_sectors += n
        elif space == "shared":
            c.shared_bank_conflicts += self._bank_conflicts(st, ix, addr, nbytes)
            req = G.count_warps(st.wid, ix)
            c.shared_requests += req
            if is_load:
                c.shared_load_requests += req
            else:
                c.shared_store_requests += req
        elif space == "local":
            c.local_requests += G.count_warps(st.wid, ix)

    def _cp_async(self, x: Instruction, full: bool):
        """cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size]: done at once
        (a global load and a shared store; bytes past src-size are zero)."""
        dst_g, src_g = self._address(x.srcs[0], "shared"), self._address(x.srcs[1], "global")
        size = int(x.srcs[2].value)
        src_size = int(x.srcs[3].value) if len(x.srcs) > 3 and hasattr(x.srcs[3], "value") \
            else size
        dt = RAW[size] if size in RAW else np.dtype(np.uint32)
        n = size // dt.itemsize
        shift = dt.itemsize.bit_length() - 1

        def h(st, ix):
            sa = np.asarray(src_g(st, ix), np.uint64)
            da = np.asarray(dst_g(st, ix), np.uint64)
            garena, gb, gsp = self._resolve(st, ix, sa, "global", size, x, full)
            sarena, sb, ssp = self._resolve(st, ix, da, "shared", size, x)
            self._stats(st, ix, sa, gsp, size, True)
            self._stats(st, ix, da, ssp, size, False)
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

    def _bank_conflicts(self, st: State, ix, addr, nbytes: int) -> int:
        """Extra shared-memory wavefronts: per warp request, the most distinct 4-byte words
        mapped to one of the 32 banks, minus one (32 banks x 4 bytes; source: CUDA C
        Programming Guide, "Shared Memory" of compute capability 5.x+)."""
        words = addr >> np.uint64(2)
        k = max(1, nbytes // 4)
        if np.ndim(words) == 0:
            return 0  # one word for the whole warp: a broadcast
        n = G.size(ix)
        if (type(ix) is slice and ix.start % 32 == 0 and n % 32 == 0
                and self.block_threads % 32 == 0 and np.ndim(words) == 1):
            nw = n // 32
            W = words.reshape(nw, 32)
            if k > 1:
                W = np.concatenate([W + np.uint64(j) for j in range(k)], axis=1)
            span = W.max(1) - W.min(1)
            narrow = span < np.uint64(32)  # words within 32 consecutive: distinct banks
            if narrow.all():
                return 0
            W = W[~narrow]
            nw = len(W)
            S = np.sort(W, axis=1)
            distinct = np.ones(S.shape, bool)
            distinct[:, 1:] = S[:, 1:] != S[:, :-1]
            bank = (S & np.uint64(31)).astype(np.int64) + 32 * np.arange(nw)[:, None]
            cnt = np.bincount(bank[distinct], minlength=nw * 32).reshape(nw, 32).max(1)
            return int(np.sum(cnt - 1))
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

    def _atom_handler(self, x: Instruction, ag, dt, space: str, full: bool):
        op = next((m for m in x.modifiers if m in ("add", "inc", "dec", "min", "max", "exch",
                                                   "cas", "and", "or", "xor")), None)
        if op is None:
            raise Unsupported(x.opcode)
        has_dst = x.root == "atom"
        srcs = x.srcs[1:]
        gets = [getter(s, dt, self) for s in srcs]
        dst = setter(x.dsts[0], dt) if has_dst else None
        esz = dt.itemsize

        def h(st, ix):
            addr = np.asarray(ag(st, ix), np.uint64)
            arena, bidx, sp = self._resolve(st, ix, addr, space, esz, x, full)
            self._stats(st, ix, addr, sp, esz, False)
            self.counters.atomics += G.count_warps(st.wid, ix)
            if st.traced_any:
                self.counters.record_addresses(st, ix, addr)
            if not full:
                arena.taint(bidx, esz)
                return
            if arena.dirty(bidx, esz):
                raise HybridFallback()
            v = arena.view(dt)
            e = np.broadcast_to(bidx // esz, (G.size(ix),))
            vals = [np.broadcast_to(np.asarray(g(st, ix), dt), (G.size(ix),)) for g in gets]
            old = np.empty(len(e), dt)
            if op == "add" and dt.kind in "iu":
                order = np.argsort(e, kind="stable")
                es, vs = e[order], vals[0][order].astype(np.int64)
                starts, lengths = G.segments(es)
                csum = np.cumsum(vs)
                before = csum - vs
                seg_base = np.repeat(before[starts], lengths)
                o = v[es].astype(np.int64) + (before - seg_base)
                old[order] = o.astype(dt)
                tot = np.add.reduceat(vs, starts) if len(starts) else vs
                v[es[starts]] = (v[es[starts]].astype(np.int64) + tot).astype(dt)
            else:
                for k in range(len(e)):  # conflicting atomics in thread order
                    i = e[k]
                    cur = v[i]
                    old[k] = cur
                    a = vals[0][k]
                    if op == "add":
                        v[i] = cur + a
                    elif op == "exch":
                        v[i] = a
                    elif op == "cas":
                        if cur == a:
                            v[i] = vals[1][k]
                    elif op == "min":
                        v[i] = min(cur, a)
                    elif op == "max":
                        v[i] = max(cur, a)
                    elif op == "inc":
                        v[i] = 0 if cur >= a else cur + 1
                    elif op == "dec":
                        v[i] = a if (cur == 0 or cur > a) else cur - 1
                    elif op == "and":
                        v[i] = cur & a
                    elif op == "or":
                        v[i] = cur | a
                    elif op == "xor":
                        v[i] = cur ^ a
            if dst is not None:
                dst(st, ix, old)
        return h

    # ------------------------------------------------------------------ warp ops
    def _shfl(self, x: Instruction):
        mode = next(m for m in x.modifiers if m in ("up", "down", "bfly", "idx"))
        dt = NP["b32"]
        src = x.srcs[0]
        gb = getter(x.srcs[1], NP["u32"], self)
        gc = getter(x.srcs[2], NP["u32"], self)
        d = setter(x.dsts[0], dt)
        dp = setter(x.dsts[1], np.dtype(np.bool_)) if len(x.dsts) > 1 else None
        ga = getter(src, dt, self)

        def h(st, ix):
            if not st.top:
                raise EmulationError("shfl in device functions is not emulated", file=self.file,
                                     line=x.line)
            lane = st.lane[ix]
            b = np.asarray(gb(st, ix)).astype(np.int64) & 31
            c = np.asarray(gc(st, ix)).astype(np.int64)
            cval, mask = c & 31, (c >> 8) & 31
            max_lane = (lane & mask) | (cval & ~mask)
            min_lane = lane & mask
            if mode == "up":
                j = lane - b
                ok = j >= max_lane
            elif mode == "down":
                j = lane + b
                ok = j <= max_lane
            elif mode == "bfly":
                j = lane ^ b
                ok = j <= max_lane
            else:
                j = min_lane | (b & ~mask)
                ok = j <= max_lane
            j = np.where(ok, j, lane)
            t = G.as_array(ix)
            srcthread = t - lane + j
            valid = (srcthread < st.n)
            srcthread = np.where(valid, srcthread, t)
            valid &= st.wid[srcthread] == st.wid[t]
            srcthread = np.where(valid, srcthread, t)
            if type(src) is Register:
                full = st.reg(src.name, dt)
                val = full[srcthread]
                d(st, ix, val)
            else:
                d(st, ix, ga(st, ix))
            if dp:
                dp(st, ix, ok)
        return h

    def _vote(self, x: Instruction):
        mode = next(m for m in x.modifiers if m in ("all", "any", "uni", "ballot", "add", "min",
                                                    "max", "and", "or", "xor"))
        red = x.root == "redux"
        dt = NP[x.types[-1]] if red else np.dtype(np.bool_)
        g = getter(x.srcs[0], dt, self)
        out_dt = dt if red else (NP["b32"] if mode == "ballot" else np.dtype(np.bool_))
        d = setter(x.dsts[0], out_dt)

        def h(st, ix):
            t = G.as_array(ix)
            starts, lengths = G.segments(st.wid[t])
            v = np.broadcast_to(np.asarray(g(st, ix)), (len(t),))
            if mode == "ballot":
                bits = np.where(v, np.left_shift(np.uint64(1), st.lane[t].astype(np.uint64)),
                                np.uint64(0))
                r = np.add.reduceat(bits, starts).astype(np.uint32)
            elif mode in ("all", "any", "uni"):
                cnt = np.add.reduceat(v.astype(np.int64), starts)
                r = cnt == lengths if mode == "all" else (
                    cnt > 0 if mode == "any" else (cnt == 0) | (cnt == lengths))
            elif mode == "add":
                r = np.add.reduceat(v.astype(np.int64), starts).astype(dt)
            elif mode in ("min", "max"):
                r = (np.minimum if mode == "min" else np.maximum).reduceat(v, starts)
            else:
                f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[mode]
                r = f.reduceat(v, starts)
            d(st, ix, np.repeat(r, lengths))
        return h

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        L = self.launch
        nblocks = L.num_blocks
        B = self.block_threads
        wpc = (B + 31) // 32
        order = self.ctas
        n_run = nblocks if order is None else len(order)
        with np.errstate(all="ignore"):
            for c0 in progress(range(0, n_run, self.cta_per_batch), "emulate", "batch of CTAs"):
                nc = min(self.cta_per_batch, n_run - c0)
                ctas = (np.arange(c0, c0 + nc, dtype=np.int64) if order is None
                        else order[c0:c0 + nc])
                self._batch_ctas = ctas
                st = State(self.kernel, nc * B)
                t = np.arange(nc * B, dtype=np.int64)
                cta, tid = t // B, t % B
                st.cta = cta
                st.smem_base = cta * self.shared_bytes
                st.lane = tid % 32
                # contiguous within the run (warp counting relies on it), not launch-wide when
                # CTAs are sampled; traces use the launch-wide id
                st.wid = (cta + c0) * wpc + tid // 32
                self._trace_ids(st, ctas[cta] * wpc + tid // 32)
                self._specials(st, ctas[cta], tid)
                self.smem = Arena(nc * self.shared_bytes, self.optimistic)
                self.lmem = Arena(nc * B * self.local_bytes, self.optimistic)
                self.live = np.full(nc, B, np.int64)
                if self.loops is not None:
                    self.loops.new_batch()
                self._execute(self.programs[self.kernel.name], st, slice(0, nc * B))
                self.counters.ctas += nc
                self.counters.threads += nc * B
                self.counters.warps += nc * wpc
        if self.mode == "full" and order is None:  # hybrid or sampled: partial, leave alone
            for k, addr, arr in self.buffers:
                arr[...] = self.gmem.read_back(addr, arr)

    def _trace_ids(self, st: State, gwid: np.ndarray) -> None:
        """Mark the batch's threads of traced warps with their launch-wide warp id (else -1)."""
        ids = self.trace_ids
        if not len(ids) or gwid[-1] < ids[0] or gwid[0] > ids[-1]:
            return
        k = np.minimum(np.searchsorted(ids, gwid), len(ids) - 1)
        hit = ids[k] == gwid
        if hit.any():
            st.trace_wid = np.where(hit, gwid, -1)
            st.traced_any = True

    def _specials(self, st: State, cta_global: np.ndarray, tid: np.ndarray) -> None:
        L = self.launch
        bx, by, bz = L.block
        gx, gy, gz = L.grid
        u = np.uint32
        sp = st.special
        sp["%tid.x"] = (tid % bx).astype(u)
        sp["%tid.y"] = ((tid // bx) % by).astype(u)
        sp["%tid.z"] = (tid // (bx * by)).astype(u)
        sp["%ctaid.x"] = (cta_global % gx).astype(u)
        sp["%ctaid.y"] = ((cta_global // gx) % gy).astype(u)
        sp["%ctaid.z"] = (cta_global // (gx * gy)).astype(u)
        for n, v in (("%ntid.x", bx), ("%ntid.y", by), ("%ntid.z", bz), ("%nctaid.x", gx),
                     ("%nctaid.y", gy), ("%nctaid.z", gz), ("WARP_SZ", 32)):
            sp[n] = u(v)
        sp["%laneid"] = st.lane.astype(u)
        sp["%warpid"] = (tid // 32).astype(u)
        sp["%nwarpid"] = u(64)
        sp["%smid"] = u(0)
        sp["%clock"] = u(0)
        sp["%clock64"] = np.uint64(0)
        sp["%lanemask_lt"] = ((np.uint64(1) << st.lane.astype(np.uint64)) - np.uint64(1)).astype(u)

    def _execute(self, prog: Program, st: State, start, pc0: int = 0,
                 probe: tuple[int, int, int] | None = None) -> int | None:
        """Run ``prog`` from instruction ``pc0`` for the threads ``start`` until all leave.

        ``probe=(t, p, budget)``: run one iteration of the loop ``t..p`` only (the loop skipper's
        check, :mod:`pipeperf.emulate.loops`): the steps it took when the whole group takes the
        back-edge ``p`` again, None when it leaves the loop or runs past ``budget`` steps."""
        c = self.counters
        cnt_w, cnt_t, cnt_on = c.arrays(prog)
        waiting: dict[int, Any] = {}
        heap: list[int] = []
        blocked: dict[int, Any] = {}
        cur, pc = start, pc0
        wid = st.wid
        steps = 0
        n_ins = prog.n
        kind, handler, guard, target = prog.kind, prog.handler, prog.guard, prog.target
        trace = c.trace if st.traced_any else None
        loops = self.loops if probe is None else None
        visits = self.loops.visit_counts(prog) if self.loops is not None else None
        cnt = (cnt_w, cnt_t, cnt_on, visits)
        n_probe = G.size(start)
        while True:
            if cur is None:
                while heap and heap[0] not in waiting:
                    heapq.heappop(heap)
                if not heap:
                    if probe is not None:
                        return None
                    if blocked:
                        cur, pc = self._release(st, blocked)
                        if cur is None:
                            raise EmulationError(
                                f"kernel {self.kernel.name}: barrier deadlock: threads wait at "
                                f"bar.sync on PTX line(s) "
                                + ", ".join(str(prog.func.instructions[p].line) for p in blocked)
                                + " but their CTAs' other threads have left",
                                file=self.file)
                        cur, pc = self._advance(cur, pc + 1, waiting, heap)
                        continue
                    return None
                pc = heapq.heappop(heap)
                cur = waiting.pop(pc)
            if probe is not None and (pc < probe[0] or pc > probe[1] or steps >= probe[2]):
                return None
            if pc >= n_ins:
                cur = self._leave(st, cur, prog)
                continue
            steps += 1
            if steps > self.max_steps:
                x = prog.func.instructions[pc]
                raise EmulationError(f"kernel {self.kernel.name}: step budget of {self.max_steps}"
                                     f" instruction groups exhausted (infinite loop?) at `{x}`",
                                     file=self.file, line=x.line)
            nw = G.count_warps(wid, cur)
            nt = G.size(cur)
            if visits is not None:
                visits[pc] += 1
            cnt_w[pc] += nw
            cnt_t[pc] += nt
            gd = guard[pc]
            on = cur
            gmask = None
            if gd is not None:
                gmask = st.reg(gd[0], np.dtype(np.bool_))[cur]
                if gd[1]:
                    gmask = ~gmask
                on = G.subset(cur, gmask)
            non = G.size(on)
            cnt_on[pc] += non
            if trace is not None:
                c.record(prog, pc, st, cur, gmask)
            k = kind[pc]
            if k == OP:
                h = handler[pc]
                if h is not None and non:
                    h(st, on)
                cur, pc = self._advance(cur, pc + 1, waiting, heap)
            elif k == BRA:
                tgt = target[pc]
                c.branches += nw
                if gd is None or non == nt:
                    if tgt <= pc:                      # a back-edge taken by the whole group
                        if probe is not None:
                            if pc == probe[1] and nt == n_probe and not waiting:
                                return steps
                        elif loops is not None:
                            loops.back_edge(prog, st, cur, pc, tgt, steps, waiting, cnt)
                    cur, pc = self._advance(cur, tgt, waiting, heap)
                    continue
                if non:
                    c.divergent_branches += _divergent(wid, cur, gmask)
                    rest = G.subset(cur, ~gmask)
                    self._push(on, tgt, waiting, heap)
                    cur, pc = self._advance(rest, pc + 1, waiting, heap)
                else:
                    cur, pc = self._advance(cur, pc + 1, waiting, heap)
            elif k == BRX:
                c.branches += nw
                tab = prog.brx_tables[pc]
                if callable(tab):
                    tab(st, on)
                rest = G.subset(cur, ~gmask) if non < nt else None
                if non:
                    idx = st.reg(tab[0], np.dtype(np.uint32))[on].astype(np.int64)
                    if np.any(idx >= len(tab[1])):
                        x = prog.func.instructions[pc]
                        raise EmulationError(f"kernel {self.kernel.name}: brx.idx index "
                                             f"{int(idx.max())} outside its table of "
                                             f"{len(tab[1])} labels", file=self.file, line=x.line)
                    tg = tab[1][idx]
                    w = wid[on]
                    starts, lengths = G.segments(w)
                    tmin = np.minimum.reduceat(tg, starts)
                    tmax = np.maximum.reduceat(tg, starts)
                    c.divergent_branches += int(np.count_nonzero(tmin != tmax))
                    if rest is not None:
                        c.divergent_branches += _divergent(wid, cur, gmask) - 0
                    oa = G.as_array(on)
                    for t_ in np.unique(tg):
                        self._push(G.compact(oa[tg == t_]), int(t_), waiting, heap)
                if rest is not None and G.size(rest):
                    self._push(rest, pc + 1, waiting, heap)
                cur = None
            elif k == EXIT or k == RET:
                rest = G.subset(cur, ~gmask) if non < nt else None
                if k == EXIT and non:
                    if st.top:
                        self.live -= np.bincount(st.cta[on], minlength=len(self.live))
                if rest is not None and G.size(rest):
                    cur, pc = self._advance(rest, pc + 1, waiting, heap)
                else:
                    cur = None
            elif k == BAR:
                if not st.top:
                    raise EmulationError("bar.sync in device functions is not emulated",
                                         file=self.file)
                c.barriers += nw
                rest = G.subset(cur, ~gmask) if non < nt else None
                rel = None
                if non:
                    blocked[pc] = G.merge(blocked[pc], on) if pc in blocked else on
                    rel, _ = self._release(st, blocked, only=pc)
                if rest is not None and G.size(rest):
                    self._push(rest, pc + 1, waiting, heap)
                if rel is not None:
                    cur, pc = self._advance(rel, pc + 1, waiting, heap)
                else:
                    cur = None
            elif k == CALL:
                if non:
                    self._call(prog.func.instructions[pc], st, on)
                cur, pc = self._advance(cur, pc + 1, waiting, heap)

    def _leave(self, st, cur, prog):
        if prog.func.kind == "entry":
            self.live -= np.bincount(st.cta[G.as_array(cur)], minlength=len(self.live))
        return None

    @staticmethod
    def _push(g, pc: int, waiting: dict, heap: list):
        if pc in waiting:
            waiting[pc] = G.merge(waiting[pc], g)
        else:
            waiting[pc] = g
            heapq.heappush(heap, pc)
        return None

    @staticmethod
    def _advance(g, pc: int, waiting: dict, heap: list):
        """Continue ``g`` at ``pc``, absorbing threads already waiting there, unless a lower PC
        is pending (then ``g`` waits and the lowest PC runs next)."""
        if pc in waiting:
            g = G.merge(g, waiting.pop(pc))
        while heap and heap[0] not in waiting:
            heapq.heappop(heap)
        if heap and heap[0] < pc:
            Machine._push(g, pc, waiting, heap)
            low = heapq.heappop(heap)
            return waiting.pop(low), low
        return g, pc

    def _release(self, st: State, blocked: dict, only: int | None = None):
        """Threads of CTAs whose live threads all wait at a barrier; (group, pc) or (None, -1)."""
        for p in ([only] if only is not None else sorted(blocked)):
            g = blocked[p]
            a = G.as_array(g)
            arrived = np.bincount(st.cta[a], minlength=len(self.live))
            complete = (arrived == self.live) & (arrived > 0)
            if not complete.any():
                continue
            mask = complete[st.cta[a]]
            rel = G.compact(a[mask])
            rest = a[~mask]
            if len(rest):
                blocked[p] = G.compact(rest)
            else:
                del blocked[p]
            return rel, p
        return None, -1

    def _call(self, x: Instruction, st: State, on) -> None:
        rets = [op for op in x.dsts if type(op) is ParamList]
        ops = [op for op in x.srcs]
        fname = next(op.name for op in ops if type(op) is Symbol)
        args = next((op for op in ops if type(op) is ParamList), ParamList(()))
        ret = rets[0] if rets else None
        try:
            callee = self.module.function(fname)
        except KeyError:
            raise EmulationError(f"call of unknown function {fname}", file=self.file, line=x.line)
        if not callee.has_body:
            raise EmulationError(f"call of {fname}, which has no body (extern)", file=self.file,
                                 line=x.line)
        prog = self.programs.get(fname)
        if prog is None:
            prog = self.programs[fname] = Program(self, callee, None)
        a = G.as_array(on)
        sub = State(callee, len(a))
        sub.top = False
        sub.wid, sub.cta, sub.tix, sub.lane = st.wid[a], st.cta[a], st.tix[a], st.lane[a]
        sub.smem_base = st.smem_base[a]
        if st.traced_any:
            sub.trace_wid, sub.traced_any = st.trace_wid[a], True
        sub.special = {k: (v[a] if isinstance(v, np.ndarray) else v) for k, v in st.special.items()}
        for p, arg in zip(callee.params, args.items):
            for (name, off), arr in st.params.items():
                if name == arg.name:
                    sub.params[(p.name, off)] = arr[a].copy()
        self._execute(prog, sub, slice(0, len(a)))
        if ret is not None and ret.items and callee.returns:
            for (name, off), arr in sub.params.items():
                if name == callee.returns[0].name:
                    st.param_store((ret.items[0].name, off), arr.dtype)[a] = arr


def _i64(addr: np.ndarray) -> np.ndarray:
    return addr.view(np.int64) if addr.dtype == np.uint64 else addr.astype(np.int64)


def _distinct(key: np.ndarray) -> int:
    if len(key) == 0:
        return 0
    d = np.diff(key.astype(np.int64) if key.dtype != np.int64 else key)
    if np.all(d >= 0) if len(d) else True:
        return 1 + int(np.count_nonzero(d))
    return len(np.unique(key))


def _divergent(wid: np.ndarray, cur, mask: np.ndarray) -> int:
    """Warps of ``cur`` in which some but not all threads have ``mask`` set."""
    w = wid[cur]
    starts, lengths = G.segments(w)
    s = np.add.reduceat(mask.astype(np.int32), starts)
    return int(np.count_nonzero((s > 0) & (s < lengths)))


def _unflat(i: int, dims) -> tuple[int, int, int]:
    x = i % dims[0]
    y = (i // dims[0]) % dims[1]
    z = i // (dims[0] * dims[1])
    return x, y, z


def _init(v) -> bytes | None:
    if not v.init_values:
        return None
    try:
        return v.init_bytes()
    except ValueError as exc:
        raise PipeperfError(str(exc))
