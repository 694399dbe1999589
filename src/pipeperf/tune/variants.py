"""A variant of the space as the launch it stands for: -D flags, template arguments, grid, block,
dynamic shared memory and kernel arguments, all evaluated; the record every later stage (cache
key, compile, analysis, report) reads, the same for ``tune`` and ``analyze --batch``.

A launch CUDA would refuse (more than 1024 threads, a grid dimension too large) is not an error
of the space: the variant is kept and reported with the reason (:class:`Refused`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

from pipeperf.errors import PipeperfError
from pipeperf.tune.expr import Expr, whole_number
from pipeperf.tune.space import Space, Variant


@dataclass(frozen=True)
class Launch:
    """One kernel launch to analyse: what the cache key hashes and the workers receive."""

    path: str                                    # the .cu or .ptx file, absolute
    kernel: str | None
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int = 0                              # dynamic shared memory, bytes
    args: tuple[str, ...] = ()                   # --arg texts
    defines: tuple[str, ...] = ()                # "-DNAME=VALUE"
    template: tuple[str, ...] = ()               # template arguments as C++ text
    nvcc_flags: tuple[str, ...] = ()             # -I and other flags
    include_dirs: tuple[str, ...] = ()

    @property
    def flags(self) -> tuple[str, ...]:
        """What nvcc is given: the -D flags, then the others."""
        return self.defines + self.nvcc_flags

    def describe(self) -> dict[str, Any]:
        return {"grid": list(self.grid), "block": list(self.block), "shared": self.shared,
                "args": list(self.args), "defines": list(self.defines), "template": list(self.template)}


@dataclass(frozen=True)
class Refused:
    """A variant CUDA cannot launch as given (the reason, in CUDA's terms)."""

    reason: str


def cxx(value: Any) -> str:
    """A value as C++ source text (for -D and template arguments)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def resolve(space: Space, v: Variant) -> Launch | Refused:
    """The launch of variant ``v``; an expression that cannot be evaluated is a PipeperfError
    naming its file and line; a launch over CUDA's limits is :class:`Refused`."""
    from pipeperf.util.launch_args import check_cuda_limits, dim3, parse_arg

    env = {**space.sizes, **v.params}
    grid = _dims(space.grid, "grid", env)
    block = _dims(space.block, "block", env)
    shared = whole_number(space.shared(env), "shared", space.shared, env) if space.shared is not None else 0
    if shared < 0:
        raise space.shared.where.error(f"shared {space.shared.text!r} = {shared}: expected bytes >= 0")   # type: ignore[union-attr]
    args = []
    for a in space.args:
        text = "".join(p if isinstance(p, str) else _text(p, env) for p in a.parts)
        try:
            parse_arg(text)
        except PipeperfError as e:
            raise a.where.error(f"{a.text!r} gives {text!r}: {e.message}") from None
        args.append(text)
    defines = tuple(f"-D{name}" if e is None else f"-D{name}={cxx(e(env))}" for name, e in space.defines)
    template = tuple(cxx(e(env)) for e in space.template)
    try:
        g3, b3 = dim3(grid, "grid"), dim3(block, "block")
    except PipeperfError as e:
        return Refused(e.message)
    try:
        check_cuda_limits(g3, b3)
    except PipeperfError as e:
        return Refused(e.message)
    return Launch(space.source, space.kernel, g3, b3, shared, tuple(args), defines, template,
                  space.nvcc_flags, space.include_dirs)


def _dims(e: Expr, what: str, env: Mapping[str, Any]) -> tuple[int, ...]:
    value = e(env)
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3:
        raise e.where.error(f"{what} {e.text!r}: expected one to three sizes, got {len(items)}")
    return tuple(whole_number(x, what, e, env) for x in items)


def _text(e: Expr, env: Mapping[str, Any]) -> str:
    value = e(env)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)
