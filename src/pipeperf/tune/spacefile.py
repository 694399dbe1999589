"""Reading a tuning space from a YAML file and from the command line into one :class:`Space`.

The YAML (``examples/tune/matmul.yaml``)::

    source: matmul_tiled.cu          # relative to this file (or KERNEL.cu on the command line)
    kernel: matmul_tiled
    sizes: {N: 256}                  # fixed problem sizes
    params:                          # the space: each parameter's values
      TILE: [8, 16, 32]              # or '8,16,32', '1..32*2', '0..64+16'
      BY: [1, 2, 4, 8, 16, 32]
    defines: [TILE]                  # -D TILE=<value>; or NAME=EXPRESSION, or {NAME: EXPRESSION}
    template: []                     # template arguments, in order (expressions)
    grid: [N / TILE, N / TILE]
    block: [TILE, BY]
    shared: 2 * TILE * TILE * 4      # dynamic shared memory, bytes
    args: ["A=rand:f32:{N*N}", "n={N}"]
    constraints: [BY <= TILE, TILE * BY <= 1024]
    gpus: [volta_v100, ampere_a100, hopper_h100]
    nvcc_flags: [-std=c++17]
    include: [include]               # -I folders, relative to this file
    analysis: {trace_warps: 256, mode: hybrid}   # also max_nodes, fast_forward, phase_check: true, max_steps

The command line has the same pieces (``-D TILE=8,16,32`` sweeps a macro, ``--param``,
``--template``, ``--size``, ``--grid``, ``--block``, ``--shared``, ``--arg``, ``--constraint``,
``--gpu``); given with a file, they add to it (parameters, sizes, constraints, GPUs, -D) or
replace its entry (grid, block, shared, args, template, kernel); the command line's parameters
come after the file's, in the order -D, --template, --param. Every mistake is one line with
the file and line (or the option) and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import gpu_in_file
from pipeperf.tune.expr import Expr, Where, parse
from pipeperf.tune.space import ArgTemplate, Param, Space, check_names, duplicate, parse_values

KEYS = ("source", "kernel", "sizes", "params", "defines", "template", "grid", "block", "shared", "args",
        "constraints", "gpus", "nvcc_flags", "include", "analysis")
#: analysis options a space may set, with their types
ANALYSIS = {"trace_warps": int, "mode": str, "max_nodes": int, "fast_forward": int, "phase_check": bool,
            "max_steps": int}


@dataclass
class CliSpace:
    """The space options of ``pipeperf tune`` as typed (unparsed text, each with its option)."""

    source: str | None = None
    kernel: str | None = None
    sizes: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    template: list[str] = field(default_factory=list)
    grid: str | None = None
    block: str | None = None
    shared: str | None = None
    args: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    gpus: list[str] = field(default_factory=list)
    include_dirs: list[str] = field(default_factory=list)
    nvcc_flags: list[str] = field(default_factory=list)
    analysis: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Raw:
    """The space's pieces before their expressions are parsed, each with where it was written."""

    source: tuple[str, Where] | None = None
    kernel: str | None = None
    sizes: dict[str, tuple[Any, Where]] = field(default_factory=dict)
    params: dict[str, tuple[Any, Where]] = field(default_factory=dict)
    defines: list[tuple[str, Any, Where]] = field(default_factory=list)     # (name, expression|None, where)
    template: list[tuple[Any, Where]] = field(default_factory=list)
    grid: tuple[Any, Where] | None = None
    block: tuple[Any, Where] | None = None
    shared: tuple[Any, Where] | None = None
    args: list[tuple[str, Where]] = field(default_factory=list)
    constraints: list[tuple[Any, Where]] = field(default_factory=list)
    gpus: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)
    nvcc_flags: list[str] = field(default_factory=list)
    analysis: dict[str, Any] = field(default_factory=dict)
    origin: str = "command line"


def load_space(space_file: str | None, cli: CliSpace) -> Space:
    """The space of ``space_file`` (YAML; None: none) with the command line's options applied."""
    raw = _from_yaml(space_file) if space_file else _Raw()
    _apply_cli(raw, cli)
    return _build(raw)


# ------------------------------------------------------------------------------------- YAML

