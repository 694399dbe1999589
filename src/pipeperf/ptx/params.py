"""A kernel's parameters by name: launch arguments bound to them, each checked against its type.

Why one module: ``profile``/``analyze`` (the emulator) and ``measure`` (the GPU launcher) bind
``--arg`` specs (:mod:`pipeperf.util.launch_args`) to the same PTX parameters with the same rules:
by position or by name (the CUDA name from the ``.cu``, the PTX name, or a position), an untyped
number typed by its parameter, a buffer only for a pointer, numbers and tuples for CUDA's vector
and 16-bit float types passed by value (``__half``, ``float4``: their C++ type read from the
mangled entry or the ``.cu``). Every error names the parameter by its CUDA name, with the PTX name
beside it (``ny (PTX _Z8stencil5PKfPfii_param_3)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from pipeperf.errors import PipeperfError
from pipeperf.ptx.cuda_names import base_name, cuda_param_names, cuda_param_types
from pipeperf.ptx.ir import TYPE_BYTES, Function, Param
from pipeperf.ptx.provenance import accesses_through
from pipeperf.util.launch_args import ELEMENTS, SEE, TYPES, ArgSpec, typed_value

#: CUDA's vector and 16-bit float types (vector_types.h, cuda_fp16.h, cuda_bf16.h), which PTX
#: passes by value as ``.param .align A .b8 name[SIZE]``: C++ name -> (element type, count). They
#: take numbers and tuples; any other struct takes its bytes.
VECTOR_TYPES: dict[str, tuple[str, int]] = {
    "__half": ("f16", 1), "__half2": ("f16", 2), "__nv_bfloat16": ("bf16", 1), "__nv_bfloat162": ("bf16", 2),
    **{f"{c}{n}{tail}": (t, n)
       for c, t in (("char", "i8"), ("uchar", "u8"), ("short", "i16"), ("ushort", "u16"), ("int", "i32"),
                    ("uint", "u32"), ("long", "i64"), ("ulong", "u64"), ("longlong", "i64"),
                    ("ulonglong", "u64"), ("float", "f32"), ("double", "f64"))
       for n in (1, 2, 3, 4) for tail in (("", "_16a", "_32a") if n == 4 and t[1:] == "64" else ("",))}}
#: their typedef names (an ``extern "C"`` kernel's declaration says ``half``; mangling never does)
TYPEDEFS = {"half": "__half", "half2": "__half2", "nv_bfloat16": "__nv_bfloat16", "nv_bfloat162": "__nv_bfloat162"}


@dataclass(frozen=True)
class ParamNames:
    """A kernel's parameter names: PTX's, and the CUDA source's where it is known."""

    entry: str                          # the PTX entry (mangled for C++ kernels)
    ptx: tuple[str, ...]
    cuda: tuple[str, ...] = ()          # as many as ``ptx`` ("" for an unnamed one), or () if unknown
    types: tuple[str, ...] = ()         # their C++ types (``__half``, ``float*``), or () if unknown

    @classmethod
    def of(cls, func: Function, source: str | None = None) -> ParamNames:
        """``source``: the CUDA text ``func`` was compiled from (None for a ``.ptx`` input)."""
        ptx = tuple(p.name for p in func.params)
        cuda = tuple(cuda_param_names(source, func.name, len(ptx))) if source else ()
        types = tuple(cuda_param_types(func.name, source, len(ptx)))
        return cls(func.name, ptx, cuda if len(cuda) == len(ptx) else (), types)

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

    def type(self, k: int) -> str:
        """Parameter ``k``'s C++ type (``__half``), or "" where neither the entry nor the source says."""
        return self.types[k] if self.types else ""

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


