"""The compiled core of the Pipeline-model simulator (Algorithm 1, with the issue limit).

One compute unit is simulated cycle by cycle, jumping over cycles in which
nothing can issue:

* each subsystem is a pipeline that accepts an instruction every lambda cycles
  (lambda may be fractional: 0.25 means four per cycle, at t, t+.25, t+.5, t+.75)
  and delivers its result Lambda cycles after issue;
* at most ``issue_limit`` instructions issue per cycle (a credit bucket, so
  fractional limits work too), and a warp's issues are at least one cycle apart;
* a warp issues its instructions in program order; an instruction is ready when
  the instructions it depends on have completed;
* a barrier completes for all warps of a group Lambda_bar cycles after the last
  of them reached it; instructions after a barrier wait for it;
* M groups are resident; when one finishes (its last instruction completes),
  the next waiting group takes its slots from that moment on.

Within a cycle the pipelines' issue slots are filled earliest first; at equal
times the scarcer pipeline (larger lambda) goes first, as Algorithm 1's
per-pipeline issue events pull work, and then the scheduler's priority decides:
loose round-robin (RR) starts after the warp that issued last; greedy-then-oldest
(GTO) keeps the last warp while it can issue, otherwise the oldest resident one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

RR = 0
GTO = 1

#: status codes returned by the engine
OK = 0
DEADLOCK = 1


@njit(cache=True)
def _head_ready(s, off, length, dep_ptr, dep_idx, bar_prev, slot_cls, head, start, comp, lastiss):
    """Earliest time the next instruction of slot ``s`` may issue: its operands are ready and a
    cycle has passed since the warp's previous issue (inf: none left, or waiting at a barrier)."""
    c = slot_cls[s]
    h = head[s]
    if h >= length[c]:
        return np.inf
    g = off[c] + h
    r = start[s]
    if lastiss[s] + 1.0 > r:
        r = lastiss[s] + 1.0
    for e in range(dep_ptr[g], dep_ptr[g + 1]):
        v = comp[s, dep_idx[e]]
        if v > r:
            r = v
    bp = bar_prev[g]
    if bp >= 0:
        v = comp[s, bp]
        if v > r:
            r = v
    return r


