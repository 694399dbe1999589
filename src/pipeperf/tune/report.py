"""What a tune shows: the best variants per GPU as a table, every variant x GPU as a CSV or Parquet
file (the same records, :meth:`pipeperf.tune.TuneResult.records`), and a plot of the predicted
time over the space, one panel per GPU."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from pipeperf.errors import PipeperfError


#: failed variant x GPU lines the table lists before saying how many more --out has
MAX_FAILED_LINES = 30


def format_tune(t, top: int = 5) -> str:
    """The summary, the ``top`` variants per GPU (rank, parameters, predicted time, bound,
    occupancy) and the variants that failed, with their reasons (all of them in --out)."""
    from pipeperf.tune.work import OK

    r = t.result
    names = [p.name for p in t.space.params]
    n_ok = sum(1 for x in r.rows if x.outcome.status == OK)
    lines = [f"tune {Path(t.space.source).name}{' (' + t.space.kernel + ')' if t.space.kernel else ''}: "
             f"{len(t.variants)} variants ({len(t.excluded())} excluded by constraints) x {len(t.gpus)} "
             f"GPU{'s' if len(t.gpus) != 1 else ''}: {n_ok} predicted, {len(t.failures())} failed; "
             f"{r.computed} computed, {r.cached} from the cache" + (f" ({r.cache_path})" if r.cache_path else "")]
    if r.run is not None:
        lines.append(f"ran on {r.run.backend}: {r.run.compiles} compile units, {r.run.jobs} analysis tasks "
                     f"in {r.run.seconds:.1f} s")
    for gpu in t.gpus:
        ranked = t.ranked(gpu)
        lines.append("")
        if not ranked:
            lines.append(f"{gpu}: no variant could be predicted")
            continue
        lines.append(f"{gpu}: best {min(top, len(ranked))} of {len(ranked)}")
        shown = ranked[:top]
        phase = any(row.outcome.phase_spread is not None for row in shown)
        header = ["rank"] + names + ["time (us)", "vs best"] + (["phase spread"] if phase else []) \
            + ["occupancy", "bound"]
        body = []
        best = ranked[0].outcome.seconds
        for i, row in enumerate(shown):
            o = row.outcome
            body.append([str(i + 1)] + [str(row.item.label[n]) for n in names] +
                        [f"{o.seconds * 1e6:.4g}", f"{o.seconds / best:.2f}x"] +
                        ([_spread(o.phase_spread)] if phase else []) +
                        [f"{100 * (o.occupancy or 0):.0f}% ({o.limited_by})", o.bound_text or o.bound])
        lines += _table(header, body)
        if phase:
            lines.append(unresolved_note(shown))
    failed = t.failures()
    if failed:
        lines.append("")
        lines.append(f"failed ({len(failed)} variant x GPU):")
        for row in failed[:MAX_FAILED_LINES]:
            lines.append(f"  {row.item.index}: {_label(row.item.label, names)} on {row.gpu}: "
                         f"{row.outcome.status}: {row.outcome.reason}")
        if len(failed) > MAX_FAILED_LINES:
            lines.append(f"  ... {len(failed) - MAX_FAILED_LINES} more (--out or --json lists every variant)")
    return "\n".join(lines)


def _spread(s: float | None) -> str:
    """A variant's phase spread, starred where it is lock-step (lockstep.SMOOTH_SPREAD exceeded)."""
    from pipeperf.analysis.lockstep import SMOOTH_SPREAD

    return "-" if s is None else f"{100 * s:.1f}%" + ("*" if s > SMOOTH_SPREAD else "")


def unresolved_note(ranked: Sequence[Any]) -> str:
    """Which of the leading ranks the Pipeline model does not tell apart: those within the lock-step
    spread (over lockstep.SMOOTH_SPREAD) of theirs or the best's. A smooth run's spread is only the
    bandwidth's share in its time, not an uncertainty, and ties nothing."""
    from pipeperf.analysis.lockstep import SMOOTH_SPREAD

    def rough(o) -> float:
        return o.phase_spread if o.phase_spread is not None and o.phase_spread > SMOOTH_SPREAD else 0.0

    best = ranked[0].outcome
    tied = [i + 1 for i, row in enumerate(ranked[1:], 1)
            if row.outcome.seconds / best.seconds - 1.0 <= max(rough(best), rough(row.outcome))]
    head = ("phase spread: the time's range with the DRAM and L2 bandwidth 1 % higher and lower "
            "(* over 3 %: the warps run in lock step and the time depends on their phase)")
    if not any(rough(row.outcome) for row in ranked):
        return head + "; none of these runs in lock step"
    if not tied:
        return head + "; rank 1 is ahead of the others shown by more than their spreads"
    return head + f"; ranks {', '.join(map(str, [1] + tied))} are within them: not told apart by the Pipeline model"


