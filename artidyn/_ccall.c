/* artidyn._ccall: call a compiled single-state kernel with little overhead.
 *
 * call(address, B, opts, x1, x2, x3, out) -> bool
 *
 * address: a kernel of artidyn.kernels.ccall (int); B: the model's packed table (2-D float64,
 * C-contiguous, writable); x1..x3: 1-D float64 C-contiguous inputs (x2, x3 may be None);
 * out: a writable float64 C-contiguous array, 1-D, a square matrix or (3, n, n) (then opts
 * gets the bit OUT_MATRIX or OUT_TRIPLE, which each kernel requires or refuses). numpy arrays are
 * checked through numpy's C API, other objects through the buffer protocol (float64 in the
 * machine's byte order, C-contiguous); anything else (another dtype or byte order, strides, a
 * read-only out, not a buffer) returns False
 * without calling the kernel, as does a kernel that rejects its inputs (wrong lengths,
 * non-finite values): the caller then takes the checked Python path, which reports the error.
 * The kernel runs with the GIL held (it is short and uses the model's work table).
 *
 * call_bound(address, ctx, x1, x2, x3, out) -> bool
 *
 * The same for a kernel bound to arrays its caller keeps (the constrained dynamics' table,
 * constraints and scratch): ctx is a read-only 1-D int64 array of their addresses and sizes,
 * made by that caller from arrays it holds for its own lifetime; x1..x3 as above, out 1-D.
 *
 * Kernel(address, B, opts, nin, shape, fallback[, doc[, result]])
 *
 * A kernel bound to the table B, called like the Python method it stands for: f(q, v, a) or
 * f(q, v, a, out) / f(..., out=out) (nin = 3), or f(q[, out]) (nin = 1). Without out, a new
 * float64 array of the given shape (numpy's C API). What the C side declines (the checks of call,
 * or another call shape) goes to fallback(*args, **kwargs) with the same arguments. It holds B's
 * buffer for its lifetime. With result (a tuple subclass, e.g. a named tuple) and a 3-D shape, it
 * returns result(out[0], out[1], ...), views of out. The bound evaluator's rnea / aba / crba and the public functions'
 * one-state path (a call object per model, kept on model._cache) are such objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stddef.h>
#include <string.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#define OUT_MATRIX (1LL << 20)           /* as artidyn.kernels.ccall: out is a square matrix */
#define OUT_TRIPLE (1LL << 21)           /* out is (3, n, n): three square matrices */

typedef int (*kernel_t)(double *, long long, long long, double *, double *, double *, long long, long long,
                        long long, double *, long long, long long);

typedef int (*bound_t)(long long *, long long, double *, double *, double *, long long, long long, long long,
                       double *, long long);

static int is_format(const Py_buffer *v, const char *codes)
{
    const char *f = v->format;
    if (f == NULL || v->itemsize != 8)
        return 0;
    if (f[0] == '@' || f[0] == '=')
        f++;
#if PY_LITTLE_ENDIAN
    else if (f[0] == '<')
        f++;
#endif
    return f[0] != '\0' && strchr(codes, f[0]) != NULL && f[1] == '\0';
}

static int is_double(const Py_buffer *v) { return is_format(v, "d"); }

static int get_buffer(PyObject *o, Py_buffer *v, int writable, int one_d);

/* a 1-D (or, for out and B, any-D) C-contiguous float64 buffer; 0 and no exception otherwise.
 * A numpy array is read through numpy's C API (its buffer export costs ~0.05 us a call): v then
 * borrows the array's data with v->obj NULL, so PyBuffer_Release does nothing; the caller holds
 * the array for the call and runs no Python code meanwhile. Anything else goes through the
 * buffer protocol. */
static int get(PyObject *o, Py_buffer *v, int writable, int one_d)
{
    if (PyArray_Check(o)) {
        PyArrayObject *a = (PyArrayObject *)o;
        int need = NPY_ARRAY_C_CONTIGUOUS | (writable ? NPY_ARRAY_WRITEABLE : 0);   /* as the buffer protocol: any alignment */
        if (PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(a) || !PyArray_CHKFLAGS(a, need)
            || (one_d && PyArray_NDIM(a) != 1))
            return 0;
        v->obj = NULL;
        v->buf = PyArray_DATA(a);
        v->ndim = PyArray_NDIM(a);
        v->shape = (Py_ssize_t *)PyArray_DIMS(a);
        v->len = (Py_ssize_t)PyArray_SIZE(a) * 8;
        v->itemsize = 8;
        return 1;
    }
    return get_buffer(o, v, writable, one_d);
}

