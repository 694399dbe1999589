/* The compiled core of the Pipeline-model simulator (Algorithm 1, with the issue limit).
 *
 * A CPython extension rather than Numba: it loads in a millisecond where Numba's import and
 * its cache lookup took most of a second, which dominated `pipeperf simulate`. The model and
 * the order of every floating-point operation are those of the Numba engine it replaced, stated
 * plainly by the Python reference engine (reference.py; tests/simulate/test_reference_engine.py
 * checks the two bit for bit); it is built with -ffp-contract=off so that no multiply-add is fused.
 * See engine.py and reference.py for the semantics.
 *
 * run_core(inp, busy, rec_warp, rec_instr, rec_issue, rec_comp, attr, idle)
 *   -> (status, end_time, issued, issue_cycles)
 * inp is the one input record (engine.EngineInput), read by attribute name: the arrays off,
 * length, sub, lam, Lam, Lret, is_bar, bar_prev, dep_ptr, dep_idx, minlam, warp_cls, fill,
 * fill_cycles, fifo, dep_col and the scalars group_size, n_groups, n_resident, issue_limit,
 * scheduler, dispatch, interval; the other arguments are the outputs.
 * Arrays are C-contiguous buffers: int64 (off, length, sub, bar_prev, dep_ptr, dep_idx,
 * warp_cls, rec_warp, rec_instr), float64 (lam, Lam, Lret, minlam, busy, rec_issue, rec_comp)
 * and bool (is_bar). busy (n_sub) and the rec_* arrays (empty: no profile) are written.
 * Attribution (optional, off when attr or inp.dep_col is None): every cycle of every warp slot is charged to a
 * node and a reason in attr (float64, n_nodes x n_cols, row-major; columns ATTR_*, then the
 * dependency columns dep_col[producer] names; a wait for a busy pipeline is charged to the
 * instruction occupying it, the wait's cause) or, with no instruction to charge, to idle[0] (the
 * slot holds no running block: retire, dispatch, no block left) or idle[1] (the warp is done, its
 * block is not). Charges only read the simulation's state: results are the same with it on.
 * fill (optional, int64 per node, -1 for none) and fill_cycles (float64 per node): the earlier node
 * of the same warp (its index in the warp's IDG) after whose result this node's comes fill_cycles
 * later at the earliest: a load that hits L1 sectors another load of the warp is still fetching
 * completes after that fill arrives, not after the L1's own latency. It does not hold the node's
 * issue (the warp issues on), only its completion.
 * fifo (optional, bool per subsystem): the warps waiting for such a pipeline are served in the order
 * their instruction became ready (its operands' time), ties in the scheduler's order, instead of
 * the scheduler's order among those ready: a request queue at the memory side, not the warp
 * scheduler, decides which request the DRAM or L2 serves next.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WIDE_SCAN 1               /* AVX2 / AVX-512 candidate scans, chosen at run time */
#endif

enum { RR = 0, GTO = 1 };
enum { OK = 0, DEADLOCK = 1 };

typedef struct {
    const int64_t *off, *length, *sub, *bar_prev, *dep_ptr, *dep_idx, *warp_cls;
    const int64_t *fill;          /* NULL, or per node the warp-local node its completion waits for (-1: none) */
    const double *fill_cycles;    /* with fill: the cycles it takes after that node's completion */
    const uint8_t *fifo;          /* NULL, or per subsystem: its waiting warps are served first-come */
    const double *lam, *Lam, *Lret, *minlam;
    const uint8_t *is_bar;
    int64_t n_classes, n_nodes, n_sub, n_warps;
} Graph;

typedef struct {                  /* per-slot state, one resident warp per slot */
    int64_t n_slots, gs, maxlen;
    double *comp;                 /* completion time per (slot, instruction) */
    int64_t *slot_cls, *slot_warp, *slot_grp, *gcur, *head, *bar_node, *bar_rec, *hsub, *order, *pos, *tmp;
    double *start, *est, *lastiss, *wake;
    double *wake_pos;             /* GTO: wake by position in the age order (wake_pos[pos[s]] = wake[s]) */
    int64_t *grp_unissued, *grp_arrivals, *sub_count;
    int64_t n_waited;             /* the subsystems with sub_count > 0 */
    double *grp_last_arrival, *grp_max_comp;
    /* per subsystem, nwords words each: the warps with an instruction left whose next one goes to
     * it, as bits by slot (hmask) and by position in the age order (hmask_pos, for GTO's scan) */
    uint64_t *hmask, *hmask_pos;
    int64_t nwords;
    int gto;                      /* GTO keeps hmask_pos; round-robin never reads it */
} State;

static inline void hmask_set(State *S, int64_t su, int64_t s)
{
    S->hmask[su * S->nwords + (s >> 6)] |= 1ull << (s & 63);
    if (!S->gto)
        return;
    int64_t p = S->pos[s];
    S->hmask_pos[su * S->nwords + (p >> 6)] |= 1ull << (p & 63);
}

static inline void hmask_clear(State *S, int64_t su, int64_t s)
{
    S->hmask[su * S->nwords + (s >> 6)] &= ~(1ull << (s & 63));
    if (!S->gto)
        return;
    int64_t p = S->pos[s];
    S->hmask_pos[su * S->nwords + (p >> 6)] &= ~(1ull << (p & 63));
}

/* Every write of a wake time goes here: GTO scans the candidates by age position. */
static inline void set_wake(State *S, int64_t s, double v)
{
    S->wake[s] = v;
    if (S->gto)
        S->wake_pos[S->pos[s]] = v;
}

/* Earliest time the next instruction of slot s may issue: its operands are ready and a cycle
 * has passed since the warp's previous issue (inf: none left, or waiting at a barrier). */
static double head_ready(const Graph *G, const State *S, int64_t s)
{
    int64_t c = S->slot_cls[s], h = S->head[s];
    if (h >= G->length[c])
        return INFINITY;
    int64_t g = S->gcur[s];
    const double *comp = S->comp + s * S->maxlen;
    double r = S->start[s];
    if (S->lastiss[s] + 1.0 > r)
        r = S->lastiss[s] + 1.0;
    for (int64_t e = G->dep_ptr[g]; e < G->dep_ptr[g + 1]; e++) {
        double v = comp[G->dep_idx[e]];
        if (v > r)
            r = v;
    }
    int64_t bp = G->bar_prev[g];
    if (bp >= 0 && comp[bp] > r)
        r = comp[bp];
    return r;
}

/* Put group gid in resident slot-group m from time t0; youngest: its slots move to the end of
 * the age order (GTO's oldest-first). */
static void load_group(const Graph *G, State *S, int64_t m, int64_t gid, double t0, int youngest)
{
    int64_t gs = S->gs;
    S->grp_unissued[m] = 0;
    S->grp_arrivals[m] = 0;
    S->grp_max_comp[m] = t0;
    for (int64_t j = 0; j < gs; j++) {
        int64_t s = m * gs + j, w = gid * gs + j, c = G->warp_cls[w];
        S->slot_warp[s] = w;
        S->slot_cls[s] = c;
        S->head[s] = 0;
        S->gcur[s] = G->off[c];       /* the node of its next instruction: off[class] + head */
        S->start[s] = t0;
        S->lastiss[s] = -INFINITY;
        if (G->length[c] > 0) {
            S->grp_unissued[m] += 1;
            S->est[s] = t0;              /* a group's first instructions depend on nothing */
            set_wake(S, s, t0);
            S->hsub[s] = G->sub[G->off[c]];
            S->n_waited += S->sub_count[S->hsub[s]]++ == 0;
            S->hmask[S->hsub[s] * S->nwords + (s >> 6)] |= 1ull << (s & 63);
        } else {
            S->est[s] = INFINITY;
            set_wake(S, s, INFINITY);
        }
    }
    if (youngest) {
        int64_t k = 0, lo = m * gs, hi = lo + gs;
        for (int64_t i = 0; i < S->n_slots; i++)
            if (S->order[i] < lo || S->order[i] >= hi)
                S->tmp[k++] = S->order[i];
        for (int64_t j = 0; j < gs; j++)
            S->tmp[k++] = lo + j;
        memcpy(S->order, S->tmp, (size_t)S->n_slots * sizeof(int64_t));
        for (int64_t i = 0; i < S->n_slots; i++)
            S->pos[S->order[i]] = i;
    }
    /* the age order may have changed: the wake times and masks by position follow those by slot */
    if (!S->gto)
        return;
    for (int64_t i = 0; i < S->n_slots; i++)
        S->wake_pos[i] = S->wake[S->order[i]];
    int64_t n_sub = G->n_sub, nw = S->nwords;
    memset(S->hmask_pos, 0, (size_t)(n_sub * nw) * sizeof(uint64_t));
    for (int64_t su = 0; su < n_sub; su++)
        for (int64_t k = 0; k < nw; k++)
            for (uint64_t bits = S->hmask[su * nw + k]; bits; bits &= bits - 1) {
                int64_t p = S->pos[k * 64 + __builtin_ctzll(bits)];
                S->hmask_pos[su * nw + (p >> 6)] |= 1ull << (p & 63);
            }
}