def _label(label: dict[str, Any], names: Sequence[str]) -> str:
    return " ".join(f"{n}={label[n]}" for n in names) or "(no parameters)"


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    fmt = lambda r: "  ".join(c if i == len(r) - 1 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return ["  " + fmt(header)] + ["  " + fmt(r) for r in body]


def write_records(records: list[dict[str, Any]], path: str | Path) -> Path:
    """``records`` as ``.csv`` (the standard library) or ``.parquet`` (pyarrow), by the extension."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        fields = list(records[0]) if records else []
        with p.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for rec in records:
                w.writerow({k: "" if v is None else v for k, v in rec.items()})
        return p
    if suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise PipeperfError("writing Parquet needs pyarrow: pip install 'pipeperf[tune]' "
                                "(or write .csv)") from None
        columns = list(records[0]) if records else []
        table = pa.table({c: _column([r.get(c) for r in records]) for c in columns})
        pq.write_table(table, str(p))
        return p
    raise PipeperfError(f"--out {path}: expected a .csv or .parquet file")


def _column(values: list[Any]) -> list[Any]:
    """A column of one type for Arrow: mixed numbers and words (a parameter of types) as text."""
    kinds = {type(v) for v in values if v is not None}
    if len(kinds) > 1 and not kinds <= {int, float}:
        return [None if v is None else str(v) for v in values]
    if kinds == {int, float}:
        return [None if v is None else float(v) for v in values]
    return values


def plot_tune(t, path: str | Path) -> Path:
    """Predicted time of every variant per GPU (one panel each, a shared log scale): the variants
    in enumeration order on x, coloured by the first parameter, the best starred; variants that
    failed are marked at the top of their panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pipeperf.tune.work import OK

    names = [p.name for p in t.space.params]
    gpus = list(t.gpus)
    fig, axes = plt.subplots(len(gpus), 1, figsize=(max(8, min(24, 0.25 * len(t.variants) + 4)), 2.8 * len(gpus) + 0.8),
                             sharex=True, squeeze=False)
    first = t.space.params[0] if t.space.params else None
    colours = {v: plt.cm.viridis(i / max(1, len(first.values) - 1)) for i, v in enumerate(first.values)} if first else {}
    xs = [v.index for v in t.variants if not v.excluded]
    at = {i: k for k, i in enumerate(xs)}                # excluded variants leave no gap
    for ax, gpu in zip(axes[:, 0], gpus):
        rows = [r for r in t.result.rows if r.gpu == gpu and r.outcome.status != "excluded"]
        ok = [r for r in rows if r.outcome.status == OK]
        for value, colour in colours.items() or [(None, "C0")]:
            pts = [r for r in ok if first is None or r.item.label.get(first.name) == value]
            if pts:
                ax.scatter([at[r.item.index] for r in pts], [r.outcome.seconds * 1e6 for r in pts], s=18,
                           color=colour, label=f"{first.name}={value}" if first else None, zorder=3)
        if ok:
            best = min(ok, key=lambda r: r.outcome.seconds)
            ax.scatter([at[best.item.index]], [best.outcome.seconds * 1e6], marker="*", s=180, color="crimson",
                       zorder=4, label=f"best: {_label(best.item.label, names)} ({best.outcome.seconds * 1e6:.3g} us)")
            ax.set_yscale("log")
        bad = [r for r in rows if r.outcome.status != OK]
        if bad:
            top = max((r.outcome.seconds * 1e6 for r in ok), default=1.0)
            ax.scatter([at[r.item.index] for r in bad], [top * 1.3] * len(bad), marker="x", color="grey", zorder=3,
                       label=f"not compiled / not launchable ({len(bad)})")
        ax.set_title(gpu, fontsize=10)
        ax.set_ylabel("predicted time (us)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax = axes[-1, 0]
    if len(xs) <= 64:
        by_index = {v.index: v for v in t.variants}
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([" ".join(str(by_index[i].params[n]) for n in names) for i in xs], rotation=90, fontsize=7)
        ax.set_xlabel("variant (" + " ".join(names) + ")")
    else:
        ax.set_xlabel("variant (enumeration order of " + ", ".join(names) + ", the last fastest; excluded left out)")
    fig.suptitle(f"pipeperf tune {Path(t.space.source).name}: predicted time per variant", fontsize=11)
    fig.tight_layout()
    fig.savefig(str(path), dpi=110)
    plt.close(fig)
    return Path(path)
