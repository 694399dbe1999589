/* Mapper g's per-request scans in one C pass (pipeperf.hardware.request_scan).
 *
 * Why: a traced launch has ~10^6 warp requests of 32 lanes; NumPy handles them in fixed-width
 * blocks (gathers, a bitmap or a sort per block, reductions), ~10 passes over 30 M addresses,
 * which was the larger part of mapper g (~4 s of a persistent GEMM's analysis). Here each request
 * is read once, its units sorted in a small buffer (nearly sorted already: lanes mostly ascend).
 * The results are the NumPy paths' exactly (integers only); tests/hardware/test_request_scan.py
 * compares them on random requests.
 *
 * Arrays (C-contiguous, checked by the caller): addr uint64 per lane, lane_start int64 per request
 * + 1 (CSR), nbytes int64 per request, reqs int64 (the requests to scan, in order). A lane at
 * address a of nb bytes touches the units a >> shift .. (a + nb - 1) >> shift (uint64 arithmetic).
 *
 * distinct_units(addr, lane_start, nbytes, reqs, shift, counts, units) -> total
 *   Two passes, so that the caller allocates the result once at its size: with units None,
 *   counts[i] (int64) := the distinct units of request reqs[i] and (total, lowest unit, highest
 *   unit) is returned; then with units (uint64, that total long) and those counts, units := the
 *   distinct units, request after request, each one's ascending, and the total is returned.
 *
 * sample_units(addr, lane_start, nbytes, reqs, shift, counts, rate, lo, table, out_req, out_units)
 *   -> kept
 *   The second pass for the cache model's spatial sample (pipeperf.hardware.cache_model.sector_sample,
 *   SHARDS): of those units, in the same order, only the units u with ((u * 0x9E3779B97F4A7C15
 *   mod 2**64) >> 40) mod rate == 0, with their request, into out_req (int64) / out_units (uint64);
 *   every unit u marked in table[u - lo] (bytes, for the count of distinct units). The whole
 *   stream is never held: a persistent GEMM's is 1.4 * 10^7 sectors.
 *
 * warp_sectors(warps, addr, nbytes) -> int
 *   The emulator's count of one global access (pipeperf.emulate.memops.count_access): the
 *   distinct (warp, sector) pairs of lanes at addr (uint64) of warps (int64, one per lane), a
 *   lane touching the sectors of its first and last byte, keyed (warp << 40) | (sector mod 2**40)
 *   as the NumPy path keys them.
 *
 * banks_and_lines(addr, lane_start, nbytes, reqs, waves, lines) -> None
 *   4-byte words (shift 2): waves[i] = the most distinct words on one of 32 banks (word mod 32),
 *   lines[i] = the distinct 128-byte lines (word >> 5) of request reqs[i] (int64 both).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* a request's units are deduplicated in stamp arrays when they lie within this many units of
 * its lowest (the common case: a warp's units span a few lines), else by sorting them */
#define MARK_WORDS 8192

typedef struct {
    uint64_t *v;
    Py_ssize_t cap;
} scratch;

