"""``pipeperf network --html``: one self-contained page (no script, nothing loaded), in the style
of ``analyze --html`` (:mod:`pipeperf.report.html_report`'s stylesheet and tables): totals and
ranking per GPU, a bar chart of the layers' times (inline SVG), the per-layer table, HyPA's
metrics, unsupported nodes and the notes."""

from __future__ import annotations

from html import escape

from pipeperf.network.lower import RULES
from pipeperf.network.report import NetworkResult
from pipeperf.report.html_report import _CSS, _num, _Raw, _table

#: the page's sections, in order: (id, heading)
SECTIONS: tuple[tuple[str, str], ...] = (
    ("totals", "Totals and ranking"),
    ("chart", "Time per layer"),
    ("layers", "Layers"),
    ("metrics", "HyPA metrics"),
    ("notes", "Kernels, unsupported nodes and notes"),
)
_COLOURS = ("#2457a6", "#d9822b", "#3a9a5b", "#a33b8f", "#6b7385", "#b8a03a")


def render_html(r: NetworkResult) -> str:
    p = r.plan
    title = f"pipeperf network: {p.network}"
    bodies = {"totals": _totals(r), "chart": _chart(r), "layers": _layers(r), "metrics": _metrics(r), "notes": _notes(r)}
    parts = [f"<div class=\"pipeperf-report\">\n<style>{_CSS}</style>", f"<h1>{escape(p.network)}</h1>",
             f"<p class=\"launch\">batch {p.batch}, {escape(p.dtype)}; {len(p.layers)} layers, "
             f"{r.analysis['launches']} launches ({r.analysis['distinct_launches']} distinct, each analysed once per GPU) "
             f"on {escape(', '.join(r.gpus))}</p>",
             "<nav>" + "".join(f"<a href=\"#{i}\">{escape(h)}</a>" for i, h in SECTIONS) + "</nav>"]
    for sid, heading in SECTIONS:
        parts.append(f"<section id=\"{sid}\">\n<h2>{escape(heading)}</h2>\n{bodies[sid]}\n</section>")
    parts.append("</div>")
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{escape(title)}</title>\n"
            "</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")


def _totals(r: NetworkResult) -> str:
    rows = []
    for x in r.ranking:
        t = r.totals[x["gpu"]]
        rows.append((x["gpu"], x["rank_time"], x["rank_energy"], _num(t["seconds"] * 1e3), _num(t["kernel_seconds"] * 1e3),
                     _num(t["overhead_seconds"] * 1e3), t["warm_layers"], _num(t["joules_per_inference"]),
                     _num(t["joules_tdp"]), _num(t["inferences_per_joule"]), _num(t["inferences_per_second"], ",.0f")))
    return _table(["GPU", "rank (time)", "rank (energy)", "time (ms)", "kernels (ms)", "launch overheads (ms)",
                   "warm layers", "J / inference", "J (TDP x time)", "inferences / J", "inferences / s"],
                  rows, numeric=range(1, 11))


