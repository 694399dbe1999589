"""The terminal report of ``pipeperf analyze``: the headline per GPU (:mod:`pipeperf.report.headline`),
the advice per GPU (each change with its predicted time), one table of every model's time per GPU,
then per GPU the occupancy, what bounds the kernel, the source lines that take the most time
(their stall reasons) and mapper g's memory classes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeperf.report.names import fast_forward_text

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis, GPUPrediction


def _us(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    us = seconds * 1e6
    return f"{us:.4g}" if us < 1e5 else f"{us:.4e}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _emulated(a: Analysis) -> str:
    """How many CTAs were emulated, and why not all of them (or why all of them)."""
    if a.ctas_total and a.ctas_emulated < a.ctas_total:
        return f"; emulated {a.ctas_emulated} of {a.ctas_total} CTAs ({a.sampling})"
    if a.sampling and a.warps_traced < a.warps_total:
        return f"; emulated all {a.ctas_total} CTAs ({a.sampling.removeprefix('emulated every CTA: ')})"
    return ""


def oob_lines(rows: list[dict]) -> list[str]:
    """The report's lines of ``--oob warn``'s per-line counts (profile's report too)."""
    return [f"  out of bounds at {r['source']}: {r['loads']:,} thread loads, {r['stores']:,} thread stores "
            f"(PTX line {r['ptx_line']})" for r in rows]


def format_analysis(a: Analysis, models: list[str] | None = None) -> str:
    """``a`` is a :class:`pipeperf.analysis.Analysis`; ``models``: the table's rows (None: every
    model the analysis predicted)."""
    from pipeperf.ptx.cuda_names import display_name

    r = a.resources
    lines = [f"kernel {display_name(a.kernel)}: grid {a.grid}, block {a.block}; {r.get('registers', 0)} registers/thread, "
             f"{r.get('shared_bytes', 0)} B static shared; traced {a.warps_traced} of {a.warps_total} warps"
             + (f" ({a.truncated_warps} traces cut)" if a.truncated_warps else "")
             + _emulated(a)]
    lines += oob_lines(getattr(a, "out_of_bounds", None) or [])
    preds = a.predictions
    if not preds:
        return "\n".join(lines)
    from pipeperf.report.headline import headline

    lines += ["", *(headline(p).text() for p in preds)]
    lines += _advice_lines(preds)
    models = list(preds[0].predictions) if models is None else list(models)
    w0 = max(len(m) for m in models + ["predicted time (us)"])
    cols = [p.gpu for p in preds]
    widths = [max(len(c), 10) for c in cols]
    lines.append("")
    lines.append("predicted time (us)".ljust(w0) + "  " + "  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    flags = [p.not_physical for p in preds]
    for m in models:
        cells = [_us(p.predictions.get(m, {}).get("seconds")) + ("*" if m in f else "") for p, f in zip(preds, flags)]
        lines.append(m.ljust(w0) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    # the notes on the table after a blank line, so the table is its rows alone
    notes = [f"* {m} on {p.gpu}: not physical, {why}; not used for advice"
             for p, f in zip(preds, flags) for m, why in f.items() if m in models]
    if any(m in models for m in ROOFLIKE[1:]) and "roofline" in models:
        notes.append(ROOFLIKE_WHY)
    lines += [""] + notes if notes else []
    for p in preds:
        b = p.bound
        busy = ", ".join(f"{k} {v:.0%}" for k, v in sorted(b.subsystem_busy.items(), key=lambda kv: -kv[1]) if v > 0)
        lines += ["", f"{p.gpu}: {_build_text(p)}occupancy {p.blocks_per_sm * p.warps_per_block} warps/SM = {p.blocks_per_sm} "
                  f"block(s) of {p.warps_per_block} warps (limit {p.block_limit} blocks/SM by {p.limited_by}, "
                  f"{p.occupancy:.0%} of the SM; {p.occupancy_source})",
                  f"  bound by {b.by}: busy {busy or '-'}; issue slots used {_pct(b.issue_share)}; "
                  f"cycles with no issue {_pct(b.idle_share)}"
                  + (f" (clipped to 100%: {', '.join(f'{k} {v:.0%}' for k, v in b.clipped.items())}; busy time, "
                     "issues and cycles extrapolated separately)" if getattr(b, "clipped", None) else ""),
                  "  warp classes: " + ", ".join(f"{c['instructions']} instructions x{c['weight']:g}"
                                                 for c in p.warp_classes)]
        lines += floor_lines(p)
        lines += _top_lines(p)
        lines += _memory_lines(p.memory)
        q = p.quantitative.prediction if p.quantitative else None
        if q is not None:
            lines.append(f"  quantitative roofline (Konstantinidis; = pipeperf roofline): {_us(q.predicted_seconds)} us, "
                         f"{q.bound} bound: T'_op {q.t_op_adjusted:,.0f} G op/s = E_mix {q.params.e_mix:.0%} x "
                         f"E_instr {q.e_instr:.1%} x {q.t_op:,.0f}; O_krn {q.params.o_krn:.3g} vs O_dev {q.o_dev:.3g} "
                         f"op/B at B_mem {q.b_mem:,.0f} GB/s ('roofline' above is Eq. 1 over lambda/Lambda)")
        for what, v in getattr(p, "what_if", {}).items():
            gain = f"{v['speedup']:.2f}x faster" if v.get("speedup") else "-"
            lines.append(f"  what if {what}: pipeline {_us(v['seconds'])} us ({gain})")
        if p.launch_overhead_seconds:
            lines.append(f"  launch overhead: {_us(p.launch_overhead_seconds)} us per launch on top of the "
                         "kernel times above (the GPU's fixed launch cost)")
        ff = fast_forward_text(p.profile)
        if ff:
            lines.append(f"  {ff}")
        lines += [f"  note: {n}" for n in p.notes]
        for m, v in p.predictions.items():
            if v.get("unsupported"):
                lines.append(f"  {m}: {v['unsupported']}")
    return "\n".join(lines)


#: the roofline-like rows of the model table, and why their times differ
ROOFLIKE = ("roofline", "quantitative_roofline", "volkov")
ROOFLIKE_WHY = ("why the roofline-like rows differ: 'roofline' is Eq. 1 over mapper g's per-instruction "
                "lambda/Lambda (busiest SM pipe, DRAM at the achievable bandwidth, no latency); "
                "'quantitative_roofline' is Konstantinidis' launch-wide op and DRAM-byte counts over the "
                "instruction-mix-scaled peak and B_mem; 'volkov' adds the latency the resident warps cannot "
                "hide (Eq. 3); the DRAM floor below takes the same bytes at the vendor peak")


def floor_lines(p: GPUPrediction) -> list[str]:
    """The launch's physical floors (analysis/floors.py) and what each is made of."""
    from pipeperf.util.units import format_seconds

    f = getattr(p, "floors", None)
    if f is None:
        return []
    dram = "-" if f.dram_seconds is None else \
        f"{format_seconds(f.dram_seconds)} ({f.dram_bytes:,.0f} B at {f.dram_gbs:,.0f} GB/s, {f.dram_source})"
    issue = "-" if f.issue_seconds is None else \
        (f"{format_seconds(f.issue_seconds)} ({f.warp_instructions:,.0f} warp instructions"
         f"{_sass_share(p)} / ({f.sms} SMs x "
         f"{f.issue_limit:g} per clock) at the {f.clock_ghz:g} GHz boost clock)")
    return [f"  floors: DRAM {dram}; issue {issue}"]


def _sass_share(p: GPUPrediction) -> str:
    r = float(p.issued_per_traced)
    return "" if r == 1.0 else f", the SASS's: {r:.2f} per emulated PTX one"


def _build_text(p: GPUPrediction) -> str:
    """This GPU's own build: the registers (and local bytes) ptxas gave it, for which target."""
    r = getattr(p, "resources", None) or {}
    if not r:
        return ""
    b = getattr(p, "build", None) or {}
    local = f", {r['local_bytes']} B local" if r.get("local_bytes") else ""
    opts = f" with {' '.join(b['ptxas_options'])}" if b.get("ptxas_options") else ""
    target = f" ({b['target']} build{opts})" if b.get("target") else (f" (ptxas {opts.strip()})" if opts else "")
    return f"{r.get('registers', 0)} registers/thread{local}{target}; "


#: source lines the terminal report lists per GPU (JSON and HTML carry all)
TOP_LINES = 5


def _advice_lines(preds: list) -> list[str]:
    """Per GPU, each advice item: what to change, where, and the predicted time after it."""
    out = []
    for p in preds:
        for a in getattr(p, "advice", None) or []:
            out.append(f"advice {p.gpu}: {a.kind}: {a.text} -> predicted {_us(a.seconds_after)} us "
                       f"(-{100 * a.gain:.0f}%; {a.how})")
    return [""] + out if out else []


def _top_lines(p: GPUPrediction) -> list[str]:
    """The source lines with the largest shares of the simulated time and their top reasons."""
    from pipeperf.analysis.stalls import line_label

    tops = (getattr(p, "source_lines", None) or [])[:TOP_LINES]
    if not tops:
        return []
    out = [f"  time by source line (top {len(tops)} of {len(p.source_lines)}; --json and --html list all):"]
    for t in tops:
        why = ", ".join(f"{r} {100 * v:.0f}%" for r, v in t.reasons[:2])
        out.append(f"    {100 * t.share:5.1f}%  {line_label(t)}: {why}")
    idle = sum(r["share_pct"] for r in getattr(p, "time_not_on_lines", []) or [])
    if idle >= 0.5:
        out.append(f"    {idle:5.1f}%  idle warp slots (no running block, or a warp done before its block)")
    return out


def _memory_lines(rows: list[dict]) -> list[str]:
    """Mapper g's adjusted instructions, one line per distinct (opcode, pattern, lambda, Lambda):
    a tiled kernel's 32 identical shared loads read as one line."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        if "cpi" not in row:
            continue
        shared = row.get("shared_by_ctas", 1.0)
        what = (f"{row['sectors_per_request']:.2f} sectors/request, L2 hits {row['l2_hit_rate']:.0%}"
                + (f" (address shared by {shared:.3g} CTAs of a wave)" if shared > 1 else "")
                if row["space"] == "global" else
                f"bank-conflict degree {row['conflict_degree']:.2f}, {row.get('wavefronts_per_request', 1.0):.2f} "
                "wavefronts/request")
        key = (row["opcode"], what, f"{row['cpi']:.3g}", f"{row['latency']:.4g}", row["base_class"])
        groups.setdefault(key, []).append(row)
    out = []
    for (op, what, lam, Lam, base), rs in groups.items():
        lines = [r["line"] for r in rs]
        shown = ", ".join(str(n) for n in lines[:6]) + (f", ... ({len(lines)} instructions)" if len(lines) > 6 else "")
        ptx = f"PTX line{'s' if len(lines) > 1 else ''} {shown}"
        src = list(dict.fromkeys(r["source"] for r in rs if r.get("source")))   # file:line (inlined from ...)
        where = "; ".join(src[:4]) + (f"; ... ({len(src)} source lines)" if len(src) > 4 else "")
        at = f"{where}, {ptx}" if where else ptx
        out.append(f"  {op} at {at}: {what} -> lambda {lam} cycles, Lambda {Lam} cycles (from {base})")
    return out