static int grow(scratch *s, Py_ssize_t n)
{
    if (n <= s->cap)
        return 0;
    Py_ssize_t cap = s->cap ? s->cap : 256;
    while (cap < n)
        cap *= 2;
    uint64_t *v = (uint64_t *)PyMem_Realloc(s->v, (size_t)cap * sizeof(uint64_t));
    if (!v) {
        PyErr_NoMemory();
        return -1;
    }
    s->v = v;
    s->cap = cap;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_u64(uint64_t *v, Py_ssize_t n)
{
    if (n <= 96) {
        for (Py_ssize_t i = 1; i < n; i++) {
            uint64_t x = v[i];
            Py_ssize_t j = i;
            while (j > 0 && v[j - 1] > x) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
    } else {
        qsort(v, (size_t)n, sizeof(uint64_t), cmp_u64);
    }
}

/* ascending, then the repeats dropped; returns the distinct count */
static Py_ssize_t sort_unique(uint64_t *v, Py_ssize_t n)
{
    sort_u64(v, n);
    if (n == 0)
        return 0;
    Py_ssize_t k = 1;
    for (Py_ssize_t i = 1; i < n; i++)
        if (v[i] != v[k - 1])
            v[k++] = v[i];
    return k;
}

static int buffer(PyObject *o, Py_buffer *b, int writable, Py_ssize_t itemsize, const char *name)
{
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (b->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: expected %zd-byte items", name, itemsize);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

/* the units of request r into s (unsorted, possibly repeated: every caller keeps the distinct
 * ones); a lane with its predecessor's first and last unit (a broadcast) and a unit equal to the
 * last one written (neighbouring lanes in one sector or word) are left out. Returns their number
 * or -1 */
static Py_ssize_t gather(const uint64_t *addr, const int64_t *start, const int64_t *nbytes, int64_t r,
                         unsigned shift, scratch *s)
{
    int64_t s0 = start[r], s1 = start[r + 1];
    uint64_t nb1 = (uint64_t)nbytes[r] - 1u;
    Py_ssize_t n = 0;
    if (grow(s, (Py_ssize_t)(s1 - s0) * 2) < 0)
        return -1;
    uint64_t prev_first = 1, prev_last = 0;       /* (no lane's: first <= last) */
    for (int64_t l = s0; l < s1; l++) {
        uint64_t first = addr[l] >> shift, last = (addr[l] + nb1) >> shift;
        if (first == prev_first && last == prev_last)
            continue;
        prev_first = first;
        prev_last = last;
        if (grow(s, n + (Py_ssize_t)(last - first) + 1 + (Py_ssize_t)(s1 - l) * 2) < 0)
            return -1;
        for (uint64_t u = first; u <= last; u++)
            if (!n || s->v[n - 1] != u)
                s->v[n++] = u;
    }
    return n;
}

typedef struct {
    uint32_t *stamp, gen;
} marks;

/* a fresh stamp for the next request (the arrays are cleared only when the counter wraps) */
static uint32_t next_gen(marks *m, Py_ssize_t size)
{
    if (++m->gen == 0) {
        memset(m->stamp, 0, (size_t)size * sizeof(uint32_t));
        m->gen = 1;
    }
    return m->gen;
}

/* v[0..n) with the repeats dropped, in order of first appearance, by stamping v - lo in
 * m (size MARK_WORDS) where the values span less than that, else sorted; returns the count */
static Py_ssize_t unique_of(uint64_t *v, Py_ssize_t n, marks *m, int *sorted)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    if (n == 0 || hi - lo >= MARK_WORDS) {
        *sorted = 1;
        return sort_unique(v, n);
    }
    uint32_t gen = next_gen(m, MARK_WORDS);
    Py_ssize_t d = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        uint64_t rel = v[k] - lo;
        if (m->stamp[rel] != gen) {
            m->stamp[rel] = gen;
            v[d++] = v[k];
        }
    }
    *sorted = 0;
    return d;
}

#define N_IN 4

static int inputs(PyObject **objs, Py_buffer *b, Py_ssize_t *n_lanes, Py_ssize_t *n_req, Py_ssize_t *n_scan)
{
    static const char *names[N_IN] = {"addr", "lane_start", "nbytes", "reqs"};
    for (int i = 0; i < N_IN; i++) {
        if (buffer(objs[i], &b[i], 0, 8, names[i]) < 0) {
            for (int j = 0; j < i; j++)
                PyBuffer_Release(&b[j]);
            return -1;
        }
    }
    *n_lanes = b[0].len / 8;
    *n_req = b[2].len / 8;
    *n_scan = b[3].len / 8;
    if (b[1].len / 8 != *n_req + 1) {
        PyErr_SetString(PyExc_ValueError, "lane_start must have one more item than nbytes");
        goto bad;
    }
    const int64_t *start = (const int64_t *)b[1].buf, *reqs = (const int64_t *)b[3].buf;
    for (Py_ssize_t i = 0; i < *n_scan; i++) {
        int64_t r = reqs[i];
        if (r < 0 || r >= *n_req || start[r] < 0 || start[r + 1] < start[r] || start[r + 1] > *n_lanes) {
            PyErr_SetString(PyExc_IndexError, "request or lane index out of range");
            goto bad;
        }
    }
    return 0;
bad:
    for (int j = 0; j < N_IN; j++)
        PyBuffer_Release(&b[j]);
    return -1;
}

static PyObject *py_distinct_units(PyObject *self, PyObject *args)
{
    PyObject *o[N_IN], *oc, *ou, *result = NULL;
    unsigned shift;
    if (!PyArg_ParseTuple(args, "OOOOIOO:distinct_units", &o[0], &o[1], &o[2], &o[3], &shift, &oc, &ou))
        return NULL;
    if (shift > 63) {
        PyErr_SetString(PyExc_ValueError, "shift must be < 64");
        return NULL;
    }
    Py_buffer b[N_IN], bc, bu = {0};
    Py_ssize_t n_lanes, n_req, n_scan;
    int fill = ou != Py_None;
    if (inputs(o, b, &n_lanes, &n_req, &n_scan) < 0)
        return NULL;
    if (buffer(oc, &bc, !fill, 8, "counts") < 0)
        goto release_in;
    if (fill && buffer(ou, &bu, 1, 8, "units") < 0)
        goto release_c;
    if (bc.len / 8 < n_scan) {
        PyErr_SetString(PyExc_ValueError, "counts is shorter than reqs");
        goto release_all;
    }
    const uint64_t *addr = (const uint64_t *)b[0].buf;
    const int64_t *start = (const int64_t *)b[1].buf, *nbytes = (const int64_t *)b[2].buf;
    const int64_t *reqs = (const int64_t *)b[3].buf;
    int64_t *counts = (int64_t *)bc.buf;
    uint64_t *units = fill ? (uint64_t *)bu.buf : NULL;
    Py_ssize_t cap = fill ? bu.len / 8 : 0, total = 0;
    uint64_t lo_all = UINT64_MAX, hi_all = 0;
    scratch s = {NULL, 0};
    marks m = {(uint32_t *)PyMem_Calloc(MARK_WORDS, sizeof(uint32_t)), 0};
    if (!m.stamp) {
        PyErr_NoMemory();
        goto release_all;
    }
    for (Py_ssize_t i = 0; i < n_scan; i++) {
        Py_ssize_t n = gather(addr, start, nbytes, reqs[i], shift, &s);
        if (n < 0)
            goto release_s;
        int sorted;
        n = unique_of(s.v, n, &m, &sorted);
        if (!fill) {                    /* the counting pass: also the units' range */
            counts[i] = n;
            total += n;
            for (Py_ssize_t k = 0; k < n; k++) {
                lo_all = s.v[k] < lo_all ? s.v[k] : lo_all;
                hi_all = s.v[k] > hi_all ? s.v[k] : hi_all;
            }
            continue;
        }
        if (n != counts[i] || total + n > cap) {
            PyErr_SetString(PyExc_ValueError, "units or counts do not match the counting pass");
            goto release_s;
        }
        if (!sorted)
            sort_u64(s.v, n);
        memcpy(units + total, s.v, (size_t)n * sizeof(uint64_t));
        total += n;
    }
    result = fill ? PyLong_FromSsize_t(total)
                  : Py_BuildValue("nKK", total, (unsigned long long)(total ? lo_all : 0),
                                  (unsigned long long)(total ? hi_all : 0));
release_s:
    PyMem_Free(s.v);
    PyMem_Free(m.stamp);
release_all:
    if (fill)
        PyBuffer_Release(&bu);
release_c:
    PyBuffer_Release(&bc);
release_in:
    for (int j = 0; j < N_IN; j++)
        PyBuffer_Release(&b[j]);
    return result;
}

static PyObject *py_banks_and_lines(PyObject *self, PyObject *args)
{
    PyObject *o[N_IN], *ow, *ol, *result = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOO:banks_and_lines", &o[0], &o[1], &o[2], &o[3], &ow, &ol))
        return NULL;
    Py_buffer b[N_IN], bw, bl;
    Py_ssize_t n_lanes, n_req, n_scan;
    if (inputs(o, b, &n_lanes, &n_req, &n_scan) < 0)
        return NULL;
    if (buffer(ow, &bw, 1, 8, "waves") < 0)
        goto release_in;
    if (buffer(ol, &bl, 1, 8, "lines") < 0)
        goto release_w;
    if (bw.len / 8 < n_scan || bl.len / 8 < n_scan) {
        PyErr_SetString(PyExc_ValueError, "waves and lines must be as long as reqs");
        goto release_all;
    }
    const uint64_t *addr = (const uint64_t *)b[0].buf;
    const int64_t *start = (const int64_t *)b[1].buf, *nbytes = (const int64_t *)b[2].buf;
    const int64_t *reqs = (const int64_t *)b[3].buf;
    int64_t *waves = (int64_t *)bw.buf, *lines = (int64_t *)bl.buf;
    scratch s = {NULL, 0};
    uint32_t *stamp = (uint32_t *)PyMem_Calloc(MARK_WORDS + MARK_WORDS / 32, sizeof(uint32_t));
    uint32_t *line_stamp = stamp + MARK_WORDS, gen = 0;
    if (!stamp) {
        PyErr_NoMemory();
        goto release_all;
    }
    for (Py_ssize_t i = 0; i < n_scan; i++) {
        Py_ssize_t n = gather(addr, start, nbytes, reqs[i], 2, &s);
        if (n < 0)
            goto release_s;
        int64_t per_bank[32] = {0}, most = 0, n_lines = 0;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            lo = s.v[k] < lo ? s.v[k] : lo;
            hi = s.v[k] > hi ? s.v[k] : hi;
        }
        lo &= ~(uint64_t)31;
        if (n && hi - lo < MARK_WORDS) {
            /* words within MARK_WORDS of a line start: marked in stamp arrays (a fresh stamp per
             * request instead of clearing), no sort */
            if (++gen == 0) {
                memset(stamp, 0, (MARK_WORDS + MARK_WORDS / 32) * sizeof(uint32_t));
                gen = 1;
            }
            for (Py_ssize_t k = 0; k < n; k++) {
                uint64_t rel = s.v[k] - lo;
                if (stamp[rel] == gen)
                    continue;
                stamp[rel] = gen;
                int64_t c = ++per_bank[rel & 31u];
                if (c > most)
                    most = c;
                if (line_stamp[rel >> 5] != gen) {
                    line_stamp[rel >> 5] = gen;
                    n_lines++;
                }
            }
        } else {
            n = sort_unique(s.v, n);
            for (Py_ssize_t k = 0; k < n; k++) {
                int64_t c = ++per_bank[s.v[k] & 31u];
                if (c > most)
                    most = c;
                if (k == 0 || (s.v[k] >> 5) != (s.v[k - 1] >> 5))
                    n_lines++;
            }
        }
        waves[i] = most;
        lines[i] = n_lines;
    }
    Py_INCREF(Py_None);
    result = Py_None;
release_s:
    PyMem_Free(s.v);
    PyMem_Free(stamp);
release_all:
    PyBuffer_Release(&bl);
release_w:
    PyBuffer_Release(&bw);
release_in:
    for (int j = 0; j < N_IN; j++)
        PyBuffer_Release(&b[j]);
    return result;
}

/* block_waves(addr, lanes, nbytes, waves[, firsts]): the bank wavefronts (as banks_and_lines) of
 * one block of requests of `nbytes` bytes per lane, `lanes[i]` lanes each, their addresses `addr`
 * request after request, and (optional) each request's first lane address; a request whose lanes
 * equal an earlier one's in the block (hash, then memcmp) takes its count. Why: a traced shared
 * instruction's requests repeat a few rows (every CTA's warp at the same position in its CTA makes
 * the same offsets), and the table saves the bank scan. */
#define ROW_TABLE 2048

typedef struct {
    uint64_t hash;
    const uint64_t *row;
    Py_ssize_t n;
    int64_t waves;
    uint64_t gen;                   /* the block that stored it (older entries count as empty) */
} row_entry;

typedef struct {
    scratch s;
    uint32_t *stamp, gen;
    row_entry *table;
    uint64_t block;
} block_scan;

static int block_scan_init(block_scan *b)
{
    b->s.v = NULL;
    b->s.cap = 0;
    b->gen = 0;
    b->block = 0;
    b->stamp = (uint32_t *)PyMem_Calloc(MARK_WORDS, sizeof(uint32_t));
    b->table = (row_entry *)PyMem_Calloc(ROW_TABLE, sizeof(row_entry));
    if (!b->stamp || !b->table) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void block_scan_free(block_scan *b)
{
    PyMem_Free(b->s.v);
    PyMem_Free(b->stamp);
    PyMem_Free(b->table);
}

/* one block: waves[i] (and firsts[i], when not NULL) of each of its n_req requests; -1 on error
 * (a Python exception set). lanes[i] >= 1 and sum(lanes) == n_lanes are checked first. */
static int scan_block(block_scan *b, const uint64_t *addr, Py_ssize_t n_lanes, const int64_t *lanes,
                      Py_ssize_t n_req, long long nb, int64_t *waves, uint64_t *firsts)
{
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < n_req; i++) {
        if (lanes[i] < 1) {
            PyErr_SetString(PyExc_ValueError, "every request needs at least one lane");
            return -1;
        }
        total += lanes[i];
    }
    if (total != n_lanes) {
        PyErr_SetString(PyExc_ValueError, "addr must hold sum(lanes) addresses");
        return -1;
    }
    int64_t start[2] = {0, 0}, nbytes[1] = {nb};
    uint64_t block = ++b->block;
    Py_ssize_t used = 0;
    row_entry *table = b->table;
    const uint64_t *row = addr;
    for (Py_ssize_t i = 0; i < n_req; row += lanes[i], i++) {
        Py_ssize_t len = (Py_ssize_t)lanes[i];
        if (firsts)
            firsts[i] = row[0];
        uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)len;
        for (Py_ssize_t k = 0; k < len; k++)
            h = (h ^ row[k]) * 0x100000001b3ull;
        size_t at = (size_t)(h ^ (h >> 29)) & (ROW_TABLE - 1);
        int found = 0;
        while (table[at].gen == block) {
            if (table[at].hash == h && table[at].n == len && !memcmp(table[at].row, row, (size_t)len * 8)) {
                waves[i] = table[at].waves;
                found = 1;
                break;
            }
            at = (at + 1) & (ROW_TABLE - 1);
        }
        if (found)
            continue;
        start[1] = len;
        Py_ssize_t n = gather(row, start, nbytes, 0, 2, &b->s);
        if (n < 0)
            return -1;
        const uint64_t *v = b->s.v;
        int64_t per_bank[32] = {0}, most = 0;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            lo = v[k] < lo ? v[k] : lo;
            hi = v[k] > hi ? v[k] : hi;
        }
        lo &= ~(uint64_t)31;
        if (n && hi - lo < MARK_WORDS) {       /* as banks_and_lines: stamped, else sorted */
            if (++b->gen == 0) {
                memset(b->stamp, 0, MARK_WORDS * sizeof(uint32_t));
                b->gen = 1;
            }
            uint32_t gen = b->gen;
            for (Py_ssize_t k = 0; k < n; k++) {
                uint64_t rel = v[k] - lo;
                if (b->stamp[rel] == gen)
                    continue;
                b->stamp[rel] = gen;
                int64_t c = ++per_bank[rel & 31u];
                if (c > most)
                    most = c;
            }
        } else {
            n = sort_unique(b->s.v, n);
            for (Py_ssize_t k = 0; k < n; k++) {
                int64_t c = ++per_bank[b->s.v[k] & 31u];
                if (c > most)
                    most = c;
            }
        }
        waves[i] = most;
        if (used < ROW_TABLE / 2) {            /* (at most half full: probes stay short) */
            table[at].hash = h;
            table[at].row = row;
            table[at].n = len;
            table[at].waves = most;
            table[at].gen = block;
            used++;
        }
    }
    return 0;
}

