"""Mapper g, the mapping: each memory instruction's class (lambda, Lambda) on a GPU from its
statistics (:class:`~pipeperf.hardware.accesses.PcMemory`, measured by :mod:`pipeperf.hardware.memory`).

* **Global memory**: the database's global class is the measured pattern of Table 5,
  ``ld.global.s32`` by a full warp: 32 x 4 B = 128 B = ``REF_SECTORS`` sectors from DRAM.  With
  ``m`` = sectors per request / ``REF_SECTORS`` and ``p`` the fraction of sectors served by DRAM,
  the paper's R rule (Sec. 6.3 of analytical-models-and-pipeline-model.txt) becomes

      lambda' = m * (p * lambda_DRAM + (1 - p) * lambda_L2)
      Lambda' = p * Lambda_DRAM + (1 - p) * Lambda_L2 + max(0, m - 1) * (p * lambda_DRAM + (1 - p) * lambda_L2)

  which is exactly Sec. 6.3's three cases: ``R < 1`` (m = 1, p = R), ``R = 1`` and ``R > 1``
  (p = 1, m = R: an uncoalesced request costs R times the bandwidth and waits for its last
  sector).  A request of fewer sectors (a partial warp) costs proportionally less bandwidth.
  Without an ``ld_global_l2`` class (seed GPUs: the papers give no L2 timings) hits are charged
  as DRAM and the result says so.
* **Shared memory**: with D the bank-conflict degree averaged over the instruction's requests,
  Sec. 6.3: Lambda' = Lambda + D * lambda, lambda' = (1 + D) * lambda.
* **Atomics** on one address serialise at the L2 slice that owns it (:func:`atomic_class`).

And the what-ifs (:data:`WHAT_IF`): the statistics an ideal access pattern would have.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Mapping

from pipeperf.errors import PipeperfError
from pipeperf.hardware.accesses import REF_SECTORS, SECTOR, PcMemory
from pipeperf.hardware.spec import GPUSpec, InstrClass

L2_CLASS = "ld_global_l2"   # optional GPU class: lambda/Lambda of a 128-B request that hits in L2
L1_CLASS = "ld_global_l1"   # optional GPU class: lambda/Lambda of a 128-B request that hits in L1
L1_FALLBACK = "ld_local_s32"   # the database's L1-hit class (local memory lives in L1) when L1_CLASS is absent


def atomic_class(base: InstrClass, st: PcMemory, gpu: GPUSpec, name: str, launch_scale: float,
                 active_sms: int) -> InstrClass | None:
    """lambda of a global atomic when operations serialise at the atomic unit of the L2 slice that
    owns their line (the GPU's ``atomics.global_same_address_per_clk``, measured on one address:
    that unit's rate): the larger of (a) its lanes on one address per request, one after the
    other, and (b) its SM's share of the launch's operations on its hottest grid-wide L2 line (the
    sample's count x ``launch_scale`` = CTAs of the launch per sampled CTA; a 256-bin histogram's
    1 KB of counters is 8 lines, each taking an eighth of the updates, the lines assumed on
    different slices); None when the database has no such rate or nothing serialises."""
    rate = gpu.atomics.get("global_same_address_per_clk") if getattr(gpu, "atomics", None) else None
    if not rate or not st.requests:
        return None
    per_request = st.same_address_lanes / st.requests / rate
    total_requests = st.requests * launch_scale
    hot = max(st.hot_ops, st.hot_line_ops)
    grid_wide = hot * launch_scale / rate * max(1, active_sms) / total_requests if hot else 0.0
    lam = max(per_request, grid_wide)
    if lam <= base.cpi:
        return None
    where = "address" if st.hot_ops >= st.hot_line_ops else "L2 line (its words' updates, one slice's atomic unit)"
    src = (f"mapper g from {base.name}: atomics serialise at their L2 slice's atomic unit, {rate:g}/clock "
           f"(same-address rate); {st.same_address_lanes / st.requests:.3g} lanes on one address per request"
           + (f", the hottest {where} takes {hot * launch_scale:.4g} operations over the launch" if hot else "")
           + f"; on the '{ATOMIC_SUBSYSTEM}' subsystem (the owning L2 slice's atomic unit, beside DRAM traffic)")
    return InstrClass(name, ATOMIC_SUBSYSTEM, lam, base.latency + max(0.0, lam - base.cpi), src, True)


#: where same-address atomics serialise: the atomic unit of the L2 slice that owns the address,
#: a resource of its own (its queue does not hold up other addresses' DRAM or L2 traffic, so a
#: reduction's one atomic per block overlaps the loads that stream the input)
ATOMIC_SUBSYSTEM = "atomic"


@dataclass
class MemoryMapping:
    """Mapper g's result: the adjusted class of each memory PC, and what it was derived from."""

    classes: dict[int, InstrClass] = field(default_factory=dict)   # pc -> adjusted class
    stats: dict[int, PcMemory] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def global_class(base: InstrClass, st: PcMemory, l2: InstrClass | None, name: str,
                 dram_cpi: float | None = None, l1: InstrClass | None = None) -> InstrClass:
    """Sec. 6.3's R rule generalised to m = sectors/request / REF_SECTORS and the shares of the
    sectors served by L1 (``l1``'s lambda/Lambda), L2 (``l2``'s) and DRAM (``base``'s, or
    ``dram_cpi`` per reference request: the achievable bandwidth's share, :func:`dram_request_cpi`)."""
    m = st.sectors_per_request / REF_SECTORS
    h = st.hit_rate if l2 is not None else 0.0
    q1 = min(st.l1_hit_rate, h) if l1 is not None and l2 is not None else 0.0
    p = 1.0 - h                                        # DRAM share
    lam_dram = base.cpi if dram_cpi is None else dram_cpi
    lam_l2, Lam_l2 = (l2.cpi, l2.latency) if l2 is not None else (lam_dram, base.latency)
    lam_l1, Lam_l1 = (l1.cpi, l1.latency) if l1 is not None else (0.0, 0.0)
    # L2 and DRAM serve a request's sectors, 4 per reference request; the L1 its wavefronts
    # (bank conflicts, lines looked up: PcMemory.l1_wavefronts_per_request)
    w1 = st.l1_wavefronts_per_request if q1 > 0.0 else 0.0
    lam_far = p * lam_dram + (h - q1) * lam_l2
    hl, l1l = st.latency_hit_rates if st.latency_hit_rates is not None else (h, st.l1_hit_rate)
    hl = hl if l2 is not None else 0.0
    ql = min(l1l, hl) if l1 is not None and l2 is not None else 0.0
    Lam_mix = (1.0 - hl) * base.latency + (hl - ql) * Lam_l2 + ql * Lam_l1
    lam = max(m * lam_far + q1 * w1 * lam_l1, 1e-6)
    Lam = Lam_mix + max(0.0, m - 1.0) * lam_far + q1 * max(0.0, w1 - 1.0) * lam_l1
    src = (f"mapper g from {base.name}: {st.sectors_per_request:.2f} sectors/request (reference "
           f"{REF_SECTORS}), " + (f"L1 hit rate {q1:.2f}" + (f" ({w1:.3g} L1 cycles per request)" if q1 > 0 else "")
                                  + ", " if l1 is not None else "") + f"L2 hit rate {h:.2f}"
           + (f" (address shared by {st.shared_by:.3g} CTAs of a wave)" if st.shared_by > 1 else "")
           + ("" if l2 is not None else " (no L2 class: hits as DRAM)")
           + (f"; DRAM {lam_dram:.3g} cycles per {REF_SECTORS * SECTOR} B at the achievable bandwidth"
              if dram_cpi is not None else ""))
    # a request served by one level (nearly) alone uses that level's pipeline: L1 hits the L1/
    # shared-memory pipeline, L2 hits the L2 slices' (the L2 class's subsystem), and neither
    # queues behind DRAM requests, whose bandwidth only misses use (the levels run side by side).
    # A request whose L1 data-stage cycles (its hits' bank wavefronts and tag lookups) outweigh
    # what its L2/DRAM sectors cost also sits on the L1 pipeline: every global load passes
    # through the one in-order L1TEX pipeline of its SM, which spends those cycles whatever
    # serves the rest (NVIDIA's description of L1TEX, forums.developer.nvidia.com/t/wahts-the-difference-between-wavefronts-and-sectors-req/165293/4:
    # one request per warp instruction, its wavefronts processed one per cycle, serialised), so
    # a 32-line request that half hits (one sector in four new per line) keeps the L1 busy for
    # its hits' 16 wavefronts and cannot overlap the hits of the requests behind it
    l1_cycles = q1 * w1 * lam_l1
    if l1 is not None and (q1 >= ONE_LEVEL or (q1 > 0.0 and l1_cycles > m * lam_far)):
        sub = l1.subsystem
    elif l2 is not None and h - q1 >= ONE_LEVEL:
        sub = l2.subsystem
    else:
        sub = base.subsystem
    # a hit that waits for an in-flight fill (PcMemory.fill_pc) reads its data out of the L1 after
    # the fill: its L1 cycles, queued behind the requests that waited before it
    return InstrClass(name, sub, lam, Lam, src, True, after_fill=l1_cycles)


#: share of a request's sectors one cache level must serve for it to be issued to that level's
#: pipeline alone (L1: the L1 class's subsystem; L2: the L2 class's)
ONE_LEVEL = 0.95


def dram_request_cpi(gpu: GPUSpec, read_fraction: float, active_sms: int) -> float | None:
    """SM cycles per reference request (REF_SECTORS sectors) from DRAM when ``active_sms`` SMs
    share the GPU's achievable DRAM bandwidth for a traffic mix with ``read_fraction`` of the
    bytes read (None when the database has no achievable bandwidth).

    The database gives the bandwidth published stream benchmarks achieve reading (``dram_read_gbs``),
    writing (``dram_write_gbs``) and copying one read to one write (``dram_copy_gbs``); a mix in
    between is interpolated linearly in the read share between those three points (a point the
    database lacks takes the nearest one it has: read from copy, write from copy). The vendor
    peak is not reached by any access stream, so it is never used here."""
    m = gpu.memory
    known: list[float] = [m[k] for k in ("dram_read_gbs", "dram_copy_gbs", "dram_write_gbs") if m.get(k)]
    if not known:
        return None
    read: float = m.get("dram_read_gbs") or m.get("dram_copy_gbs") or known[0]   # a missing point: the nearest known
    copy: float = m.get("dram_copy_gbs") or min(known)
    write: float = m.get("dram_write_gbs") or copy
    f = min(1.0, max(0.0, read_fraction))
    bw = write + (copy - write) * f / 0.5 if f <= 0.5 else copy + (read - copy) * (f - 0.5) / 0.5
    # cycles at the light-load clock (GPUSpec.clock_at(0), the one the simulator converts a
    # light-arithmetic run's cycles with): a DRAM-bound kernel keeps the arithmetic light
    bytes_per_cycle_per_sm = bw / gpu.clock_at(0.0) / max(1, min(active_sms, gpu.cores))
    return REF_SECTORS * SECTOR / bytes_per_cycle_per_sm


def dram_rate_note(gpu: GPUSpec, read_fraction: float) -> str | None:
    """What :func:`dram_request_cpi` had to stand in for, in one line for the report (None when
    the database has the figures this traffic mix needs): no achievable figure at all (DRAM
    requests then cost the load/store classes' lambda, the vendor peak's share where the file
    derives it from the peak), or a missing read or write point taken from the nearest one."""
    m = gpu.memory
    have = {k: m.get(f"dram_{k}_gbs") for k in ("read", "copy", "write")}
    if not any(have.values()):
        peak = m.get("dram_peak_gbs")
        return (f"{gpu.name} has no achievable DRAM bandwidth in the GPU database: DRAM requests cost the "
                "ld_global_s32/st_global classes' lambda" + (f", derived from the vendor peak {peak:g} GB/s, "
                "which no access stream reaches (DRAM-bound times are optimistic)" if peak else ""))
    f = min(1.0, max(0.0, read_fraction))
    used = {"write": f < 0.5, "copy": 0.0 < f < 1.0, "read": f > 0.5}      # the interpolation's points
    missing = [k for k in ("read", "copy", "write") if used[k] and not have[k]]
    if not missing:
        return None
    least = min(v for v in have.values() if v)
    stand = {"read": have["copy"] or next(v for v in have.values() if v), "write": have["copy"] or least,
             "copy": least}                                        # as dram_request_cpi takes them
    return (f"{gpu.name} lacks an achievable DRAM " + " and ".join(
        f"{k} figure ({stand[k]:g} GB/s stands in)" for k in missing) + " in the GPU database")


def l2_class(gpu: GPUSpec, active_sms: int) -> InstrClass | None:
    """The GPU's L2-hit class (``ld_global_l2``) with its lambda set by the measured L2 bandwidth
    (``memory.l2_bandwidth_bytes_per_clk``, what the L2 slices achieve together) divided among
    the SMs that have blocks, as DRAM's is (:func:`dram_request_cpi`): the slices are a GPU-wide
    resource, so a launch on fewer SMs gets a larger share each. Without that figure the class
    is taken as the file gives it."""
    l2 = gpu.classes.get(L2_CLASS)
    bw = gpu.memory.get("l2_bandwidth_bytes_per_clk")
    if l2 is None or not bw:
        return l2
    sms = max(1, min(active_sms, gpu.cores))
    cpi = REF_SECTORS * SECTOR / (bw / sms)
    return replace(l2, cpi=cpi, source=f"{l2.source}; lambda {cpi:.3g}: {REF_SECTORS * SECTOR} B at "
                                       f"memory.l2_bandwidth_bytes_per_clk {bw:g} B/clk shared by {sms} SMs")


def shared_class(base: InstrClass, st: PcMemory, name: str) -> InstrClass:
    """Sec. 6.3: Lambda' = Lambda + D * lambda, lambda' = (1 + D) * lambda."""
    d = max(0.0, st.conflict_degree)
    src = f"mapper g from {base.name}: bank-conflict degree D = {d:.2f}"
    return InstrClass(name, base.subsystem, (1 + d) * base.cpi, base.latency + d * base.cpi, src, True)


#: a generic access's class (mapper f counts generic as global) once the emulation has seen where
#: its addresses fall: the hardware serves a generic address in the shared or local window from
#: that state space (PTX ISA, "Generic Addressing"), so it costs that space's class, not a trip
#: to L2 (the WMMA loads of cuda-samples' GEMMs and any pointer into shared memory ptxas could
#: not prove shared)
_GENERIC_RESOLVED = {("ld_global_s32", "shared"): "ld_shared_f32", ("st_global", "shared"): "st_shared",
                     ("atom_global", "shared"): "atom_shared", ("ld_global_s32", "local"): "ld_local_s32",
                     ("st_global", "local"): "st_local"}


def resolved_class(base: str, space: str, gpu: GPUSpec) -> str:
    """``base`` (mapper f's class) for an access found in ``space``; unchanged where the GPU lacks
    the space's class or the class is already that space's."""
    cls = _GENERIC_RESOLVED.get((base, space))
    return cls if cls is not None and cls in gpu.classes else base


def map_memory(stats: Mapping[int, PcMemory], base_class: Mapping[int, str], gpu: GPUSpec,
               label: Mapping[int, str] | None = None, dram_cpi: float | None = None,
               launch_scale: float = 1.0, active_sms: int = 1) -> MemoryMapping:
    """Adjusted classes for the memory PCs in ``stats`` whose base class (mapper f) is ``base_class[pc]``.

    Classes are named ``<base>@<label>`` (label: the PTX line by default) so reports can say which
    instruction got which lambda/Lambda. ``dram_cpi``: a DRAM request's lambda at the launch's
    achievable bandwidth share (else the base class's); ``launch_scale`` (CTAs of the launch per
    sampled CTA) and ``active_sms`` scale same-address atomics to the whole launch."""
    out = MemoryMapping(stats=dict(stats))
    l2 = l2_class(gpu, active_sms)
    l1 = l1_class(gpu) if any(s.l1_hits or (s.latency_hit_rates and s.latency_hit_rates[1])
                              for s in stats.values()) else None
    if l2 is None and any(s.space == "global" and s.l2_hits for s in stats.values()):
        out.notes.append(f"GPU '{gpu.name}' has no '{L2_CLASS}' class: sectors the cache model finds "
                         "in L2 are charged as DRAM accesses")
    for pc, st in stats.items():
        if pc not in base_class or st.requests == 0:
            continue
        cls = resolved_class(base_class[pc], st.space, gpu)
        base = gpu.classes.get(cls)
        if base is None:
            raise PipeperfError(f"GPU '{gpu.name}' has no instruction class '{cls}'")
        name = f"{base.name}@{label[pc] if label and pc in label else pc}"
        if st.space == "global" and st.lane_ops:
            out.classes[pc] = atomic_class(base, st, gpu, name, launch_scale, active_sms) or \
                global_class(base, st, l2, name, dram_cpi, l1)
        elif st.space == "global":
            out.classes[pc] = global_class(base, st, l2, name, dram_cpi, l1)
        elif st.space == "shared":
            out.classes[pc] = shared_class(base, st, name)
    return out


#: what-if analyses of the memory access pattern: name -> what it assumes
WHAT_IF = {
    "no bank conflicts": "every shared-memory request in its conflict-free wavefronts (one, or the return "
                         "cycles of a 64/128-bit load: PcMemory.conflict_free_wavefronts)",
    "coalesced global accesses": "every global request touches only the sectors its bytes need",
    "atomics combined per warp": "same-address global atomics first combined within each warp (a "
                                 "warp-shuffle reduction): one lane per warp and address reaches L2, after "
                                 "the 5 dependent shuffle-and-add steps' latency (their issue slots are not "
                                 "counted)",
}


def ideal_stats(stats: Mapping[int, PcMemory], what: str) -> dict[int, PcMemory] | None:
    """``stats`` as if the access pattern were fixed as ``what`` (a WHAT_IF key) says; None when
    nothing would change (no conflicts, already coalesced)."""
    from dataclasses import replace

    if what not in WHAT_IF:
        raise PipeperfError(f"unknown what-if '{what}': expected one of {', '.join(WHAT_IF)}")
    out, changed = dict(stats), False
    for pc, st in stats.items():
        if what == "no bank conflicts" and st.space == "shared" and st.wavefronts > st.conflict_free_wavefronts:
            out[pc], changed = replace(st, wavefronts=st.conflict_free_wavefronts), True
        elif what == "coalesced global accesses" and st.space == "global" and st.sectors > st.min_sectors > 0:
            # the sectors a coalesced pattern no longer touches are taken from the hits first (in
            # L1 and L2): an uncoalesced pattern's hits are mostly its own redundant re-touches,
            # so the DRAM sectors stay. Its requests wait for the same data from the same levels:
            # the latency keeps the pattern's hit rates (else the fewer, now mostly missing,
            # sectors would read as a slower request and the fix as a slowdown)
            extra = st.sectors - st.min_sectors
            out[pc] = replace(st, sectors=st.min_sectors, l2_hits=max(0, st.l2_hits - extra),
                              intra_hits=max(0, st.intra_hits - extra), l1_hits=max(0, st.l1_hits - extra),
                              l1_wavefronts=0.0,          # coalesced: its sectors' reference requests
                              latency_hit_rates=st.latency_hit_rates or (st.hit_rate, st.l1_hit_rate))
            changed = True
        elif (what == "atomics combined per warp" and st.space == "global" and st.lane_ops
              and st.same_address_lanes > st.requests):
            # one lane per request on one address; the hottest address gets one operation per
            # request instead of one per lane (its lanes per request taken as the mean), the
            # hottest line one per distinct address of a request
            distinct = st.distinct_ops / st.lane_ops if st.distinct_ops else st.requests / st.same_address_lanes
            out[pc] = replace(st, same_address_lanes=st.requests,
                              hot_ops=round(st.hot_ops * st.requests / st.same_address_lanes),
                              hot_line_ops=round(st.hot_line_ops * distinct))
            changed = True
    return out if changed else None


def warp_combined(c: InstrClass, gpu: GPUSpec) -> InstrClass:
    """An atomic whose warp first combines its lanes' values (the "atomics combined per warp"
    what-if): it issues log2(32) = 5 dependent shuffle-and-add steps later, which the IDG does
    not hold, so their latency (mapper f's shfl and add_f32 classes) is added to its own."""
    from pipeperf.hardware.mapper import resolve

    have = set(gpu.classes)
    step = gpu.classes[resolve("shfl", have, gpu.name)].latency + gpu.classes[resolve("add_f32", have, gpu.name)].latency
    return InstrClass(c.name, c.subsystem, c.cpi, c.latency + 5 * step,
                      c.source + f"; after a warp-shuffle combine: + 5 x {step:g} cycles", True)


def l1_class(gpu: GPUSpec) -> InstrClass | None:
    """lambda/Lambda of a global load that hits in L1: ``ld_global_l1``, else the local-memory
    load class, which the database measures as an L1 hit."""
    return gpu.classes.get(L1_CLASS) or gpu.classes.get(L1_FALLBACK)
