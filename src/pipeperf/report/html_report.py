"""``pipeperf analyze --html FILE``: the analysis as one self-contained HTML page.

No network and no JavaScript: the charts are inline SVG (:mod:`pipeperf.report.html_plots`),
the styles one ``<style>`` scoped to ``.pipeperf-report`` (so :func:`html_body` can sit inside a
Jupyter cell), the PTX of each source line in ``<details>``. Sections (their ids are what the
browser test checks): headline, occupancy (with the occupancy sweep), bound, memory,
warp-classes, models, advice (each with its predicted gain; what-ifs, idle time and notes),
roofline, source (with each line's time share). The numbers are the analysis' own (:mod:`pipeperf.report.headline` for the headline); nothing is estimated here.
"""

from __future__ import annotations

from pipeperf.report.names import fast_forward_text

from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Sequence

from pipeperf.report.analyze_text import ROOFLIKE_WHY, floor_lines
from pipeperf.report.headline import SUBSYSTEM_WORDS, Headline, bound_words, headline

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis
    from pipeperf.report.source_view import SourceLine, SourceView

#: the report's sections, in page order: (id, heading)
SECTIONS: tuple[tuple[str, str], ...] = (
    ("headline", "Headline"),
    ("occupancy", "Occupancy"),
    ("bound", "What bounds it"),
    ("memory", "Memory instructions"),
    ("warp-classes", "Warp classes"),
    ("models", "Models"),
    ("advice", "Advice, what-ifs and notes"),
    ("roofline", "Roofline"),
    ("source", "Source"),
)

_CSS = """
.pipeperf-report{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;max-width:1280px;margin:0 auto;padding:0 16px 48px}
.pipeperf-report h1{font-size:22px;margin:18px 0 4px}
.pipeperf-report h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:2px solid #d7dde8}
.pipeperf-report h3{font-size:14px;margin:14px 0 6px}
.pipeperf-report nav a{margin-right:12px;color:#2457a6;text-decoration:none}
.pipeperf-report .launch{color:#4a5366}
.pipeperf-report table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
.pipeperf-report th,.pipeperf-report td{border:1px solid #d7dde8;padding:3px 8px;text-align:left;vertical-align:top}
.pipeperf-report th{background:#eef2f8;font-weight:600}
.pipeperf-report td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pipeperf-report .bound{font-weight:600}
.pipeperf-report .muted{color:#6b7385}
.pipeperf-report figure{margin:8px 0}
.pipeperf-report figure svg{max-width:100%;height:auto;display:block}
.pipeperf-report figcaption{color:#4a5366;font-size:12px}
.pipeperf-report table.src td{border-left:none;border-right:none;padding:1px 8px}
.pipeperf-report table.src td.code{font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere;min-width:28ch;max-width:60ch}
.pipeperf-report table.src tr.hot td{background:#fff6e0}
.pipeperf-report div.scroll{overflow-x:auto;max-width:100%}
.pipeperf-report table.src td.ln{color:#8a93a6;text-align:right}
.pipeperf-report details pre{font:11px/1.3 ui-monospace,Menlo,monospace;margin:2px 0;white-space:pre}
.pipeperf-report summary{cursor:pointer;color:#2457a6}
.pipeperf-report ul{margin:4px 0 8px 20px;padding:0}
"""


def render_html(analysis: Analysis, source: SourceView | None = None, title: str | None = None) -> str:
    """The whole page: ``<!DOCTYPE html>`` ... with :func:`html_body` as its body."""
    from pipeperf.ptx.cuda_names import demangle_name

    name = demangle_name(analysis.kernel) or analysis.kernel
    title = title or f"pipeperf analyze: {name}"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n</head>\n<body>\n{html_body(analysis, source)}\n"
            "</body>\n</html>\n")


def write_html(analysis: Analysis, path: str | Path, source: SourceView | None = None) -> Path:
    """Write :func:`render_html` to ``path``; an unwritable path is a one-line error."""
    from pipeperf.errors import PipeperfError

    out = Path(path)
    try:
        out.write_text(render_html(analysis, source), encoding="utf-8")
    except OSError as e:
        raise PipeperfError(f"cannot write HTML report: {e.strerror}", file=str(out)) from None
    return out


