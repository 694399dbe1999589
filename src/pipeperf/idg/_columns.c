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
 *
 * scan_json(data) -> (name or None, ids, class_names, cls, dep_ptr, dep_idx) or None
 *   data: the bytes of a JSON IDG file. The same columns straight from the text, for the shape
 *   a program writes: one object with "instructions" (a non-empty array of node objects with
 *   "id" and "class" strings and optionally "deps", an array of strings, under the rules above)
 *   and optionally "name" (a string), strings without escapes. It builds no dict or list per
 *   node, as json.loads and columns() do (two thirds of loading a 10^4-node file). Anything
 *   else, malformed JSON included, is None: the caller then reads the file with json, and names
 *   any error with its line.
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


/* ---- scan_json: a JSON IDG's columns straight from its text ---------------------------------- */

typedef struct {                  /* a string of the text: bytes [p, p + n), no escapes */
    const char *p;
    Py_ssize_t n;
} Str;

typedef struct {                  /* open addressing: strings to their index */
    Str *key;
    int32_t *val;
    uint64_t mask;
    Py_ssize_t count;
} Table;

static uint64_t str_hash(Str s)
{
    uint64_t h = 1469598103934665603ull;          /* FNV-1a */
    for (Py_ssize_t i = 0; i < s.n; i++)
        h = (h ^ (unsigned char)s.p[i]) * 1099511628211ull;
    return h;
}

static int table_init(Table *t, Py_ssize_t n)
{
    uint64_t cap = 16;
    while (cap < (uint64_t)n * 2)
        cap *= 2;
    t->key = PyMem_Calloc(cap, sizeof(Str));
    t->val = PyMem_Malloc(cap * sizeof(int32_t));
    t->mask = cap - 1;
    t->count = 0;
    return t->key && t->val ? 0 : -1;
}

static void table_free(Table *t)
{
    PyMem_Free(t->key);
    PyMem_Free(t->val);
}

/* s's value, or -1 when absent; *at: its slot, or the free slot it would take. */
static int32_t table_find(const Table *t, Str s, uint64_t *at)
{
    uint64_t i = str_hash(s) & t->mask;
    while (t->key[i].p) {
        if (t->key[i].n == s.n && memcmp(t->key[i].p, s.p, (size_t)s.n) == 0) {
            *at = i;
            return t->val[i];
        }
        i = (i + 1) & t->mask;
    }
    *at = i;
    return -1;
}

/* Put s at the free slot `at`; the table doubles when half full. -1: no memory. */
static int table_put(Table *t, uint64_t at, Str s, int32_t v)
{
    t->key[at] = s;
    t->val[at] = v;
    if (++t->count * 2 <= (Py_ssize_t)t->mask)
        return 0;
    Table big;
    if (table_init(&big, t->count * 2) < 0) {
        table_free(&big);
        return -1;
    }
    for (uint64_t i = 0; i <= t->mask; i++)
        if (t->key[i].p) {
            uint64_t j;
            table_find(&big, t->key[i], &j);
            big.key[j] = t->key[i];
            big.val[j] = t->val[i];
        }
    big.count = t->count;
    table_free(t);
    *t = big;
    return 0;
}

typedef struct {
    const char *p, *end;
} Cursor;

static void skip_ws(Cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

/* After whitespace, the byte ch: consumed, 1; else 0. */
static int take(Cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A string without escapes or control characters; 0 for anything else. */
static int take_str(Cursor *c, Str *out)
{
    if (!take(c, '"'))
        return 0;
    const char *s = c->p;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '\\' || (unsigned char)*c->p < 0x20)
            return 0;
        c->p++;
    }
    if (c->p >= c->end)
        return 0;
    out->p = s;
    out->n = c->p - s;
    c->p++;
    return 1;
}

static int str_is(Str s, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)s.n == n && memcmp(s.p, lit, n) == 0;
}