static PyObject *py_block_waves(PyObject *self, PyObject *args)
{
    PyObject *oa, *ol, *ow, *of = NULL, *result = NULL;
    long long nb;
    if (!PyArg_ParseTuple(args, "OOLO|O:block_waves", &oa, &ol, &nb, &ow, &of))
        return NULL;
    if (of == Py_None)
        of = NULL;
    if (nb < 1) {
        PyErr_SetString(PyExc_ValueError, "nbytes must be >= 1");
        return NULL;
    }
    Py_buffer ba, bl, bw, bf;
    if (buffer(oa, &ba, 0, 8, "addr") < 0)
        return NULL;
    if (buffer(ol, &bl, 0, 8, "lanes") < 0)
        goto release_a;
    if (buffer(ow, &bw, 1, 8, "waves") < 0)
        goto release_l;
    if (of && buffer(of, &bf, 1, 8, "firsts") < 0)
        goto release_w;
    Py_ssize_t n_req = bl.len / 8;
    if (bw.len / 8 < n_req || (of && bf.len / 8 < n_req)) {
        PyErr_SetString(PyExc_ValueError, "waves (and firsts) must be as long as lanes");
        goto release_f;
    }
    block_scan b;
    if (block_scan_init(&b) == 0 &&
            scan_block(&b, (const uint64_t *)ba.buf, ba.len / 8, (const int64_t *)bl.buf, n_req, nb,
                       (int64_t *)bw.buf, of ? (uint64_t *)bf.buf : NULL) == 0) {
        Py_INCREF(Py_None);
        result = Py_None;
    }
    block_scan_free(&b);
release_f:
    if (of)
        PyBuffer_Release(&bf);
release_w:
    PyBuffer_Release(&bw);
release_l:
    PyBuffer_Release(&bl);
release_a:
    PyBuffer_Release(&ba);
    return result;
}