@njit(cache=True)
def run_core(off, length, sub, lam, Lam, Lret, is_bar, bar_prev, dep_ptr, dep_idx, minlam,
             warp_cls, group_size, n_groups, n_resident, n_sub, issue_limit, scheduler,
             record, dispatch, interval):
    """Simulate one core; returns (status, end_time, busy[n_sub], issued, issue_cycles, rec arrays)
    (issue_cycles: cycles in which at least one instruction issued). A waiting group takes a
    finished group's slots ``dispatch`` cycles after it finished (retiring one block and
    dispatching the next), and never sooner than ``interval`` cycles after the core's previous
    group started: the GPU's block scheduler hands out blocks at a finite rate shared by all
    cores (the first resident groups too start ``interval`` apart)."""
    gs = group_size
    M = min(n_resident, n_groups)
    n_slots = M * gs
    maxlen = 1
    for c in range(length.shape[0]):
        if length[c] > maxlen:
            maxlen = length[c]
    inf = np.inf

    comp = np.full((n_slots, maxlen), inf)     # completion time per (slot, instruction)
    slot_cls = np.zeros(n_slots, np.int64)
    slot_warp = np.full(n_slots, -1, np.int64)
    head = np.zeros(n_slots, np.int64)
    start = np.zeros(n_slots)
    est = np.full(n_slots, inf)                # operands-ready time of each slot's next instruction
    bar_node = np.zeros(n_slots, np.int64)
    bar_rec = np.zeros(n_slots, np.int64)

    grp_unissued = np.zeros(M, np.int64)
    grp_arrivals = np.zeros(M, np.int64)
    grp_last_arrival = np.zeros(M)
    grp_max_comp = np.zeros(M)

    tfree = np.zeros(n_sub)
    busy = np.zeros(n_sub)
    order = np.arange(n_slots)                 # age order for GTO, oldest first
    bucket = np.zeros((n_sub, n_slots), np.int64)   # per-subsystem candidates, priority order
    brank = np.zeros((n_sub, n_slots), np.int64)
    bcnt = np.zeros(n_sub, np.int64)
    bptr = np.zeros(n_sub, np.int64)
    bqual = np.zeros(n_sub, np.int64)       # bucket entries whose operands are ready at the first slot
    bskip = np.zeros(n_sub, np.bool_)       # some warp was left out because the bucket was full
    navail = np.zeros(n_sub)
    sub_count = np.zeros(n_sub, np.int64)   # resident warps whose next instruction uses each pipeline
    hsub = np.zeros(n_slots, np.int64)               # subsystem of each slot's next instruction
    lastiss = np.full(n_slots, -inf)          # issue time of each warp's previous instruction
    wake = np.full(n_slots, inf)    # max(est, pipeline free time seen): never above the true issue time

    total_instr = 0
    for w in range(n_groups * gs):
        total_instr += length[warp_cls[w]]
    nrec = total_instr if record else 0
    rec_warp = np.zeros(nrec, np.int64)
    rec_instr = np.zeros(nrec, np.int64)
    rec_issue = np.zeros(nrec)
    rec_comp = np.zeros(nrec)
    nr = 0

    next_group = 0
    groups_done = 0
    last_start = 0.0
    for m in range(M):
        last_start = m * interval
        _load_group(m, next_group, last_start, gs, warp_cls, length, slot_warp, slot_cls, head, start,
                    est, grp_unissued, grp_arrivals, grp_max_comp, order, n_slots, False, hsub, sub, off, wake, sub_count, lastiss)
        next_group += 1
    end_time = 0.0
    issued_total = 0
    issue_cycles = 0

    t = 0.0
    cap = max(issue_limit, 1.0)
    credits = 0.0
    last = -1
    while groups_done < n_groups:
        credits = min(credits + issue_limit, cap)
        next_t = inf
        greedy = last                   # the scan order is fixed at the start of the cycle
        # pass 1: warps that can issue within [t, t+1), bucketed by the subsystem of their next
        # instruction, each bucket in the scheduler's priority order
        for q in range(n_sub):
            bcnt[q] = 0
            bptr[q] = 0
            bqual[q] = 0
            bskip[q] = False
            tau0 = tfree[q] if tfree[q] > t else t
            # issue slots the pipeline can still offer in [t, t+1)
            navail[q] = np.ceil((t + 1.0 - tau0) / minlam[q]) if tau0 < t + 1.0 else 0.0
        # pipelines that warps are waiting for and that still have slots this cycle; once all
        # of them are full, no later warp in priority order can issue and the scan stops
        unresolved = 0
        for q in range(n_sub):
            if sub_count[q] > 0 and navail[q] > 0.0:
                unresolved += 1
        early = False
        n_iter = n_slots + 1 if (scheduler == GTO and greedy >= 0) else n_slots
        kk = 0
        for k in range(n_iter):
            if scheduler == RR:
                s = greedy + 1 + k
                if s >= n_slots:
                    s -= n_slots
            elif greedy >= 0:
                if k == 0:
                    s = greedy
                else:
                    s = order[k - 1]
                    if s == greedy:
                        continue
            else:
                s = order[k]
            r = wake[s]                 # lower bound on when this warp can issue
            if r >= t + 1.0:
                if r < next_t:
                    next_t = r
                continue
            su = hsub[s]
            if tfree[su] >= t + 1.0:
                wake[s] = tfree[su]
                if tfree[su] < next_t:
                    next_t = tfree[su]
                continue
            if bqual[su] >= navail[su]:
                # enough higher-priority warps are ready for every slot of this pipeline
                bskip[su] = True
                continue
            bucket[su, bcnt[su]] = s
            brank[su, bcnt[su]] = kk
            bcnt[su] += 1
            kk += 1
            if est[s] <= (tfree[su] if tfree[su] > t else t):
                bqual[su] += 1
                if bqual[su] >= navail[su]:
                    unresolved -= 1
                    if unresolved == 0:
                        early = True
                        break
        nc = kk
        # pass 2: fill the pipelines' issue slots, earliest first
        issued = False
        while nc > 0 and credits >= 1.0:
            best_su = -1
            best_q = -1
            bx = t + 1.0
            blam = 0.0
            brk = 0
            for su in range(n_sub):
                if bptr[su] >= bcnt[su]:
                    continue
                tau = tfree[su] if tfree[su] > t else t
                if tau >= t + 1.0:
                    continue
                # first waiting warp (in priority order) whose operands are ready by tau,
                # else the one whose operands are ready soonest
                q_sel = -1
                x_sel = np.inf
                for q in range(bptr[su], bcnt[su]):
                    s = bucket[su, q]
                    if s < 0:
                        continue
                    e = est[s]
                    if e <= tau:
                        q_sel = q
                        x_sel = tau
                        break
                    if e < x_sel:
                        x_sel = e
                        q_sel = q
                if q_sel < 0 or x_sel >= t + 1.0:
                    continue
                s = bucket[su, q_sel]
                lg = lam[off[slot_cls[s]] + head[s]]
                rk = brank[su, q_sel]
                if x_sel < bx or (x_sel == bx and (lg > blam or (lg == blam and rk < brk))):
                    bx = x_sel
                    blam = lg
                    brk = rk
                    best_su = su
                    best_q = q_sel
            if best_su < 0:
                break
            s = bucket[best_su, best_q]
            bucket[best_su, best_q] = -1
            while bptr[best_su] < bcnt[best_su] and bucket[best_su, bptr[best_su]] < 0:
                bptr[best_su] += 1
            nc -= 1
            x = bx
            c = slot_cls[s]
            h = head[s]
            g = off[c] + h
            su = sub[g]
            m = s // gs
            # issue instruction h of the warp in slot s at time x
            tfree[su] = x + lam[g]
            busy[su] += lam[g]
            credits -= 1.0
            issued = True
            issued_total += 1
            last = s
            if record:
                rec_warp[nr] = slot_warp[s]
                rec_instr[nr] = h
                rec_issue[nr] = x
            if is_bar[g]:
                comp[s, h] = inf
                bar_node[s] = h
                if record:
                    bar_rec[s] = nr
                    rec_comp[nr] = inf
                grp_arrivals[m] += 1
                if x > grp_last_arrival[m]:
                    grp_last_arrival[m] = x
                if grp_arrivals[m] == gs:      # the last warp arrived: release the group
                    tb = grp_last_arrival[m] + Lam[g]
                    for j in range(gs):
                        s2 = m * gs + j
                        comp[s2, bar_node[s2]] = tb
                        if record:
                            rec_comp[bar_rec[s2]] = tb
                        if s2 != s:
                            est[s2] = _head_ready(s2, off, length, dep_ptr, dep_idx, bar_prev,
                                                  slot_cls, head, start, comp, lastiss)
                            wake[s2] = est[s2]
                            if est[s2] < next_t:
                                next_t = est[s2]
                    if tb > grp_max_comp[m]:
                        grp_max_comp[m] = tb
                    grp_arrivals[m] = 0
                    grp_last_arrival[m] = 0.0
            else:
                cp = x + Lam[g]
                comp[s, h] = cp
                cr = x + Lret[g]        # what the block waits for before it retires
                if cr > grp_max_comp[m]:
                    grp_max_comp[m] = cr
                if record:
                    rec_comp[nr] = cp
            if record:
                nr += 1
            head[s] = h + 1
            lastiss[s] = x
            est[s] = _head_ready(s, off, length, dep_ptr, dep_idx, bar_prev, slot_cls, head, start, comp, lastiss)
            wake[s] = est[s]
            sub_count[su] -= 1
            if h + 1 < length[c]:
                hsub[s] = sub[g + 1]
                sub_count[sub[g + 1]] += 1
            if h + 1 == length[c]:
                grp_unissued[m] -= 1
            if grp_unissued[m] == 0 and grp_arrivals[m] == 0:
                fin = grp_max_comp[m]
                if fin > end_time:
                    end_time = fin
                groups_done += 1
                if next_group < n_groups:
                    t0 = fin + dispatch
                    if t0 < last_start + interval:
                        t0 = last_start + interval
                    last_start = t0
                    _load_group(m, next_group, t0, gs, warp_cls, length, slot_warp, slot_cls, head,
                                start, est, grp_unissued, grp_arrivals, grp_max_comp, order, n_slots, True,
                                hsub, sub, off, wake, sub_count, lastiss)
                    next_group += 1
                    if t0 < next_t:
                        next_t = t0
                else:
                    for j in range(gs):
                        est[m * gs + j] = inf
                        wake[m * gs + j] = inf
            else:
                e = est[s]
                if e < inf:
                    if tfree[sub[off[c] + head[s]]] > e:
                        e = tfree[sub[off[c] + head[s]]]
                    if e < next_t:
                        next_t = e
        if issued:
            issue_cycles += 1
        # warps skipped for a full pipeline (or not scanned after an early stop) wait at
        # least until their pipeline frees again
        for su in range(n_sub):
            if (bskip[su] or (early and sub_count[su] > 0)) and tfree[su] < next_t:
                next_t = tfree[su]
        # candidates left over (pipeline busy or issue limit reached) may issue next cycle
        if nc > 0:
            for su in range(n_sub):
                for q in range(bptr[su], bcnt[su]):
                    s = bucket[su, q]
                    if s >= 0:
                        x = est[s] if est[s] > tfree[su] else tfree[su]
                        if x < next_t:
                            next_t = x
        if groups_done >= n_groups:
            break
        if next_t == inf:
            return DEADLOCK, t, busy, issued_total, issue_cycles, rec_warp, rec_instr, rec_issue, rec_comp
        nt = np.floor(next_t)
        if nt < t + 1.0:
            nt = t + 1.0
        if nt - t - 1.0 > 0.0:                  # credits keep accruing over skipped idle cycles
            credits = min(credits + issue_limit * (nt - t - 1.0), cap)
        t = nt
    return OK, end_time, busy, issued_total, issue_cycles, rec_warp, rec_instr, rec_issue, rec_comp