def html_body(analysis: Analysis, source: SourceView | None = None) -> str:
    """The report as one ``<div class="pipeperf-report">`` (styles included): the page's body,
    and the notebook API's ``_repr_html_``. ``source`` is a
    :class:`pipeperf.report.source_view.SourceView` (None: the source section says it is absent)."""
    from pipeperf.ptx.cuda_names import display_name
    from pipeperf.report.html_plots import roofline_svg, sweep_svg

    preds = list(analysis.predictions)
    heads = [headline(p) for p in preds]
    r = analysis.resources
    parts = [f"<div class=\"pipeperf-report\">\n<style>{_CSS}</style>",
             f"<h1>{escape(display_name(analysis.kernel))}</h1>",
             f"<p class=\"launch\">grid {_dim(analysis.grid)}, block {_dim(analysis.block)}; "
             f"{r.get('registers', 0)} registers/thread, {r.get('shared_bytes', 0):,} B static shared memory "
             f"per block (default build); traced {analysis.warps_traced:,} of {analysis.warps_total:,} warps, "
             f"emulated {analysis.ctas_emulated:,} of {analysis.ctas_total:,} CTAs"
             + (f" ({escape(analysis.sampling)})" if analysis.sampling else "")
             + f"; analysis took {analysis.seconds_analysis:.1f} s. Predicted with pipeperf, no GPU.</p>",
             "<nav>" + "".join(f"<a href=\"#{i}\">{escape(h)}</a>" for i, h in SECTIONS) + "</nav>"]
    bodies = {
        "headline": _headline(heads),
        "occupancy": _occupancy(preds, heads, sweep_svg(analysis)),
        "bound": _bound(preds),
        "memory": _memory(preds),
        "warp-classes": _warp_classes(preds),
        "models": _models(preds),
        "advice": _advice(preds),
        "roofline": _roofline(roofline_svg(analysis)),
        "source": _source(source),
    }
    for sid, heading in SECTIONS:
        parts.append(f"<section id=\"{sid}\">\n<h2>{escape(heading)}</h2>\n{bodies[sid]}\n</section>")
    parts.append("</div>")
    return "\n".join(parts)


