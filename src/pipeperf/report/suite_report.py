"""The validation suite's report: MAPE tables (overall, per GPU, per family), the order groups'
verdicts, and the predicted-vs-measured scatter plot (log-log, one colour per GPU, +-10 % band)."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable, Sequence

from pipeperf.measure.suite import CaseResult, SuiteSummary

DEFAULT_SHOWN = ("pipeline", "roofline", "volkov", "mwp_cwp_corr", "gpumech_rr_corr", "wfg_corr")


def _cell(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def format_summary(s: SuiteSummary, models: Sequence[str] | None = None) -> str:
    shown = [m for m in (models or DEFAULT_SHOWN) if m in s.models] or s.models
    c = s.counts
    lines = [f"validation suite: {c['predicted']} of {c['cases']} cases predicted, {c['kernels']} kernels, "
             f"{len(c['by_gpu'])} GPUs" + (f"; {c['failed']} failed (below)" if c["failed"] else "")
             + (f"; {c['calibration']} left out of the MAPE: a database constant was read from them"
                if c.get("calibration") else "")]
    w0 = max([len("MAPE % by family, development") - 8, len("development (1000 cases, 10 families)") - 8]
             + [len(k) for k in list(s.by_gpu) + list(s.by_family)]) + 8
    widths = [max(8, len(m)) for m in shown]

    def table(title: str, rows: dict[str, dict[str, float | None]], counts: dict[str, int],
              label_of: Callable[[str, int], str] = lambda k, n: f"{k} ({n})") -> None:
        lines.append("")
        lines.append(title.ljust(w0) + "  " + "  ".join(m.rjust(w) for m, w in zip(shown, widths)))
        for k, v in rows.items():
            label = label_of(k, counts.get(k, 0))
            lines.append(label.ljust(w0) + "  " + "  ".join(_cell(v.get(m)).rjust(w) for m, w in zip(shown, widths)))

    # the headline: the mean of the per-family MAPEs, so no family stands for the whole; per part
    heads = {"all": s.headline, **{p: v["headline"] for p, v in s.by_part.items()}}
    nfam = {"all": len(c["by_family"]), **{p: len(v["by_family"]) for p, v in s.by_part.items()}}
    ncase = {"all": c["predicted"], **{p: v["counts"]["predicted"] for p, v in s.by_part.items()}}
    table("MAPE %, mean over families", heads, {k: ncase[k] for k in heads},
          lambda k, n: f"{k} ({n} cases, {nfam[k]} families)")
    table("MAPE % over cases", {"all": s.overall}, {"all": c["predicted"]})
    for part, pv in s.by_part.items():
        if pv["by_family"]:
            table(f"MAPE % by family, {part}", pv["by_family"], pv["counts"]["by_family"])
            lines.append("  sources: " + ", ".join(pv["counts"]["sources"]))
    table("MAPE % by GPU", s.by_gpu, c["by_gpu"])
    # the best of the models asked for (--models), else of every model the suite ran, by the headline
    scored = {m: v for m in (shown if models else s.models) if (v := s.headline.get(m)) is not None}
    best = min(scored, key=scored.__getitem__, default=None)
    if best:
        among = f" of {', '.join(scored)}" if models else ""
        lines += ["", f"best model (mean over families){among}: {best} ({s.headline[best]:.1f} %)"]
    if s.orders:
        lines += ["", "order groups (variants of one computation, measured fastest first):"]
        n_ok = sum(1 for o in s.orders if o["in_order"].get("pipeline"))
        n_loose = sum(1 for o in s.orders if o.get("in_order_5pct", {}).get("pipeline"))
        lines[-1] += (f" pipeline in order in {n_ok} of {len(s.orders)}; {n_loose} of {len(s.orders)} "
                      "apart from pairs measured within 5 %")
        for o in s.orders:
            ok = o["in_order"].get("pipeline")
            loose = o.get("in_order_5pct", {}).get("pipeline")
            verdict = ("in the measured order" if ok else "OUT OF ORDER" if ok is False else "-")
            if ok is False and loose:
                verdict += " (in order apart from pairs measured within 5 %)"
            lines.append(f"  {o['group']}: pipeline {verdict} ({len(o['measured_order'])} variants)")
            w = o.get("worst_inversion", {}).get("pipeline")
            if w:
                lines.append(f"    most inverted: {w['measured_faster']} measured {w['measured_gap']:.1%} faster than "
                             f"{w['measured_slower']}, predicted {-w['predicted_gap']:.1%} slower")
                if "phase_spreads" in w:
                    a, b = w["phase_spreads"]
                    lines.append(f"    their Pipeline times move by {a:.1%} and {b:.1%} with the DRAM/L2 bandwidth "
                                 f"+-1 % (lock-step warps: docs/MODEL.md, 'Known limits'): "
                                 + ("the pair lies within that spread, not resolved by the model"
                                    if w["within_phase_spread"] else "the inversion is larger than that spread"))
    for f in s.failed:
        lines.append(f"  failed {f['id']}: {f['error']}")
    return "\n".join(lines)


def format_isa_comparison(ptx: SuiteSummary, sass: SuiteSummary, model: str = "pipeline") -> str:
    """``model``'s MAPE per family and part with IDGs from the PTX and from the SASS, and the
    headlines (the mean over families), side by side."""
    lines = ["", f"{model} MAPE %, IDGs from PTX vs SASS".ljust(40) + "       ptx      sass"]
    for part in ptx.by_part:
        fams = sorted(set(ptx.by_part[part]["by_family"]) | set(sass.by_part.get(part, {}).get("by_family", {})))
        if not fams:
            continue
        head = (ptx.by_part[part]["headline"].get(model), sass.by_part[part]["headline"].get(model))
        lines.append(f"{part}, mean over families".ljust(40) + f"{_cell(head[0]):>10}{_cell(head[1]):>10}")
        for f in fams:
            a = ptx.by_part[part]["by_family"].get(f, {}).get(model)
            b = sass.by_part[part]["by_family"].get(f, {}).get(model)
            lines.append(f"  {f}".ljust(40) + f"{_cell(a):>10}{_cell(b):>10}")
    return "\n".join(lines)


def plot_suite(results: Sequence[CaseResult], path: str | Path, model: str = "pipeline") -> Path:
    """Predicted vs measured seconds of every case, log-log, one colour per GPU, the +-10 % band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [(r.case.seconds, p, r.case.gpu) for r in results
           if r.error is None and (p := r.predicted.get(model)) and not r.case.calibrates]
    calib = [(r.case.seconds, p) for r in results
             if r.error is None and (p := r.predicted.get(model)) and r.case.calibrates]
    fig, ax = plt.subplots(figsize=(7, 6.5))
    gpus = sorted({g for _, _, g in pts})
    cmap = plt.get_cmap("tab10" if len(gpus) <= 10 else "tab20")
    for i, g in enumerate(gpus):
        xs = [m for m, _, gg in pts if gg == g]
        ys = [p for _, p, gg in pts if gg == g]
        ax.scatter(xs, ys, s=16, color=cmap(i % cmap.N), label=f"{g} ({len(xs)})", alpha=0.85)
    if calib:
        ax.scatter([m for m, _ in calib], [p for _, p in calib], s=30, facecolors="none", edgecolors="black",
                   label=f"calibration ({len(calib)}, not scored)")
    if pts:
        lo = min(min(m, p) for m, p, _ in pts) / 1.5
        hi = max(max(m, p) for m, p, _ in pts) * 1.5
        ax.plot([lo, hi], [lo, hi], color="black", lw=1)
        ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="0.8", alpha=0.6,
                        label="+-10 %")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured time (s)")
    ax.set_ylabel(f"predicted time (s), {model}")
    ax.set_title(f"pipeperf validation suite: {len(pts)} published measurements")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
