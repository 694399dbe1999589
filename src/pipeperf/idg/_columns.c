/* Reading a machine-written IDG's nodes into arrays in one C pass (pipeperf.idg.io).
 *
 * columns(instrs) -> (ids, class_names, cls, dep_ptr, dep_idx) or None
 *   instrs: the list of node mappings of an IDG file. For the common case only: every node an
 *   exact dict with keys among id, class, deps (no barrier), id and class exact str, deps absent
 *   or a list of exact str naming earlier nodes in increasing order, without repeats, and no id
 *   twice. Then ids is a tuple of the ids, class_names a tuple of the classes in order of first
 *   appearance, cls (int32 per node, the index into class_names), dep_ptr (int64, n + 1) and
 *   dep_idx (int32) bytes of the CSR dependences. Anything else is None: io.parse_idg's Python
 *   path then converts, reorders or names the error, so this is only ever a faster route to the
 *   same IDG. It is the per-node loop of a 10^4-instruction file at C speed (a tenth of the time
 *   of the Python passes, which were the larger part of `pipeperf simulate FILE.json`'s load).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static PyObject *py_columns(PyObject *self, PyObject *instrs)
{
    if (!PyList_CheckExact(instrs))
        Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(instrs);
    PyObject *k_id = NULL, *k_class = NULL, *k_deps = NULL, *index = NULL, *names = NULL;
    PyObject *ids = NULL, *result = NULL, *cls_b = NULL, *ptr_b = NULL, *flat_b = NULL;
    int32_t *flat = NULL;
    Py_ssize_t n_edges = 0, cap = 0;
    k_id = PyUnicode_InternFromString("id");
    k_class = PyUnicode_InternFromString("class");
    k_deps = PyUnicode_InternFromString("deps");
    index = PyDict_New();
    names = PyDict_New();
    ids = PyTuple_New(n);
    cls_b = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    ptr_b = PyBytes_FromStringAndSize(NULL, (n + 1) * (Py_ssize_t)sizeof(int64_t));
    if (!k_id || !k_class || !k_deps || !index || !names || !ids || !cls_b || !ptr_b)
        goto done;
    int32_t *cls = (int32_t *)PyBytes_AS_STRING(cls_b);
    int64_t *ptr = (int64_t *)PyBytes_AS_STRING(ptr_b);
    if (n > INT32_MAX)
        goto none;
    /* ids first: a dependence may only name an earlier node, but the index must know all ids to
     * tell a missing id (an error the Python path names) from a forward one */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *node = PyList_GET_ITEM(instrs, i);
        if (!PyDict_CheckExact(node))
            goto none;
        PyObject *id = PyDict_GetItemWithError(node, k_id);
        if (!id) {
            if (PyErr_Occurred())
                goto done;
            goto none;
        }
        if (!PyUnicode_CheckExact(id))
            goto none;
        PyObject *at = PyLong_FromSsize_t(i);
        if (!at)
            goto done;
        int r = PyDict_SetDefault(index, id, at) == NULL ? -1 : 0;
        Py_DECREF(at);
        if (r < 0)
            goto done;
        Py_INCREF(id);
        PyTuple_SET_ITEM(ids, i, id);
    }
    if (PyDict_GET_SIZE(index) != n)
        goto none;                      /* an id twice */
    ptr[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *node = PyList_GET_ITEM(instrs, i);
        PyObject *c = PyDict_GetItemWithError(node, k_class);
        if (!c) {
            if (PyErr_Occurred())
                goto done;
            goto none;
        }
        if (!PyUnicode_CheckExact(c))
            goto none;
        PyObject *deps = PyDict_GetItemWithError(node, k_deps);
        if (!deps && PyErr_Occurred())
            goto done;
        /* no other key: id, class and deps if present make up the whole mapping */
        if (PyDict_GET_SIZE(node) != (deps ? 3 : 2))
            goto none;
        PyObject *k = PyDict_GetItemWithError(names, c);
        if (!k) {
            if (PyErr_Occurred())
                goto done;
            k = PyLong_FromSsize_t(PyDict_GET_SIZE(names));
            if (!k)
                goto done;
            int r = PyDict_SetItem(names, c, k);
            Py_DECREF(k);
            if (r < 0)
                goto done;
        }
        cls[i] = (int32_t)PyLong_AsLong(k);
        if (deps) {
            if (!PyList_CheckExact(deps))
                goto none;
            Py_ssize_t m = PyList_GET_SIZE(deps);
            if (n_edges + m > cap) {
                Py_ssize_t want = cap ? 2 * cap : 4 * n + 16;
                while (want < n_edges + m)
                    want *= 2;
                int32_t *grown = PyMem_Realloc(flat, (size_t)want * sizeof(int32_t));
                if (!grown) {
                    PyErr_NoMemory();
                    goto done;
                }
                flat = grown;
                cap = want;
            }
            long prev = -1;
            for (Py_ssize_t e = 0; e < m; e++) {
                PyObject *d = PyList_GET_ITEM(deps, e);
                if (!PyUnicode_CheckExact(d))
                    goto none;
                PyObject *j = PyDict_GetItemWithError(index, d);
                if (!j) {
                    if (PyErr_Occurred())
                        goto done;
                    goto none;          /* a missing id */
                }
                long jj = PyLong_AsLong(j);
                if (jj <= prev || jj >= (long)i)
                    goto none;          /* unsorted, repeated, forward or itself */
                prev = jj;
                flat[n_edges++] = (int32_t)jj;
            }
        }
        ptr[i + 1] = n_edges;
    }
    flat_b = PyBytes_FromStringAndSize((const char *)flat, n_edges * (Py_ssize_t)sizeof(int32_t));
    if (!flat_b)
        goto done;
    PyObject *class_names = PyTuple_New(PyDict_GET_SIZE(names));
    if (!class_names)
        goto done;
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    while (PyDict_Next(names, &pos, &key, &value)) {     /* insertion order: first appearance */
        Py_INCREF(key);
        PyTuple_SET_ITEM(class_names, k++, key);
    }
    result = Py_BuildValue("(OOOOO)", ids, class_names, cls_b, ptr_b, flat_b);
    Py_DECREF(class_names);
    goto done;
none:
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(k_id);
    Py_XDECREF(k_class);
    Py_XDECREF(k_deps);
    Py_XDECREF(index);
    Py_XDECREF(names);
    Py_XDECREF(ids);
    Py_XDECREF(cls_b);
    Py_XDECREF(ptr_b);
    Py_XDECREF(flat_b);
    PyMem_Free(flat);
    return result;
}

static PyMethodDef methods[] = {
    {"columns", py_columns, METH_O,
     "columns(instrs): (ids, class_names, cls, dep_ptr, dep_idx) of well-formed IDG nodes, else None."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns",
                                    "An IDG file's nodes read into arrays in C.", -1, methods};

PyMODINIT_FUNC PyInit__columns(void)
{
    return PyModule_Create(&module);
}
