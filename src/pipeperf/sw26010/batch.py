"""Struct-of-arrays form of many kernel descriptions, so the model runs once.

The auto-tuner evaluates 10^4+ variants; holding them as NumPy arrays (one row
per variant, one column per request kind / compute block, zero-padded) lets
Eqs. 1-12 run as a handful of vectorised array operations. A single
:class:`~pipeperf.sw26010.kernel.KernelSpec` is simply a batch of one, so the
command-line prediction and the tuner share one implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeperf.sw26010.kernel import KernelSpec

KIND_IN, KIND_OUT, KIND_GLOAD = 0, 1, 2
KIND_NAMES = {KIND_IN: "dma-in", KIND_OUT: "dma-out", KIND_GLOAD: "gload"}


@dataclass
class KernelBatch:
    """V kernels; K request kinds and B compute blocks per kernel (zero-padded)."""

    active_cpes: np.ndarray    # (V,) CPEs in use
    double_buffer: np.ndarray  # (V,) bool
    req_count: np.ndarray      # (V, K) requests of this kind per CPE
    req_mrt: np.ndarray        # (V, K) transactions per request (Eq. 5)
    req_kind: np.ndarray       # (V, K) KIND_IN / KIND_OUT / KIND_GLOAD
    req_bytes: np.ndarray      # (V, K) useful bytes per request
    ins: np.ndarray            # (V, B, 4) retired floating, fixed, SPM, div/sqrt instructions
    ilp: np.ndarray            # (V, B) ILP of each block

    @property
    def size(self) -> int:
        return int(self.active_cpes.shape[0])


def request_rows(spec: KernelSpec) -> list[tuple[str, int, int, int, int]]:
    """(name, kind, count, mrt, bytes) of every request kind; inout gives two rows."""
    ts = spec.processor.trans_size
    rows = []
    for r in spec.dma:
        m = r.mrt(ts)
        if r.direction in ("in", "inout"):
            rows.append((r.name + (":in" if r.direction == "inout" else ""), KIND_IN, r.count, m,
                         r.useful_bytes))
        if r.direction in ("out", "inout"):
            rows.append((r.name + (":out" if r.direction == "inout" else ""), KIND_OUT, r.count, m,
                         r.useful_bytes))
    for g in spec.gload:
        rows.append((g.name, KIND_GLOAD, g.count, g.mrt(ts), g.size))
    return rows


def batch_from_specs(specs: list[KernelSpec]) -> KernelBatch:
    """Stack kernel descriptions (which must share one processor) into a batch."""
    if not specs:
        raise ValueError("no kernels")
    rows = [request_rows(s) for s in specs]
    k = max(1, max(len(r) for r in rows))
    b = max(len(s.compute) for s in specs)
    v = len(specs)
    count = np.zeros((v, k))
    mrt = np.zeros((v, k))
    kind = np.full((v, k), -1, dtype=np.int8)
    nbytes = np.zeros((v, k))
    ins = np.zeros((v, b, 4))
    ilp = np.ones((v, b))
    for i, (spec, reqs) in enumerate(zip(specs, rows)):
        for j, (_, kd, c, m, nb) in enumerate(reqs):
            count[i, j], mrt[i, j], kind[i, j], nbytes[i, j] = c, m, kd, nb
        for j, blk in enumerate(spec.compute):
            ins[i, j] = np.array(blk.per_execution()) * blk.count
            ilp[i, j] = blk.ilp
    return KernelBatch(
        active_cpes=np.array([s.active_cpes for s in specs], dtype=float),
        double_buffer=np.array([s.double_buffer for s in specs], dtype=bool),
        req_count=count, req_mrt=mrt, req_kind=kind, req_bytes=nbytes, ins=ins, ilp=ilp,
    )
