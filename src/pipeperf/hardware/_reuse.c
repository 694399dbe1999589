/* The cache model's previous access per access of a sector stream, in one linear pass
 * (pipeperf.hardware.cache_model.previous_access).
 *
 * Why: the NumPy path sorts the stream by (sector, position) (one stable argsort of 10^6-10^7
 * 64-bit keys, ~0.3 s per call, three calls per analysis); walking the stream in order with a
 * hash table of each key's last access is linear. The result is the same array exactly
 * (tests/hardware/test_reuse.py compares them on random streams).
 *
 * previous_access(keys, pos, prev) -> bool
 *   keys: 8-byte items (a sector, or a (sector, CTA) pair's id; compared as bits), pos: int64,
 *   each access's place in the stream, prev: int64 output. Where pos is a permutation of
 *   0 .. n-1, prev[i] := the index j of the access to keys[i] that comes last before access i
 *   in the stream (-1 for none) and True is returned; otherwise (or past 2**31 - 2 accesses:
 *   indices are kept in 32 bits) False, and prev is not defined (the caller then sorts).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static int buffer(PyObject *o, Py_buffer *b, int writable, const char *name)
{
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (b->itemsize != 8) {
        PyErr_Format(PyExc_TypeError, "%s: expected 8-byte items", name);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

static inline uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static PyObject *py_previous_access(PyObject *self, PyObject *args)
{
    PyObject *ok_, *op, *oprev, *result = NULL;
    if (!PyArg_ParseTuple(args, "OOO:previous_access", &ok_, &op, &oprev))
        return NULL;
    Py_buffer bk, bp, bprev;
    if (buffer(ok_, &bk, 0, "keys") < 0)
        return NULL;
    if (buffer(op, &bp, 0, "pos") < 0)
        goto release_k;
    if (buffer(oprev, &bprev, 1, "prev") < 0)
        goto release_p;
    Py_ssize_t n = bk.len / 8;
    if (bp.len / 8 != n || bprev.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "keys, pos and prev must have one item per access");
        goto release_all;
    }
    const uint64_t *keys = (const uint64_t *)bk.buf;
    const int64_t *pos = (const int64_t *)bp.buf;
    int64_t *prev = (int64_t *)bprev.buf;
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap *= 2;
    int32_t *order = NULL, *slot_at = NULL;
    uint64_t *slot_key = NULL;
    int permutation = n < INT32_MAX;    /* (indices kept in 32 bits: a third less memory) */
    if (!permutation)
        goto done;
    order = (int32_t *)PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    slot_key = (uint64_t *)PyMem_Malloc(cap * sizeof(uint64_t));
    slot_at = (int32_t *)PyMem_Calloc(cap, sizeof(int32_t));    /* last index + 1; 0: empty */
    if (!order || !slot_key || !slot_at) {
        PyErr_NoMemory();
        goto release_mem;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        order[i] = -1;
    for (Py_ssize_t i = 0; i < n && permutation; i++) {
        int64_t p = pos[i];
        if (p < 0 || p >= n || order[p] != -1)
            permutation = 0;
        else
            order[p] = (int32_t)i;
    }
    if (permutation) {
        size_t mask = cap - 1;
        for (Py_ssize_t t = 0; t < n; t++) {
            int32_t i = order[t];
            uint64_t k = keys[i];
            size_t h = (size_t)mix(k) & mask;
            while (slot_at[h] && slot_key[h] != k)
                h = (h + 1) & mask;
            prev[i] = (int64_t)slot_at[h] - 1;
            slot_key[h] = k;
            slot_at[h] = i + 1;
        }
    }
done:
    result = PyBool_FromLong(permutation);
release_mem:
    PyMem_Free(order);
    PyMem_Free(slot_key);
    PyMem_Free(slot_at);
release_all:
    PyBuffer_Release(&bprev);
release_p:
    PyBuffer_Release(&bp);
release_k:
    PyBuffer_Release(&bk);
    return result;
}

static PyMethodDef methods[] = {
    {"previous_access", py_previous_access, METH_VARARGS, "previous_access(keys, pos, prev) -> bool"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_reuse",
                                    "The cache model's previous access per access (see _reuse.c)", -1, methods};

PyMODINIT_FUNC PyInit__reuse(void)
{
    return PyModule_Create(&module);
}
