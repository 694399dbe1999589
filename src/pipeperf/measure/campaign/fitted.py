"""The GPU file of a campaign: the calibrate fit plus the memory, dispatch and atomics steps.

``fit.spec_yaml`` writes the classes, clock and issue limit from ``calibrate/``; this adds the
``memory``, ``launch`` and ``atomics`` numbers of dram.csv, l2.csv, dispatch.csv and atomics.csv,
each citing the launcher CSV it was read from (derived ones say how), and the latencies of
latency.csv under ``measured:``. ``pipeperf calibrate --from-raw`` on a campaign folder writes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pipeperf.errors import PipeperfError
from pipeperf.measure.campaign.derive import Result, read_results

if TYPE_CHECKING:
    from pipeperf.measure.fit import Calibration

#: summary quantity -> (section.key, how the number is derived from it, given the clock)
FIELDS = {
    "dram_read_gbs": ("memory.dram_read_gbs", None),
    "dram_write_gbs": ("memory.dram_write_gbs", None),
    "dram_copy_gbs": ("memory.dram_copy_gbs", None),
    "l2_read_gbs": ("memory.l2_bandwidth_bytes_per_clk", "GB/s / clock GHz = bytes per clock"),
    "blocks_per_clk": ("launch.blocks_per_clk", None),
    "global_same_address_per_clk": ("atomics.global_same_address_per_clk", None),
    "shared_same_address_cycles": ("atomics.shared_same_address_cycles", None),
}
SUMMARIES = ("dram", "l2", "latency", "dispatch", "atomics")


def campaign_results(folder: Path) -> dict[str, Result]:
    out: dict[str, Result] = {}
    for name in SUMMARIES:
        p = folder / f"{name}.csv"
        if p.is_file():
            out.update({r.quantity: r for r in read_results(p)})
    return out


def fitted_yaml(folder: Path, name: str, command: str) -> tuple[str, Calibration]:
    """(the GPU file's text, the calibrate Calibration) of the campaign in ``folder``."""
    from pipeperf.measure import fit
    raw = folder / "calibrate"
    if not (raw / "chains.csv").is_file():
        raise PipeperfError("no calibrate/chains.csv: run the campaign's calibrate step first", file=folder)
    cal = fit.calibrate_directory(raw, name)
    text = fit.spec_yaml(cal, command)
    results = campaign_results(folder)
    sections: dict[str, list[str]] = {}
    sources: list[str] = []
    for quantity, (key, how) in FIELDS.items():
        r = results.get(quantity)
        if r is None:
            continue
        value = r.value / cal.clock_ghz if how else r.value
        section, field = key.split(".")
        sections.setdefault(section, []).append(f"  {field}: {value:.5g}")
        where = f"{folder.name}/raw/{r.source} via {folder.name}/{_summary_of(quantity)}.csv"
        by = _how_measured(folder / "raw" / r.source)
        cite = (f"derived: {r.value:.5g} {r.unit} measured ({where}, {by}), {how} at the fitted clock "
                f"{cal.clock_ghz:.4f} GHz" if how else f"measured: {where} ({by})")
        sources.append(f"  {key}: " + (f"{{estimate: true, source: {fit._q(cite)}}}" if how else fit._q(cite)))
    measured = [f"  {q}: {r.value:.5g}   # {r.unit}, {folder.name}/raw/{r.source}"
                for q, r in results.items() if q.endswith(("_latency_ns", "_latency_cycles"))]
    lines = text.splitlines()
    at_classes = lines.index("classes:")
    at_sources = next(i for i, l in enumerate(lines) if l == "sources:") + 1
    extra = [line for sec, body in sections.items() for line in [f"{sec}:", *body]]
    if measured:
        if "measured:" in lines:
            at = lines.index("measured:") + 1
            lines[at:at] = measured
            at_classes += len(measured)
        else:
            extra += ["measured:", *measured]
    lines[at_classes:at_classes] = extra
    lines[at_sources:at_sources] = sources
    return "\n".join(lines) + "\n", cal


def _how_measured(raw: Path) -> str:
    """'CUDA events on GPU, driver D, date' from the launcher CSV's header (or 'simulated ...')."""
    from pipeperf.measure.campaign.derive import read_points
    meta, _ = read_points(raw)
    gpu = meta.get("gpu", "unknown GPU")
    if gpu.startswith("simulated"):
        return f"pipeperf campaign --simulate: the Pipeline model's time of the launch on {gpu[10:]}"
    return f"pipeperf campaign, CUDA events on {gpu}, driver {meta.get('driver', '?')}, {meta.get('date', '?')}"


def _summary_of(quantity: str) -> str:
    return ("dram" if quantity.startswith("dram") else "l2" if quantity.startswith("l2") else
            "dispatch" if "block" in quantity else "atomics")
