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

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer b, x[3], out;
    int got[3] = {0, 0, 0}, ok = 0, i;
    long long opts;
    void *addr;
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "call(address, B, opts, x1, x2, x3, out): 7 arguments");
        return NULL;
    }
    addr = PyLong_AsVoidPtr(args[0]);
    if (addr == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "call: a null kernel address");
        return NULL;
    }
    opts = PyLong_AsLongLong(args[2]);
    if (opts == -1 && PyErr_Occurred())
        return NULL;
    if (!get(args[1], &b, 1, 0))
        Py_RETURN_FALSE;
    if (b.ndim != 2) {
        PyBuffer_Release(&b);
        Py_RETURN_FALSE;
    }
    for (i = 0; i < 3; i++) {
        if (args[3 + i] == Py_None) {
            memset(&x[i], 0, sizeof(Py_buffer));
            continue;
        }
        if (!get(args[3 + i], &x[i], 0, 1))
            goto done;
        got[i] = 1;
    }
    if (!got[0])
        goto done;
    if (!get(args[6], &out, 1, 0))
        goto done;
    if (out.ndim == 2 && out.shape[0] == out.shape[1])
        opts |= OUT_MATRIX;
    else if (out.ndim == 3 && out.shape[0] == 3 && out.shape[1] == out.shape[2])
        opts |= OUT_TRIPLE;
    else if (out.ndim != 1) {
        PyBuffer_Release(&out);
        goto done;
    }
    ok = ((kernel_t)addr)((double *)b.buf, (long long)b.shape[0], (long long)b.shape[1],
                          (double *)x[0].buf, got[1] ? (double *)x[1].buf : (double *)x[0].buf,
                          got[2] ? (double *)x[2].buf : (double *)x[0].buf,
                          (long long)(x[0].len / 8), got[1] ? (long long)(x[1].len / 8) : 0,
                          got[2] ? (long long)(x[2].len / 8) : 0, (double *)out.buf, (long long)(out.len / 8),
                          opts);
    PyBuffer_Release(&out);
done:
    for (i = 0; i < 3; i++)
        if (got[i])
            PyBuffer_Release(&x[i]);
    PyBuffer_Release(&b);
    if (ok)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *call_bound(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer c, x[3], out;
    int got[3] = {0, 0, 0}, ok = 0, i;
    void *addr;
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "call_bound(address, ctx, x1, x2, x3, out): 6 arguments");
        return NULL;
    }
    addr = PyLong_AsVoidPtr(args[0]);
    if (addr == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "call_bound: a null kernel address");
        return NULL;
    }
    if (PyObject_GetBuffer(args[1], &c, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (!is_format(&c, "lq") || c.ndim != 1) {
        PyBuffer_Release(&c);
        Py_RETURN_FALSE;
    }
    for (i = 0; i < 3; i++) {
        if (args[2 + i] == Py_None) {
            memset(&x[i], 0, sizeof(Py_buffer));
            continue;
        }
        if (!get(args[2 + i], &x[i], 0, 1))
            goto done;
        got[i] = 1;
    }
    if (!got[0] || !get(args[5], &out, 1, 1))
        goto done;
    ok = ((bound_t)addr)((long long *)c.buf, (long long)(c.len / 8), (double *)x[0].buf,
                         got[1] ? (double *)x[1].buf : (double *)x[0].buf,
                         got[2] ? (double *)x[2].buf : (double *)x[0].buf, (long long)(x[0].len / 8),
                         got[1] ? (long long)(x[1].len / 8) : 0, got[2] ? (long long)(x[2].len / 8) : 0,
                         (double *)out.buf, (long long)(out.len / 8));
    PyBuffer_Release(&out);
done:
    for (i = 0; i < 3; i++)
        if (got[i])
            PyBuffer_Release(&x[i]);
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