/* counted_blocks(blocks, warp, step, lanes, addr, waves, returns): block_waves of many memory-log blocks in
 * one call, each written into mapper g's columns: blocks = [(warps, steps, lane counts, lane
 * addresses, nbytes, request offset, lane offset)], the first four int64/uint64 arrays of a block;
 * request i of a block at offset r gets warp[r + i], step[r + i], lanes[r + i] = 1, waves[r + i],
 * returns[r + i] = 1 (lanes of at most 4 bytes: one register each) and its first lane's address at addr[lane offset + i]. Why: a tiled kernel logs ~10^4 small
 * blocks per launch, and a Python call per block cost more than its scan. */
static PyObject *py_counted_blocks(PyObject *self, PyObject *args)
{
    PyObject *ob, *o[6], *result = NULL;
    if (!PyArg_ParseTuple(args, "O!OOOOOO:counted_blocks", &PyList_Type, &ob, &o[0], &o[1], &o[2], &o[3], &o[4],
                          &o[5]))
        return NULL;
    Py_buffer c[6];
    int got = 0;
    for (; got < 6; got++)
        if (buffer(o[got], &c[got], 1, 8, "column") < 0)
            goto release;
    int64_t *warp = (int64_t *)c[0].buf, *step = (int64_t *)c[1].buf, *lanes_col = (int64_t *)c[2].buf;
    uint64_t *addr_col = (uint64_t *)c[3].buf;
    int64_t *waves = (int64_t *)c[4].buf, *returns = (int64_t *)c[5].buf;
    Py_ssize_t n_req_col = c[0].len / 8, n_lane_col = c[3].len / 8;
    if (c[1].len / 8 != n_req_col || c[2].len / 8 != n_req_col || c[4].len / 8 != n_req_col ||
            c[5].len / 8 != n_req_col) {
        PyErr_SetString(PyExc_ValueError, "warp, step, lanes, waves and returns must be one column each");
        goto release;
    }
    block_scan b;
    if (block_scan_init(&b) < 0) {
        block_scan_free(&b);
        goto release;
    }
    Py_ssize_t nb_blocks = PyList_GET_SIZE(ob);
    for (Py_ssize_t k = 0; k < nb_blocks; k++) {
        PyObject *t = PyList_GET_ITEM(ob, k), *ow, *os, *ol, *oa;
        long long nb, r, a;
        if (!PyArg_ParseTuple(t, "OOOOLLL:counted_blocks' block", &ow, &os, &ol, &oa, &nb, &r, &a))
            goto free_scan;
        Py_buffer bw, bs, bl, ba;
        if (buffer(ow, &bw, 0, 8, "warps") < 0)
            goto free_scan;
        int ok = -1;
        if (buffer(os, &bs, 0, 8, "steps") < 0)
            goto release_bw;
        if (buffer(ol, &bl, 0, 8, "lanes") < 0)
            goto release_bs;
        if (buffer(oa, &ba, 0, 8, "addresses") < 0)
            goto release_bl;
        Py_ssize_t n = bl.len / 8;
        if (bw.len / 8 != n || bs.len / 8 != n || nb < 1 || nb > 4 || r < 0 || a < 0 || r + n > n_req_col ||
                a + n > n_lane_col) {
            PyErr_SetString(PyExc_ValueError, "a block does not fit the columns");
            goto release_ba;
        }
        memcpy(warp + r, bw.buf, (size_t)n * 8);
        memcpy(step + r, bs.buf, (size_t)n * 8);
        for (Py_ssize_t i = 0; i < n; i++) {
            lanes_col[r + i] = 1;
            returns[r + i] = 1;
        }
        ok = scan_block(&b, (const uint64_t *)ba.buf, ba.len / 8, (const int64_t *)bl.buf, n, nb, waves + r,
                        addr_col + a);
release_ba:
        PyBuffer_Release(&ba);
release_bl:
        PyBuffer_Release(&bl);
release_bs:
        PyBuffer_Release(&bs);
release_bw:
        PyBuffer_Release(&bw);
        if (ok < 0)
            goto free_scan;
    }
    Py_INCREF(Py_None);
    result = Py_None;
free_scan:
    block_scan_free(&b);
release:
    for (int j = 0; j < got; j++)
        PyBuffer_Release(&c[j]);
    return result;
}