/* Pass 1 of a cycle: the warps that can issue within [t, t+1), bucketed by the subsystem of
 * their next instruction, each bucket in the scheduler's priority order. */
typedef struct {
    double t, t1, next_t;         /* the cycle [t, t1); the earliest time anything may happen next */
    int64_t kk, unresolved;       /* warps bucketed so far; pipelines with slots left and waiters */
    double *tfree, *navail;       /* navail: set for a pipeline when its first warp is bucketed */
    const double *idle_slots, *minlam;
    int64_t *bucket, *brank, *bcnt, *bqual, *bskip, n_slots;
    /* A pipeline whose slots this cycle are all claimed by warps earlier in priority order is
     * full: every later warp waiting for it would be skipped one by one (bskip), so its warps are
     * dropped from the scan at once: drop (nwords, in the scan's bit order) gathers the masks
     * (hm: hmask or hmask_pos) of the full pipelines, listed in full[0..nfull). */
    uint64_t *drop;
    const uint64_t *hm;
    int64_t *full, nfull, nwords;
    const int64_t *busy;          /* the pipelines busy past the cycle (their warps dropped) */
    int64_t nbusy;
    /* the pipelines with warps in their bucket this cycle, in the order they got their first:
     * pass 2 and the cycle's end visit only these, and only their counters are reset */
    int64_t *act, nact;
    int skipped;                  /* some bskip is set */
    const uint8_t *fifo;          /* per subsystem (NULL: none): served in the order warps became ready */
} Scan;

/* Consider warp s, whose wake time lies in this cycle; 1 when every pipeline that warps wait
 * for is full, so that no later warp in priority order can issue and the scan stops. */
static inline int consider(State *S, Scan *c, int64_t s)
{
    int64_t su = S->hsub[s];
    double tf = c->tfree[su];
    if (tf >= c->t1) {
        set_wake(S, s, tf);
        if (tf < c->next_t)
            c->next_t = tf;
        return 0;
    }
    if (c->fifo && c->fifo[su]) {
        /* first-come: any candidate may be the one that has waited longest, so every one is
         * bucketed and the pipeline is never full (the scan does not stop on its account) */
        if (c->bcnt[su] == 0)
            c->act[c->nact++] = su;
        int64_t at = su * c->n_slots + c->bcnt[su];
        c->bucket[at] = s;
        c->brank[at] = c->kk;
        c->bcnt[su]++;
        c->kk++;
        return 0;
    }
    if (c->bcnt[su] == 0) {           /* its first warp this cycle: the issue slots it offers */
        c->act[c->nact++] = su;
        c->navail[su] = tf <= c->t ? c->idle_slots[su]    /* t is whole: (t + 1 - t) / minlam */
                                   : ceil((c->t1 - tf) / c->minlam[su]);
    }
    if ((double)c->bqual[su] >= c->navail[su]) {
        /* enough higher-priority warps are ready for every slot of this pipeline */
        c->bskip[su] = 1;            /* not reached: a full pipeline's warps are dropped */
        c->skipped = 1;
        return 0;
    }
    int64_t at = su * c->n_slots + c->bcnt[su];
    c->bucket[at] = s;
    c->brank[at] = c->kk;
    c->bcnt[su]++;
    c->kk++;
    if (S->est[s] <= (tf > c->t ? tf : c->t)) {
        c->bqual[su]++;
        if ((double)c->bqual[su] >= c->navail[su]) {
            c->full[c->nfull++] = su;
            for (int64_t k = 0; k < c->nwords; k++)
                c->drop[k] |= c->hm[su * c->nwords + k];
            c->unresolved--;
            if (c->unresolved == 0)
                return 1;
        }
    }
    return 0;
}

#define IS_SET(bits, i) (((bits)[(i) >> 6] >> ((i) & 63)) & 1u)

static inline uint64_t rotr64(uint64_t x, int64_t r)
{
    return (x >> r) | (x << ((64 - r) & 63));
}

/* Round-robin over at most 64 slots from slot `first` on, wrapping: the candidates rotated so
 * that slot `first` is bit 0 come in the scan's order in one pass (consider_range twice, over
 * [first, n) and [0, first), visits the same warps in the same order). */
__attribute__((noinline))        /* inlined, it costs the cycle loop registers: 20 % slower */
static int64_t consider_rotated(State *S, Scan *c, uint64_t cand, int64_t first)
{
    uint64_t bits = rotr64(cand & ~c->drop[0], first);
    while (bits) {
        int64_t s = (__builtin_ctzll(bits) + first) & 63;
        bits &= bits - 1;
        if (consider(S, c, s))
            return s;
        bits &= ~rotr64(c->drop[0], first);     /* a pipeline may have filled up */
    }
    return -1;
}

/* Consider the candidates whose bit lies in [lo, hi), in ascending order; the bit of the warp
 * at which the scan stopped, or -1. gto: bits are positions in the age order. */
static int64_t consider_range(State *S, Scan *c, const uint64_t *cand, int64_t lo, int64_t hi,
                              int gto, int64_t skip)
{
    for (int64_t w = lo >> 6; w * 64 < hi; w++) {
        uint64_t bits = cand[w] & ~c->drop[w];
        if (lo > w * 64)
            bits &= ~0ull << (lo - w * 64);
        if (hi - w * 64 < 64)
            bits &= (1ull << (hi - w * 64)) - 1;
        while (bits) {
            int64_t i = w * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            int64_t s = gto ? S->order[i] : i;
            if (s != skip && consider(S, c, s))
                return i;
            bits &= ~c->drop[w];      /* a pipeline may have filled up */
        }
    }
    return -1;
}

/* Bit j: wake[j] < t1 (j < n <= 64); *low: the smallest wake time >= t1 so far. Run every
 * processed cycle over every slot, it is the engine's largest single cost, so it is vectorised as
 * wide as the CPU allows (the build targets x86-64-v2; AVX2 and AVX-512 versions are picked at
 * import by cpuid). Comparisons and minima are exact, so every version gives the same bits and low. */
/* The end of every version: fold the vector lanes' minima (`width` of them) into *low, then the
 * slots the vector steps left (j .. n) one by one. */
static inline uint64_t scan_tail(const double *wake, int64_t j, int64_t n, double t1, const double *lanes,
                                 int width, double *low, uint64_t bits)
{
    double m = *low;
    for (int k = 0; k < width; k++)
        m = lanes[k] < m ? lanes[k] : m;
    for (; j < n; j++) {
        double w = wake[j];
        bits |= (uint64_t)(w < t1) << j;
        m = w >= t1 && w < m ? w : m;
    }
    *low = m;
    return bits;
}

static uint64_t candidate_bits_sse(const double *wake, int64_t n, double t1, double *low)
{
    uint64_t bits = 0;
    int64_t j = 0;
#ifdef __SSE2__
    __m128d vt = _mm_set1_pd(t1), vinf = _mm_set1_pd(INFINITY), vlow = _mm_set1_pd(*low);
    for (; j + 2 <= n; j += 2) {
        __m128d w = _mm_loadu_pd(wake + j);
        __m128d c = _mm_cmplt_pd(w, vt);
        bits |= (uint64_t)_mm_movemask_pd(c) << j;
        /* min is exact, so taking it two lanes at a time changes nothing */
        vlow = _mm_min_pd(vlow, _mm_or_pd(_mm_and_pd(c, vinf), _mm_andnot_pd(c, w)));
    }
    double lanes[2];
    _mm_storeu_pd(lanes, vlow);
    return scan_tail(wake, j, n, t1, lanes, 2, low, bits);
#else
    return scan_tail(wake, j, n, t1, NULL, 0, low, bits);
#endif
}

