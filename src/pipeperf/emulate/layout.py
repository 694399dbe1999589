"""Where a launch's data live: kernel parameter bytes, module variables in the global, constant,
shared and local state spaces, and the buffer each global access must stay in.

Computed once per launch, before any instruction is compiled: handlers read fixed offsets
(``ld.param`` reads constants) and symbol operands become addresses at compile time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeperf.emulate.launch import GeneratedBuffer
from pipeperf.emulate.memory import MAX_ARENA, Arena, GlobalMemory
from pipeperf.emulate.operands import Getter, Unsupported
from pipeperf.emulate.state import NP, RAW
from pipeperf.errors import PipeperfError
from pipeperf.ptx.cuda_names import base_name
from pipeperf.ptx.ir import TYPE_BYTES, Address, Function, Module, Symbol

#: a kernel's constant bank: 64 KiB (CUDA C Programming Guide, "Device Memory Accesses: Constant Memory")
CONST_BYTES = 64 << 10
ADDRESS_MASK = {w: (1 << w) - 1 for w in (8, 16, 32, 64)}  # by address width in bits


class Layout:
    """The launch's parameters and variables placed in their state spaces.

    ``sym``: variable name -> (space, offset); ``param_bytes``/``param_off``: the kernel
    parameters as the ``.param`` space holds them; ``buffers``: (argument index, address, array)
    of the caller's arrays (read back after a full run); ``shared_bytes``/``local_bytes``: per
    CTA and per thread; ``const``: the constant bank; ``own``: per global access (``id`` of its
    instruction), the buffer it must stay in (:func:`pipeperf.emulate.bounds.access_buffers`)."""

    def __init__(self, module: Module, kernel: Function, launch: Any, gmem: GlobalMemory,
                 file: str | None, cta_per_batch: int, block_threads: int, optimistic: bool):
        self.module, self.kernel, self.launch, self.gmem, self.file = module, kernel, launch, gmem, file
        self.sym: dict[str, tuple[str, int]] = {}
        self.param_bytes = bytearray()
        self.param_off: dict[str, int] = {}
        self.buffers: list[tuple[int, int, np.ndarray]] = []
        self._buffer_param: dict[str, str] = {}
        self._parameters()
        self._variables()
        gmem.finish(optimistic)
        need = gmem.size + cta_per_batch * (self.shared_bytes + block_threads * (self.local_bytes + 256))
        if need > MAX_ARENA:
            raise PipeperfError(f"launch needs {need / 2**30:.1f} GiB of emulated memory, "
                                f"more than the {MAX_ARENA / 2**30:.0f} GiB limit")
        self.own = self._access_buffers()

    # ------------------------------------------------------------------ parameters
    def _parameters(self) -> None:
        """Kernel parameters as bytes; arrays become device buffers, passed as their address."""
        L = self.launch
        for k, (p, v) in enumerate(zip(self.kernel.params, L.args)):
            size = TYPE_BYTES.get(p.type, 8) * max(1, int(np.prod([d or 1 for d in p.dims])))
            align = p.align or min(size, 8)
            while len(self.param_bytes) % align:
                self.param_bytes.append(0)
            self.param_off[p.name] = len(self.param_bytes)
            label = L.label(k, p.name)          # messages name the CUDA parameter
            if p.dims:                          # a struct or array passed by value: its bytes
                self.param_bytes += self._aggregate_bytes(p, v, size, label)
            elif isinstance(v, (np.ndarray, GeneratedBuffer)):
                self.param_bytes += self._buffer(k, p, v, size, label)
            else:
                self.param_bytes += self._scalar_bytes(p, v, size, label)
        self.param_bytes += bytes(8)

    def _buffer(self, k: int, p, v, size: int, label: str) -> bytes:
        if size != 8:
            raise PipeperfError(f"parameter {label} of {base_name(self.kernel.name)} is .{p.type}, "
                                f"not a pointer, but got an array", file=self.file)
        addr = self.gmem.allocate(label, v.nbytes, v)
        self._buffer_param[label] = p.name       # the bounds check matches PTX parameter names
        if isinstance(v, np.ndarray):             # a generated input is nobody's result
            self.buffers.append((k, addr, v))
        return np.uint64(addr).tobytes()

    def _scalar_bytes(self, p, v, size: int, label: str) -> bytes:
        dt = NP.get(p.type, RAW.get(size))
        if dt is None:
            raise PipeperfError(f"parameter {label}: type .{p.type} not supported")
        if dt.kind == "f":
            return np.asarray(v, dt).tobytes()
        if isinstance(v, (float, np.floating)) and not float(v).is_integer():
            raise PipeperfError(f"parameter {p.name} of {self.kernel.name} is .{p.type}: expected an "
                                f"integer, got {v!r}", file=self.file)
        return np.asarray(int(v) & ((1 << (8 * dt.itemsize)) - 1), RAW[dt.itemsize]).tobytes()

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

    # ------------------------------------------------------------------ variables
    def _variables(self) -> None:
        """Module variables (global, const, shared), then each function's shared and the
        kernel's local ones; dynamic shared memory starts after all static shared bytes."""
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
                self.sym[v.name] = ("global", self.gmem.allocate(v.name, max(v.size_bytes, 1), _init(v)))
            elif v.space == "const":
                a = v.align or v.element_bytes or 4
                while len(const) % a:
                    const.append(0)
                self.sym[v.name] = ("const", len(const))
                const += _init(v) or bytes(v.size_bytes)
            elif v.space == "shared":
                shared_off = self._place_shared(v, shared_off)
        local_off = 0
        for f in (f for f in self.module.functions if f.has_body):
            for v in f.variables:
                if v.space == "shared":
                    shared_off = self._place_shared(v, shared_off)
                elif v.space == "local" and f is self.kernel:
                    a = v.align or 8
                    local_off = (local_off + a - 1) // a * a
                    self.sym[v.name] = ("local", local_off)
                    local_off += v.size_bytes
        shared_off = (shared_off + 15) // 16 * 16
        for v in self.module.globals:
            if v.space == "shared" and v.size_bytes == 0:
                self.sym[v.name] = ("shared", shared_off)
        self.shared_bytes = (shared_off + self.launch.shared + 15) // 16 * 16
        self.local_bytes = (local_off + 15) // 16 * 16
        self.const = Arena(len(const))
        self.const.bytes[:len(const)] = np.frombuffer(bytes(const), np.uint8)

    def _place_shared(self, v, off: int) -> int:
        if v.size_bytes == 0:
            return off
        a = v.align or v.element_bytes or 4
        off = (off + a - 1) // a * a
        self.sym[v.name] = ("shared", off)
        return off + v.size_bytes

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

    # ------------------------------------------------------------------ addresses
    def symbol_address(self, name: str) -> int:
        """A variable's or kernel parameter's offset in its space (a symbol used as a value)."""
        if name in self.sym:
            return self.sym[name][1]
        if name in self.param_off:
            return self.param_off[name]
        raise Unsupported(f"symbol {name}")

    def address(self, op: Address, space: str = "generic") -> Getter:
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
        # a narrower unsigned register whose whole width the mask keeps: the sum wraps at the
        # register's width by itself, so it is made there and zero-extended (two passes, not four)
        narrow = {RAW[k]: RAW[k].type(off & ADDRESS_MASK[8 * k]) for k in (1, 2, 4)
                  if int(masks[k]) == ADDRESS_MASK[8 * k]}
        u64 = np.dtype(np.uint64)

        def g(st, ix):
            r = st.reg(name, u64)[ix]
            dt = r.dtype
            if dt == u64:
                if full:
                    return r + o
                v = r + o
                v &= masks[8]
                return v
            n = narrow.get(dt)
            if n is not None:
                return (r + n).astype(u64) if n else r.astype(u64)
            return (r.astype(np.uint64) + o) & masks[dt.itemsize]
        return g


def _init(v) -> bytes | None:
    if not v.init_values:
        return None
    try:
        return v.init_bytes()
    except ValueError as exc:
        raise PipeperfError(str(exc)) from exc