def fit(spec: ArgSpec, p: Param, label: str, kernel: str, file: str | None = None, ctype: str = "",
        func: Function | None = None, allow_dtype_mismatch: bool = False) -> ArgSpec:
    """``spec`` checked against parameter ``p`` (named ``label``, of C++ type ``ctype`` where
    known), an untyped number given the parameter's type: a buffer needs a pointer (8 bytes), a
    ``.npy`` file the pointer's element type (:func:`check_npy_dtype`, unless
    ``allow_dtype_mismatch``; ``func``: the kernel, whose loads tell an ``extern "C"`` pointer's
    element type), a struct passed by value exactly its bytes (a vector type such as ``__half`` or
    ``float4`` also its numbers, :func:`fit_vector`), an integer parameter a whole number in range,
    a typed scalar the parameter's width."""
    size = param_bytes(p)
    decl = f".param .{p.type} {p.name}" + "".join(f"[{d}]" for d in p.dims)
    where = f"parameter {label} of {kernel}"
    if p.dims:                                   # a struct, array or vector passed by value
        if spec.kind == "scalar":
            article = "an" if str(size).startswith("8") or size in (11, 18) else "a"
            return fit_vector(spec, size, f"{where} is {article} {size}-byte", decl, ctype, file)
        if spec.nbytes is not None and spec.nbytes != size:
            raise PipeperfError(f"{where} is a {size}-byte value passed by value ({decl}): got {spec.nbytes} "
                                f"bytes; give exactly {size} (e.g. zeros:u8:{size}, or a .npy file of the "
                                "struct's bytes)", file=file)
        return spec
    if spec.numbers:
        raise PipeperfError(f"{where} is .{p.type}, not a vector: '{spec.text}' gives {len(spec.numbers)} "
                            "values (a tuple is for a vector passed by value, e.g. float2)", file=file)
    if spec.kind == "buffer":
        if size != 8:
            raise PipeperfError(f"{where} is .{p.type}, not a pointer, but got a buffer ('{spec.text}')",
                                file=file)
        if spec.fill == "npy" and not allow_dtype_mismatch:
            check_npy_dtype(spec, where, ctype, func, p.name)
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


#: C++ element types of a pointer -> (kind, bytes): ``f`` floating, ``i`` integer (either
#: signedness), ``h`` bfloat16 (2-byte integers or raw bytes, not float16); LP64 (``long`` 8 bytes)
_ELEMENT_TYPES: dict[str, tuple[str, int]] = {
    "float": ("f", 4), "double": ("f", 8), "__half": ("f", 2), "half": ("f", 2), "_Float16": ("f", 2),
    "__nv_bfloat16": ("h", 2), "nv_bfloat16": ("h", 2), "std::bfloat16_t": ("h", 2), "bool": ("i", 1),
    **{t: ("i", n) for n, names in ((1, ("char", "signed char", "unsigned char", "int8_t", "uint8_t")),
                                    (2, ("short", "unsigned short", "int16_t", "uint16_t")),
                                    (4, ("int", "unsigned int", "unsigned", "int32_t", "uint32_t")),
                                    (8, ("long", "unsigned long", "long long", "unsigned long long", "int64_t",
                                         "uint64_t", "size_t", "ptrdiff_t")))
       for t in names},
}


def pointer_element(ctype: str) -> tuple[str, int, str] | None:
    """(kind, bytes, C++ name) of what a pointer parameter of C++ type ``ctype`` points to
    (``const float*`` -> ``("f", 4, "float")``, ``float4*`` -> float's); None where the type
    does not say (``void*``, a struct, a pointer to pointers, not a pointer)."""
    t = re.sub(r"\b(?:const|volatile|__restrict__|__restrict|restrict)\b", " ", ctype)
    t = " ".join(t.split()).replace(" *", "*").replace(" [", "[")
    for tail in ("*", "[]"):
        if t.endswith(tail) and not t[:-len(tail)].endswith(("*", "]", "&")):
            base = t[:-len(tail)].strip()
            base = TYPEDEFS.get(base, base)
            if base in VECTOR_TYPES:
                elem, _ = VECTOR_TYPES[base]
                return ("h" if elem == "bf16" else "f" if elem[0] == "f" else "i"), ELEMENTS[elem], base
            if base in _ELEMENT_TYPES:
                return (*_ELEMENT_TYPES[base], base)
            return None
    return None