#ifdef WIDE_SCAN
__attribute__((target("avx2")))
static uint64_t candidate_bits_avx2(const double *wake, int64_t n, double t1, double *low)
{
    uint64_t bits = 0;
    int64_t j = 0;
    __m256d vt = _mm256_set1_pd(t1), vinf = _mm256_set1_pd(INFINITY), vlow = _mm256_set1_pd(*low);
    for (; j + 4 <= n; j += 4) {
        __m256d w = _mm256_loadu_pd(wake + j);
        __m256d c = _mm256_cmp_pd(w, vt, _CMP_LT_OQ);
        bits |= (uint64_t)_mm256_movemask_pd(c) << j;
        vlow = _mm256_min_pd(vlow, _mm256_blendv_pd(w, vinf, c));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, vlow);
    return scan_tail(wake, j, n, t1, lanes, 4, low, bits);
}

__attribute__((target("avx512f")))
static uint64_t candidate_bits_avx512(const double *wake, int64_t n, double t1, double *low)
{
    uint64_t bits = 0;
    int64_t j = 0;
    __m512d vt = _mm512_set1_pd(t1), vinf = _mm512_set1_pd(INFINITY), vlow = _mm512_set1_pd(*low);
    for (; j + 8 <= n; j += 8) {
        __m512d w = _mm512_loadu_pd(wake + j);
        __mmask8 c = _mm512_cmp_pd_mask(w, vt, _CMP_LT_OQ);
        bits |= (uint64_t)c << j;
        vlow = _mm512_min_pd(vlow, _mm512_mask_blend_pd(c, w, vinf));
    }
    double lanes[8];
    _mm512_storeu_pd(lanes, vlow);
    return scan_tail(wake, j, n, t1, lanes, 8, low, bits);
}
#endif

typedef uint64_t (*CandidateBits)(const double *, int64_t, double, double *);
static CandidateBits candidate_bits = candidate_bits_sse;

/* Pass 1 over the warps in the scheduler's priority order: loose round-robin starts after the
 * warp that issued last (greedy); GTO takes it first, then the others oldest first. Only the
 * warps whose wake time lies in this cycle (the candidates, a bitset) are visited one by one;
 * every other warp's wake time only bounds next_t. When the scan stops early, only the warps
 * before the stop count, as in a scan that visits every warp. Returns 1 if it stopped early. */
static int scan_warps(State *S, Scan *c, int scheduler, int64_t greedy, uint64_t *cand, int64_t nwords)
{
    const int64_t n = c->n_slots;
    const double t1 = c->t1;
    const int gto = scheduler == GTO;
    double low = INFINITY;        /* the earliest wake time of the warps that are not candidates */
    /* the candidates as bits by slot, or (gto) by position in the age order, from the wake times
     * kept in that order; branch-free, as whether a warp is a candidate is as good as random to a
     * branch predictor */
    const double *wake = gto ? S->wake_pos : S->wake;
    for (int64_t k = 0; k < nwords; k++) {
        int64_t lo = k * 64, hi = lo + 64 < n ? lo + 64 : n;
        cand[k] = candidate_bits(wake + lo, hi - lo, t1, &low);
    }
    /* A candidate whose pipeline is busy past this cycle would only be put to sleep until the
     * pipeline frees (consider: wake = tfree, next_t <= tfree): its pipeline's warps are dropped
     * from the scan at once (drop, set with the cycle's slots) and the pipeline's tfree bounds
     * next_t if it has candidates. Their wake stays as it was, which changes nothing: while the
     * pipeline is busy they are dropped again each cycle; once it is free, wake <= tfree < t + 1
     * makes them candidates as before. */
    for (int64_t b = 0; b < c->nbusy; b++) {
        int64_t su = c->busy[b];
        uint64_t any = 0;
        for (int64_t k = 0; k < nwords; k++)
            any |= cand[k] & c->hm[su * nwords + k];
        if (any && c->tfree[su] < c->next_t)
            c->next_t = c->tfree[su];
    }
    if (!gto) {
        int64_t first = greedy + 1 < n ? greedy + 1 : 0;
        int64_t stop;                 /* the stopping warp's slot */
        if (nwords == 1)
            stop = consider_rotated(S, c, cand[0], first);
        else if ((stop = consider_range(S, c, cand, first, n, 0, -1)) < 0)
            stop = consider_range(S, c, cand, 0, first, 0, -1);
        if (stop < 0) {
            if (low < c->next_t)
                c->next_t = low;
            return 0;
        }
        /* the warps before the stop in round-robin order that are not candidates */
        for (int64_t k = 0; k < n; k++) {
            int64_t s = first + k < n ? first + k : first + k - n;
            if (s == stop)
                break;
            if (!IS_SET(cand, s) && S->wake[s] < c->next_t)
                c->next_t = S->wake[s];
        }
        return 1;
    }
    if (greedy >= 0 && IS_SET(cand, S->pos[greedy]) && consider(S, c, greedy))
        return 1;                 /* nothing came before the greedy warp */
    int64_t i = consider_range(S, c, cand, 0, n, 1, greedy);
    if (i < 0) {
        if (low < c->next_t)
            c->next_t = low;
        return 0;
    }
    if (greedy >= 0 && !IS_SET(cand, S->pos[greedy]) && S->wake[greedy] < c->next_t)
        c->next_t = S->wake[greedy];
    for (int64_t k = 0; k < i; k++) {
        int64_t s = S->order[k];
        if (s != greedy && !IS_SET(cand, k) && S->wake[s] < c->next_t)
            c->next_t = S->wake[s];
    }
    return 1;
}


/* ---- attribution of slot cycles (optional) ------------------------------------------------- */

enum { ATTR_ISSUED = 0, ATTR_PIPE = 1, ATTR_NOT_SELECTED = 2, ATTR_BARRIER = 3, ATTR_FIXED = 4 };

typedef struct {
    double *cells;                /* n_nodes x n_cols, or NULL: attribution off */
    const int64_t *dep_col;       /* column charged when a warp waits on this node's result */
    double *idle;                 /* [0]: no running block in the slot; [1]: warp done, block not */
    int64_t n_cols;
    int64_t *issued_node;         /* per slot: the node it issued in this cycle, or -1 */
    int64_t *occupant;            /* per subsystem: the node issued to it last (it holds it until tfree) */
} Attr;

/* Charge slot s's cycles [a, a + len) by the state at a, which holds over the window: nothing in
 * it issues (len == 1, the processed cycle, is charged after its issues). Cycles before the
 * block's start are idle; then the warp waits for its next instruction's last operand (on that
 * producer's column) or a barrier (on the barrier); then, ready, for its pipeline (charged to
 * the instruction occupying it) or, with the pipeline free, for an issue slot another warp took
 * (not selected). */
static void charge(const Graph *G, const State *S, Attr *A, int64_t s, double a, double len,
                   const double *tfree)
{
    if (len <= 0.0)
        return;
    int64_t c = S->slot_cls[s], h = S->head[s], m = S->slot_grp[s];
    if (h >= G->length[c]) {
        A->idle[S->grp_unissued[m] > 0 ? 1 : 0] += len;
        return;
    }
    double st = S->start[s];
    if (st >= a + 1.0) {
        double k = floor(st) - a;
        if (k > len)
            k = len;
        A->idle[0] += k;
        a += k;
        len -= k;
        if (len <= 0.0)
            return;
    }
    int64_t g = G->off[c] + h;
    double e = S->est[s];
    double wait = e == INFINITY ? len : floor(e) - a;
    if (wait > len)
        wait = len;
    if (wait > 0.0) {
        const double *comp = S->comp + s * S->maxlen;
        int64_t node = g, col = ATTR_NOT_SELECTED, bp = G->bar_prev[g];
        if (bp >= 0 && comp[bp] >= e) {
            node = G->off[c] + bp;          /* waiting at (or for the release of) a barrier */
            col = ATTR_BARRIER;
        } else {
            double best = -INFINITY;
            for (int64_t d = G->dep_ptr[g]; d < G->dep_ptr[g + 1]; d++) {
                double v = comp[G->dep_idx[d]];
                if (v > best) {
                    best = v;
                    col = A->dep_col[G->off[c] + G->dep_idx[d]];
                }
            }
            if (best < e)                   /* the wait is the warp's own previous issue */
                col = ATTR_NOT_SELECTED;
        }
        A->cells[node * A->n_cols + col] += wait;
        a += wait;
        len -= wait;
    }
    if (len > 0.0) {
        int64_t su = G->sub[g];
        if (tfree[su] >= a + 1.0 && A->occupant[su] >= 0)
            A->cells[A->occupant[su] * A->n_cols + ATTR_PIPE] += len;
        else
            A->cells[g * A->n_cols + ATTR_NOT_SELECTED] += len;
    }
}