/* Grow the per-node arrays to hold `want` nodes; -1: no memory. */
static int grow_nodes(Str **id_of, Str **class_of, int32_t **cls, int64_t **ptr, Py_ssize_t want)
{
    Str *a = PyMem_Realloc(*id_of, (size_t)want * sizeof(Str));
    if (a)
        *id_of = a;
    Str *b = PyMem_Realloc(*class_of, (size_t)want * sizeof(Str));
    if (b)
        *class_of = b;
    int32_t *d = PyMem_Realloc(*cls, (size_t)want * sizeof(int32_t));
    if (d)
        *cls = d;
    int64_t *e = PyMem_Realloc(*ptr, (size_t)(want + 1) * sizeof(int64_t));
    if (e)
        *ptr = e;
    return a && b && d && e ? 0 : -1;
}

/* The columns' Python objects: (name or None, ids, class_names, cls, dep_ptr, dep_idx); None when
 * a string is not UTF-8 (json then names it); NULL with an exception. */
static PyObject *scan_result(const Str *name, const Str *id_of, const Table *classes, const int32_t *cls,
                             const int64_t *ptr, const int32_t *flat, Py_ssize_t n, Py_ssize_t n_edges)
{
    PyObject *ids = PyTuple_New(n), *names = PyTuple_New(classes->count), *name_o = NULL, *result = NULL;
    PyObject *cls_b = PyBytes_FromStringAndSize((const char *)cls, n * (Py_ssize_t)sizeof(int32_t));
    PyObject *ptr_b = PyBytes_FromStringAndSize((const char *)ptr, (n + 1) * (Py_ssize_t)sizeof(int64_t));
    PyObject *flat_b = PyBytes_FromStringAndSize((const char *)flat, n_edges * (Py_ssize_t)sizeof(int32_t));
    int bad = !ids || !names || !cls_b || !ptr_b || !flat_b;
    for (Py_ssize_t i = 0; !bad && i < n; i++) {
        PyObject *o = PyUnicode_DecodeUTF8(id_of[i].p, id_of[i].n, NULL);
        if (!o)
            bad = 1;
        else
            PyTuple_SET_ITEM(ids, i, o);
    }
    for (uint64_t i = 0; !bad && i <= classes->mask; i++) {   /* the values: first appearance */
        if (!classes->key[i].p)
            continue;
        PyObject *o = PyUnicode_DecodeUTF8(classes->key[i].p, classes->key[i].n, NULL);
        if (!o)
            bad = 1;
        else
            PyTuple_SET_ITEM(names, classes->val[i], o);
    }
    if (!bad && name->p && !(name_o = PyUnicode_DecodeUTF8(name->p, name->n, NULL)))
        bad = 1;
    if (!bad) {
        result = Py_BuildValue("(OOOOOO)", name_o ? name_o : Py_None, ids, names, cls_b, ptr_b, flat_b);
    } else if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        result = Py_None;
        Py_INCREF(result);
    }
    Py_XDECREF(name_o);
    Py_XDECREF(ids);
    Py_XDECREF(names);
    Py_XDECREF(cls_b);
    Py_XDECREF(ptr_b);
    Py_XDECREF(flat_b);
    return result;
}