def _chart(r: NetworkResult) -> str:
    """Horizontal bars: each launched layer's time on each GPU, the slowest layers first (at most 40)."""
    layers = [lr for lr in r.layers if lr.layer.launches]
    g0 = r.gpus[0]
    layers.sort(key=lambda lr: -(lr.seconds.get(g0) or 0.0))
    layers = layers[:40]
    most = max((s or 0.0 for lr in layers for s in lr.seconds.values()), default=0.0) or 1.0
    bar, gap, label, width = 7, 6, 190, 900
    rows = len(r.gpus) * bar + gap
    height = 30 + rows * len(layers)
    out = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" "
           "font-family=\"system-ui,sans-serif\" font-size=\"11\">"]
    for k, g in enumerate(r.gpus):
        out.append(f"<rect x=\"{label + 150 * k}\" y=\"4\" width=\"10\" height=\"10\" fill=\"{_COLOURS[k % len(_COLOURS)]}\"/>"
                   f"<text x=\"{label + 150 * k + 14}\" y=\"13\">{escape(g)}</text>")
    for i, lr in enumerate(layers):
        y0 = 24 + i * rows
        out.append(f"<text x=\"{label - 6}\" y=\"{y0 + len(r.gpus) * bar / 2 + 4}\" text-anchor=\"end\">{escape(lr.layer.name)}</text>")
        for k, g in enumerate(r.gpus):
            s = lr.seconds.get(g) or 0.0
            w = (width - label - 80) * s / most
            out.append(f"<rect x=\"{label}\" y=\"{y0 + k * bar}\" width=\"{w:.1f}\" height=\"{bar - 1}\" "
                       f"fill=\"{_COLOURS[k % len(_COLOURS)]}\"><title>{escape(g)}: {s * 1e6:.1f} us</title></rect>")
        out.append(f"<text x=\"{label + (width - label - 80) * (lr.seconds.get(g0) or 0.0) / most + 4:.1f}\" y=\"{y0 + bar - 1}\" "
                   f"fill=\"#4a5366\">{(lr.seconds.get(g0) or 0.0) * 1e6:.1f} us</text>")
    out.append("</svg>")
    return (f"<figure id=\"layer-times\">{''.join(out)}<figcaption>the {len(layers)} slowest layers on {escape(g0)} "
            "(each launch's overhead included), one bar per GPU</figcaption></figure>")


def _layers(r: NetworkResult) -> str:
    rows = []
    for lr in r.layers:
        L, m = lr.layer, lr.metrics
        times = [_Raw(escape(_num(None if lr.seconds[g] is None else lr.seconds[g] * 1e6, ",.1f")) + (" <span class=\"muted\">warm</span>" if lr.warm[g] else ""))  # type: ignore[operator]
                 for g in r.gpus]
        rows.append([L.name, L.op, L.kernel or "(view)", len(L.launches), _num(2 * L.macs / 1e9, ".4f"),
                     _num(m["inst_executed"], ".3g"), _num(m["flop_count_sp"] + m["flop_count_hp"] + m["flop_count_dp"], ".3g"),
                     _num(m["branch_efficiency"], ".2f"), _num(100 * m["fraction_emulated"], ".2f"), *times,
                     _Raw(f"<span class=\"bound\">{escape(lr.bound.get(r.gpus[0], ''))}</span>")])
    n = len(r.gpus)
    return "<div class=\"scroll\">" + _table(
        ["layer", "op", "kernel", "launches", "model GFLOP", "inst_executed", "flop_count", "branch eff. %", "emulated %"]
        + [f"{g} (us)" for g in r.gpus] + [f"bound ({r.gpus[0]})"], rows, numeric=range(3, 9 + n)) + "</div>"


def _metrics(r: NetworkResult) -> str:
    m = r.metrics
    rows = [("inst_executed (warp instructions)", _num(m["inst_executed"], ".4g")),
            ("flop_count_sp", _num(m["flop_count_sp"], ".4g")), ("flop_count_hp", _num(m["flop_count_hp"], ".4g")),
            ("flop_count_dp", _num(m["flop_count_dp"], ".4g")), ("branch_efficiency (%)", _num(m["branch_efficiency"], ".3f")),
            ("instructions emulated (%)", _num(100 * m["fraction_emulated"], ".3f")),
            ("model FLOPs (2 x Conv/Gemm multiply-adds)", _num(m["model_flops"], ".4g"))]
    return _table(["metric", "network"], rows, numeric=[1])


def _notes(r: NetworkResult) -> str:
    used = sorted({lr.layer.kernel for lr in r.layers if lr.layer.kernel})
    out = [_table(["kernel", "rule"], [(k, RULES[k]) for k in used])]
    if r.plan.unsupported:
        out.append("<h3>Unsupported nodes (left out of every total)</h3>")
        out.append(_table(["node", "op", "why"], [(u.name, u.op, u.why) for u in r.plan.unsupported]))
    out.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in r.notes) + "</ul>")
    return "\n".join(out)