/* Charge every slot for the processed cycle [t, min(t + 1, stop)) and the cycles skipped after
 * it, [t + 1, stop), in which nothing issues. */
static void charge_cycles(const Graph *G, const State *S, Attr *A, double t, double stop,
                          const double *tfree)
{
    double w = stop < t + 1.0 ? stop - t : 1.0;
    for (int64_t s = 0; s < S->n_slots; s++) {
        int64_t g = A->issued_node[s];
        if (g >= 0) {
            A->cells[g * A->n_cols + ATTR_ISSUED] += w;
            A->issued_node[s] = -1;
        } else {
            charge(G, S, A, s, t, w, tfree);
        }
        charge(G, S, A, s, t + 1.0, stop - t - 1.0, tfree);
    }
}

/* Pass 2's next issue: each pipeline with warps bucketed offers its first waiting warp (in
 * priority order) whose operands are ready by the pipeline's free time, else the one ready soonest
 * (first-come pipelines: the one ready longest); the earliest offer issues, ties to the larger
 * lambda, then to priority. Returns its time, its pipeline in *best_su (-1: none this cycle) and
 * its place in that pipeline's bucket in *best_q. */
static inline double pick_issue(const Graph *G, const State *S, const Scan *c, const int64_t *bptr,
                                int64_t *best_su_out, int64_t *best_q_out)
{
    const double t = c->t, inf = INFINITY, *tfree = c->tfree, *lam = G->lam;
    const int64_t n_slots = c->n_slots, kk = c->kk, *act = c->act, *bucket = c->bucket, *brank = c->brank;
    const int64_t *bcnt = c->bcnt;
    int64_t best_su = -1, best_q = -1;
    double bx = t + 1.0;
    if (kk == 1) {
        /* one warp bucketed (most cycles): the pick is its own, as the loop below makes it */
        int64_t su = act[0];
        double tau = tfree[su] > t ? tfree[su] : t, e = S->est[bucket[su * n_slots]];
        double x = e <= tau ? tau : e;
        if (tau < t + 1.0 && x < t + 1.0) {
            best_su = su;
            best_q = 0;
            bx = x;
        }
    } else {
        int64_t brk = 0;
        double blam = 0.0;
        /* the pipelines with warps bucketed; the choice does not depend on their order: the
         * ranks are distinct, so (time, -lambda, rank) orders every pair */
        for (int64_t a = 0; a < c->nact; a++) {
            int64_t su = act[a];
            if (bptr[su] >= bcnt[su])
                continue;
            double tau = tfree[su] > t ? tfree[su] : t;
            if (tau >= t + 1.0)
                continue;
            /* first waiting warp (in priority order) whose operands are ready by tau, else
             * the one whose operands are ready soonest; first-come: the warp that has
             * been ready longest (ties in priority order) */
            int64_t q_sel = -1;
            double x_sel = inf;
            const int64_t *bk = bucket + su * n_slots;
            int first_come = G->fifo && G->fifo[su];
            if (first_come) {
                for (int64_t q = bptr[su]; q < bcnt[su]; q++) {
                    int64_t s = bk[q];
                    if (s >= 0 && S->est[s] < x_sel) {
                        x_sel = S->est[s];
                        q_sel = q;
                    }
                }
                if (x_sel < tau)
                    x_sel = tau;
            }
            for (int64_t q = first_come ? bcnt[su] : bptr[su]; q < bcnt[su]; q++) {
                int64_t s = bk[q];
                if (s < 0)
                    continue;
                double e = S->est[s];
                if (e <= tau) {
                    q_sel = q;
                    x_sel = tau;
                    break;
                }
                if (e < x_sel) {
                    x_sel = e;
                    q_sel = q;
                }
            }
            if (q_sel < 0 || x_sel >= t + 1.0)
                continue;
            int64_t s = bk[q_sel];
            double lg = lam[S->gcur[s]];
            int64_t rk = brank[su * n_slots + q_sel];
            if (x_sel < bx || (x_sel == bx && (lg > blam || (lg == blam && rk < brk)))) {
                bx = x_sel;
                blam = lg;
                brk = rk;
                best_su = su;
                best_q = q_sel;
            }
        }
    }
    *best_su_out = best_su;
    *best_q_out = best_q;
    return bx;
}

typedef struct {
    int status;
    double end_time;
    int64_t issued, issue_cycles;
} Outcome;

/* The launch on the core, from the input record's scalars. */
typedef struct {
    int64_t n_groups, M;          /* groups to run; resident at once (M <= n_groups) */
    double issue_limit;
    int scheduler;
    double dispatch, interval;    /* a group's retire-to-start cycles; the block rate's interval */
} Launch;

/* What a run writes: busy cycles per subsystem and (record) every issue's warp, instruction,
 * issue and completion time. */
typedef struct {
    double *busy;
    int record;
    int64_t *rec_warp, *rec_instr;
    double *rec_issue, *rec_comp;
} Outputs;

/* The barrier group m's warps wait at completes at tb for all of them (slot s issued the last
 * arrival); the others' next instructions get their ready time. Returns next_t lowered to those. */
static double release_barrier(const Graph *G, State *S, int64_t m, int64_t s, double tb, const Outputs *O,
                              double next_t)
{
    const int64_t gs = S->gs, maxlen = S->maxlen;
    double *comp = S->comp;
    for (int64_t j = 0; j < gs; j++) {
        int64_t s2 = m * gs + j;
        comp[s2 * maxlen + S->bar_node[s2]] = tb;
        if (O->record)
            O->rec_comp[S->bar_rec[s2]] = tb;
        if (s2 != s) {
            S->est[s2] = head_ready(G, S, s2);
            set_wake(S, s2, S->est[s2]);
            if (S->est[s2] < next_t)
                next_t = S->est[s2];
        }
    }
    if (tb > S->grp_max_comp[m])
        S->grp_max_comp[m] = tb;
    S->grp_arrivals[m] = 0;
    S->grp_last_arrival[m] = 0.0;
    return next_t;
}

