"""Table 6's achieved global-memory throughput against what Table 5's lambda of ld.global.s32
implies with our GPU database (cores x clock x bytes per warp load / lambda), and whether the
quantitative roofline (Konstantinidis) can use each of the six GPUs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeperf.experiments.framework import Outcome, Table, compare_row, compare_table

TITLE = "Table 6: global-memory throughput from Table 5's lambda and our GPU database; roofline peaks"
SOURCE = "Lemeire et al., analytical-models-and-pipeline-model.txt: Tables 5 and 6; Konstantinidis' Table 3"
#: database entry -> (Table 6's row, its throughput GB/s, its theoretical bandwidth GB/s)
TABLE6 = {
    "fermi_c2050": ("Fermi", 89.6, 144),
    "kepler_gtx650ti": ("Kepler", 70.5, 86.4),
    "maxwell_k620": ("Maxwell", 22.6, 29),
    "pascal_gtx1060": ("Pascal", 160.6, 192),
    "turing_rtx2070": ("Turing", 288, 361),
    "amd_r9_380": ("Tonga", 172, 176),
}


def run(out: Path) -> Outcome:
    from pipeperf.errors import PipeperfError
    from pipeperf.hardware.peaks import peaks_from_spec
    from pipeperf.hardware.spec import load_gpu

    rows: list[tuple[Any, ...]] = []
    usable: list[tuple[Any, ...]] = []
    for name, (arch, gbs, _peak) in TABLE6.items():
        g = load_gpu(name)
        c = g.classes["ld_global_s32"]
        implied = g.cores * g.clock_ghz * g.warp_size * 4 / c.cpi      # GB/s: 4-byte lanes per warp load
        rows.append(compare_row(f"{arch} ({name}) throughput GB/s", gbs, implied,
                                f"{g.cores} cores x {g.clock_ghz} GHz x {g.warp_size} x 4 B / lambda {c.cpi}"))
        try:
            p = peaks_from_spec(name)
            usable.append((name, "yes", p.b_mem, p.t_sp, p.t_dp, p.t_int, p.t_add, p.t_ldst,
                           ", ".join(f"{k}: {v}" for k, v in p.estimates.items())))
        except PipeperfError as exc:
            usable.append((name, "no", None, None, None, None, None, None, str(exc)))
    return Outcome(
        (compare_table("throughput", rows, "Table 6 (measured) against Table 5's lambda_global with the "
                                           "database's cores and base clock."),
         Table("roofline_peaks", ("gpu", "usable", "B_mem", "T_SP", "T_DP", "T_int", "T_add", "T_ldst",
                                  "estimates or why not"), tuple(usable),
               "Konstantinidis' Table 3 parameters as pipeperf derives them (hardware/peaks.py peaks_from_spec).")),
        (),
        ("A difference in `throughput` means the database's cores or clock are not those Table 5's lambda was "
         "measured at (e.g. a boost clock), or the card differs from the paper's (Kepler, Tonga).",
         "The quantitative roofline needs a shared-memory class (T_ldst) and a DRAM bandwidth: GPUs whose "
         "entries carry only Table 5's classes are reported unusable with the reason. B_mem of the Fermi, Kepler "
         "and Tonga entries is Table 6's throughput itself (their `peaks:`), so their `throughput` rows and B_mem "
         "are independent only through the lambda; the K620 entry is the base of the GTX Titan X entry, so it "
         "gets no `peaks:` (they would be inherited) and stays unusable."))
