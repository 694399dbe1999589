"""A kernel's parameters by name: launch arguments bound to them, each checked against its type.

Why one module: ``profile``/``analyze`` (the emulator) and ``measure`` (the GPU launcher) bind
``--arg`` specs (:mod:`pipeperf.util.launch_args`) to the same PTX parameters with the same rules:
by position or by name (the CUDA name from the ``.cu``, the PTX name, or a position), an untyped
number typed by its parameter, a buffer only for a pointer. Every error names the parameter by
its CUDA name, with the PTX name beside it (``ny (PTX _Z8stencil5PKfPfii_param_3)``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from pipeperf.errors import PipeperfError
from pipeperf.ptx.cuda_names import base_name, cuda_param_names
from pipeperf.ptx.ir import TYPE_BYTES, Function, Param
from pipeperf.util.launch_args import SEE, TYPES, ArgSpec, typed_value


@dataclass(frozen=True)
class ParamNames:
    """A kernel's parameter names: PTX's, and the CUDA source's where it is known."""

    entry: str                          # the PTX entry (mangled for C++ kernels)
    ptx: tuple[str, ...]
    cuda: tuple[str, ...] = ()          # as many as ``ptx`` ("" for an unnamed one), or () if unknown

    @classmethod
    def of(cls, func: Function, source: str | None = None) -> ParamNames:
        """``source``: the CUDA text ``func`` was compiled from (None for a ``.ptx`` input)."""
        ptx = tuple(p.name for p in func.params)
        cuda = tuple(cuda_param_names(source, func.name, len(ptx))) if source else ()
        return cls(func.name, ptx, cuda if len(cuda) == len(ptx) else ())

    @classmethod
    def for_file(cls, func: Function, file: str | Path | None) -> ParamNames:
        """The names of ``func`` compiled from ``file`` (its CUDA names when it is a ``.cu``)."""
        source = None
        if file is not None and str(file).endswith(".cu") and Path(file).is_file():
            source = Path(file).read_text(errors="replace")
        return cls.of(func, source)

    @property
    def kernel(self) -> str:
        """The kernel's CUDA name (``stencil5``), as errors name it."""
        return base_name(self.entry)

    def name(self, k: int) -> str:
        return (self.cuda[k] if self.cuda else "") or self.ptx[k]

    def label(self, k: int) -> str:
        """``ny (PTX stencil5_param_3)`` where the CUDA name is known, else the PTX name."""
        cuda = self.cuda[k] if self.cuda else ""
        return f"{cuda} (PTX {self.ptx[k]})" if cuda else self.ptx[k]

    def listing(self) -> str:
        return ", ".join(self.name(k) for k in range(len(self.ptx))) or "none"

    def index(self, name: str, file: str | None = None) -> int:
        """The position of the parameter ``name``: a CUDA name, a PTX name (or its ``_param_K``
        suffix ``K``), or a position ``0..``."""
        if self.cuda and name in self.cuda:
            return self.cuda.index(name)
        for k, p in enumerate(self.ptx):
            if p == name or p == f"{self.entry}_param_{name}":
                return k
        if name.isdigit() and int(name) < len(self.ptx):
            return int(name)
        hint = "" if self.cuda else ("; CUDA names are known only for a .cu file: use positions 0.. "
                                     "or the PTX names")
        raise PipeperfError(f"kernel {self.kernel} has no parameter {name!r} (parameters: {self.listing()}"
                            f"{hint})", file=file)


def bind(names: ParamNames, items: Sequence[tuple[str | None, Any]], file: str | None = None) -> list[Any]:
    """Values in parameter order from ``(name or None, value)`` pairs: a named value goes to its
    parameter, an unnamed one to the parameter after the previous argument's. A parameter given
    twice, one too many, or one left without a value is an error naming it."""
    n = len(names.ptx)
    out: list[Any] = [None] * n
    given = [False] * n
    nxt = 0
    for name, value in items:
        if name is None or name == "":
            if nxt >= n:
                raise PipeperfError(f"kernel {names.kernel} takes {n} argument{'s' * (n != 1)} "
                                    f"({names.listing()}), got {len(items)}", file=file)
            k = nxt
        else:
            k = names.index(str(name), file)
        if given[k]:
            raise PipeperfError(f"kernel {names.kernel}: parameter {names.label(k)} is given twice", file=file)
        out[k], given[k] = value, True
        nxt = k + 1
    missing = [names.label(k) for k in range(n) if not given[k]]
    if missing:
        s = "s" if len(missing) > 1 else ""
        raise PipeperfError(f"kernel {names.kernel}: no value for parameter{s} {', '.join(missing)}", file=file)
    return out