static Outcome simulate(const Graph *G, State *S, const Launch *L, const Outputs *O, int64_t *scratch_i,
                        double *scratch_d, Attr *A)
{
    const int64_t n_groups = L->n_groups, M = L->M;
    const double issue_limit = L->issue_limit, dispatch = L->dispatch, interval = L->interval;
    const int scheduler = L->scheduler, record = O->record;
    double *busy = O->busy, *rec_issue = O->rec_issue, *rec_comp = O->rec_comp;
    int64_t *rec_warp = O->rec_warp, *rec_instr = O->rec_instr;
    const int64_t gs = S->gs, n_slots = S->n_slots, n_sub = G->n_sub, maxlen = S->maxlen;
    const double inf = INFINITY;
    const int64_t *length = G->length, *sub = G->sub;
    const double *lam = G->lam, *Lam = G->Lam, *Lret = G->Lret, *minlam = G->minlam;
    double *comp = S->comp;
    Outcome out = {OK, 0.0, 0, 0};

    double *tfree = scratch_d, *navail = scratch_d + n_sub;
    int64_t *bucket = scratch_i, *brank = bucket + n_sub * n_slots;
    int64_t *bcnt = brank + n_sub * n_slots, *bptr = bcnt + n_sub, *bqual = bptr + n_sub;
    int64_t *bskip = bqual + n_sub;
    const int64_t nwords = (n_slots + 63) / 64;
    uint64_t *cand = (uint64_t *)(bskip + n_sub);
    uint64_t *drop = cand + 2 * nwords;
    int64_t *full = (int64_t *)(drop + nwords), *busy_subs = full + n_sub, *act = busy_subs + n_sub;
    int64_t nr = 0;

    int64_t next_group = 0, groups_done = 0;
    double last_start = 0.0;
    for (int64_t m = 0; m < M; m++) {
        last_start = (double)m * interval;
        load_group(G, S, m, next_group, last_start, 0);
        next_group++;
    }
    double end_time = 0.0;
    int64_t issued_total = 0, issue_cycles = 0;

    /* issue slots an idle pipeline offers in a cycle */
    double *idle_slots = navail + n_sub;
    for (int64_t q = 0; q < n_sub; q++)
        idle_slots[q] = ceil(1.0 / minlam[q]);
    double t = 0.0;
    double cap = issue_limit > 1.0 ? issue_limit : 1.0;
    double credits = 0.0;
    int64_t last = -1;
    const uint64_t *hm = scheduler == GTO ? S->hmask_pos : S->hmask;
    Scan sc = {.tfree = tfree, .navail = navail, .idle_slots = idle_slots, .minlam = minlam,
               .bucket = bucket, .brank = brank, .bcnt = bcnt,
               .bqual = bqual, .bskip = bskip, .n_slots = n_slots, .drop = drop, .hm = hm,
               .full = full, .nwords = nwords, .busy = busy_subs, .act = act, .nact = 0, .fifo = G->fifo};
    while (groups_done < n_groups) {
        credits = credits + issue_limit < cap ? credits + issue_limit : cap;
        int64_t greedy = last;           /* the scan order is fixed at the start of the cycle */
        /* pass 1: warps that can issue within [t, t+1), bucketed by the subsystem of their next
         * instruction, each bucket in the scheduler's priority order */
        /* per pipeline: busy past the cycle, its warps are dropped from the scan; the pipelines
         * that warps wait for with slots left this cycle (unresolved: once all such are full, no
         * later warp in priority order can issue and the scan stops). bcnt, bptr, bqual, bskip
         * are 0 (reset at the end of the cycle); navail is set as warps are bucketed. */
        const double t1 = t + 1.0;
        int64_t unresolved = S->n_waited, nbusy = 0;
        if (nwords == 1)
            drop[0] = 0;
        else
            memset(drop, 0, (size_t)nwords * sizeof(uint64_t));
        uint64_t busy_bits = 0;       /* n_sub <= 64; compared without branches, as the busy
                                       * pipelines change from cycle to cycle */
        for (int64_t q = 0; q < n_sub; q++)
            busy_bits |= (uint64_t)(tfree[q] >= t1) << q;
        for (; busy_bits; busy_bits &= busy_bits - 1) {
            int64_t q = __builtin_ctzll(busy_bits);
            busy_subs[nbusy++] = q;
            for (int64_t k = 0; k < nwords; k++)
                drop[k] |= hm[q * nwords + k];
            unresolved -= S->sub_count[q] > 0;
        }
        sc.t = t;
        sc.t1 = t1;
        sc.next_t = inf;
        sc.kk = 0;
        sc.unresolved = unresolved;
        sc.nfull = 0;
        sc.nbusy = nbusy;
        sc.skipped = 0;
        int early = scan_warps(S, &sc, scheduler, greedy, cand, nwords);
        /* the candidates of the full pipelines (bits and masks in the scan's order), for after pass 2 */
        for (int64_t f = 0; f < sc.nfull; f++) {
            int64_t su = full[f], n_on = 0;
            for (int64_t k = 0; k < nwords; k++)
                n_on += __builtin_popcountll(cand[k] & hm[su * nwords + k]);
            if (n_on > bcnt[su])      /* some were dropped: as many bskips in a warp-by-warp scan */
                bskip[su] = sc.skipped = 1;
        }
        double next_t = sc.next_t;
        int64_t kk = sc.kk;
        int64_t nc = kk;
        /* pass 2: fill the pipelines' issue slots, earliest first */
        int issued = 0;
        while (nc > 0 && credits >= 1.0) {
            int64_t best_su, best_q;
            double bx = pick_issue(G, S, &sc, bptr, &best_su, &best_q);
            if (best_su < 0)
                break;
            int64_t *bk = bucket + best_su * n_slots;
            int64_t s = bk[best_q];
            bk[best_q] = -1;
            while (bptr[best_su] < bcnt[best_su] && bk[bptr[best_su]] < 0)
                bptr[best_su]++;
            nc--;
            double x = bx;
            int64_t c = S->slot_cls[s], h = S->head[s], g = S->gcur[s], su = sub[g], m = S->slot_grp[s];
            /* issue instruction h of the warp in slot s at time x */
            tfree[su] = x + lam[g];
            busy[su] += lam[g];
            credits -= 1.0;
            issued = 1;
            issued_total++;
            last = s;
            if (A->cells) {
                A->issued_node[s] = g;
                A->occupant[su] = g;
            }
            if (record) {
                rec_warp[nr] = S->slot_warp[s];
                rec_instr[nr] = h;
                rec_issue[nr] = x;
            }
            if (G->is_bar[g]) {
                comp[s * maxlen + h] = inf;
                S->bar_node[s] = h;
                if (record) {
                    S->bar_rec[s] = nr;
                    rec_comp[nr] = inf;
                }
                S->grp_arrivals[m]++;
                if (x > S->grp_last_arrival[m])
                    S->grp_last_arrival[m] = x;
                if (S->grp_arrivals[m] == gs)       /* the last warp arrived: release the group */
                    next_t = release_barrier(G, S, m, s, S->grp_last_arrival[m] + Lam[g], O, next_t);
            } else {
                double cp = x + Lam[g];
                if (G->fill && G->fill[g] >= 0) {         /* its data arrive with that fill */
                    double cf = comp[s * maxlen + G->fill[g]] + G->fill_cycles[g];
                    if (cf > cp)
                        cp = cf;
                }
                comp[s * maxlen + h] = cp;
                double cr = x + Lret[g];          /* what the block waits for before it retires */
                double gm = S->grp_max_comp[m];
                S->grp_max_comp[m] = cr > gm ? cr : gm;
                if (record)
                    rec_comp[nr] = cp;
            }
            if (record)
                nr++;
            S->head[s] = h + 1;
            S->gcur[s] = g + 1;
            S->lastiss[s] = x;
            S->est[s] = head_ready(G, S, s);
            set_wake(S, s, S->est[s]);
            S->n_waited -= --S->sub_count[su] == 0;
            hmask_clear(S, su, s);
            if (h + 1 < length[c]) {
                S->hsub[s] = sub[g + 1];
                S->n_waited += S->sub_count[sub[g + 1]]++ == 0;
                hmask_set(S, sub[g + 1], s);
            }
            if (h + 1 == length[c])
                S->grp_unissued[m]--;
            if (S->grp_unissued[m] == 0 && S->grp_arrivals[m] == 0) {
                double fin = S->grp_max_comp[m];
                if (fin > end_time)
                    end_time = fin;
                groups_done++;
                if (next_group < n_groups) {
                    double t0 = fin + dispatch;
                    if (t0 < last_start + interval)
                        t0 = last_start + interval;
                    last_start = t0;
                    load_group(G, S, m, next_group, t0, 1);
                    next_group++;
                    if (t0 < next_t)
                        next_t = t0;
                } else {
                    for (int64_t j = 0; j < gs; j++) {
                        S->est[m * gs + j] = inf;
                        set_wake(S, m * gs + j, inf);
                    }
                }
            } else {
                double e = S->est[s];
                if (e < inf) {
                    double tf = tfree[S->hsub[s]];     /* its next instruction's pipeline */
                    if (tf > e)
                        e = tf;
                    if (e < next_t)
                        next_t = e;
                }
            }
        }
        if (issued)
            issue_cycles++;
        if (early) {
            for (int64_t su = 0; su < n_sub; su++)
                if ((bskip[su] || S->sub_count[su] > 0) && tfree[su] < next_t)
                    next_t = tfree[su];
        } else if (sc.skipped) {      /* a skipped warp's pipeline has warps bucketed */
            for (int64_t a = 0; a < sc.nact; a++)
                if (bskip[act[a]] && tfree[act[a]] < next_t)
                    next_t = tfree[act[a]];
        }
        /* candidates left over (pipeline busy or issue limit reached) may issue next cycle */
        if (nc > 0) {
            for (int64_t a = 0; a < sc.nact; a++) {
                int64_t su = act[a];
                const int64_t *bk = bucket + su * n_slots;
                for (int64_t q = bptr[su]; q < bcnt[su]; q++) {
                    int64_t s = bk[q];
                    if (s >= 0) {
                        double x = S->est[s] > tfree[su] ? S->est[s] : tfree[su];
                        if (x < next_t)
                            next_t = x;
                    }
                }
            }
        }
        for (int64_t a = 0; a < sc.nact; a++) {
            int64_t su = act[a];
            bcnt[su] = bptr[su] = bqual[su] = bskip[su] = 0;
        }
        sc.nact = 0;
        if (groups_done >= n_groups) {
            if (A->cells)                /* the last cycle, and the last results' latency after it */
                charge_cycles(G, S, A, t, end_time > t ? end_time : t, tfree);
            break;
        }
        if (next_t == inf) {
            out.status = DEADLOCK;
            out.end_time = t;
            out.issued = issued_total;
            out.issue_cycles = issue_cycles;
            return out;
        }
        double nt = floor(next_t);
        if (nt < t + 1.0)
            nt = t + 1.0;
        if (A->cells)
            charge_cycles(G, S, A, t, nt, tfree);
        /* credits keep accruing over skipped idle cycles (none skipped: + 0, and credits <= cap) */
        double skipped = nt - t - 1.0 > 0.0 ? nt - t - 1.0 : 0.0;
        double c2 = credits + issue_limit * skipped;
        credits = c2 < cap ? c2 : cap;
        t = nt;
    }
    out.end_time = end_time;
    out.issued = issued_total;
    out.issue_cycles = issue_cycles;
    return out;
}