static PyObject *py_sample_units(PyObject *self, PyObject *args)
{
    PyObject *o[N_IN], *oc, *otab, *oreq, *ounits, *result = NULL;
    unsigned shift;
    unsigned long long rate, lo;
    if (!PyArg_ParseTuple(args, "OOOOIOKKOOO:sample_units", &o[0], &o[1], &o[2], &o[3], &shift, &oc, &rate, &lo,
                          &otab, &oreq, &ounits))
        return NULL;
    if (shift > 63 || rate < 1) {
        PyErr_SetString(PyExc_ValueError, "shift must be < 64 and rate >= 1");
        return NULL;
    }
    Py_buffer b[N_IN], bc, bt, br, bu;
    Py_ssize_t n_lanes, n_req, n_scan;
    if (inputs(o, b, &n_lanes, &n_req, &n_scan) < 0)
        return NULL;
    if (buffer(oc, &bc, 0, 8, "counts") < 0)
        goto release_in;
    if (PyObject_GetBuffer(otab, &bt, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        goto release_c;
    if (buffer(oreq, &br, 1, 8, "out_req") < 0)
        goto release_t;
    if (buffer(ounits, &bu, 1, 8, "out_units") < 0)
        goto release_r;
    if (bc.len / 8 < n_scan) {
        PyErr_SetString(PyExc_ValueError, "counts is shorter than reqs");
        goto release_all;
    }
    const uint64_t *addr = (const uint64_t *)b[0].buf;
    const int64_t *start = (const int64_t *)b[1].buf, *nbytes = (const int64_t *)b[2].buf;
    const int64_t *reqs = (const int64_t *)b[3].buf, *counts = (const int64_t *)bc.buf;
    uint8_t *table = (uint8_t *)bt.buf;
    int64_t *out_req = (int64_t *)br.buf;
    uint64_t *out_units = (uint64_t *)bu.buf;
    Py_ssize_t span = bt.len, cap = br.len / 8 < bu.len / 8 ? br.len / 8 : bu.len / 8, kept = 0;
    scratch s = {NULL, 0};
    marks m = {(uint32_t *)PyMem_Calloc(MARK_WORDS, sizeof(uint32_t)), 0};
    if (!m.stamp) {
        PyErr_NoMemory();
        goto release_all;
    }
    for (Py_ssize_t i = 0; i < n_scan; i++) {
        Py_ssize_t n = gather(addr, start, nbytes, reqs[i], shift, &s);
        if (n < 0)
            goto release_s;
        int sorted;
        n = unique_of(s.v, n, &m, &sorted);
        if (n != counts[i]) {
            PyErr_SetString(PyExc_ValueError, "counts do not match the counting pass");
            goto release_s;
        }
        if (!sorted)
            sort_u64(s.v, n);
        for (Py_ssize_t k = 0; k < n; k++) {
            uint64_t u = s.v[k], rel = u - lo;
            if (u < lo || rel >= (uint64_t)span) {
                PyErr_SetString(PyExc_ValueError, "a unit outside the table's range");
                goto release_s;
            }
            table[rel] = 1;
            if (rate > 1 && ((u * 0x9E3779B97F4A7C15ULL) >> 40) % rate)
                continue;
            if (kept >= cap) {
                PyErr_SetString(PyExc_ValueError, "the outputs are too short");
                goto release_s;
            }
            out_req[kept] = reqs[i];
            out_units[kept++] = u;
        }
    }
    result = PyLong_FromSsize_t(kept);
release_s:
    PyMem_Free(s.v);
    PyMem_Free(m.stamp);
release_all:
    PyBuffer_Release(&bu);
release_r:
    PyBuffer_Release(&br);
release_t:
    PyBuffer_Release(&bt);
release_c:
    PyBuffer_Release(&bc);
release_in:
    for (int j = 0; j < N_IN; j++)
        PyBuffer_Release(&b[j]);
    return result;
}

static PyObject *py_warp_sectors(PyObject *self, PyObject *args)
{
    PyObject *ow, *oa, *result = NULL;
    long long nb;
    if (!PyArg_ParseTuple(args, "OOL:warp_sectors", &ow, &oa, &nb))
        return NULL;
    if (nb < 1) {
        PyErr_SetString(PyExc_ValueError, "nbytes must be >= 1");
        return NULL;
    }
    Py_buffer bw, ba;
    if (buffer(ow, &bw, 0, 8, "warps") < 0)
        return NULL;
    if (buffer(oa, &ba, 0, 8, "addr") < 0)
        goto release_w;
    Py_ssize_t n = ba.len / 8;
    if (bw.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "warps and addr must have one item per lane");
        goto release_a;
    }
    const int64_t *w = (const int64_t *)bw.buf;
    const uint64_t *a = (const uint64_t *)ba.buf;
    const uint64_t mask = ((uint64_t)1 << 40) - 1u, nb1 = (uint64_t)nb - 1u;
    uint64_t *keys = (uint64_t *)PyMem_Malloc((size_t)(2 * n + 1) * sizeof(uint64_t));
    if (!keys) {
        PyErr_NoMemory();
        goto release_a;
    }
    Py_ssize_t k = 0;
    int ascending = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hi = (uint64_t)w[i] << 40, first = a[i] >> 5, last = (a[i] + nb1) >> 5;
        keys[k] = hi | (first & mask);
        if (k && keys[k] < keys[k - 1])
            ascending = 0;
        k++;
        if (last != first) {
            keys[k] = hi | (last & mask);
            if (keys[k] < keys[k - 1])
                ascending = 0;
            k++;
        }
    }
    if (!ascending)
        sort_u64(keys, k);
    Py_ssize_t d = k ? 1 : 0;
    for (Py_ssize_t i = 1; i < k; i++)
        d += keys[i] != keys[i - 1];
    PyMem_Free(keys);
    result = PyLong_FromSsize_t(d);
release_a:
    PyBuffer_Release(&ba);
release_w:
    PyBuffer_Release(&bw);
    return result;
}

static PyMethodDef methods[] = {
    {"warp_sectors", py_warp_sectors, METH_VARARGS, "warp_sectors(warps, addr, nbytes) -> int"},
    {"sample_units", py_sample_units, METH_VARARGS,
     "sample_units(addr, lane_start, nbytes, reqs, shift, counts, rate, lo, table, out_req, out_units) -> kept"},
    {"distinct_units", py_distinct_units, METH_VARARGS,
     "distinct_units(addr, lane_start, nbytes, reqs, shift, counts, units) -> total"},
    {"banks_and_lines", py_banks_and_lines, METH_VARARGS,
     "banks_and_lines(addr, lane_start, nbytes, reqs, waves, lines) -> None"},
    {"block_waves", py_block_waves, METH_VARARGS, "block_waves(addr, lanes, nbytes, waves[, firsts]) -> None"},
    {"counted_blocks", py_counted_blocks, METH_VARARGS,
     "counted_blocks(blocks, warp, step, lanes, addr, waves, returns) -> None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_requests",
                                    "Mapper g's per-request scans (see _requests.c)", -1, methods};

PyMODINIT_FUNC PyInit__requests(void)
{
    return PyModule_Create(&module);
}
