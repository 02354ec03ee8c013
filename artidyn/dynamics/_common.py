"""Pieces shared by the dynamics algorithms: input checks and the joint transforms X_up.

Every reference algorithm is an internal batch function on 2-D arrays (``Q`` (N, nq),
``V`` (N, nv) ...) wrapped by a public function that checks its inputs. The batch functions
are dtype-generic (float64, complex128 for complex-step derivatives, object arrays of SymPy
expressions) and loop over bodies, never over states.
"""
import numpy as np

from ..checks import MAX_STATE
from ..errors import InputError, ShapeError, shown
from ..kinematics import _joint_transforms as joint_transforms  # noqa: F401  X_up[i]: body i in its parent
from ..kinematics import _states as batch_inputs  # noqa: F401  (Q, [V, A ...], single), common batch size


def gravity_acceleration(model, N, dtype):
    """The fictitious base acceleration a_0 = -[0; g] that carries gravity, shape (N, 6)."""
    a0 = np.zeros((N, 6), dtype)
    a0[:, 3:] = -np.asarray(model.gravity, dtype=float)
    return a0


def inverse(D):
    """Inverse of a batch of small square matrices D (N, k, k), for any dtype.

    float / complex: ``np.linalg.inv`` (analytic in the entries, so complex-step safe);
    1x1: a division; object (SymPy) k > 1: ``sympy.Matrix.inv`` per state (symbolic only).
    """
    k = D.shape[-1]
    if k == 1:
        return 1 / D
    if D.dtype != object:
        return np.linalg.inv(D)
    import sympy
    out = np.empty(D.shape, dtype=object)
    for n in range(D.shape[0]):  # symbolic slow path: sympy has no batched inverse
        out[n] = np.array(sympy.Matrix(D[n]).inv(), dtype=object)
    return out


def external_forces(model, f_ext, N):
    """Check f_ext: None, (nb+1, 6) or (N, nb+1, 6) -> (N, nb+1, 6) or None. Row 0 is ignored."""
    if f_ext is None:
        return None
    try:
        F = np.asarray(f_ext)
    except (TypeError, ValueError):             # a ragged nested list
        F = None
    if F is None or F.dtype.kind not in "biufcO":  # strings, bytes: not wrenches
        raise InputError(f"f_ext must be numbers, one wrench [moment; force] per body, got {shown(f_ext)}")
    if F.dtype != object and not np.issubdtype(F.dtype, np.complexfloating):
        F = F.astype(float)
    shape = (model.nb + 1, 6)
    if F.shape == shape:
        F = F[None]
    if F.ndim != 3 or F.shape[1:] != shape or F.shape[0] not in (1, N):
        raise ShapeError(f"f_ext has shape {F.shape}, model '{model.name}' needs {shape} "
                         f"(one wrench [moment; force] per body, row 0 = world) or ({N}, {shape[0]}, 6)")
    if F.dtype != object and not np.all(np.abs(F) <= MAX_STATE):   # NaN fails the comparison too
        n, i, _ = np.argwhere(~(np.abs(F) <= MAX_STATE))[0]
        what = "NaN or infinite values" if not np.all(np.isfinite(F)) else f"values beyond +/-{MAX_STATE:g}"
        raise InputError(f"f_ext contains {what} (body '{model.body_names[i]}', state {n})")
    return np.broadcast_to(F, (N,) + shape)