def _from_yaml(path: str) -> _Raw:
    from pipeperf.util.yamlio import load_lines
    from pipeperf.util.yamllines import LineList, LineMap

    doc = load_lines(path, "tuning space", strict=True)
    if not isinstance(doc, LineMap):
        raise PipeperfError(f"expected a mapping with keys {', '.join(KEYS)}", file=path,
                            line=getattr(doc, "line", None))
    base = Path(path).resolve().parent

    def at(key: Any, container: Any = doc, index: int | None = None) -> Where:
        if index is not None and isinstance(container, LineList) and index < len(container.item_lines):
            return Where(path, container.item_lines[index])
        if isinstance(container, LineMap):
            return Where(path, container.key_lines.get(key, container.line))
        return Where(path, getattr(container, "line", None))

    def items(key: str) -> list[tuple[Any, Where]]:
        v = doc[key]
        if isinstance(v, list):
            return [(x, at(None, v, i)) for i, x in enumerate(v)]
        return [(v, at(key))]

    def mapping(key: str) -> LineMap:
        v = doc[key]
        if not isinstance(v, LineMap):
            raise at(key).error(f"{key}: expected a mapping of NAME: VALUE")
        return v

    raw = _Raw(origin=path)
    for key in doc:
        if key not in KEYS:
            raise at(key).error(f"unknown key {key!r}: expected one of {', '.join(KEYS)}")
    if "source" in doc:
        if not isinstance(doc["source"], str):
            raise at("source").error("source: expected the kernel's file (.cu), relative to this file")
        raw.source = (str(base / doc["source"]), at("source"))
    if "kernel" in doc:
        if not isinstance(doc["kernel"], str):
            raise at("kernel").error("kernel: expected the kernel's CUDA name")
        raw.kernel = doc["kernel"]
    for section, target in (("sizes", raw.sizes), ("params", raw.params)):
        if section in doc:
            m = mapping(section)
            for name, value in m.items():
                target[str(name)] = (value, at(name, m))
    if "defines" in doc:
        d = doc["defines"]
        if isinstance(d, LineMap):
            raw.defines += [(str(k), v, at(k, d)) for k, v in d.items()]
        else:
            for text, where in items("defines"):
                raw.defines.append(_define(text, where))
    for key, attr in (("template", "template"), ("constraints", "constraints")):
        if key in doc:
            getattr(raw, attr).extend(items(key))
    for key in ("grid", "block", "shared"):
        if key in doc:
            v = doc[key]
            if isinstance(v, list):
                v = ", ".join(str(x) for x in v)
            setattr(raw, key, (v, at(key)))
    if "args" in doc:
        for text, where in items("args"):
            if not isinstance(text, (str, int, float)) or isinstance(text, bool):
                raise where.error(f"{text!r}: expected a kernel argument, e.g. 'A=rand:f32:{{N*N}}' or 'n={{N}}'")
            raw.args.append((str(text), where))
    if "gpus" in doc:
        raw.gpus += [gpu_in_file(str(g), base) for g, _ in items("gpus")]      # a GPU file: relative to this file
    if "nvcc_flags" in doc:
        raw.nvcc_flags += [str(f) for f, _ in items("nvcc_flags")]
    if "include" in doc:
        raw.include += [str(base / str(d)) for d, _ in items("include")]
    if "analysis" in doc:
        m = mapping("analysis")
        for k, v in m.items():
            raw.analysis[k] = _analysis_option(k, v, at(k, m))
    return raw


def _define(text: Any, where: Where) -> tuple[str, Any, Where]:
    """``NAME`` or ``NAME=EXPRESSION`` (a define of the parameter NAME's value when it is one)."""
    if not isinstance(text, str) or not re.fullmatch(r"\s*[A-Za-z_]\w*\s*(=.*)?", text, re.S):
        raise where.error(f"{text!r}: expected NAME or NAME=EXPRESSION")
    name, sep, value = text.partition("=")
    return name.strip(), (value if sep else _PARAM_OR_FLAG), where


#: a define written as a bare NAME: -D NAME=<its value> when NAME is a parameter or size, else -D NAME
_PARAM_OR_FLAG = object()


