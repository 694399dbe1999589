"""Static per-function summary (what ``pipeperf ptx`` prints)."""

from __future__ import annotations

from collections import Counter

from pipeperf.ptx.cfg import CFG
from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import Function, Module
from pipeperf.ptx.opcodes import CATEGORY_ORDER
from pipeperf.ptx.slices import Slicer


def category_counts(func: Function) -> dict[str, int]:
    """Static instruction count per category, in :data:`CATEGORY_ORDER`."""
    c = Counter(x.op.category for x in func.instructions)
    order = {k: i for i, k in enumerate(CATEGORY_ORDER)}
    return dict(sorted(c.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def register_counts(func: Function) -> dict[str, int]:
    """Declared registers per type (``%r<36>`` counts 36)."""
    c: Counter[str] = Counter()
    for d in func.reg_decls:
        c[d.type] += d.num_registers
    return dict(c)


def summarize_function(func: Function) -> dict:
    cfg = CFG(func)
    slicer = Slicer(func, DefUse.of(func, cfg))
    slices = slicer.branch_slices()
    ins = func.instructions
    branches = list(cfg.branch_instructions())
    conditional = sum(1 for i in branches if ins[i].guard is not None or ins[i].op.root == "brx")
    union: set[int] = set()
    for s in slices.values():
        union |= s.instructions
    return {
        "name": func.name,
        "kind": func.kind,
        "params": [
            {"name": p.name, "type": p.type, "bytes": p.size_bytes,
             **({"align": p.align} if p.align is not None else {}),
             **({"ptr": p.ptr_space or "generic"} if p.ptr else {})}
            for p in func.params
        ],
        "directives": dict(func.directives),
        "registers": register_counts(func),
        "shared_bytes": sum(v.size_bytes for v in func.variables if v.space == "shared"),
        "local_bytes": sum(v.size_bytes for v in func.variables if v.space == "local"),
        "instructions": len(ins),
        "predicated": sum(1 for x in ins if x.guard is not None),
        "categories": category_counts(func),
        "basic_blocks": len(cfg.blocks),
        "branches": {
            "total": len(branches),
            "conditional": conditional,
            "unconditional": len(branches) - conditional,
        },
        "slices": {
            "max": max((len(s) for s in slices.values()), default=0),
            "union": len(union),
            "via_memory": sum(1 for s in slices.values() if s.via_memory),
        },
    }


def summarize_module(module: Module) -> dict:
    return {
        "file": module.file,
        "version": module.version,
        "target": list(module.target),
        "address_size": module.address_size,
        "globals": [
            {"name": v.name, "space": v.space, "type": v.type, "bytes": v.size_bytes,
             "initialised": v.init is not None}
            for v in module.globals
        ],
        "functions": [summarize_function(f) for f in module.functions if f.has_body],
    }


def format_summary(summary: dict) -> str:
    """Human-readable text for :func:`summarize_module`'s result."""
    lines = [f"{summary['file']}: PTX {summary['version']}, target {', '.join(summary['target'])}"
             f", {summary['address_size']}-bit addresses"]
    for g in summary["globals"]:
        init = ", initialised" if g["initialised"] else ""
        lines.append(f"  .{g['space']} {g['name']}: {g['type']}, {g['bytes']} bytes{init}")
    for f in summary["functions"]:
        lines.append("")
        lines.append(f"{'kernel' if f['kind'] == 'entry' else 'function'} {f['name']}")
        params = ", ".join(f"{p['name']}: {p['type']}" + (" ptr" if "ptr" in p else "")
                           for p in f["params"]) or "none"
        lines.append(f"  params       {params}")
        if f["directives"]:
            lines.append("  directives   " + ", ".join(f".{k} {v}".rstrip()
                                                      for k, v in f["directives"].items()))
        regs = ", ".join(f"{n} .{t}" for t, n in f["registers"].items()) or "none"
        lines.append(f"  registers    {regs}")
        if f["shared_bytes"] or f["local_bytes"]:
            lines.append(f"  memory       {f['shared_bytes']} B shared, {f['local_bytes']} B local")
        lines.append(f"  instructions {f['instructions']} ({f['predicated']} predicated)")
        for cat, n in f["categories"].items():
            lines.append(f"    {cat:<12} {n:>6}")
        b = f["branches"]
        lines.append(f"  basic blocks {f['basic_blocks']}")
        lines.append(f"  branches     {b['total']} ({b['conditional']} conditional, "
                     f"{b['unconditional']} unconditional)")
        s = f["slices"]
        lines.append(f"  slices       largest {s['max']} instructions, union {s['union']}, "
                     f"{s['via_memory']} through memory")
    return "\n".join(lines)
