/* artidyn._ccall: call a compiled single-state kernel with little overhead.
 *
 * call(address, B, opts, x1, x2, x3, out) -> bool
 *
 * address: a kernel of artidyn.kernels.ccall (int); B: the model's packed table (2-D float64,
 * C-contiguous, writable); x1..x3: 1-D float64 C-contiguous inputs (x2, x3 may be None);
 * out: a writable float64 C-contiguous array, 1-D, a square matrix or (3, n, n) (then opts
 * gets the bit OUT_MATRIX or OUT_TRIPLE, which each kernel requires or refuses). Everything is checked through the buffer
 * protocol; anything else (another dtype, strides, read-only, not a buffer) returns False
 * without calling the kernel, as does a kernel that rejects its inputs (wrong lengths,
 * non-finite values): the caller then takes the checked Python path, which reports the error.
 * The kernel runs with the GIL held (it is short and uses the model's work table).
 *
 * call_bound(address, ctx, x1, x2, x3, out) -> bool
 *
 * The same for a kernel bound to arrays its caller keeps (the constrained dynamics' table,
 * constraints and scratch): ctx is a read-only 1-D int64 array of their addresses and sizes,
 * made by that caller from arrays it holds for its own lifetime; x1..x3 as above, out 1-D.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

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

/* a 1-D (or, for out and B, any-D) C-contiguous float64 buffer; 0 and no exception otherwise */
static int get(PyObject *o, Py_buffer *v, int writable, int one_d)
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

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer b, out;
    states_t st;
    int ok = 0;
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
    if (b.ndim != 2) {
        PyBuffer_Release(&b);
        Py_RETURN_FALSE;
    }
    if (!get_states(args + 3, &st) || !get(args[6], &out, 1, 0))
        goto done;
    if (out.ndim == 2 && out.shape[0] == out.shape[1])
        opts |= OUT_MATRIX;
    else if (out.ndim == 3 && out.shape[0] == 3 && out.shape[1] == out.shape[2])
        opts |= OUT_TRIPLE;
    else if (out.ndim != 1) {
        PyBuffer_Release(&out);
        goto done;
    }
    ok = ((kernel_t)addr)((double *)b.buf, (long long)b.shape[0], (long long)b.shape[1], st.p[0], st.p[1], st.p[2],
                          st.n[0], st.n[1], st.n[2], (double *)out.buf, (long long)(out.len / 8), opts);
    PyBuffer_Release(&out);
done:
    release_states(&st);
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

PyMODINIT_FUNC PyInit__ccall(void) { return PyModule_Create(&module); }