/* ---- argument handling ---------------------------------------------------------------- */

/* The completion times (n_slots x the longest IDG, 5 MB for 64 warps of 10^4 instructions): every
 * entry is written as the simulation goes, so on Linux the block asks for huge pages, a handful
 * of page faults instead of one per 4 KB (1250 of them, 4 ms of system time, on the first run of
 * a process). Freed with free(). */
static double *alloc_comp(size_t n)
{
    size_t bytes = n * sizeof(double);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        void *p = NULL;
        bytes = (bytes + huge - 1) / huge * huge;
        if (posix_memalign(&p, huge, bytes) != 0)
            return NULL;
        madvise(p, bytes, MADV_HUGEPAGE);        /* advice: nothing changes if it is not taken */
        return p;
    }
#endif
    return malloc(bytes ? bytes : sizeof(double));
}

enum { I64, F64, BOOL };

/* A C-contiguous buffer of the given element kind (writable if asked); -1 with an exception. */
static int get_buffer(PyObject *obj, int kind, int writable, const char *name, Py_buffer *view)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0)
        return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    int ok = 0;
    if (kind == I64)
        ok = view->itemsize == 8 && (*f == 'q' || *f == 'l') && f[1] == 0;
    else if (kind == F64)
        ok = view->itemsize == 8 && *f == 'd' && f[1] == 0;
    else
        ok = view->itemsize == 1 && (*f == '?' || *f == 'B' || *f == 'b') && f[1] == 0;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "run_core: %s must be a contiguous %s array", name,
                     kind == I64 ? "int64" : kind == F64 ? "float64" : "bool");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#define N_ARRAYS 16

/* An attribute of the input record as a new reference (NULL with AttributeError set). */
static PyObject *field(PyObject *inp, const char *name, PyObject **owned, int *n_owned)
{
    PyObject *o = PyObject_GetAttrString(inp, name);
    if (o)
        owned[(*n_owned)++] = o;
    return o;
}

