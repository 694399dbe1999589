"""Plain-text reports of predictions, analyses and tuning results."""

from __future__ import annotations

from pipeperf.sw26010.analysis import Analysis
from pipeperf.sw26010.model import Prediction
from pipeperf.sw26010.tuner import TuneResult

_SCENARIO = {1: "scenario 1: computation outlasts the memory overlap",
             2: "scenario 2: computation fully overlapped by memory accesses"}


def format_prediction(pred: Prediction) -> str:
    spec, t = pred.spec, pred.terms
    us = pred.us
    lines = [
        f"{spec.name}  ({spec.source})",
        f"  {spec.active_cpes} active CPEs on {int(t['core_groups'])} core group(s), "
        f"{_SCENARIO[int(t['scenario'])]}" + (", double buffered" if spec.double_buffer else ""),
        f"  T_total   = T_mem + T_comp - T_overlap   Eq. 1   {us('t_total'):12.2f} us",
        f"  T_mem     = T_g + T_DMA                  Eq. 2   {us('t_mem'):12.2f} us",
        f"    T_g     (Gload requests)               Eq. 3   {us('t_g'):12.2f} us",
        f"    T_DMA   (in {us('t_dma_in'):.2f} + out {us('t_dma_out'):.2f})".ljust(43)
        + f"Eq. 3   {us('t_dma'):12.2f} us",
        f"  T_comp    (avg ILP {t['avg_ilp']:.2f})".ljust(43) + f"Eq. 6   {us('t_comp'):12.2f} us",
        f"  T_overlap = min(T_comp, DMA_ov + g_ov)   Eq. 7   {us('t_overlap'):12.2f} us",
        f"    T_DMA_overlap                          Eq. 8   {us('t_dma_overlap'):12.2f} us",
        f"    T_g_overlap                            Eq. 8   {us('t_g_overlap'):12.2f} us",
    ]
    if spec.double_buffer:
        lines.append(f"    double-buffer gain                     Eq. 14  {us('db_saving'):12.2f} us")
    if spec.measured_us is not None:
        err = 100.0 * (pred.t_total_us - spec.measured_us) / spec.measured_us
        lines.append(f"  measured {spec.measured_us:.2f} us, prediction error {err:+.1f} %")
    lines += [
        "",
        "          #reqs        MRT  avg MRT (Eq.12)  L_avg cyc (Eq.11)  MRP (Eq.10)  NG (Eq.9)",
        f"  DMA   {t['n_reqs_dma']:7g} {t['mrt_dma']:10g} {t['avg_mrt_dma']:16.2f} "
        f"{t['l_avg_dma']:18.1f} {t['mrp_dma']:12g} {int(t['ng_dma']):10d}",
        f"  Gload {t['n_reqs_g']:7g} {t['mrt_g']:10g} {t['avg_mrt_g']:16.2f} "
        f"{t['l_avg_g']:18.1f} {t['mrp_g']:12g} {int(t['ng_g']):10d}",
    ]
    if pred.requests:
        lines += ["", "  request               kind     count    bytes   MRT (Eq.5)  waste  "
                      "L_mem_bw cyc (Eq.4)  time us"]
        for r in pred.requests:
            lines.append(f"  {r['name'][:20]:20s}  {r['kind']:7s} {r['count']:7g} {r['bytes']:8g} "
                         f"{r['mrt']:11g} {r['waste_pct']:5.1f}% {r['l_mem_bw']:20.1f} "
                         f"{r['total_us']:8.2f}")
    return "\n".join(lines)


def format_analyses(pred: Prediction, analyses: list[Analysis]) -> str:
    lines = [f"{pred.spec.name}  ({pred.spec.source})",
             f"  predicted T_total {pred.t_total_us:.2f} us"
             + (f", measured {pred.spec.measured_us:.2f} us" if pred.spec.measured_us else "")]
    titles = {"dma_granularity": "DMA request granularity", "double_buffer": "double buffering",
              "active_cpes": "number of active CPEs"}
    for a in analyses:
        lines.append("")
        lines.append(f"  {titles.get(a.name, a.name)} ({a.equation}): saving {a.saving_us:.2f} us -> "
                     f"{a.predicted_us:.2f} us (from {a.baseline_kind} {a.baseline_us:.2f} us)")
        lines.append(f"    {a.explanation}")
    return "\n".join(lines)


def format_tune(result: TuneResult, k: int) -> str:
    space = result.space
    lines = [f"{space.name}  ({space.source})",
             f"  {result.variants_total} variants ({result.variants_duplicate} duplicates: more CPEs "
             f"than chunks), {result.variants_feasible} distinct ones fit in SPM, "
             f"ranked in {result.seconds:.2f} s on {result.jobs} process(es)"]
    if not result.variants_feasible:
        lines.append("  no variant fits in SPM")
        return "\n".join(lines)
    best = result.top(1)[0]
    lines.append(f"  best: {_variant_text(best)}  T_total {best['us']['t_total']:.2f} us")
    lines.append("")
    lines.append("  rank  variant" + " " * 38 + "T_total   T_comp    T_DMA      T_g  T_overlap  NG sc")
    for row in result.top(k):
        u = row["us"]
        lines.append(f"  {row['rank']:4d}  {_variant_text(row)[:45]:45s}"
                     f"{u['t_total']:8.2f} {u['t_comp']:8.2f} {u['t_dma']:8.2f} {u['t_g']:8.2f} "
                     f"{u['t_overlap']:10.2f} {row['ng_dma']:3d} {row['scenario']:2d}")
    lines.append("  (times in us)")
    return "\n".join(lines)


def _variant_text(row: dict) -> str:
    tiles = ",".join(f"{k}={v}" for k, v in row["tiles"].items())
    return (f"tile({tiles}) unroll={row['unroll']} cpes={row['active_cpes']}"
            + (" db" if row["double_buffer"] else ""))