def ptx_element(func: Function, param: str) -> tuple[str, int, str] | None:
    """(``"f"``, bytes, PTX type) when every global memory access through pointer parameter
    ``param`` of ``func`` (loads, stores and atomics whose address derives from it alone) is
    floating-point of one width: an ``extern "C"`` kernel's only evidence. Integer and untyped
    accesses say nothing (PTX moves ``__half`` as ``.u16``, ``half2`` and packed bytes as
    ``.u32``), and neither do several widths: None."""
    types = {x.types[-1] for x in accesses_through(func, param) if x.types}
    if len(types) != 1 or not next(iter(types)).startswith("f"):
        return None
    t = types.pop()
    return "f", TYPE_BYTES.get(t, 0), t


def check_npy_dtype(spec: ArgSpec, where: str, ctype: str, func: Function | None, param: str) -> None:
    """Refuse a ``.npy`` whose dtype is not the pointer's element type (:func:`check_dtype`); only
    the file's header is read, not the array."""
    import numpy as np

    try:
        with open(spec.value, "rb") as f:          # the header only, not the array
            version = np.lib.format.read_magic(f)
            read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                    else np.lib.format.read_array_header_2_0)
            dtype = read(f)[2] if version in ((1, 0), (2, 0)) else np.load(spec.value, allow_pickle=False).dtype
    except (OSError, ValueError) as exc:
        raise PipeperfError(f"--arg '{spec.text}': cannot read it as a .npy array "
                            f"({getattr(exc, 'strerror', None) or exc})", file=spec.value) from None
    check_dtype(dtype, f"--arg '{spec.text}': ", "the .npy", "--allow-dtype-mismatch", where, ctype, func, param,
                spec.value)


def check_dtype(dtype: Any, subject: str, holder: str, escape: str, where: str, ctype: str,
                func: Function | None, param: str, file: str | None = None) -> None:
    """Refuse a buffer of NumPy ``dtype`` that is not the pointer's element type, as a runtime with
    typed arrays would (a float64 array for a ``float*`` would be read as pairs of floats): the
    element type from the C++ type ``ctype`` (mangled name or ``.cu``), else from how ``func``'s PTX
    accesses ``param`` (:func:`ptx_element`); accepted where neither says. Integers of either
    signedness and the element's width pass; a big-endian buffer never does (its bytes are read as
    they are). ``subject`` begins the message, ``holder`` names the buffer ("the .npy"), ``escape``
    is how to take it anyway."""
    expected = pointer_element(ctype) if ctype else None
    what = ctype
    if expected is None and func is not None:
        expected = ptx_element(func, param)
        what = f"accessed as .{expected[2]} in the PTX" if expected else ""
    if expected is None or dtype.hasobject:
        return
    kind, size, _ = expected
    ok = dtype.itemsize == size and dtype.byteorder != ">" and (
        (kind == "f" and dtype.kind == "f") or (kind == "i" and dtype.kind in "iub")
        or (kind == "h" and dtype.kind in "iuV"))
    if not ok:
        bits = 8 * size
        want = {"f": f"float{bits}", "i": f"int{bits} or uint{bits}", "h": "bfloat16 bits (uint16)"}[kind]
        hint = f"e.g. array.astype(np.{want.split()[0]})" if kind in "fi" else "its elements"
        order = " (big-endian)" if dtype.byteorder == ">" else ""
        raise PipeperfError(f"{subject}{where} is {what}: it takes {want} elements, but {holder} "
                            f"holds {dtype.name}{order}; convert it ({hint}) or pass {escape}", file=file)


def fit_array(array: Any, p: Param, label: str, kernel: str, file: str | None = None, ctype: str = "",
              func: Function | None = None, allow_dtype_mismatch: bool = False) -> None:
    """A NumPy array given as parameter ``p``'s buffer (the Python API) checked as :func:`fit`
    checks a ``.npy`` file: a pointer parameter, and the pointer's element type unless
    ``allow_dtype_mismatch`` (:func:`check_dtype`). A struct passed by value takes the array as its
    bytes (their count checked where the parameter is written)."""
    size = param_bytes(p)
    if p.dims:
        return
    where = f"parameter {label} of {kernel}"
    if size != 8:
        raise PipeperfError(f"{where} is .{p.type}, not a pointer, but got a {array.dtype.name} array of "
                            f"{array.size} elements", file=file)
    if not allow_dtype_mismatch:
        check_dtype(array.dtype, "", "the array", "allow_dtype_mismatch=True", where, ctype, func, p.name, file)