def param_bytes(p: Param) -> int:
    """A parameter's bytes (an aggregate's: all its elements)."""
    n = TYPE_BYTES.get(p.type, 8)
    for d in p.dims:
        n *= d or 1
    return n


def fit(spec: ArgSpec, p: Param, label: str, kernel: str, file: str | None = None) -> ArgSpec:
    """``spec`` checked against parameter ``p`` (named ``label``), an untyped number given the
    parameter's type: a buffer needs a pointer (8 bytes), a struct passed by value exactly its
    bytes, an integer parameter a whole number in range, a typed scalar the parameter's width."""
    size = param_bytes(p)
    decl = f".param .{p.type} {p.name}" + "".join(f"[{d}]" for d in p.dims)
    where = f"parameter {label} of {kernel}"
    if p.dims:                                   # a struct or array passed by value: its bytes
        if spec.kind == "scalar":
            raise PipeperfError(f"{where} is a {size}-byte struct or array passed by value ({decl}), "
                                f"not a number: give its {size} bytes (e.g. zeros:u8:{size}, or a .npy file "
                                "of the struct's bytes)", file=file)
        if spec.nbytes is not None and spec.nbytes != size:
            raise PipeperfError(f"{where} is a {size}-byte value passed by value ({decl}): got {spec.nbytes} "
                                f"bytes; give exactly {size} (e.g. zeros:u8:{size}, or a .npy file of the "
                                "struct's bytes)", file=file)
        return spec
    if spec.kind == "buffer":
        if size != 8:
            raise PipeperfError(f"{where} is .{p.type}, not a pointer, but got a buffer ('{spec.text}')",
                                file=file)
        return spec
    kind = p.type[0]                             # f(loat), s/u (integer), b(its)
    assert spec.number is not None               # not a struct or a buffer: a number
    if spec.type:
        if TYPES[spec.type] != size:
            raise PipeperfError(f"{where} is .{p.type} ({size} bytes): '{spec.text}' is {TYPES[spec.type]} "
                                f"bytes", file=file)
        if (kind == "f") != spec.type.startswith("f") and kind != "b":
            what = "a floating-point" if kind == "f" else "an integer"
            raise PipeperfError(f"{where} is .{p.type}, {what} parameter: '{spec.text}' is {spec.type}",
                                file=file)
        return spec
    if kind == "f" and size in (2, 4, 8):
        typ = f"f{8 * size}"
    elif kind in "sub" and size in (1, 2, 4, 8):
        if isinstance(spec.number, float) and not spec.number.is_integer():
            raise PipeperfError(f"{where} is .{p.type}, an integer: '{spec.text}' is not a whole number"
                                + (f" (for its bits, give a typed value such as f{8 * size}:{spec.value})"
                                   if kind == "b" and size in (4, 8) else ""), file=file)
        typ = f"{'i' if spec.number < 0 else 'u'}{8 * size}"
    else:
        raise PipeperfError(f"{where} has type .{p.type}, which a number cannot be given for ({SEE})",
                            file=file)
    try:
        number = typed_value(spec.number, typ, spec.text)
    except PipeperfError as e:
        raise PipeperfError(f"{where}: {e.message}", file=file) from None
    return replace(spec, type=typ, number=number)


def bind_specs(func: Function, specs: Sequence[ArgSpec], names: ParamNames | None = None,
               file: str | None = None) -> list[ArgSpec]:
    """``specs`` bound to ``func``'s parameters and fitted to them, in parameter order, each
    labelled with its parameter's name (CUDA's where known)."""
    names = names or ParamNames.of(func)
    bound = bind(names, [(s.label or None, s) for s in specs], file)
    return [fit(s, p, names.label(k), names.kernel, file).labelled(names.name(k))
            for k, (p, s) in enumerate(zip(func.params, bound))]
