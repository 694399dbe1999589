"""Time KernelGraph.assign_buffer (what the simulator calls) for large launches (10^5 groups): block
shapes and per-warp classes.

Run: PYTHONPATH=src python3 benchmarks/assign_speed.py
"""

from __future__ import annotations

import time

from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import GroupClass, KernelGraph, WarpClass


def _idg(name: str, n: int) -> IDG:
    return IDG.from_nodes(name, [f"i{j}" for j in range(n)], ["mul_f32"] * n, [[]] * n)


def main() -> None:
    classes = tuple(WarpClass(_idg(f"w{k}", 4 + k), float(k + 1)) for k in range(6))
    cases = {
        "groups, integer weights (255:1)": (KernelGraph("k", classes, "", (GroupClass((0,) * 8, 255.0),
                                                                           GroupClass((1,) * 8, 1.0))), 8),
        "groups, 6 shapes, weights 1..6": (KernelGraph("k", classes, "", tuple(
            GroupClass((k,) * 8, float(k + 1)) for k in range(6))), 8),
        "groups, fractional weights": (KernelGraph("k", classes, "", (GroupClass((0,) * 8, 0.3),
                                                                      GroupClass((1,) * 8, 0.7))), 8),
        "per warp, weights 1..6": (KernelGraph("k", classes), 8),
    }
    for name, (kg, gs) in cases.items():
        for n_groups in (10**4, 10**5):
            t = time.perf_counter()
            kg.assign_buffer(n_groups * gs, gs)
            print(f"{name:34s} {n_groups:>7} groups of {gs}: {time.perf_counter() - t:7.3f} s")


if __name__ == "__main__":
    main()