/* the same through the buffer protocol (also for the table a Kernel holds: the export keeps the
 * array from being resized) */
static int get_buffer(PyObject *o, Py_buffer *v, int writable, int one_d)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, v, flags) != 0) {
        PyErr_Clear();
        return 0;
    }
    if (!is_double(v) || (one_d && v->ndim != 1)) {
        PyBuffer_Release(v);
        return 0;
    }
    return 1;
}

/* the kernel address args[0] of a call named `name`; NULL with an exception when it is not one */
static void *address(PyObject *o, const char *name)
{
    void *addr = PyLong_AsVoidPtr(o);
    if (addr == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "%s: a null kernel address", name);
    return addr;
}

/* the state vectors x1..x3 (x2, x3 may be None: then x1's pointer with length 0); 0 when one is
 * not a 1-D float64 buffer or x1 is None. got[i] says which buffers to release (release_states) */
typedef struct {
    Py_buffer x[3];
    int got[3];
    double *p[3];
    long long n[3];
} states_t;

static int get_states(PyObject *const *xs, states_t *st)
{
    int i;
    st->got[0] = st->got[1] = st->got[2] = 0;
    for (i = 0; i < 3; i++) {
        if (xs[i] == Py_None)
            continue;
        if (!get(xs[i], &st->x[i], 0, 1))
            return 0;
        st->got[i] = 1;
    }
    if (!st->got[0])
        return 0;
    for (i = 0; i < 3; i++) {
        st->p[i] = st->got[i] ? (double *)st->x[i].buf : (double *)st->x[0].buf;
        st->n[i] = st->got[i] ? (long long)(st->x[i].len / 8) : 0;
    }
    return 1;
}

static void release_states(states_t *st)
{
    int i;
    for (i = 0; i < 3; i++)
        if (st->got[i])
            PyBuffer_Release(&st->x[i]);
}

/* run the kernel at addr on the table b (rows x cols), the state vectors xs[0..2] and out; 1 when
 * the buffers were valid and the kernel accepted them, 0 otherwise (no exception) */
static int run(void *addr, const Py_buffer *b, long long opts, PyObject *const *xs, PyObject *out_obj)
{
    Py_buffer out;
    states_t st;
    int ok = 0;
    if (!get_states(xs, &st) || !get(out_obj, &out, 1, 0))
        goto done;
    if (out.ndim == 2 && out.shape[0] == out.shape[1])
        opts |= OUT_MATRIX;
    else if (out.ndim == 3 && out.shape[0] == 3 && out.shape[1] == out.shape[2])
        opts |= OUT_TRIPLE;
    else if (out.ndim != 1) {
        PyBuffer_Release(&out);
        goto done;
    }
    ok = ((kernel_t)addr)((double *)b->buf, (long long)b->shape[0], (long long)b->shape[1], st.p[0], st.p[1],
                          st.p[2], st.n[0], st.n[1], st.n[2], (double *)out.buf, (long long)(out.len / 8), opts);
    PyBuffer_Release(&out);
done:
    release_states(&st);
    return ok;
}

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer b;
    int ok;
    long long opts;
    void *addr;
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "call(address, B, opts, x1, x2, x3, out): 7 arguments");
        return NULL;
    }
    if ((addr = address(args[0], "call")) == NULL)
        return NULL;
    opts = PyLong_AsLongLong(args[2]);
    if (opts == -1 && PyErr_Occurred())
        return NULL;
    if (!get(args[1], &b, 1, 0))
        Py_RETURN_FALSE;
    ok = b.ndim == 2 && run(addr, &b, opts, args + 3, args[6]);
    PyBuffer_Release(&b);
    if (ok)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *call_bound(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer c, out;
    states_t st;
    int ok = 0;
    void *addr;
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "call_bound(address, ctx, x1, x2, x3, out): 6 arguments");
        return NULL;
    }
    if ((addr = address(args[0], "call_bound")) == NULL)
        return NULL;
    if (PyObject_GetBuffer(args[1], &c, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (!is_format(&c, "lq") || c.ndim != 1) {
        PyBuffer_Release(&c);
        Py_RETURN_FALSE;
    }
    if (!get_states(args + 2, &st) || !get(args[5], &out, 1, 1))
        goto done;
    ok = ((bound_t)addr)((long long *)c.buf, (long long)(c.len / 8), st.p[0], st.p[1], st.p[2], st.n[0], st.n[1],
                         st.n[2], (double *)out.buf, (long long)(out.len / 8));
    PyBuffer_Release(&out);
done:
    release_states(&st);
    PyBuffer_Release(&c);
    if (ok)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* ---- Kernel: a kernel bound to one table, called like the method it replaces ----------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    void *addr;
    PyObject *table;          /* the table B, whose buffer b is held for the object's lifetime */
    Py_buffer b;
    long long opts;
    Py_ssize_t nin;           /* the state vectors the method takes: 1 (q) or 3 (q, v, a) */
    int ndim;                 /* the result's shape, for a new result: (n,), (n, n) or (3, n, n) */
    npy_intp dims[3];
    PyObject *fallback;       /* the checked Python method, same signature */
    PyObject *doc;
    PyTypeObject *result;     /* NULL, or a tuple subclass: the result is result(out[0], out[1], ...) */
} KernelObject;

/* result(whole[0], whole[1], ...) of k's tuple subclass, the items views of whole (a new reference
 * to it is stolen); NULL with an exception on failure */
static PyObject *split(KernelObject *k, PyObject *whole)
{
    Py_ssize_t i, n = k->dims[0];
    PyObject *r = k->result->tp_alloc(k->result, n);      /* as tuple.__new__ does for a subclass */
    if (r == NULL)
        goto fail;
    for (i = 0; i < n; i++) {
        PyObject *item;
        if (PyArray_Check(whole) && PyArray_NDIM((PyArrayObject *)whole) == 3) {
            PyArrayObject *a = (PyArrayObject *)whole;
            npy_intp *d = PyArray_DIMS(a);
            item = PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(NPY_DOUBLE), 2, d + 1, NULL,
                                        PyArray_BYTES(a) + i * d[1] * d[2] * 8,
                                        PyArray_FLAGS(a) & (NPY_ARRAY_CARRAY | NPY_ARRAY_WRITEABLE), NULL);
            if (item != NULL) {
                Py_INCREF(whole);
                if (PyArray_SetBaseObject((PyArrayObject *)item, whole) < 0) {    /* steals whole */
                    Py_DECREF(item);
                    item = NULL;
                }
            }
        }
        else
            item = PySequence_GetItem(whole, i);
        if (item == NULL)
            goto fail;
        PyTuple_SET_ITEM(r, i, item);
    }
    Py_DECREF(whole);
    return r;
fail:
    Py_XDECREF(r);
    Py_DECREF(whole);
    return NULL;
}

