"""dtype-generic scalar helpers: the same code runs on float, complex and SymPy object arrays."""
import numpy as np


def is_symbolic(x):
    return isinstance(x, np.ndarray) and x.dtype == object


def cos(x):
    x = np.asarray(x)
    if x.dtype == object:
        import sympy
        return np.vectorize(sympy.cos, otypes=[object])(x) if x.ndim else np.array(sympy.cos(x.item()), dtype=object)
    return np.cos(x)


def sin(x):
    x = np.asarray(x)
    if x.dtype == object:
        import sympy
        return np.vectorize(sympy.sin, otypes=[object])(x) if x.ndim else np.array(sympy.sin(x.item()), dtype=object)
    return np.sin(x)


def result_dtype(*arrays):
    """float64, complex128 or object, whichever the inputs need."""
    kinds = [np.asarray(a).dtype for a in arrays if a is not None]
    if any(k == object for k in kinds):
        return object
    if any(np.issubdtype(k, np.complexfloating) for k in kinds):
        return np.complex128
    return np.float64


def cross(a, b):
    """Cross product over the last axis, for any dtype (np.cross rejects object arrays in places)."""
    a = np.asarray(a)
    b = np.asarray(b)
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


def matvec(A, x):
    """A @ x over leading axes: A (..., n, m), x (..., m) -> (..., n)."""
    return (A @ np.asarray(x)[..., None])[..., 0]