@njit(cache=True)
def _load_group(m, gid, t0, gs, warp_cls, length, slot_warp, slot_cls, head, start, est,
                grp_unissued, grp_arrivals, grp_max_comp, order, n_slots, youngest, hsub, sub, off, wake, sub_count, lastiss):
    """Put group ``gid`` in resident slot-group ``m`` from time ``t0``."""
    grp_unissued[m] = 0
    grp_arrivals[m] = 0
    grp_max_comp[m] = t0
    for j in range(gs):
        s = m * gs + j
        w = gid * gs + j
        c = warp_cls[w]
        slot_warp[s] = w
        slot_cls[s] = c
        head[s] = 0
        start[s] = t0
        lastiss[s] = -np.inf
        if length[c] > 0:
            grp_unissued[m] += 1
            est[s] = t0            # a group's first instructions depend on nothing
            wake[s] = t0
            hsub[s] = sub[off[c]]
            sub_count[hsub[s]] += 1
        else:
            est[s] = np.inf
            wake[s] = np.inf
    if youngest:
        # this group's slots move to the end of the age order (GTO's oldest-first)
        k = 0
        lo = m * gs
        hi = lo + gs
        tmp = np.empty(n_slots, np.int64)
        for i in range(n_slots):
            if order[i] < lo or order[i] >= hi:
                tmp[k] = order[i]
                k += 1
        for j in range(gs):
            tmp[k] = lo + j
            k += 1
        for i in range(n_slots):
            order[i] = tmp[i]
