"""What every experiment of ``pipeperf reproduce`` returns and how it is written.

An experiment is a module of this package with ``TITLE``, ``SOURCE`` (the paper and the
table/figure it reproduces) and ``run(out: Path) -> Outcome``. The runner, not the experiment,
writes the tables (CSV for machines, Markdown for people) and the README that puts the paper's
printed numbers beside ours, so every experiment's output has one layout.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: tables longer than this are linked from the README rather than shown in it
INLINE_ROWS = 60
#: and tables longer than this are written as CSV only (a Markdown copy of a long table helps no reader)
MARKDOWN_ROWS = 400
#: a comparison table's columns: the paper's printed number, ours, and the difference
COMPARE_COLUMNS = ("quantity", "paper", "ours", "difference", "difference_pct", "note")


@dataclass(frozen=True)
class Table:
    """One table of an experiment: written as ``NAME.csv`` and ``NAME.md``."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Outcome:
    """What an experiment produced: its tables, the figures it wrote (paths relative to its
    folder), and notes (approximations, what the paper does not print)."""

    tables: tuple[Table, ...]
    figures: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def compare_row(quantity: str, paper: float | None, ours: float | None, note: str = "",
                comparable: bool = True) -> tuple[Any, ...]:
    """One row of a comparison table. ``paper=None``: the paper prints no number for it, and the
    row says so instead of a difference; ``comparable=False``: it prints one, but for something else
    (another batch, other kernels), so both stand without a difference and ``note`` says why."""
    if paper is None or ours is None or not comparable or not math.isfinite(ours):
        why = "the paper prints no number to compare" if paper is None else "no prediction"
        return (quantity, "not printed" if paper is None else paper, ours, "", "", note or why)
    diff = ours - paper
    pct = 100 * diff / paper if paper else float("nan")
    return (quantity, paper, ours, diff, pct, note)


def compare_table(name: str, rows: Sequence[tuple[Any, ...]], caption: str = "") -> Table:
    return Table(name, COMPARE_COLUMNS, tuple(rows), caption)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if not math.isfinite(v):
            return ""
        return f"{v:.5g}"
    return str(v)


def markdown(table: Table) -> str:
    """The table in GitHub Markdown, numbers to 5 significant digits (the CSV keeps them all)."""
    lines = [f"| {' | '.join(table.columns)} |", "|" + " --- |" * len(table.columns)]
    for row in table.rows:
        lines.append("| " + " | ".join(_cell(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines)


def write_outcome(name: str, title: str, source: str, outcome: Outcome, folder: Path, seconds: float) -> Path:
    """``folder``/NAME.csv and .md per table and README.md (title, source, the command, every
    table and note); returns the README's path."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = [f"# {title}", "", f"Source: {source}", "",
             f"Regenerate: `pipeperf reproduce {name}` (ran in {seconds:.0f} s on a 2-core machine).", ""]
    for t in outcome.tables:
        with (folder / f"{t.name}.csv").open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(t.columns)
            w.writerows([["" if v is None else v for v in row] for row in t.rows])
        parts += [f"## {t.name}", ""] + ([t.caption, ""] if t.caption else [])
        if len(t.rows) <= MARKDOWN_ROWS:
            md = markdown(t)
            (folder / f"{t.name}.md").write_text((f"{t.caption}\n\n" if t.caption else "") + md + "\n")
        if len(t.rows) <= INLINE_ROWS:
            parts += [md, ""]
        else:
            also = f", [{t.name}.md]({t.name}.md)" if len(t.rows) <= MARKDOWN_ROWS else ""
            parts += [f"{len(t.rows)} rows: [{t.name}.csv]({t.name}.csv){also}.", ""]
    for fig in outcome.figures:
        parts += [f"![{fig}]({fig})", ""]
    if outcome.notes:
        parts += ["## Notes", ""] + [f"- {n}" for n in outcome.notes] + [""]
    readme = folder / "README.md"
    readme.write_text("\n".join(parts))
    return readme