static PyObject *kernel_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    KernelObject *k = (KernelObject *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *xs[3] = {Py_None, Py_None, Py_None}, *out = Py_None, *made = NULL;
    Py_ssize_t i;
    int ok;
    if (nargs + nkw == k->nin + 1 && nargs >= k->nin) {         /* out given, by position or as out= */
        if (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "out") != 0)
            goto fallback;
        out = args[k->nin];
    }
    else if (nkw != 0 || nargs != k->nin)
        goto fallback;
    for (i = 0; i < k->nin; i++)
        xs[i] = args[i];
    if (k->result != NULL && out != Py_None && !PyArray_Check(out))
        goto fallback;                                           /* the views are numpy arrays */
    if (out == Py_None) {
        made = PyArray_SimpleNew(k->ndim, k->dims, NPY_DOUBLE);   /* ~0.15 us less than np.empty */
        if (made == NULL)
            return NULL;
        out = made;
    }
    ok = run(k->addr, &k->b, k->opts, xs, out);
    if (ok) {
        if (made == NULL)
            Py_INCREF(out);
        return k->result == NULL ? out : split(k, out);
    }
    Py_XDECREF(made);
fallback:
    return PyObject_Vectorcall(k->fallback, args, nargsf, kwnames);
}

static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *addr_obj, *table, *shape, *fallback, *doc = Py_None, *result = Py_None;
    long long opts;
    Py_ssize_t nin, i, ndim;
    npy_intp dims[3] = {0, 0, 0};
    KernelObject *k;
    void *addr;
    if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
        PyErr_SetString(PyExc_TypeError, "Kernel(address, B, opts, nin, shape, fallback[, doc[, result]]): no keywords");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOLnOO|OO:Kernel", &addr_obj, &table, &opts, &nin, &shape, &fallback, &doc, &result))
        return NULL;
    if ((addr = address(addr_obj, "Kernel")) == NULL)
        return NULL;
    if (nin != 1 && nin != 3) {
        PyErr_SetString(PyExc_ValueError, "Kernel: nin must be 1 or 3");
        return NULL;
    }
    ndim = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : 0;
    for (i = 0; i < ndim && i < 3; i++) {
        dims[i] = (npy_intp)PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        if (dims[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    if (ndim < 1 || ndim > 3 || dims[0] <= 0 || (ndim >= 2 && dims[1] <= 0) || (ndim == 3 && dims[2] <= 0)) {
        PyErr_SetString(PyExc_ValueError, "Kernel: shape must be a tuple of one to three positive ints");
        return NULL;
    }
    if (result != Py_None && (ndim != 3 || !PyType_Check(result)
                              || !PyType_IsSubtype((PyTypeObject *)result, &PyTuple_Type))) {
        PyErr_SetString(PyExc_TypeError, "Kernel: result must be None or a tuple subclass, with a 3-D shape");
        return NULL;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "Kernel: fallback must be callable");
        return NULL;
    }
    k = (KernelObject *)type->tp_alloc(type, 0);
    if (k == NULL)
        return NULL;
    if (!get_buffer(table, &k->b, 1, 0) || k->b.ndim != 2) {
        if (k->b.obj != NULL)
            PyBuffer_Release(&k->b);
        k->b.obj = NULL;
        Py_DECREF(k);
        PyErr_SetString(PyExc_TypeError, "Kernel: B must be a writable 2-D C-contiguous float64 array");
        return NULL;
    }
    k->vectorcall = kernel_vectorcall;
    k->addr = addr;
    Py_INCREF(table);
    k->table = table;
    k->opts = opts;
    k->nin = nin;
    k->ndim = (int)ndim;
    k->dims[0] = dims[0];
    k->dims[1] = dims[1];
    k->dims[2] = dims[2];
    if (result != Py_None) {
        Py_INCREF(result);
        k->result = (PyTypeObject *)result;
    }
    Py_INCREF(fallback);
    k->fallback = fallback;
    Py_INCREF(doc);
    k->doc = doc;
    return (PyObject *)k;
}

static int kernel_traverse(KernelObject *k, visitproc visit, void *arg)
{
    Py_VISIT(k->fallback);
    Py_VISIT(k->doc);
    Py_VISIT(k->result);
    return 0;
}

static int kernel_clear(KernelObject *k)
{
    Py_CLEAR(k->fallback);
    Py_CLEAR(k->doc);
    Py_CLEAR(k->result);
    return 0;
}

static void kernel_dealloc(KernelObject *k)
{
    PyObject_GC_UnTrack(k);
    kernel_clear(k);
    if (k->b.obj != NULL)
        PyBuffer_Release(&k->b);
    Py_CLEAR(k->table);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static PyObject *kernel_doc(KernelObject *k, void *closure)
{
    (void)closure;
    if (k->doc == NULL)
        Py_RETURN_NONE;
    Py_INCREF(k->doc);
    return k->doc;
}

static PyObject *kernel_repr(KernelObject *k)
{
    if (k->fallback == NULL)
        return PyUnicode_FromString("<artidyn._ccall.Kernel>");
    return PyUnicode_FromFormat("<compiled %R>", k->fallback);
}

static PyGetSetDef kernel_getset[] = {{"__doc__", (getter)kernel_doc, NULL, NULL, NULL}, {NULL}};

static PyMemberDef kernel_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(KernelObject, vectorcall), READONLY, NULL},
    {"fallback", T_OBJECT, offsetof(KernelObject, fallback), READONLY, "the checked Python method"},
    {NULL}};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "artidyn._ccall.Kernel",
    .tp_basicsize = sizeof(KernelObject),
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_vectorcall_offset = offsetof(KernelObject, vectorcall),
    .tp_repr = (reprfunc)kernel_repr,
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_traverse = (traverseproc)kernel_traverse,
    .tp_clear = (inquiry)kernel_clear,
    .tp_getset = kernel_getset,
    .tp_members = kernel_members,
    .tp_new = kernel_new,
};

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL,
     "call(address, B, opts, x1, x2, x3, out) -> bool: run a kernel of artidyn.kernels.ccall on checked "
     "float64 buffers; False when an argument or the kernel's result is not valid."},
    {"call_bound", (PyCFunction)(void (*)(void))call_bound, METH_FASTCALL,
     "call_bound(address, ctx, x1, x2, x3, out) -> bool: run a bound kernel (ctx: the int64 addresses and sizes "
     "of the arrays its caller keeps) on checked float64 buffers; False when an argument or the result is not valid."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ccall", "A low-overhead call of artidyn's kernels.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__ccall(void)
{
    PyObject *m;
    import_array();           /* numpy's C API, for new results; returns NULL (ImportError) without it */
    if (PyType_Ready(&KernelType) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