def _analysis_option(key: Any, value: Any, where: Where) -> Any:
    if key not in ANALYSIS:
        raise where.error(f"analysis: unknown option {key!r}: expected one of {', '.join(ANALYSIS)}")
    typ = ANALYSIS[key]
    if typ is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise where.error(f"analysis.{key}: expected a whole number >= 0, got {value!r}")
    if typ is bool and not isinstance(value, bool):
        raise where.error(f"analysis.{key}: expected true or false, got {value!r}")
    if key == "mode" and value not in ("hybrid", "full"):
        raise where.error(f"analysis.mode: expected hybrid or full, got {value!r}")
    return value


# ------------------------------------------------------------------------------ command line

def _apply_cli(raw: _Raw, cli: CliSpace) -> None:
    if cli.source:
        raw.source = (str(Path(cli.source).resolve()), Where(option="KERNEL.cu"))
    if cli.kernel:
        raw.kernel = cli.kernel
    for text in cli.sizes:
        name, value = _assignment(text, "--size", "NAME=VALUE")
        raw.sizes[name] = (value, Where(option=f"--size {text}"))
    for text in cli.defines:
        where = Where(option=f"-D {text}")
        name, sep, value = text.partition("=")
        name = name.strip()
        if sep and _is_value_list(value):
            raw.params[name] = (value, where)
            raw.defines = [d for d in raw.defines if d[0] != name] + [(name, _PARAM_OR_FLAG, where)]
        else:
            raw.defines = [d for d in raw.defines if d[0] != name] + [_define(text, where)]
    if cli.template:
        raw.template = []
    for text in cli.template:
        where = Where(option=f"--template {text}")
        name, sep, value = text.partition("=")
        if sep and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", name) and not value.startswith("="):   # not ==
            raw.params[name.strip()] = (value, where)
            raw.template.append((name.strip(), where))
        else:
            raw.template.append((text, where))
    for text in cli.params:
        name, value = _assignment(text, "--param", "NAME=VALUES")
        raw.params[name] = (value, Where(option=f"--param {text}"))
    for key in ("grid", "block", "shared"):
        value = getattr(cli, key)
        if value is not None:
            setattr(raw, key, (value, Where(option=f"--{key}")))
    if cli.args:
        raw.args = [(a, Where(option=f"--arg {a}")) for a in cli.args]
    raw.constraints += [(c, Where(option="--constraint")) for c in cli.constraints]
    raw.gpus += list(cli.gpus)
    raw.include += [str(Path(d).resolve()) for d in cli.include_dirs]
    raw.nvcc_flags += list(cli.nvcc_flags)
    for k, v in cli.analysis.items():
        if v is not None:
            raw.analysis[k] = _analysis_option(k, v, Where(option=f"--{k.replace('_', '-')}"))


def _fix(raw: _Raw, name: str, value: str, where: Where) -> None:
    """``-D NAME=VALUE`` (or a file's define) on a parameter or size NAME of the space: the space's
    expressions (grid, block, shared, args, constraints, template) take that value too, so the macro
    the variants are compiled with and their launch agree (a sweep over NAME collapses to this one
    value). An expression would let the two disagree: it is refused, naming both."""
    what = "size" if name in raw.sizes else "parameter" if name in raw.params else None
    if what is None:
        return
    table = raw.sizes if what == "size" else raw.params
    try:
        values = parse_values(value.strip(), where)
    except PipeperfError:
        values = ()
    if len(values) != 1 or values[0] in raw.sizes or values[0] in raw.params:     # an expression
        w = table[name][1]
        at = f"{w.file}:{w.line}" if w.file else (w.option or "the space")
        raise where.error(f"{name}={value.strip()} conflicts with the space's {what} {name} ({at}), which its "
                          f"expressions use: give one value (-D {name}=8) to fix it, or values (-D {name}=8,16) "
                          "to sweep it")
    table[name] = (value.strip(), where)
    raw.defines = [d for d in raw.defines if d[0] != name] + [(name, _PARAM_OR_FLAG, where)]