/* An integer or float attribute of the input record; -1 with an exception. */
static int int_field(PyObject *inp, const char *name, long long *out)
{
    PyObject *o = PyObject_GetAttrString(inp, name);
    if (!o)
        return -1;
    *out = PyLong_AsLongLong(o);
    Py_DECREF(o);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

static int float_field(PyObject *inp, const char *name, double *out)
{
    PyObject *o = PyObject_GetAttrString(inp, name);
    if (!o)
        return -1;
    *out = PyFloat_AsDouble(o);
    Py_DECREF(o);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* run_core(inp, busy, rec_warp, rec_instr, rec_issue, rec_comp, attr, idle): inp is the one input
 * record (engine.EngineInput: its arrays and scalars are read by name); the others are the
 * outputs, written (rec_*: empty for no profile; attr and idle: None for no attribution). */
static PyObject *py_run_core(PyObject *self, PyObject *args)
{
    static const char *names[N_ARRAYS] = {
        "off", "length", "sub", "lam", "Lam", "Lret", "is_bar", "bar_prev", "dep_ptr", "dep_idx",
        "minlam", "warp_cls", "busy", "rec_warp", "rec_instr", "rec_issue"};
    static const int kinds[N_ARRAYS] = {I64, I64, I64, F64, F64, F64, BOOL, I64, I64, I64,
                                        F64, I64, F64, I64, I64, F64};
    PyObject *inp, *objs[N_ARRAYS + 1];
    PyObject *attr_obj = NULL, *depcol_obj = NULL, *idle_obj = NULL, *fill_obj = NULL, *fillc_obj = NULL;
    PyObject *fifo_obj = NULL;
    PyObject *owned[16];
    int n_owned = 0;
    Py_buffer vf[3];
    int got_f = 0;
    long long group_size, n_groups, n_resident, sched;
    double issue_limit, dispatch, interval;
    int scheduler;
    Py_buffer v[N_ARRAYS + 1], va[3];
    int got = 0, got_a = 0;
    int64_t *issued_node = NULL;
    Attr A = {NULL, NULL, NULL, 0, NULL, NULL};
    PyObject *result = NULL;
    void *mem_i = NULL, *mem_d = NULL, *scratch_i = NULL, *scratch_d = NULL;
    double *comp = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:run_core", &inp, &objs[12], &objs[13], &objs[14], &objs[15],
                          &objs[16], &attr_obj, &idle_obj))
        return NULL;
    for (int i = 0; i < 12; i++)
        if (!field(inp, names[i], owned, &n_owned))
            goto done;
    for (int i = 0; i < 12; i++)
        objs[i] = owned[i];
    if (!(fill_obj = field(inp, "fill", owned, &n_owned)) || !(fillc_obj = field(inp, "fill_cycles", owned, &n_owned))
        || !(fifo_obj = field(inp, "fifo", owned, &n_owned)) || !(depcol_obj = field(inp, "dep_col", owned, &n_owned)))
        goto done;
    if (int_field(inp, "group_size", &group_size) < 0 || int_field(inp, "n_groups", &n_groups) < 0
        || int_field(inp, "n_resident", &n_resident) < 0 || int_field(inp, "scheduler", &sched) < 0
        || float_field(inp, "issue_limit", &issue_limit) < 0 || float_field(inp, "dispatch", &dispatch) < 0
        || float_field(inp, "interval", &interval) < 0)
        goto done;
    scheduler = sched == RR || sched == GTO ? (int)sched : -1;
    if (attr_obj == Py_None || depcol_obj == Py_None)
        attr_obj = NULL;
    for (; got < N_ARRAYS + 1; got++) {
        int kind = got < N_ARRAYS ? kinds[got] : F64;
        int writable = got >= 12;
        if (get_buffer(objs[got], kind, writable, got < N_ARRAYS ? names[got] : "rec_comp", &v[got]) < 0)
            goto done;
    }
#define LEN(i) (v[i].len / v[i].itemsize)
    Graph G = {
        .off = v[0].buf, .length = v[1].buf, .sub = v[2].buf, .lam = v[3].buf, .Lam = v[4].buf,
        .Lret = v[5].buf, .is_bar = v[6].buf, .bar_prev = v[7].buf, .dep_ptr = v[8].buf,
        .dep_idx = v[9].buf, .minlam = v[10].buf, .warp_cls = v[11].buf,
        .n_classes = LEN(1), .n_nodes = LEN(2), .n_sub = LEN(10), .n_warps = LEN(11)};
    /* the engine trusts its arrays; check once that they fit together */
    const char *bad = NULL;
    if (group_size < 1 || n_groups < 1 || n_resident < 1 || G.n_sub < 1)
        bad = "group_size, n_groups, n_resident and the subsystems must be >= 1";
    else if (G.n_sub > 64)
        bad = "at most 64 subsystems";
    else if (scheduler != RR && scheduler != GTO)
        bad = "scheduler must be RR (0) or GTO (1)";
    else if (LEN(0) != G.n_classes || LEN(3) != G.n_nodes || LEN(4) != G.n_nodes || LEN(5) != G.n_nodes
             || LEN(6) != G.n_nodes || LEN(7) != G.n_nodes || LEN(8) != G.n_nodes + 1 || LEN(12) != G.n_sub)
        bad = "array lengths do not match";
    else if (G.n_warps < n_groups * group_size)
        bad = "warp_cls has fewer than n_groups * group_size warps";
    int64_t maxlen = 1, total_instr = 0;
    for (int64_t c = 0; !bad && c < G.n_classes; c++) {
        if (G.length[c] < 0 || G.off[c] < 0 || G.off[c] + G.length[c] > G.n_nodes)
            bad = "a warp class lies outside the node arrays";
        else if (G.length[c] > maxlen)
            maxlen = G.length[c];
        for (int64_t i = G.off[c]; !bad && i < G.off[c] + G.length[c]; i++) {
            if (G.sub[i] < 0 || G.sub[i] >= G.n_sub || G.bar_prev[i] >= G.length[c])
                bad = "a node's subsystem or barrier is out of range";
            else if (G.dep_ptr[i] < 0 || G.dep_ptr[i] > G.dep_ptr[i + 1] || G.dep_ptr[i + 1] > LEN(9))
                bad = "dep_ptr is not a valid index into dep_idx";
            for (int64_t e = bad ? 0 : G.dep_ptr[i]; !bad && e < G.dep_ptr[i + 1]; e++)
                if (G.dep_idx[e] < 0 || G.dep_idx[e] >= G.length[c])
                    bad = "a dependence lies outside its warp's IDG";
        }
    }
    for (int64_t w = 0; !bad && w < n_groups * group_size; w++) {
        if (G.warp_cls[w] < 0 || G.warp_cls[w] >= G.n_classes)
            bad = "warp_cls names a warp class that does not exist";
        else
            total_instr += G.length[G.warp_cls[w]];
    }
    if (!bad && fill_obj && fill_obj != Py_None) {
        if (get_buffer(fill_obj, I64, 0, "fill", &vf[0]) < 0)
            goto done;
        got_f = 1;
        if (!fillc_obj || fillc_obj == Py_None) {
            bad = "fill needs fill_cycles";
            goto checked;
        }
        if (get_buffer(fillc_obj, F64, 0, "fill_cycles", &vf[1]) < 0)
            goto done;
        got_f = 2;
        if (vf[0].len / 8 != G.n_nodes || vf[1].len / 8 != G.n_nodes) {
            bad = "fill and fill_cycles must hold one entry per node";
        } else {
            G.fill = vf[0].buf;
            G.fill_cycles = vf[1].buf;
            for (int64_t c = 0; !bad && c < G.n_classes; c++)
                for (int64_t i = G.off[c]; !bad && i < G.off[c] + G.length[c]; i++)
                    if (G.fill[i] < -1 || G.fill[i] >= i - G.off[c])
                        bad = "a node's fill is not an earlier node of its warp";
        }
    }
checked:;
    if (!bad && fifo_obj && fifo_obj != Py_None) {
        if (get_buffer(fifo_obj, BOOL, 0, "fifo", &vf[got_f]) < 0)
            goto done;
        if (vf[got_f].len != G.n_sub)
            bad = "fifo must hold one entry per subsystem";
        else
            G.fifo = vf[got_f].buf;
        got_f++;
    }
    int64_t nrec = LEN(13);
    if (!bad && nrec && (nrec != total_instr || LEN(14) != nrec || LEN(15) != nrec || LEN(16) != nrec))
        bad = "the rec_* arrays must be empty or hold one entry per instruction of every warp";
#undef LEN
    if (!bad && attr_obj && attr_obj != Py_None) {
        if (!depcol_obj || !idle_obj) {
            bad = "attribution needs attr, dep_col and idle";
        } else {
            if (get_buffer(attr_obj, F64, 1, "attr", &va[0]) < 0)
                goto done;
            got_a = 1;
            if (get_buffer(depcol_obj, I64, 0, "dep_col", &va[1]) < 0)
                goto done;
            got_a = 2;
            if (get_buffer(idle_obj, F64, 1, "idle", &va[2]) < 0)
                goto done;
            got_a = 3;
            int64_t cells = va[0].len / 8, n_cols = G.n_nodes ? cells / G.n_nodes : 0;
            const int64_t *dc = va[1].buf;
            if (cells == 0) {
                /* attribution off */
            } else if (n_cols <= ATTR_FIXED || n_cols * G.n_nodes != cells || va[1].len / 8 != G.n_nodes
                       || va[2].len / 8 != 2) {
                bad = "attr must be n_nodes x n_cols (n_cols > 4), dep_col n_nodes and idle 2 long";
            } else {
                for (int64_t i = 0; !bad && i < G.n_nodes; i++)
                    if (dc[i] < ATTR_FIXED || dc[i] >= n_cols)
                        bad = "dep_col names a column outside attr";
                A.cells = va[0].buf;
                A.dep_col = dc;
                A.idle = va[2].buf;
                A.n_cols = n_cols;
            }
        }
    }
    if (bad) {
        PyErr_Format(PyExc_ValueError, "run_core: %s", bad);
        goto done;
    }

    int64_t M = n_resident < n_groups ? n_resident : n_groups;
    int64_t gs = group_size, n_slots = M * gs, n_sub = G.n_sub;
    int64_t nwords = (n_slots + 63) / 64;
    State S = {.n_slots = n_slots, .gs = gs, .maxlen = maxlen, .nwords = nwords, .gto = scheduler == GTO};
    /* int64 per-slot arrays: 11 of n_slots (tmp included); per-group: 2 of M; sub_count; the
     * two masks per subsystem */
    mem_i = calloc((size_t)(11 * n_slots + 2 * M + n_sub + 2 * n_sub * nwords), sizeof(int64_t));
    mem_d = calloc((size_t)(5 * n_slots + 2 * M), sizeof(double));
    /* buckets and their ranks, 4 per-subsystem counters, candidates (2 x nwords, one used), drop, full,
     * busy, act */
    scratch_i = calloc((size_t)(2 * n_sub * n_slots + 4 * n_sub + 3 * nwords + 3 * n_sub), sizeof(int64_t));
    scratch_d = calloc((size_t)(3 * n_sub), sizeof(double));
    comp = alloc_comp((size_t)n_slots * (size_t)maxlen);
    if (A.cells) {
        issued_node = malloc((size_t)(n_slots + n_sub) * sizeof(int64_t));
        A.issued_node = issued_node;
        A.occupant = issued_node + n_slots;
    }
    if (!mem_i || !mem_d || !scratch_i || !scratch_d || !comp || (A.cells && !issued_node)) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *pi = mem_i;
    S.slot_cls = pi; pi += n_slots;
    S.slot_warp = pi; pi += n_slots;
    S.slot_grp = pi; pi += n_slots;
    S.gcur = pi; pi += n_slots;
    S.head = pi; pi += n_slots;
    S.bar_node = pi; pi += n_slots;
    S.bar_rec = pi; pi += n_slots;
    S.hsub = pi; pi += n_slots;
    S.order = pi; pi += n_slots;
    S.pos = pi; pi += n_slots;
    S.tmp = pi; pi += n_slots;
    S.grp_unissued = pi; pi += M;
    S.grp_arrivals = pi; pi += M;
    S.sub_count = pi; pi += n_sub;
    S.hmask = (uint64_t *)pi; pi += n_sub * nwords;
    S.hmask_pos = (uint64_t *)pi;
    double *pd = mem_d;
    S.start = pd; pd += n_slots;
    S.est = pd; pd += n_slots;
    S.lastiss = pd; pd += n_slots;
    S.wake = pd; pd += n_slots;
    S.wake_pos = pd; pd += n_slots;
    S.grp_last_arrival = pd; pd += M;
    S.grp_max_comp = pd;
    S.comp = comp;
    for (int64_t i = 0; i < n_slots * maxlen; i++)
        comp[i] = INFINITY;
    for (int64_t s = 0; s < n_slots; s++) {
        S.slot_warp[s] = -1;
        S.slot_grp[s] = s / gs;
        S.order[s] = s;
        S.pos[s] = s;
        S.est[s] = INFINITY;
        S.wake[s] = INFINITY;
        S.wake_pos[s] = INFINITY;
        S.lastiss[s] = -INFINITY;
    }
    double *busy = v[12].buf;
    for (int64_t q = 0; q < n_sub; q++)
        busy[q] = 0.0;
    if (A.cells) {
        memset(A.cells, 0, (size_t)(G.n_nodes * A.n_cols) * sizeof(double));
        A.idle[0] = A.idle[1] = 0.0;
        for (int64_t s = 0; s < n_slots + n_sub; s++)
            issued_node[s] = -1;
    }

    Launch launch = {.n_groups = n_groups, .M = M, .issue_limit = issue_limit, .scheduler = scheduler,
                     .dispatch = dispatch, .interval = interval};
    Outputs outputs = {.busy = busy, .record = nrec > 0, .rec_warp = v[13].buf, .rec_instr = v[14].buf,
                       .rec_issue = v[15].buf, .rec_comp = v[16].buf};
    Outcome o;
    Py_BEGIN_ALLOW_THREADS
    o = simulate(&G, &S, &launch, &outputs, scratch_i, scratch_d, &A);
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("idLL", o.status, o.end_time, (long long)o.issued, (long long)o.issue_cycles);
done:
    free(mem_i);
    free(mem_d);
    free(scratch_i);
    free(scratch_d);
    free(comp);
    free(issued_node);
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&v[i]);
    for (int i = 0; i < got_a; i++)
        PyBuffer_Release(&va[i]);
    for (int i = 0; i < got_f; i++)
        PyBuffer_Release(&vf[i]);
    for (int i = 0; i < n_owned; i++)
        Py_DECREF(owned[i]);
    return result;
}

