"""Expressions of a tuning space (``N / TILE``, ``TILE * TILE <= 1024``, ``cdiv(N, BX)``),
parsed with :mod:`ast` and evaluated by walking a whitelist of node types: a space file is
input, and ``eval`` of input runs arbitrary code.

Allowed: numbers, strings, names (the space's parameters and problem sizes), ``+ - * / // % **``,
unary ``- + not``, comparisons (chained too), ``and``/``or``, ``x if c else y``, tuples (a grid's
``X, Y``) and calls of :data:`FUNCTIONS`. Everything else (attributes, subscripts, lambdas,
comprehensions, keyword arguments) is refused when the expression is parsed, and every name is
checked against the known ones then, so a misspelt parameter fails before any work starts.
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping

from pipeperf.errors import PipeperfError


def _cdiv(a: int, b: int) -> int:
    """Ceiling division of integers: blocks needed to cover ``a`` items ``b`` at a time."""
    return -(-a // b)


def _round_up(a: int, b: int) -> int:
    return _cdiv(a, b) * b


#: the functions an expression may call
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "abs": abs, "int": int, "float": float, "round": round,
    "ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log2": math.log2,
    "cdiv": _cdiv, "round_up": _round_up, "is_pow2": lambda x: x > 0 and (int(x) & (int(x) - 1)) == 0,
}

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}

#: the largest exponent ``**`` takes: 2 ** 64 is a size, 9 ** 9 ** 9 is a denial of service
MAX_EXPONENT = 64


@dataclass(frozen=True)
class Where:
    """Where an expression was written, for its errors: a file and line, or a command-line option."""

    file: str | None = None
    line: int | None = None
    option: str | None = None

    def error(self, message: str) -> PipeperfError:
        if self.option and not self.file:
            message = f"{self.option}: {message}"
        return PipeperfError(message, file=self.file, line=self.line)


@dataclass(frozen=True)
class Expr:
    """One parsed expression: its text, its tree, the names it reads and where it came from."""

    text: str
    tree: ast.Expression
    names: frozenset[str]
    where: Where

    def __call__(self, env: Mapping[str, Any]) -> Any:
        """The value in ``env`` (name -> value); an arithmetic failure (division by zero, a type
        mismatch) is a one-line error naming the expression, where it was written and the values."""
        try:
            return _eval(self.tree.body, env)
        except PipeperfError:
            raise
        except ZeroDivisionError:
            raise self.where.error(f"{self.text!r}: division by zero with {_values(self.names, env)}: "
                                   "expected a nonzero divisor (add a constraint that excludes it)") from None
        except (TypeError, ValueError, OverflowError) as e:
            raise self.where.error(f"{self.text!r}: cannot evaluate with {_values(self.names, env)}: {e}") from None

    def __str__(self) -> str:
        return self.text


def _values(names: frozenset[str], env: Mapping[str, Any]) -> str:
    return ", ".join(f"{n}={env[n]!r}" for n in sorted(names) if n in env) or "no parameters"


def parse(text: Any, known: set[str] | frozenset[str], where: Where = Where()) -> Expr:
    """``text`` (a string, or a number written as one in YAML) as an :class:`Expr` whose names
    are all in ``known``; anything outside the whitelist is a one-line error saying what is allowed."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise where.error(f"{text!r}: expected an expression (a number, a parameter, arithmetic of them)")
    src = str(text).strip()
    if not src:
        raise where.error("empty expression: expected a number, a parameter or arithmetic of them")
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise where.error(f"{src!r}: not an expression ({e.msg})") from None
    names: set[str] = set()
    for node in ast.walk(tree):
        _check_node(node, src, where)
        if isinstance(node, ast.Name) and not _is_function_name(tree, node):
            names.add(node.id)
    unknown = sorted(names - set(known))
    if unknown:
        raise where.error(f"{src!r}: unknown name {unknown[0]!r}: expected a parameter or problem size "
                          f"({', '.join(sorted(known)) or 'none defined'})")
    return Expr(src, tree, frozenset(names), where)


def _is_function_name(tree: ast.AST, name: ast.Name) -> bool:
    return any(isinstance(n, ast.Call) and n.func is name for n in ast.walk(tree))


_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.Name,
            ast.Constant, ast.Call, ast.Tuple, ast.Load, ast.And, ast.Or) + tuple(_BINARY) + \
    tuple(_UNARY) + tuple(_COMPARE)


def _check_node(node: ast.AST, src: str, where: Where) -> None:
    if not isinstance(node, _ALLOWED):
        raise where.error(f"{src!r}: {type(node).__name__} is not allowed: expected numbers, parameters, "
                          f"+ - * / // % **, comparisons, and/or, 'a if c else b' and {', '.join(FUNCTIONS)}")
    if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str)):
        raise where.error(f"{src!r}: constant {node.value!r} is not allowed: expected a number or a string")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            what = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise where.error(f"{src!r}: unknown function {what!r}: expected one of {', '.join(FUNCTIONS)}")
        if node.keywords:
            raise where.error(f"{src!r}: keyword arguments are not allowed in {node.func.id}()")


def _eval(node: ast.AST, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Pow) and isinstance(b, (int, float)) and abs(b) > MAX_EXPONENT:
            raise ValueError(f"exponent {b} exceeds {MAX_EXPONENT}")
        if isinstance(a, str) != isinstance(b, str) or (isinstance(a, str) and not isinstance(node.op, ast.Add)):
            raise TypeError(f"{_SYMBOL[type(node.op)]} of {a!r} and {b!r}")
        return _BINARY[type(node.op)](a, b)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_eval(node.operand, env))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            value: Any = True
            for v in node.values:
                value = _eval(v, env)
                if not value:
                    return value
            return value
        value = False
        for v in node.values:
            value = _eval(v, env)
            if value:
                return value
        return value
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _eval(node.test, env) else _eval(node.orelse, env)
    if isinstance(node, ast.Tuple):
        return tuple(_eval(e, env) for e in node.elts)
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id](*(_eval(a, env) for a in node.args))   # type: ignore[attr-defined]
    raise TypeError(f"{type(node).__name__} is not allowed")       # unreachable: parse() refused it


def whole_number(value: Any, what: str, expr: Expr, env: Mapping[str, Any]) -> int:
    """``value`` as an int when it is a whole number (``N / TILE`` = 8.0 is 8); else a one-line error
    naming the expression and the values that gave it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        raise expr.where.error(f"{what} {expr.text!r} = {value!r} with {_values(expr.names, env)}: expected a "
                               "whole number (use // or cdiv(), or a constraint that excludes it)")
    return int(value)