def _assignment(text: str, option: str, form: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise PipeperfError(f"{option} {text!r}: expected {form}")
    return name.strip(), value


def _is_value_list(text: str) -> bool:
    """Whether ``-D NAME=TEXT`` sweeps values (``8,16,32``, ``1..64*2``) rather than setting one."""
    from pipeperf.tune.space import _RANGE

    if _RANGE.match(text):
        return True
    items = [t.strip() for t in text.split(",")]
    return len(items) > 1 and all(re.fullmatch(r"-?[\w.]+", t) for t in items)


# ------------------------------------------------------------------------------------ build

def _build(raw: _Raw) -> Space:
    if raw.source is None:
        raise PipeperfError("no kernel source: give KERNEL.cu, or 'source:' in the space file")
    source, where = raw.source
    if not Path(source).is_file():
        raise where.error(f"no such file: {source}")
    if Path(source).suffix != ".cu":
        raise where.error(f"{source}: expected a CUDA file (.cu): the space's macros and template "
                          "arguments are compiled")
    for name, value, w in list(raw.defines):       # a macro the expressions also use: one value for both
        if value is not _PARAM_OR_FLAG and value is not None and not isinstance(value, bool):
            _fix(raw, name, str(value), w)
    for name, (_, w) in raw.sizes.items():
        check_names([name], w)
        if name in raw.params:
            raise duplicate(name, raw.params[name][1])
    sizes = {}
    for name, (value, w) in raw.sizes.items():
        vals = parse_values(value, w)
        if len(vals) != 1:
            raise w.error(f"size {name}: expected one value (a size is fixed; sweep a parameter instead)")
        sizes[name] = vals[0]
    params = []
    for name, (value, w) in raw.params.items():
        check_names([name], w)
        params.append(Param(name, parse_values(value, w), w))
    known = frozenset(sizes) | frozenset(p.name for p in params)
    if raw.grid is None or raw.block is None:
        missing = "grid" if raw.grid is None else "block"
        raise PipeperfError(f"no {missing}: give --{missing} EXPRESSIONS or '{missing}:' in the space file "
                            f"(e.g. {'N / TILE, N / TILE' if missing == 'grid' else 'TILE, BY'})",
                            file=None if raw.origin == "command line" else raw.origin)
    grid = parse(raw.grid[0], known, raw.grid[1])
    block = parse(raw.block[0], known, raw.block[1])
    shared = parse(raw.shared[0], known, raw.shared[1]) if raw.shared is not None else None
    defines = []
    for name, value, w in raw.defines:
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise w.error(f"{name!r}: expected a macro name")
        if value is _PARAM_OR_FLAG:
            defines.append((name, parse(name, known, w) if name in known else None))
        elif value is None or (isinstance(value, str) and not value.strip()):
            defines.append((name, None))
        else:
            defines.append((name, parse(value, known, w)))
    template = tuple(parse(t, known, w) for t, w in raw.template)
    args = tuple(_arg_template(text, known, w) for text, w in raw.args)
    constraints = tuple(parse(c, known, w) for c, w in raw.constraints)
    gpus = tuple(dict.fromkeys(raw.gpus))
    if not gpus:
        raise PipeperfError("no GPU: give --gpu NAME (repeat) or 'gpus:' in the space file",
                            file=None if raw.origin == "command line" else raw.origin)
    if template and not raw.kernel:
        raise raw.template[0][1].error("template arguments need the kernel's name (kernel: NAME or --kernel)")
    flags = tuple(f"-I{d}" for d in raw.include) + tuple(raw.nvcc_flags)
    return Space(source, raw.kernel, sizes, tuple(params), grid, block, shared, tuple(defines), template,
                 args, constraints, gpus, flags, tuple(raw.include), dict(raw.analysis), raw.origin)


def _arg_template(text: str, known: frozenset[str], where: Where) -> ArgTemplate:
    """``A=rand:f32:{N*N}`` split into literal text and parsed ``{expressions}``."""
    parts: list[str | Expr] = []
    pos = 0
    for m in re.finditer(r"\{([^{}]*)\}", text):
        parts.append(text[pos:m.start()])
        parts.append(parse(m[1], known, where))
        pos = m.end()
    rest = text[pos:]
    if "{" in rest or "}" in rest:
        raise where.error(f"{text!r}: unbalanced braces: expected {{EXPRESSION}} parts, e.g. rand:f32:{{N*N}}")
    parts.append(rest)
    return ArgTemplate(text, tuple(p for p in parts if not (isinstance(p, str) and p == "")), where)
