/* The emulator's bounds checks of global accesses in one pass each: against the launch's
 * allocations (pipeperf.emulate.memory.GlobalMemory.check) and the lanes' range and alignment
 * (pipeperf.emulate.memops.resolve).
 *
 * Why: an instruction whose lanes reach two buffers (a tiled GEMM's copy loop reading A or B by
 * warp) is checked lane by lane; NumPy's searchsorted and three masks cost ~100 us per access of
 * 8 192 lanes, 5 000 times in a persistent GEMM's emulation. Same mask as the NumPy path
 * (tests/emulate/test_bounds_check.py).
 *
 * in_allocations(off, nbytes, starts, ends, ok) -> None
 *   off: int64 byte offsets, starts/ends: int64, the allocations [start, end) ascending by start,
 *   ok: bool (uint8) output: ok[i] := off[i] >= 0 and some start <= off[i] and off[i] + nbytes <=
 *   the end of the allocation with the greatest start <= off[i] (int64 arithmetic, wrapping as NumPy's).
 *
 * span(addr, base) -> (lo, hi, bits)
 *   addr: uint64 lane addresses (at least one): lo, hi := the least and greatest (int64)(addr[i] -
 *   base) (wrapping, as NumPy's int64 view of addr minus base), bits := the OR of every address
 *   (a lane is misaligned for an n-byte access exactly when bits & (n - 1) is not 0). Why: resolve
 *   made five NumPy passes for these (a mask, any, a subtraction, min, max) on every access.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static PyObject *py_in_allocations(PyObject *self, PyObject *args)
{
    PyObject *oo, *os, *oe, *ok_, *result = NULL;
    long long nbytes;
    if (!PyArg_ParseTuple(args, "OLOOO:in_allocations", &oo, &nbytes, &os, &oe, &ok_))
        return NULL;
    Py_buffer bo, bs, be, bk;
    if (PyObject_GetBuffer(oo, &bo, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(os, &bs, PyBUF_C_CONTIGUOUS) < 0)
        goto release_o;
    if (PyObject_GetBuffer(oe, &be, PyBUF_C_CONTIGUOUS) < 0)
        goto release_s;
    if (PyObject_GetBuffer(ok_, &bk, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        goto release_e;
    Py_ssize_t n = bo.len / 8, m = bs.len / 8;
    if (bo.itemsize != 8 || bs.itemsize != 8 || be.itemsize != 8 || bk.itemsize != 1 || be.len != bs.len ||
        bk.len != n) {
        PyErr_SetString(PyExc_ValueError, "in_allocations: int64 off/starts/ends, one bool per offset");
        goto release_all;
    }
    const int64_t *off = (const int64_t *)bo.buf, *starts = (const int64_t *)bs.buf, *ends = (const int64_t *)be.buf;
    uint8_t *ok = (uint8_t *)bk.buf;
    Py_ssize_t k = -1;                  /* the last lane's allocation: neighbouring lanes share it */
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t o = off[i];
        if (!(k >= 0 && starts[k] <= o && (k + 1 == m || o < starts[k + 1]))) {
            Py_ssize_t lo = 0, hi = m;  /* the number of starts <= o */
            while (lo < hi) {
                Py_ssize_t mid = (lo + hi) / 2;
                if (starts[mid] <= o)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            k = lo - 1;
        }
        int64_t last = (int64_t)((uint64_t)o + (uint64_t)nbytes);
        ok[i] = k >= 0 && last <= ends[k] && o >= 0;
    }
    Py_INCREF(Py_None);
    result = Py_None;
release_all:
    PyBuffer_Release(&bk);
release_e:
    PyBuffer_Release(&be);
release_s:
    PyBuffer_Release(&bs);
release_o:
    PyBuffer_Release(&bo);
    return result;
}

static PyObject *py_span(PyObject *self, PyObject *args)
{
    PyObject *oa;
    unsigned long long base;
    if (!PyArg_ParseTuple(args, "OK:span", &oa, &base))
        return NULL;
    Py_buffer ba;
    if (PyObject_GetBuffer(oa, &ba, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_ssize_t n = ba.len / 8;
    if (ba.itemsize != 8 || n < 1) {
        PyBuffer_Release(&ba);
        PyErr_SetString(PyExc_ValueError, "span: at least one uint64 address");
        return NULL;
    }
    const uint64_t *a = (const uint64_t *)ba.buf;
    int64_t lo = (int64_t)(a[0] - base), hi = lo;
    uint64_t bits = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t o = (int64_t)(a[i] - base);
        lo = o < lo ? o : lo;
        hi = o > hi ? o : hi;
        bits |= a[i];
    }
    PyBuffer_Release(&ba);
    return Py_BuildValue("LLK", (long long)lo, (long long)hi, (unsigned long long)bits);
}

static PyMethodDef methods[] = {
    {"span", py_span, METH_VARARGS, "span(addr, base) -> (lo, hi, bits)"},
    {"in_allocations", py_in_allocations, METH_VARARGS, "in_allocations(off, nbytes, starts, ends, ok) -> None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_bounds",
                                    "The emulator's bounds check of global accesses (see _bounds.c)", -1, methods};

PyMODINIT_FUNC PyInit__bounds(void)
{
    return PyModule_Create(&module);
}
