"""The numbers two GPU specs disagree on: ``pipeperf gpu diff`` prints them, and a measurement
campaign's fit step writes them against the published entry."""

from __future__ import annotations

from pipeperf.hardware.spec import GPUSpec


def spec_diff(a: GPUSpec, b: GPUSpec, everything: bool = False, common: bool = False) -> list[tuple[str, str, str, str]]:
    """(key, A, B, B/A) for every number of either spec that differs (all of them with ``everything``)."""
    def numbers(g: GPUSpec) -> dict[str, float | None]:
        d = {"clock_ghz": g.clock_ghz, "sustained_clock_ghz": g.sustained_clock_ghz, "issue_limit": g.issue_limit,
             "cores": g.cores, **g.fields()}
        for c in g.classes.values():
            d[f"classes.{c.name}.cpi"], d[f"classes.{c.name}.latency"] = c.cpi, c.latency
        return d

    na, nb = numbers(a), numbers(b)
    rows = []
    for key in sorted(set(na) | set(nb)):
        x, y = na.get(key), nb.get(key)
        if (x == y and not everything) or (common and (x is None or y is None)):
            continue
        ratio = f"{y / x:.3f}" if x and y is not None else ""
        rows.append((key, "-" if x is None else f"{x:g}", "-" if y is None else f"{y:g}", ratio))
    return rows
