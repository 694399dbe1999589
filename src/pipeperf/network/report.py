"""A network's results: per layer and per GPU the predicted time (kernels plus launch overheads),
HyPA's metrics, the bound and the energy; the network's totals, the GPUs ranked by time and by
energy, the top layers; as a record (:class:`NetworkResult`), JSON, text and CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from pipeperf.network.lower import RULES, Layer, Plan
from pipeperf.network.run import Analysed

#: HyPA's metrics summed over a layer's launches
SUMMED = ("inst_executed", "inst_executed_thread", "flop_count_sp", "flop_count_dp", "flop_count_hp", "branches",
          "divergent_branches")


@dataclass(frozen=True)
class LayerResult:
    layer: Layer
    metrics: dict[str, float] = field(hash=False)        # HyPA's, summed over its launches
    seconds: dict[str, float | None] = field(hash=False)  # kernels + overheads per GPU (None: not predicted)
    kernel_seconds: dict[str, float | None] = field(hash=False)
    overhead_seconds: dict[str, float] = field(hash=False)
    joules: dict[str, float | None] = field(hash=False)
    joules_tdp: dict[str, float | None] = field(hash=False)
    warm: dict[str, bool] = field(hash=False)
    bound: dict[str, str] = field(hash=False)
    failed: dict[str, str] = field(hash=False)            # GPU -> why a launch of it has no prediction


@dataclass(frozen=True)
class NetworkResult:
    plan: Plan
    gpus: tuple[str, ...]
    layers: tuple[LayerResult, ...]
    totals: dict[str, dict[str, Any]] = field(hash=False)
    metrics: dict[str, float] = field(hash=False)
    ranking: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]
    analysis: dict[str, Any] = field(hash=False)


def assemble(plan: Plan, run: Analysed, gpus: tuple[str, ...], trace_warps: int, arch: str | None = None) -> NetworkResult:
    """The per-layer and network records from the plan and the analysed launches."""
    from pipeperf.hardware.power import board_power
    from pipeperf.tune.totals import launch_energy, ranking
    from pipeperf.tune.work import OK

    layers = []
    missing_overhead: set[str] = set()
    for i, layer in enumerate(plan.layers):
        metrics = dict.fromkeys(SUMMED, 0.0)
        emulated = 0.0
        secs: dict[str, float | None] = {}
        ksecs: dict[str, float | None] = {}
        over: dict[str, float] = {}
        joules: dict[str, float | None] = {}
        jtdp: dict[str, float | None] = {}
        warm, bound, failed = {}, {}, {}
        for gi, g in enumerate(gpus):
            w = i in run.warm[g]
            warm[g] = w
            k = o_sum = e_sum = t_sum = 0.0
            ok = True
            longest = (-1.0, "")
            bp = board_power(g)
            for la in layer.launches:
                o = run.outcomes[(la.key(), w, g)]     # type: ignore[index]
                if o.status != OK or o.seconds is None:
                    ok = False
                    failed[g] = f"{o.status}: {o.reason}"
                    continue
                overhead = o.launch_overhead if o.launch_overhead is not None else 0.0
                if o.launch_overhead is None:
                    missing_overhead.add(g)
                k += o.seconds
                o_sum += overhead
                if o.seconds > longest[0]:
                    longest = (o.seconds, o.bound_text or o.bound)
                e, t = launch_energy(o)
                if e is not None and t is not None:
                    e_sum, t_sum = e_sum + e, t_sum + t
                if gi == _first_ok(run, layer, gpus):
                    h = o.hypa or {}
                    for key in SUMMED:
                        metrics[key] += float(h.get(key, 0.0))
                    emulated += float(h.get("fraction_emulated", 0.0)) * float(h.get("inst_executed_thread", 0.0))
            secs[g] = k + o_sum if ok else None
            ksecs[g] = k if ok else None
            over[g] = o_sum
            joules[g] = e_sum if ok and bp is not None else None
            jtdp[g] = t_sum if ok and bp is not None else None
            bound[g] = longest[1]
        metrics["branch_efficiency"] = _efficiency(metrics)
        metrics["fraction_emulated"] = emulated / metrics["inst_executed_thread"] if metrics["inst_executed_thread"] else 0.0
        layers.append(LayerResult(layer, metrics, secs, ksecs, over, joules, jtdp, warm, bound, failed))
    totals = _totals(layers, gpus, plan.batch, [u.name for u in plan.unsupported])
    net = dict.fromkeys(SUMMED, 0.0)
    emulated = 0.0
    for lr in layers:
        for key in SUMMED:
            net[key] += lr.metrics[key]
        emulated += lr.metrics["fraction_emulated"] * lr.metrics["inst_executed_thread"]
    net["branch_efficiency"] = _efficiency(net)
    net["fraction_emulated"] = emulated / net["inst_executed_thread"] if net["inst_executed_thread"] else 0.0
    net["model_flops"] = 2.0 * sum(layer.macs for layer in plan.layers)
    notes = _notes(plan, gpus, missing_overhead, trace_warps)
    notes.insert(2, f"every GPU analysed from one build for {arch} (--arch): its registers set every GPU's occupancy" if arch
                 else "each GPU analysed from a build for its own nvcc target (as pipeperf analyze)")
    analysis = {"distinct_launches": run.distinct, "launches": sum(len(lr.layer.launches) for lr in layers),
                "computed": run.computed, "cached": run.cached, "ran_on": run.backend,
                "seconds": round(run.seconds, 2), "trace_warps": trace_warps, "arch": arch}
    return NetworkResult(plan, gpus, tuple(layers), totals, net, ranking(totals, gpus), tuple(notes), analysis)


def _first_ok(run: Analysed, layer: Layer, gpus: tuple[str, ...]) -> int:
    """The first GPU whose launches of ``layer`` were all predicted: HyPA's metrics come from it
    (they are the PTX's, the same on every GPU up to its build target)."""
    from pipeperf.tune.work import OK

    for gi, g in enumerate(gpus):
        if all(o.status == OK for o in (run.outcomes[(la.key(), w, g)] for la in layer.launches   # type: ignore[index]
                                        for w in (False, True) if (la.key(), w, g) in run.outcomes)):
            return gi
    return 0


def _efficiency(m: dict[str, float]) -> float:
    b, d = m["branches"], m["divergent_branches"]
    return 100.0 * (b - d) / b if b else 100.0


def _totals(layers: list[LayerResult], gpus: tuple[str, ...], batch: int, unsupported: list[str]) -> dict[str, dict[str, Any]]:
    """Per GPU: the sums over the predicted layers; ``left_out`` names the unsupported nodes and
    the layers with a launch that has no prediction on that GPU (none of them is in any sum)."""
    out = {}
    for g in gpus:
        done = [lr for lr in layers if lr.seconds[g] is not None]
        s = sum(lr.seconds[g] or 0.0 for lr in done)
        j = [lr.joules[g] for lr in done if lr.layer.launches]
        joules = sum(x for x in j if x is not None) if j and all(x is not None for x in j) else None
        jt = [lr.joules_tdp[g] for lr in done if lr.layer.launches]
        joules_tdp = sum(x for x in jt if x is not None) if jt and all(x is not None for x in jt) else None
        left = unsupported + [lr.layer.name for lr in layers if lr.seconds[g] is None]
        top = sorted([lr for lr in done if lr.layer.launches], key=lambda lr: -(lr.seconds[g] or 0.0))[:5]
        out[g] = {"seconds": s, "kernel_seconds": sum(lr.kernel_seconds[g] or 0.0 for lr in done),
                  "overhead_seconds": sum(lr.overhead_seconds[g] for lr in done),
                  "launches": sum(len(lr.layer.launches) for lr in done),
                  "warm_layers": sum(1 for lr in done if lr.warm[g]),
                  "joules": joules, "joules_tdp": joules_tdp,
                  "joules_per_inference": joules / batch if joules is not None else None,
                  "inferences_per_joule": batch / joules if joules else None,
                  "inferences_per_second": batch / s if s else None,
                  "top_layers": [{"name": lr.layer.name, "seconds": lr.seconds[g], "share": (lr.seconds[g] or 0.0) / s if s else 0.0}
                                 for lr in top],
                  "left_out": left}
    return out


def _notes(plan: Plan, gpus: tuple[str, ...], missing_overhead: set[str], trace_warps: int) -> list[str]:
    from pipeperf.hardware.power import board_power

    notes = [
        f"BatchNormalization {'folded into the preceding convolution (scale into the weights, shift into the bias)' if plan.fold_bn else 'run as its own kernel'}; "
        f"activations {'fused into their producer kernel where it is their only consumer' if plan.fuse else 'run as their own kernels'}",
        f"each distinct launch analysed once (pipeperf analyze, hybrid emulation of a CTA sample, {trace_warps} warps traced; "
        "identical layers share it): instruction and FLOP counts are scaled from the emulated CTAs to the grid",
        "predicted time = the Pipeline model's kernel time + the GPU database's launch overhead (launch.overhead_us, "
        "cited per GPU: an upper bound from back-to-back launches of a tiny kernel) per launch; views (Flatten, Reshape, ...) cost nothing",
        "warm L2: a layer whose inputs the previous layer wrote, with inputs, weights and output within the GPU's L2, is analysed "
        "with its buffers in L2 (weights too: optimistic for layers with large weights)",
        "energy: activity-based board power, idle + (TDP - idle) x max(FLOP-rate share, DRAM-bandwidth share) over each kernel, "
        "idle power over launch overheads (Hong and Kim, ISCA 2010, one unit); TDP x time given as the upper bound "
        "(hardware/power.yaml cites each board's figures)",
    ]
    from pipeperf.hardware.spec import load_gpu

    per_launch = []
    for g in gpus:
        spec = load_gpu(g)
        us = spec.launch.get("overhead_us")
        if us is not None:
            per_launch.append(f"{g} {float(us):.3g} us ({_short(spec.sources.get('launch.overhead_us', ''))})")
    if per_launch:
        notes.append("launch overhead per launch: " + "; ".join(per_launch))
    boards = [f"{g} TDP {bp.tdp_w:.0f} W, idle {bp.idle_w:.0f} W ({_short(bp.sources.get('tdp_w', ''))}; "
              f"{_short(bp.sources.get('idle_w', ''))})" for g in gpus if (bp := board_power(g)) is not None]
    if boards:
        notes.append("board power: " + "; ".join(boards))
    for g in sorted(missing_overhead):
        notes.append(f"{g} has no launch.overhead_us in the GPU database: its launch overheads are left out")
    for g in gpus:
        if board_power(g) is None:
            notes.append(f"{g}: no board power in hardware/power.yaml, so no energy")
    if plan.unsupported:
        notes.append(f"{len(plan.unsupported)} node(s) not supported and left out of every total: "
                     + ", ".join(f"{u.name} ({u.op})" for u in plan.unsupported[:8]) + (" ..." if len(plan.unsupported) > 8 else ""))
    return notes


def _short(source: str) -> str:
    """A citation up to its first colon (the document, not the derivation)."""
    for prefix in ("derived, upper bound: ", "derived by analogy: ", "derived: "):
        source = source.removeprefix(prefix)
    return source.split(": ", 1)[0]


# ------------------------------------------------------------------------- outputs
def to_dict(r: NetworkResult) -> dict[str, Any]:
    """The documented JSON (docs/commands/network.md)."""
    layers = []
    for lr in r.layers:
        L = lr.layer
        d: dict[str, Any] = {"name": L.name, "op": L.op, "kernel": L.kernel or None, "rule": L.rule, "nodes": list(L.nodes),
                             "launches": len(L.launches), "macs": L.macs, "model_flops": 2 * L.macs}
        d.update({k: lr.metrics[k] for k in ("flop_count_sp", "flop_count_hp", "flop_count_dp", "inst_executed",
                                             "branch_efficiency", "fraction_emulated")})
        d.update({"seconds": lr.seconds, "kernel_seconds": lr.kernel_seconds, "overhead_seconds": lr.overhead_seconds,
                  "warm_l2": lr.warm, "bound": lr.bound, "joules": lr.joules})
        if lr.failed:
            d["failed"] = lr.failed
        layers.append(d)
    return {"network": r.plan.network, "batch": r.plan.batch, "dtype": r.plan.dtype, "gpus": list(r.gpus),
            "layers": layers, "totals": r.totals, "metrics": r.metrics, "ranking": list(r.ranking),
            "unsupported": [{"name": u.name, "op": u.op, "why": u.why} for u in r.plan.unsupported],
            "notes": list(r.notes), "analysis": r.analysis}


def _us(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e6:,.1f}"


def _sci(x: float) -> str:
    return f"{x:.3g}"


def format_text(r: NetworkResult, rows: int | None = None) -> str:
    """The terminal report: per-layer table, totals per GPU, ranking, top layers, HyPA's metrics."""
    from pipeperf.tune.report import _table

    p, a = r.plan, r.analysis
    lines = [f"network {p.network} (batch {p.batch}, {p.dtype}): {len(p.layers)} layers, {a['launches']} launches, "
             f"{a['distinct_launches']} distinct (each analysed once per GPU); {a['computed']} launch x GPU analysed, "
             f"{a['cached']} from the cache, on {a['ran_on']} in {a['seconds']:.1f} s", ""]
    head = ["layer", "op", "kernel", "GFLOP"] + [f"{g} us" for g in r.gpus] + [f"bound ({r.gpus[0]})"]
    body = []
    for lr in r.layers[:rows] if rows else r.layers:
        L = lr.layer
        body.append([L.name, L.op, L.kernel or "(view)", f"{(lr.metrics['flop_count_sp'] + lr.metrics['flop_count_hp'] + lr.metrics['flop_count_dp']) / 1e9:.3f}"]
                    + [_us(lr.seconds[g]) + ("w" if lr.warm[g] else "") for g in r.gpus]
                    + [lr.bound.get(r.gpus[0], "") or ("-" if not L.launches else lr.failed.get(r.gpus[0], ""))])
    lines += _table(head, body)
    lines.append("(w: run with a warm L2; times include each launch's overhead)")
    lines.append("")
    head = ["gpu", "time (ms)", "kernels (ms)", "overheads (ms)", "warm layers", "J/inference", "J (TDP x t)",
            "inferences/J", "inferences/s"]
    body = []
    for g in r.gpus:
        t = r.totals[g]
        body.append([g, f"{t['seconds'] * 1e3:.4g}", f"{t['kernel_seconds'] * 1e3:.4g}", f"{t['overhead_seconds'] * 1e3:.4g}",
                     str(t["warm_layers"]), "-" if t["joules_per_inference"] is None else f"{t['joules_per_inference']:.4g}",
                     "-" if t["joules_tdp"] is None else f"{t['joules_tdp']:.4g}",
                     "-" if t["inferences_per_joule"] is None else f"{t['inferences_per_joule']:.4g}",
                     "-" if t["inferences_per_second"] is None else f"{t['inferences_per_second']:,.0f}"])
    lines += _table(head, body)
    lines.append("")
    from pipeperf.tune.totals import ranking_lines

    lines += ranking_lines(r.ranking)
    for g in r.gpus:
        lines.append(f"top layers on {g}: " + ", ".join(f"{t['name']} {t['share']:.0%}" for t in r.totals[g]["top_layers"]))
    m = r.metrics
    lines.append("")
    lines.append(f"HyPA metrics (summed over the layers): inst_executed {_sci(m['inst_executed'])}, flop_count_sp "
                 f"{_sci(m['flop_count_sp'])}, flop_count_hp {_sci(m['flop_count_hp'])}, flop_count_dp {_sci(m['flop_count_dp'])}, "
                 f"branch_efficiency {m['branch_efficiency']:.2f} %, instructions emulated {100 * m['fraction_emulated']:.2f} %; "
                 f"model FLOPs (2 x the Conv/Gemm multiply-adds) {_sci(m['model_flops'])}")
    if p.unsupported:
        lines.append("unsupported (left out of every total): " + "; ".join(f"{u.name} ({u.op}): {u.why}" for u in p.unsupported))
    used = sorted({lr.layer.kernel for lr in r.layers if lr.layer.kernel})
    lines.append("kernel choice: " + "; ".join(f"{k}: {RULES[k]}" for k in used))
    lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines)


CSV_FIELDS = ("layer", "op", "kernel", "gpu", "seconds", "kernel_seconds", "overhead_seconds", "warm_l2", "joules", "bound",
              "inst_executed", "flop_count_sp", "flop_count_hp", "flop_count_dp", "branch_efficiency", "fraction_emulated",
              "macs")


def csv_text(r: NetworkResult) -> str:
    """One row per layer x GPU (HyPA's metrics repeated on each GPU's row)."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=CSV_FIELDS)
    w.writeheader()
    for lr in r.layers:
        for g in r.gpus:
            w.writerow({"layer": lr.layer.name, "op": lr.layer.op, "kernel": lr.layer.kernel, "gpu": g,
                        "seconds": lr.seconds[g], "kernel_seconds": lr.kernel_seconds[g],
                        "overhead_seconds": lr.overhead_seconds[g], "warm_l2": lr.warm[g], "joules": lr.joules[g],
                        "bound": lr.bound[g], "macs": lr.layer.macs,
                        **{k: lr.metrics[k] for k in ("inst_executed", "flop_count_sp", "flop_count_hp", "flop_count_dp",
                                                      "branch_efficiency", "fraction_emulated")}})
    return out.getvalue()