def fit_vector(spec: ArgSpec, size: int, where: str, decl: str, ctype: str, file: str | None) -> ArgSpec:
    """A number or tuple for a ``size``-byte parameter passed by value (``where`` begins each
    message: "parameter alpha of gemm is a 2-byte"), typed by its C++ type ``ctype``: the spec with
    the element ``type`` and checked ``numbers`` (:func:`~pipeperf.util.launch_args.element_bytes`
    makes the bytes). Where the type is unknown, typed values that fill its bytes say it."""
    vec = VECTOR_TYPES.get(TYPEDEFS.get(ctype, ctype))
    if vec is not None and ELEMENTS[vec[0]] * vec[1] != size:
        vec = None                               # not the type the name says (long on Windows)
    values = spec.values
    if vec is None and not ctype and spec.type and TYPES[spec.type] * len(values) == size:
        vec = (spec.type, len(values))
    bytes_hint = f"its {size} bytes (e.g. zeros:u8:{size}, or a .npy file of the struct's bytes)"
    if vec is None:
        fits = [c for c, (t, n) in VECTOR_TYPES.items()      # the usual ones: no float1, double4_32a
                if ELEMENTS[t] * n == size and c[-1] != "1" and not c.endswith("a")]
        if ctype or not fits:
            raise PipeperfError(f"{where} struct or array passed by value ({ctype + ': ' if ctype else ''}{decl}), "
                                f"not a number: give {bytes_hint}", file=file)
        fits = [c for c in fits if VECTOR_TYPES[c][1] == len(values)] or fits
        fits.sort(key=lambda c: (not c.startswith("__"), not c.startswith(("float", "double"))))
        t, n = VECTOR_TYPES[fits[0]]
        example = f"{t}:{','.join(str(v) for v in values) if len(values) == n else ','.join(['1'] * n)}"
        raise PipeperfError(f"{where} value passed by value ({decl}) whose C++ type is not known (neither "
                            f"the mangled kernel name nor a .cu declaration says): {' or '.join(fits[:6])}? "
                            f"Give typed values (e.g. {example} for {fits[0]}) or {bytes_hint}", file=file)
    elem, n = vec
    what = ctype or f"{n} x {elem}"
    if len(values) != n:
        raise PipeperfError(f"{where} {what} passed by value: it takes {n} number{'s' * (n > 1)}, got "
                            f"{len(values)} ('{spec.text}')", file=file)
    if spec.type and spec.type != elem and not (spec.type[0] in "iu" and elem[0] in "iu"
                                                and TYPES[spec.type] == ELEMENTS[elem]):
        raise PipeperfError(f"{where} {what} ({elem} elements): '{spec.text}' is {spec.type}", file=file)
    numbers = []
    for v in values:
        typ = elem if elem[0] not in "iu" else f"{'i' if v < 0 else 'u'}{8 * ELEMENTS[elem]}"
        try:
            numbers.append(typed_value(v, typ, spec.text))
        except PipeperfError as e:
            raise PipeperfError(f"{where} {what}: {e.message}", file=file) from None
    return replace(spec, type=elem, number=None, numbers=tuple(numbers))


def bind_specs(func: Function, specs: Sequence[ArgSpec], names: ParamNames | None = None,
               file: str | None = None, allow_dtype_mismatch: bool = False) -> list[ArgSpec]:
    """``specs`` bound to ``func``'s parameters and fitted to them, in parameter order, each
    labelled with its parameter's name (CUDA's where known)."""
    names = names or ParamNames.of(func)
    bound = bind(names, [(s.label or None, s) for s in specs], file)
    return [fit(s, p, names.label(k), names.kernel, file, names.type(k), func, allow_dtype_mismatch)
            .labelled(names.name(k))
            for k, (p, s) in enumerate(zip(func.params, bound))]