static PyObject *py_scan_json(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const char *text = view.buf;
    Cursor c = {text, text + view.len};
    Table ids = {0}, classes = {0};
    Str *id_of = NULL, *class_of = NULL, name = {NULL, 0};
    int32_t *cls = NULL, *flat = NULL;
    int64_t *ptr = NULL;
    Py_ssize_t n = 0, cap_n = 0, n_edges = 0, cap_e = 0;
    int have_instrs = 0, nomem = 0;
    PyObject *result = NULL;

    if (table_init(&ids, 1024) < 0 || table_init(&classes, 64) < 0) {
        nomem = 1;
        goto done;
    }
    if (!take(&c, '{'))
        goto none;
    do {
        Str key;
        if (!take_str(&c, &key) || !take(&c, ':'))
            goto none;
        if (str_is(key, "name") && !name.p) {
            if (!take_str(&c, &name))
                goto none;
            continue;
        }
        if (!str_is(key, "instructions") || have_instrs || !take(&c, '['))
            goto none;
        have_instrs = 1;
        do {                                      /* one node */
            if (n == cap_n) {
                cap_n = cap_n ? 2 * cap_n : 1024;
                if (cap_n >= INT32_MAX)
                    goto none;
                if (grow_nodes(&id_of, &class_of, &cls, &ptr, cap_n) < 0) {
                    nomem = 1;
                    goto done;
                }
            }
            if (!take(&c, '{'))
                goto none;
            int seen_id = 0, seen_class = 0, seen_deps = 0;
            Py_ssize_t first_edge = n_edges;
            do {
                Str k, v;
                if (!take_str(&c, &k) || !take(&c, ':'))
                    goto none;
                if (str_is(k, "id") && !seen_id) {
                    if (!take_str(&c, &id_of[n]))
                        goto none;
                    seen_id = 1;
                } else if (str_is(k, "class") && !seen_class) {
                    if (!take_str(&c, &class_of[n]))
                        goto none;
                    seen_class = 1;
                } else if (str_is(k, "deps") && !seen_deps) {
                    seen_deps = 1;
                    if (!take(&c, '['))
                        goto none;
                    if (take(&c, ']'))
                        continue;
                    do {
                        if (!take_str(&c, &v))
                            goto none;
                        if (n_edges == cap_e) {
                            cap_e = cap_e ? 2 * cap_e : 4096;
                            int32_t *f = cap_e < INT32_MAX ? PyMem_Realloc(flat, (size_t)cap_e * sizeof(int32_t)) : NULL;
                            if (!f) {
                                nomem = 1;
                                goto done;
                            }
                            flat = f;
                        }
                        /* resolved once the node's id is known (it may come after deps): for now
                         * the offset of the string's opening quote */
                        if (v.p - 1 - text >= INT32_MAX)
                            goto none;
                        flat[n_edges++] = (int32_t)(v.p - 1 - text);
                    } while (take(&c, ','));
                    if (!take(&c, ']'))
                        goto none;
                } else {
                    goto none;                    /* barrier, another key, or a key twice */
                }
            } while (take(&c, ','));
            if (!take(&c, '}') || !seen_id || !seen_class)
                goto none;
            /* the node's id, then its dependences: earlier ids, increasing, no repeats */
            uint64_t at;
            if (table_find(&ids, id_of[n], &at) >= 0)
                goto none;                        /* an id twice */
            if (table_put(&ids, at, id_of[n], (int32_t)n) < 0) {
                nomem = 1;
                goto done;
            }
            long prev = -1;
            for (Py_ssize_t e = first_edge; e < n_edges; e++) {
                Cursor d = {text + flat[e], c.end};
                Str dep;
                take_str(&d, &dep);               /* read whole above */
                long j = table_find(&ids, dep, &at);
                if (j <= prev || j >= (long)n)
                    goto none;                    /* missing, forward, itself, unsorted, repeated */
                prev = j;
                flat[e] = (int32_t)j;
            }
            ptr[n] = first_edge;
            int32_t k = table_find(&classes, class_of[n], &at);
            if (k < 0) {
                k = (int32_t)classes.count;
                if (table_put(&classes, at, class_of[n], k) < 0) {
                    nomem = 1;
                    goto done;
                }
            }
            cls[n] = k;
            n++;
        } while (take(&c, ','));
        if (!take(&c, ']'))
            goto none;
    } while (take(&c, ','));
    if (!take(&c, '}') || !have_instrs || n == 0)
        goto none;
    skip_ws(&c);
    if (c.p != c.end)
        goto none;
    ptr[n] = n_edges;
    result = scan_result(&name, id_of, &classes, cls, ptr, flat, n, n_edges);
    goto done;
none:
    result = Py_None;
    Py_INCREF(result);
done:
    if (nomem)
        PyErr_NoMemory();
    table_free(&ids);
    table_free(&classes);
    PyMem_Free(id_of);
    PyMem_Free(class_of);
    PyMem_Free(cls);
    PyMem_Free(ptr);
    PyMem_Free(flat);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"columns", py_columns, METH_O,
     "columns(instrs): (ids, class_names, cls, dep_ptr, dep_idx) of well-formed IDG nodes, else None."},
    {"scan_json", py_scan_json, METH_O,
     "scan_json(data): (name, ids, class_names, cls, dep_ptr, dep_idx) of a plain JSON IDG's bytes, else None."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns",
                                    "An IDG file's nodes read into arrays in C.", -1, methods};

PyMODINIT_FUNC PyInit__columns(void)
{
    return PyModule_Create(&module);
}
