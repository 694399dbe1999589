"""A compute block's instruction counts and ILP counted from its loop body, not typed by hand.

Sec. III-D counts #t per instruction type from the assembly and takes avg_ILP from each basic
block's predicted time. A description may instead give the block's ``body``: assignments in C
syntax (``d = p[f] - c[f]``, ``ans += d * d``, ``out[i] = ans``), one per line. Each operator is
one instruction of the type its operands give (floating unless every operand is an integer: a
name listed in the block's ``integers``, an integer constant, or an integer result); an array
element read is an SPM load and an element written an SPM store; ``/`` and ``sqrt()`` on floats
are div/sqrt, ``/`` ``%`` on integers fixed-point; an expression (an element read included) that
recurs before any of its variables or arrays is assigned is computed once (common-subexpression
elimination, as the compiler does). The block's time is its dependency graph's
critical path (each instruction starts when its operands are ready: the in-order pipeline's issue
width is not modelled), and ILP solves Eq. 6 for it: pipelined latency / (critical path - div/sqrt
latency), between 1 and the processor's maximum. Values read before they are written in the body
(loop-carried or loop-invariant) are ready at its start.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from dataclasses import dataclass

from pipeperf.errors import PipeperfError
from pipeperf.sw26010.processor import ProcessorSpec

_FLOAT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod, ast.FloorDiv)
_FUNCTIONS = {"sqrt": "div_sqrt", "fabs": "same", "abs": "same", "min": "same", "max": "same"}


@dataclass(frozen=True)
class BodyCount:
    """Instructions per execution of the body by type, its critical path (cycles) and ILP."""

    floating: int
    fixed: int
    spm: int
    div_sqrt: int
    critical_path: float
    ilp: float


def count_body(text: str, proc: ProcessorSpec, integers: Collection[str] = (),
               error: Callable[[str], PipeperfError] = PipeperfError) -> BodyCount:
    """Count ``text`` (see the module docstring); ``error`` builds the message's exception (the
    caller's names the file and field)."""
    counter = _Counter(proc, set(integers), error)
    for n, line in enumerate(text.splitlines(), 1):
        src = line.split("//")[0].strip().rstrip(";")
        if src:
            counter.statement(src, n)
    c = counter.counts
    if not any(c.values()):
        raise error("body has no instruction")
    pipelined = c["floating"] * proc.l_floating + c["fixed"] * proc.l_fixed + c["spm"] * proc.l_spm
    serial = c["div_sqrt"] * proc.l_div_sqrt
    path = counter.critical
    ilp = pipelined / (path - serial) if path > serial and pipelined > 0 else proc.max_ilp
    return BodyCount(c["floating"], c["fixed"], c["spm"], c["div_sqrt"], path, min(proc.max_ilp, max(1.0, ilp)))


class _Counter:
    def __init__(self, proc: ProcessorSpec, integers: set[str], error: Callable[[str], PipeperfError]) -> None:
        self.lat = {"floating": proc.l_floating, "fixed": proc.l_fixed, "spm": proc.l_spm,
                    "div_sqrt": proc.l_div_sqrt}
        self.integers = integers
        self.error = error
        self.ready: dict[str, float] = {}            # variable -> cycle its value is ready
        self.is_int: dict[str, bool] = {}
        self.memo: dict[str, tuple[float, bool, frozenset[str]]] = {}  # expression -> (ready, integer, names)
        self.counts = dict.fromkeys(self.lat, 0)
        self.critical = 0.0
        self.line = 0

    def fail(self, what: str) -> PipeperfError:
        return self.error(f"body line {self.line}: {what}")

    def op(self, kind: str, start: float) -> float:
        self.counts[kind] += 1
        done = start + self.lat[kind]
        self.critical = max(self.critical, done)
        return done

    def statement(self, src: str, line: int) -> None:
        self.line = line
        try:
            node = ast.parse(src, mode="exec").body
        except SyntaxError as exc:
            raise self.fail(f"not an assignment in C syntax ({exc.msg})") from None
        if len(node) != 1 or not isinstance(node[0], (ast.Assign, ast.AugAssign)):
            raise self.fail("expected one assignment (x = expr, x += expr, a[i] = expr)")
        st = node[0]
        target: ast.expr
        if isinstance(st, ast.AugAssign):
            target = st.target
            value: ast.expr = ast.BinOp(left=_as_load(target), op=st.op, right=st.value)
        else:
            if len(st.targets) != 1:
                raise self.fail("one target per assignment")
            target, value = st.targets[0], st.value
        t, is_int = self.expr(value)
        if isinstance(target, ast.Name):
            self.ready[target.id], self.is_int[target.id] = t, is_int
            written = target.id
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            idx, _ = self.expr(target.slice)
            self.op("spm", max(t, idx))                    # an SPM store
            written = target.value.id
        else:
            raise self.fail("the target must be a variable or an element of a named array")
        self.memo = {k: v for k, v in self.memo.items() if written not in v[2]}

    def expr(self, e: ast.expr) -> tuple[float, bool]:
        """(cycle the value is ready, whether it is an integer), each distinct expression once."""
        if isinstance(e, (ast.Constant, ast.Name)):
            return self.leaf(e)
        key = ast.unparse(e)
        if key not in self.memo:
            t, is_int = self.compute(e)
            self.memo[key] = (t, is_int, frozenset(n.id for n in ast.walk(e) if isinstance(n, ast.Name)))
        t, is_int, _ = self.memo[key]
        return t, is_int

    def leaf(self, e: ast.Constant | ast.Name) -> tuple[float, bool]:
        if isinstance(e, ast.Name):
            return self.ready.get(e.id, 0.0), self.is_int.get(e.id, e.id in self.integers)
        if isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return 0.0, isinstance(e.value, int)
        raise self.fail(f"unsupported constant {e.value!r}")

    def compute(self, e: ast.expr) -> tuple[float, bool]:
        if isinstance(e, ast.Subscript):
            idx, _ = self.expr(e.slice)
            base = e.value.id if isinstance(e.value, ast.Name) else ""
            return self.op("spm", idx), base in self.integers          # an SPM load
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
            return self.expr(e.operand)
        if isinstance(e, ast.BinOp) and isinstance(e.op, _FLOAT_OPS):
            (a, ia), (b, ib) = self.expr(e.left), self.expr(e.right)
            both = ia and ib
            kind = "fixed" if both else "div_sqrt" if isinstance(e.op, ast.Div) else "floating"
            return self.op(kind, max(a, b)), both
        if isinstance(e, ast.Compare) and len(e.comparators) == 1:
            (a, ia), (b, ib) = self.expr(e.left), self.expr(e.comparators[0])
            return self.op("fixed" if ia and ib else "floating", max(a, b)), True
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _FUNCTIONS and not e.keywords:
            args = [self.expr(a) for a in e.args]
            start, all_int = max((a[0] for a in args), default=0.0), all(a[1] for a in args)
            kind = _FUNCTIONS[e.func.id]
            kind = ("fixed" if all_int else "floating") if kind == "same" else kind
            return self.op(kind, start), all_int and kind == "fixed"
        raise self.fail(f"unsupported expression '{ast.unparse(e)}' (operators + - * / %, comparisons, "
                        f"array elements, {', '.join(_FUNCTIONS)}())")


def _as_load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(id=target.id, ctx=ast.Load())
    if isinstance(target, ast.Subscript):
        return ast.Subscript(value=target.value, slice=target.slice, ctx=ast.Load())
    return target