/* ---- flattening helpers for PreparedKernel (simulator.py) ------------------------------ */

/* The format character of a buffer, without its byte-order prefix. */
static char format_char(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    return f[1] == 0 ? *f : 0;
}

/* An integer buffer of 4- or 8-byte items, as an int64 at position i. */
static inline int64_t int_at(const Py_buffer *v, Py_ssize_t i)
{
    return v->itemsize == 4 ? (int64_t)((const int32_t *)v->buf)[i] : ((const int64_t *)v->buf)[i];
}

static int int_buffer(PyObject *obj, const char *name, Py_buffer *v)
{
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    char f = format_char(v);
    if (!((v->itemsize == 4 && (f == 'i' || f == 'l')) || (v->itemsize == 8 && (f == 'q' || f == 'l')))) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous int32 or int64 array", name);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* take(table, index, out): out[i] = table[index[i]], 8-byte items (int64 or float64, both of one
   kind) copied as they are; an index outside the table is a ValueError. Gathers the per-class
   subsystem, lambda and Lambda onto the nodes at memory speed, without NumPy. */
static PyObject *py_take(PyObject *self, PyObject *args)
{
    PyObject *ot, *oi, *oo;
    if (!PyArg_ParseTuple(args, "OOO:take", &ot, &oi, &oo))
        return NULL;
    Py_buffer t, i, o;
    if (PyObject_GetBuffer(ot, &t, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (int_buffer(oi, "take: index", &i) < 0) {
        PyBuffer_Release(&t);
        return NULL;
    }
    if (PyObject_GetBuffer(oo, &o, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&t);
        PyBuffer_Release(&i);
        return NULL;
    }
    char ft = format_char(&t), fo = format_char(&o);
    int float_t = ft == 'd', float_o = fo == 'd';
    int int_t = ft == 'q' || ft == 'l', int_o = fo == 'q' || fo == 'l';
    Py_ssize_t nt = t.len / 8, n = i.len / i.itemsize;
    const char *bad = NULL;
    if (t.itemsize != 8 || o.itemsize != 8 || !((float_t && float_o) || (int_t && int_o)))
        bad = "take: table and out must both be int64 or both float64";
    else if (o.len / 8 != n)
        bad = "take: out must have one item per index";
    const uint64_t *tab = t.buf;
    uint64_t *out = o.buf;
    for (Py_ssize_t k = 0; !bad && k < n; k++) {
        int64_t j = int_at(&i, k);
        if (j < 0 || j >= nt)
            bad = "take: an index lies outside the table";
        else
            out[k] = tab[j];
    }
    PyBuffer_Release(&t);
    PyBuffer_Release(&i);
    PyBuffer_Release(&o);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* widen(src, add, out): out[i] = src[i] + add as int64, from int32 or int64 items: the dependence
   targets (int32) and pointers (shifted past the warp classes before) of the flattened graph. */
static PyObject *py_widen(PyObject *self, PyObject *args)
{
    PyObject *os, *oo;
    long long add;
    if (!PyArg_ParseTuple(args, "OLO:widen", &os, &add, &oo))
        return NULL;
    Py_buffer s, o;
    if (int_buffer(os, "widen: src", &s) < 0)
        return NULL;
    if (PyObject_GetBuffer(oo, &o, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&s);
        return NULL;
    }
    char fo = format_char(&o);
    Py_ssize_t n = s.len / s.itemsize;
    const char *bad = NULL;
    if (o.itemsize != 8 || !(fo == 'q' || fo == 'l'))
        bad = "widen: out must be int64";
    else if (o.len / 8 != n)
        bad = "widen: out must have one item per src item";
    int64_t *out = o.buf;
    for (Py_ssize_t k = 0; !bad && k < n; k++)
        out[k] = int_at(&s, k) + add;
    PyBuffer_Release(&s);
    PyBuffer_Release(&o);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* scan_isa([name]): the candidate scan in use ("sse", "avx2", "avx512"); with a name, switch to it
   (tests compare the versions; a version the CPU lacks is a ValueError). */
static PyObject *py_scan_isa(PyObject *self, PyObject *args)
{
    const char *want = NULL;
    if (!PyArg_ParseTuple(args, "|s:scan_isa", &want))
        return NULL;
    if (want) {
        if (strcmp(want, "sse") == 0)
            candidate_bits = candidate_bits_sse;
#ifdef WIDE_SCAN
        else if (strcmp(want, "avx2") == 0 && __builtin_cpu_supports("avx2"))
            candidate_bits = candidate_bits_avx2;
        else if (strcmp(want, "avx512") == 0 && __builtin_cpu_supports("avx512f"))
            candidate_bits = candidate_bits_avx512;
#endif
        else {
            PyErr_Format(PyExc_ValueError, "scan_isa: '%s' is not available on this CPU or build", want);
            return NULL;
        }
    }
#ifdef WIDE_SCAN
    if (candidate_bits == candidate_bits_avx512)
        return PyUnicode_FromString("avx512");
    if (candidate_bits == candidate_bits_avx2)
        return PyUnicode_FromString("avx2");
#endif
    return PyUnicode_FromString("sse");
}

static PyMethodDef methods[] = {
    {"run_core", py_run_core, METH_VARARGS,
     "Simulate one core; (status, end_time, issued, issue_cycles). See engine.py."},
    {"take", py_take, METH_VARARGS, "take(table, index, out): out[i] = table[index[i]] (8-byte items)."},
    {"widen", py_widen, METH_VARARGS, "widen(src, add, out): out[i] = src[i] + add as int64."},
    {"scan_isa", py_scan_isa, METH_VARARGS, "scan_isa([name]): the vector width of the candidate scan."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_engine",
                                    "The Pipeline-model simulator's compiled core.", -1, methods};

PyMODINIT_FUNC PyInit__engine(void)
{
#ifdef WIDE_SCAN
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        candidate_bits = candidate_bits_avx512;
    else if (__builtin_cpu_supports("avx2"))
        candidate_bits = candidate_bits_avx2;
#endif
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "RR", RR) < 0 || PyModule_AddIntConstant(m, "GTO", GTO) < 0
              || PyModule_AddIntConstant(m, "OK", OK) < 0 || PyModule_AddIntConstant(m, "DEADLOCK", DEADLOCK) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
