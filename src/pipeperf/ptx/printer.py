"""IR -> PTX text.

The output is valid PTX that ``ptxas`` accepts and that parses back to an
equal :class:`~pipeperf.ptx.ir.Module` (line numbers aside). Formatting
follows nvcc's style (tab after the opcode) so diffs against nvcc output stay
readable.
"""

from __future__ import annotations

from pipeperf.ptx.ir import (
    BranchTargets,
    CallPrototype,
    FileDirective,
    Function,
    Instruction,
    LabelDef,
    Loc,
    Module,
    Param,
    Pragma,
    RegDecl,
    ScopeBegin,
    ScopeEnd,
    Section,
    Variable,
    format_instruction,
)


def format_variable(v: Variable) -> str:
    parts = [f".{x}" for x in v.linkage]
    parts.append(f".{v.space}")
    parts += list(v.attributes)
    if v.align is not None:
        parts.append(f".align {v.align}")
    if v.vector:
        parts.append(f".{v.vector}")
    parts.append(f".{v.type}")
    name = v.name + "".join(f"[{d}]" if d is not None else "[]" for d in v.dims)
    s = " ".join(parts) + " " + name
    if v.init is not None:
        s += " = " + v.init
    return s + ";"


def format_param(p: Param) -> str:
    parts = [f".{p.space}"]
    if p.align is not None:
        parts.append(f".align {p.align}")
    parts.append(f".{p.type}")
    if p.ptr:
        parts.append(".ptr")
        if p.ptr_space:
            parts.append(f".{p.ptr_space}")
        if p.ptr_align is not None:
            parts.append(f".align {p.ptr_align}")
    return " ".join(parts) + " " + p.name + "".join(
        f"[{d}]" if d is not None else "[]" for d in p.dims)


def format_regdecl(d: RegDecl) -> str:
    vec = f".{d.vector} " if d.vector else ""
    if d.count is not None:
        names = ", ".join(f"{n}<{d.count}>" for n in d.names)
    else:
        names = ", ".join(d.names)
    return f".reg {vec}.{d.type} \t{names};"


def _function(f: Function, out: list[str]) -> None:
    head = " ".join([f".{x}" for x in f.linkage] + [f".{f.kind}"])
    if f.returns:
        head += " (" + ", ".join(format_param(p) for p in f.returns) + ")"
    head += " " + f.name
    if f.params or f.kind == "entry":
        head += "(\n" + ",\n".join("\t" + format_param(p) for p in f.params) + "\n)"
    out.append(head)
    for name, args in f.directives:
        out.append(f".{name} {args}".rstrip())
    if not f.has_body:
        out.append(";")
        return
    out.append("{")
    for item in f.body:
        t = type(item)
        if t is Instruction:
            out.append("\t" + format_instruction(item))
        elif t is Loc:
            out.append("\t" + str(item))
        elif t is LabelDef:
            out.append(f"{item.name}:")
        elif t is RegDecl:
            out.append("\t" + format_regdecl(item))
        elif t is Variable:
            out.append("\t" + format_variable(item))
        elif t is ScopeBegin:
            out.append("\t{")
        elif t is ScopeEnd:
            out.append("\t}")
        elif t is Pragma:
            out.append(f'\t.pragma "{item.text}";')
        elif t is BranchTargets:
            out.append(f"{item.name}: .branchtargets " + ", ".join(item.targets) + ";")
        elif t is CallPrototype:
            out.append(f"{item.name}: .{item.kind} {item.text};")
        else:  # pragma: no cover - parser never builds anything else
            raise TypeError(f"cannot print {t.__name__}")
    out.append("}")


def print_module(module: Module) -> str:
    """The whole module as PTX text."""
    out = [f".version {module.version}", ".target " + ", ".join(module.target)]
    if module.address_size is not None:
        out.append(f".address_size {module.address_size}")
    out.append("")
    for item in module.items:
        t = type(item)
        if t is Function:
            _function(item, out)
            out.append("")
        elif t is Variable:
            out.append(format_variable(item))
        elif t is FileDirective:
            extra = f", {item.extra}" if item.extra else ""
            out.append(f'.file\t{item.index} "{item.name}"{extra}')
        elif t is Section:
            out.append(f".section\t{item.name}\n{{{item.text}}}")
        elif t is Pragma:
            out.append(f'.pragma "{item.text}";')
        else:  # pragma: no cover
            raise TypeError(f"cannot print {t.__name__}")
    return "\n".join(out) + "\n"