# ------------------------------------------------------------------ formatting helpers
def _dim(d: Sequence[int]) -> str:
    return " x ".join(str(x) for x in d)


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:,.4g}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _num(x: float | None, fmt: str = ",.4g") -> str:
    return "-" if x is None else format(x, fmt)


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]], numeric: Sequence[int] = ()) -> str:
    """A table; cells are escaped unless given as ``_Raw``; ``numeric`` columns right-aligned."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for i, c in enumerate(row):
            text = c.html if isinstance(c, _Raw) else escape(str(c))
            cells.append(f"<td class=\"num\">{text}</td>" if i in numeric else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>\n<tr>{head}</tr>\n" + "\n".join(body) + "\n</table>"


class _Raw:
    """HTML already escaped, for a table cell."""

    def __init__(self, html: str):
        self.html = html


# ------------------------------------------------------------------ sections
def _headline(heads: list[Headline]) -> str:
    rows = [(h.gpu, _us(h.seconds) + ("*" if h.not_physical else ""), _us(h.launch_overhead_seconds or None), _num(h.gflops), _pct(h.flop_pct_of_peak),
             _num(h.peak_gflops, ",.0f"), _num(h.dram_gbs), _pct(h.dram_pct_of_peak), _num(h.peak_dram_gbs, ",.0f"),
             _pct(h.occupancy), f"{h.warps_per_sm} of {h.max_warps_per_sm}",
             _Raw(f"<span class=\"bound\">{escape(h.bound_text)}</span>")) for h in heads]
    table = _table(["GPU", "predicted time (µs)", "launch overhead (µs)", "achieved (GFLOP/s)",
                    "of peak (%)", "peak (GFLOP/s)", "DRAM (GB/s)", "of peak (%)", "peak DRAM (GB/s)",
                    "theoretical occupancy (%)", "resident warps / SM", "bound"], rows,
                   numeric=range(1, 11))
    return (table + "<p class=\"muted\">Predicted time: the Pipeline model's simulation of the launch "
            "(the launch overhead comes on top). GFLOP/s and GB/s: the launch's FP operations (an FMA "
            "counts 2) and DRAM bytes (mapper g's cache model) over that time; peak GFLOP/s: "
            "<code>pipeperf gpu peaks</code>; peak DRAM: "
            + escape("; ".join(sorted({f"{h.gpu}: {h.peak_dram_source}" for h in heads if h.peak_dram_source})))
            + ". A time marked * is below a physical floor (see Models).</p>")


def _occupancy(preds: list, heads: list[Headline], sweep: str | None) -> str:
    rows = [(p.gpu, p.blocks_per_sm, p.warps_per_block, h.warps_per_sm, p.block_limit, p.limited_by,
             _pct(p.occupancy), p.occupancy_source) for p, h in zip(preds, heads)]
    table = _table(["GPU", "resident blocks / SM", "warps / block", "resident warps / SM",
                    "limit (blocks / SM)", "limited by", "theoretical occupancy (%)", "rules"],
                   rows, numeric=(1, 2, 3, 4, 6))
    if sweep is None:
        fig = ("<p class=\"muted\">No occupancy sweep: run <code>pipeperf analyze ... --sweep-occupancy"
               "</code> (the <code>--html</code> option does).</p>")
    else:
        fig = (f"<figure id=\"occupancy-sweep\">{sweep}<figcaption>Each model's predicted time (µs, log "
               "scale) with 1 .. the limit of resident blocks per SM; dotted: the launch's own "
               "occupancy.</figcaption></figure>")
    return table + fig


def _bound(preds: list) -> str:
    subs = list(dict.fromkeys(k for p in preds for k in p.bound.subsystem_busy))
    rows = []
    for p in preds:
        b = p.bound
        rows.append((p.gpu, _Raw(f"<span class=\"bound\">{escape(bound_words(b))}</span>"),
                     *(_pct(b.subsystem_busy.get(k)) for k in subs), _pct(b.issue_share), _pct(b.idle_share)))
    header = ["GPU", "bound", *(f"{SUBSYSTEM_WORDS.get(k, ('', k))[1]} busy (%)" for k in subs),
              "issue slots used (%)", "cycles with no issue (%)"]
    return (_table(header, rows, numeric=range(2, len(header)))
            + "<p class=\"muted\">A subsystem at least 90 % busy bounds the run; else the issue slots "
            "(90 % used); else latency: warps wait and cycles pass with nothing issued.</p>")


def _memory(preds: list) -> str:
    out = []
    for p in preds:
        rows = []
        for m in p.memory:
            if "cpi" not in m:
                continue
            glob = m.get("space") == "global"
            rows.append((m.get("opcode", ""), m.get("source") or "-", m.get("ptx_line", m.get("line", "")),
                         _num(m.get("requests"), ",.0f"),
                         _num(m.get("sectors_per_request"), ".2f") if glob else "-",
                         _pct(m.get("l2_hit_rate")) if glob else "-",
                         _num(m.get("shared_by_ctas"), ".3g") if glob else "-",
                         "-" if glob else _num(m.get("conflict_degree"), ".2f"),
                         _num(m.get("dram_read_bytes"), ",.0f") if glob else "-",
                         _num(m.get("dram_write_bytes"), ",.0f") if glob else "-",
                         _num(m.get("cpi"), ".3g"), _num(m.get("latency"), ".4g"), m.get("base_class", "")))
        out.append(f"<h3>{escape(p.gpu)}</h3>")
        if not rows:
            out.append("<p class=\"muted\">No memory rows (no global or shared accesses, or "
                       "<code>--no-memory-analysis</code>).</p>")
            continue
        out.append(_table(["instruction", "source line", "PTX line", "requests (traced)", "sectors / request",
                           "L2 hits (%)", "CTAs sharing the address", "bank-conflict degree",
                           "DRAM read (B, launch)", "DRAM write (B, launch)", "λ (cycles)", "Λ (cycles)",
                           "class"], rows, numeric=range(2, 12)))
    return "\n".join(out)


def _warp_classes(preds: list) -> str:
    out = []
    for p in preds:
        rows = [(i + 1, f"{c['instructions']:,}", f"{c['weight']:,.4g}") for i, c in enumerate(p.warp_classes)]
        out.append(f"<h3>{escape(p.gpu)}</h3>" + _table(["class", "instructions per warp", "warps of the launch"],
                                                         rows, numeric=(0, 1, 2)))
    return "\n".join(out) + ("<p class=\"muted\">Warps with the same path form a class; its IDG is "
                             "simulated once and weighted by the warps that take it.</p>")


def _models(preds: list) -> str:
    models = list(dict.fromkeys(m for p in preds for m in p.predictions))
    header = ["model"]
    for p in preds:
        header += [f"{p.gpu} time (µs)", f"{p.gpu} cycles"]
    rows = []
    flags = [p.not_physical for p in preds]
    for m in models:
        row: list[Any] = [m]
        for p, f in zip(preds, flags):
            v = p.predictions.get(m, {})
            row += [_us(v.get("seconds")) + ("*" if m in f else ""), _num(v.get("cycles"), ",.0f")]
        rows.append(row)
    unsupported = [f"{p.gpu}, {m}: {v['unsupported']}" for p in preds for m, v in p.predictions.items()
                   if v.get("unsupported")]
    notes = "".join(f"<li>{escape(u)}</li>" for u in unsupported)
    bad = "".join(f"<li>{escape(f'{p.gpu}, {m}: {why}')}</li>" for p, f in zip(preds, flags) for m, why in f.items())
    floors = "".join(f"<li>{escape(line.strip())}</li>" for p in preds for line in floor_lines(p))
    why = f"<p class=\"muted\">{escape(ROOFLIKE_WHY)}.</p>" if "roofline" in models else ""
    return (_table(header, rows, numeric=range(1, len(header)))
            + (f"<p>* Not physical (below a floor; not used for advice):</p><ul>{bad}</ul>" if bad else "")
            + (f"<p>Physical floors of the launch:</p><ul>{floors}</ul>" if floors else "") + why
            + (f"<p>Models that do not apply:</p><ul>{notes}</ul>" if notes else ""))


def _advice(preds: list) -> str:
    from pipeperf.analysis.advice import MIN_GAIN

    out = []
    for p in preds:
        items = []
        for a in getattr(p, "advice", None) or []:
            items.append(f"<li><b>{escape(a.kind)}</b>: {escape(a.text)}: predicted {_us(a.seconds_after)} µs "
                         f"(-{100 * a.gain:.0f}%; now {_us(a.seconds_before)} µs) <span class=\"muted\">"
                         f"({escape(a.how)})</span></li>")
        if not getattr(p, "advice", None):
            items.append(f"<li class=\"muted\">no advice predicted to gain {MIN_GAIN:.0%} or more</li>")
        for row in getattr(p, "time_not_on_lines", None) or []:
            items.append(f"<li>idle warp slots ({escape(row['reason'])}): {row['share_pct']:.1f}% of the "
                         "simulated time, on no source line</li>")
        for what, v in (p.what_if or {}).items():
            gain = f"{v['speedup']:.2f}x faster" if v.get("speedup") else "no gain"
            items.append(f"<li><b>what if {escape(what)}</b>: pipeline {_us(v.get('seconds'))} µs "
                         f"({gain}; now {_us(p.seconds)} µs)</li>")
        q = p.quantitative.prediction if p.quantitative else None
        if q is not None:
            items.append(f"<li>quantitative roofline (Konstantinidis): {_us(q.predicted_seconds)} µs, "
                         f"{escape(q.bound)} bound; operational intensity {q.params.o_krn:.3g} op/B against "
                         f"the device's {q.o_dev:.3g} op/B; adjusted peak {q.t_op_adjusted:,.0f} G op/s of "
                         f"{q.t_op:,.0f} G op/s; B_mem {q.b_mem:,.0f} GB/s</li>")
        ff = fast_forward_text(p.profile)
        if ff:
            items.append(f"<li>{escape(ff)}</li>")
        items += [f"<li>note: {escape(n)}</li>" for n in p.notes]
        if not p.what_if:
            items.append("<li class=\"muted\">no what-if: mapper g found no bank conflicts or uncoalesced "
                         "global accesses to fix (or <code>--no-what-if</code>)</li>")
        out.append(f"<h3>{escape(p.gpu)}</h3><ul>{''.join(items)}</ul>")
    return "\n".join(out)


def _roofline(svg: str | None) -> str:
    if svg is None:
        return "<p class=\"muted\">No roofline: the quantitative roofline has no counts for this launch.</p>"
    return (f"<figure id=\"roofline-plot\">{svg}<figcaption>Each GPU's roof (peak throughput, DRAM "
            "bandwidth), the kernel's adjusted peak T'_op (dashed), the quantitative roofline's "
            "predicted point (labelled with its time) and the throughput the Pipeline model's time "
            "implies (star).</figcaption></figure>")


def _source(view: SourceView | None) -> str:
    if view is None:
        return "<p class=\"muted\">No source view (the analysis was given no source).</p>"
    if not view.files:
        return f"<p class=\"muted\">No source view: {escape(view.note)}.</p>"
    gpus = list(dict.fromkeys(g for lines in view.files.values() for ln in lines for g in [*ln.memory, *ln.time_share]))
    timed = list(dict.fromkeys(g for lines in view.files.values() for ln in lines for g in ln.time_share))
    out = [f"<p class=\"muted\">PTX instructions per line: the kernel's static PTX (build for "
           f"{escape(view.target)}), from nvcc's <code>.loc</code>; memory: mapper g's rows of the line "
           "per GPU; time: the line's share of the simulated time and its top stall reason per GPU "
           "(every warp slot's cycles on the simulated SM charged to the instruction its warp issues "
           "next; the rest of the time is idle slots, listed under Advice); in the PTX listing, "
           "[share per GPU] before each PTX line that takes time."
           + (f" {view.unmapped} PTX instructions have no source line." if view.unmapped else "") + "</p>"]
    for name, lines in view.files.items():
        rows = []
        for ln in lines:
            code = escape(ln.text) if ln.text is not None else "<span class=\"muted\">(file not readable)</span>"
            ptx = ""
            if ln.ptx:
                ops = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in ln.opcodes.items())
                listing = escape("\n".join(f"{n:>5}  {_ptx_shares(ln, n)}{t}" for n, _, t in ln.ptx))
                ptx = (f"<details><summary>{len(ln.ptx)} PTX</summary><pre>{listing}</pre></details>"
                       f"<span class=\"muted\">{escape(ops)}</span>")
            mem = [f"<td>{escape(_memory_cell(ln.memory.get(g, [])))}</td>" for g in gpus]
            share = []
            for g in timed:
                v = ln.time_share.get(g)
                share.append("<td class=\"num share\">-</td>" if v is None else
                             f"<td class=\"num share\">{100 * v[0]:.1f}<br><span class=\"muted\">"
                             f"{escape(v[1])}</span></td>")
            hot = " class=\"hot\"" if ln.memory or any(v[0] >= 0.1 for v in ln.time_share.values()) else ""
            rows.append(f"<tr{hot}><td class=\"ln\">{ln.line}</td><td class=\"code\">{code}</td>"
                        f"<td>{ptx}</td>{''.join(mem)}{''.join(share)}</tr>")
        head = ("<tr><th>line</th><th>CUDA source</th><th>PTX instructions (static)</th>"
                + "".join(f"<th>memory on {escape(g)}</th>" for g in gpus)
                + "".join(f"<th>time share on {escape(g)} (%, top reason)</th>" for g in timed) + "</tr>")
        out.append(f"<h3>{escape(name)}</h3><div class=\"scroll\"><table class=\"src\">{head}\n"
                   + "\n".join(rows) + "</table></div>")
    return "\n".join(out)


def _ptx_shares(ln: SourceLine, ptx_line: int) -> str:
    """A PTX line's share of the time on each GPU that has one, ``[41.0% lsu busy]``-like."""
    cells = [f"{100 * v[0]:.1f}%" for v in (ln.ptx_share.get(g, {}).get(ptx_line) for g in ln.ptx_share) if v]
    return f"[{' | '.join(cells)}] " if cells else ""


def _memory_cell(rows: list[dict]) -> str:
    """A source line's memory rows on one GPU, one phrase per opcode: ``ld.global.f32 x4: 4.00
    sectors/request, L2 hits 0 %, DRAM 65,536 B``."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        if "cpi" in r:
            groups.setdefault(r.get("opcode", "?"), []).append(r)
    out = []
    for op, rs in groups.items():
        n = f" x{len(rs)}" if len(rs) > 1 else ""
        if rs[0].get("space") == "global":
            spr = sum(r.get("sectors_per_request", 0.0) for r in rs) / len(rs)
            hit = sum(r.get("l2_hit_rate", 0.0) for r in rs) / len(rs)
            dram = sum(r.get("dram_read_bytes", 0.0) + r.get("dram_write_bytes", 0.0) for r in rs)
            out.append(f"{op}{n}: {spr:.2f} sectors/request, L2 hits {hit:.0%}, DRAM {dram:,.0f} B")
        else:
            deg = max(r.get("conflict_degree", 0.0) for r in rs)
            out.append(f"{op}{n}: bank-conflict degree {deg:.2f}")
    return "; ".join(out)
