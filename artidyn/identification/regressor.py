"""The dynamic regressor ``tau = Y(q, v, a) pi`` and the energy regressors, by a Newton-Euler
recursion (Atkeson, An & Hollerbach 1986; Khalil & Dombre, "Modeling, identification and
control of robots", ch. 12), linear in the standard parameters pi of :mod:`.parameters`.

Newton-Euler wrench of body i (all in body i's frame, about O_i; v_i, a_i as in the RNEA, gravity
as the base acceleration a_0 = -[0; g])::

    f_i = I_i a_i + v_i (+) I_i v_i = (K(a_i) + crf(v_i) K(v_i)) pi_i = F_i pi_i   (6 x 10)

with ``K(x) pi_i = I_i x`` for a motion vector ``x = [w; u]``::

    I_i x = [I_O w + h x u ; m u + w x h]        (h = m c)

Backward pass (the RNEA's "descente", one column block per body): the wrench of body i reaches
every joint j on its path to the root, ``f^(j) = A_{j <- i} f_i``, and joint j's torque takes
``S_j^T f^(j)``. Hence the block ``Y[dofs of j, cols of i] = S_j^T A_{j <- i} F_i`` for j an
ancestor of i (or i itself), zero otherwise. The per-dof columns are ``a_k`` (armature Ia),
``v_k`` (viscous Fv), ``sign(v_k)`` (Coulomb Fc) and ``1`` (offset off) on row k.

``Y pi == rnea(model, q, v, a) - spring_torque(model, q)``: joint springs (stiffness, rest) are
not parameters; subtract :func:`artidyn.dynamics.spring_torque` from measured torques (or keep
the model spring-free) before identifying. ``f_ext`` is not taken: identify with the measured
external wrenches removed from tau.

Energy regressors (same pi): ``T = y_kin . pi`` with ``T_i = 1/2 v_i . K(v_i) pi_i`` and
``1/2 v_k^2`` for the armature; ``V = y_pot . pi`` with ``V_i = -m g . p_i - (R_i^T g) . (m c)``
(gravity only, zero at the world origin; the springs' energy is excluded as above).

Reference code: numpy, loops over bodies never over states, dtype-generic (float64, complex128,
object arrays of SymPy expressions). :func:`regressor` runs the compiled kernel
(:mod:`artidyn.kernels.regressor`, single states and parallel batches) for real inputs when the
kernels are on, and this reference code otherwise (complex, SymPy, ``reference_only()``, or
inputs the kernel refuses, for which the reference raises the error).
"""
import numpy as np

from ..configuration import unbatch
from ..dynamics import _common
from ..dynamics.actuation import sign
from ..kinematics import _body_accelerations, _body_velocities, _placements_from
from ..spatial._num import result_dtype
from ..spatial.motion import cross_force, force_apply, motion_apply_inv
from .parameters import body_columns, dof_columns, n_parameters


def _inertia_columns(x):
    """K(x): (N, 10, 6), row p = the wrench I x for the unit parameter p (so I x = K^T pi_i).

    Stored as (N, 10, 6) (a stack of 10 force vectors) so that the spatial transforms apply to
    each column directly.
    """
    w, u = x[..., :3], x[..., 3:]
    wx, wy, wz = w[..., 0], w[..., 1], w[..., 2]
    ux, uy, uz = u[..., 0], u[..., 1], u[..., 2]
    z = 0 * wx

    def col(mu, f):
        return np.stack(list(mu) + list(f), -1)

    return np.stack([
        col((z, z, z), (ux, uy, uz)),              # m:   [0; u]
        col((z, -uz, uy), (z, wz, -wy)),           # mcx: [e_x x u; w x e_x]
        col((uz, z, -ux), (-wz, z, wx)),           # mcy: [e_y x u; w x e_y]
        col((-uy, ux, z), (wy, -wx, z)),           # mcz: [e_z x u; w x e_z]
        col((wx, z, z), (z, z, z)),                # XX:  I_O w
        col((wy, wx, z), (z, z, z)),               # XY
        col((wz, z, wx), (z, z, z)),               # XZ
        col((z, wy, z), (z, z, z)),                # YY
        col((z, wz, wy), (z, z, z)),               # YZ
        col((z, z, wz), (z, z, z)),                # ZZ
    ], -2)


def _kinematics(model, Q, V, A=None):
    """X_up (N, nb+1, 4, 4), body twists v and (with gravity) accelerations a (N, nb+1, 6)."""
    X_up = _common.joint_transforms(model, Q)
    v = _body_velocities(model, X_up, V)
    if A is None:
        return X_up, v, None
    # gravity as a fictitious base acceleration a_0 = -[0; g]: the accelerations are linear in
    # (a_0, qdd), so a_0 seen in each body frame is added to the kinematic accelerations
    a0 = _common.gravity_acceleration(model, Q.shape[0], result_dtype(Q, V, A))
    a = _body_accelerations(model, X_up, v, V, A) + _gravity_in_bodies(model, X_up, a0)
    return X_up, v, a


def _gravity_in_bodies(model, X_up, a0):
    """A^t_{i <- 0} a_0 for every body: the base acceleration seen in each body frame."""
    ag = np.zeros(X_up.shape[:2] + (6,), dtype=np.result_type(X_up, a0))
    ag[:, 0] = a0
    for i in range(1, model.nb + 1):
        ag[:, i] = motion_apply_inv(X_up[:, i], ag[:, model.parent[i]])
    return ag


def _body_wrench_columns(v, a):
    """F_i^T: (N, 10, 6), the Newton-Euler wrench I a + v (+) I v per unit parameter."""
    return _inertia_columns(a) + cross_force(v[:, None], _inertia_columns(v))


def _regressor(model, Q, V, A):
    """Y for a batch: (N, nv, n_params)."""
    N, nv = Q.shape[0], model.nv
    X_up, v, a = _kinematics(model, Q, V, A)
    Y = np.zeros((N, nv, n_parameters(model)), dtype=result_dtype(Q, V, A))
    # descente: the columns of body i pass from joint to joint up to the root
    for i in range(model.nb, 0, -1):
        F = _body_wrench_columns(v[:, i], a[:, i])
        j = i
        while j > 0:
            dofs = slice(model.idx_v[j], model.idx_v[j] + model.nv_joint[j])
            Y[:, dofs, body_columns(model, i)] = np.swapaxes(F @ model.S[j], 1, 2)
            F = force_apply(X_up[:, j, None], F)
            j = model.parent[j]
    k = np.arange(nv)
    Y[:, k, dof_columns(model, "Ia")] = A
    Y[:, k, dof_columns(model, "Fv")] = V
    Y[:, k, dof_columns(model, "Fc")] = sign(V)
    Y[:, k, dof_columns(model, "off")] = 1
    return Y


def regressor(model, q, v, a):
    """The dynamic regressor Y(q, v, a) with ``Y @ pi == rnea(model, q, v, a) - spring_torque(q)``.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq);  v, a : (nv,) or (N, nv) (floating base: as :func:`artidyn.rnea`)

    Returns
    -------
    Y : (nv, n_params) or (N, nv, n_params), columns in the order of
        :func:`~artidyn.identification.parameter_names` (10 per body, then Ia, Fv, Fc, off per dof).
        Computed by a Newton-Euler recursion (module docstring), not by differences; the
        entries depend on the model's kinematics (placements, axes, gravity) only, not on its
        inertias or friction.
    """
    Y = _compiled_regressor(model, q, v, a)
    if Y is not None:
        return Y
    Q, (V, A), single = _common.batch_inputs(model, q, v=v, a=a)
    return unbatch(_regressor(model, Q, V, A), single)


_MODULES = []


def _kernel():
    """(:mod:`artidyn.kernels.dispatch`, :mod:`artidyn.kernels.regressor`), imported on first use
    (numba is imported then, not with artidyn)."""
    if not _MODULES:
        from ..kernels import dispatch
        from ..kernels import regressor as kernel
        _MODULES[:] = [dispatch, kernel]
    return _MODULES


def _compiled_regressor(model, q, v, a):
    """Y through the compiled kernel, or None: kernels off, inputs that are not real numbers
    (complex, SymPy objects), or inputs the kernel finds invalid (the reference then raises the
    error). Single state: one call in the table's own work columns; anything else: the parallel
    batch, inputs broadcast to a common number of states as the reference does."""
    dispatch, kernel = _kernel()
    if not dispatch.kernels_enabled():
        return None
    try:
        B = dispatch._table(model)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    try:
        if q.ndim == 1 and v.ndim == 1 and a.ndim == 1:
            Y = np.empty((model.nv, n_parameters(model)))
            return Y if kernel.regressor_single(B, q, v, a, Y) else None
    except (AttributeError, TypeError):     # lists, scalars, other dtypes: the batch path converts
        pass
    Q, single = dispatch._rows(q, model.nq)
    V, single_v = dispatch._rows(v, model.nv)
    A, single_a = dispatch._rows(a, model.nv)
    if Q is None or V is None or A is None:
        return None
    N = max(Q.shape[0], V.shape[0], A.shape[0])
    if any(n not in (1, N) for n in (Q.shape[0], V.shape[0], A.shape[0])):
        return None
    Q, V, A = (np.broadcast_to(X, (N, X.shape[1])) for X in (Q, V, A))
    out = np.empty((N, model.nv, n_parameters(model)))
    from ..threads import run_chunks
    if any(first != -1 for first in run_chunks(kernel.regressor_batch, dispatch._chunks(N), B, Q, V, A, out)):
        return None
    return out[0] if single and single_v and single_a else out


def _energy_regressors(model, Q, V):
    """(y_kin, y_pot) for a batch: (N, n_params) each."""
    N = Q.shape[0]
    X_up, v, _ = _kinematics(model, Q, V)
    T = _placements_from(model, X_up)
    g = np.asarray(model.gravity, dtype=float)
    dtype = result_dtype(Q, V)
    y_kin = np.zeros((N, n_parameters(model)), dtype=dtype)
    y_pot = np.zeros((N, n_parameters(model)), dtype=result_dtype(Q))
    for i in range(1, model.nb + 1):
        cols = body_columns(model, i)
        y_kin[:, cols] = 0.5 * np.einsum("npk,nk->np", _inertia_columns(v[:, i]), v[:, i])
        R, p = T[:, i, :3, :3], T[:, i, :3, 3]
        y_pot[:, cols.start] = -(p @ g)                             # m:  -g . p_i
        y_pot[:, cols.start + 1:cols.start + 4] = -(g @ R)          # mc: -(R_i^T g)
    y_kin[:, dof_columns(model, "Ia")] = 0.5 * V * V
    return y_kin, y_pot


def energy_regressors(model, q, v):
    """Energy regressors: ``kinetic_energy(q, v) == y_kin @ pi`` (armature included) and
    ``potential_energy(q) == y_pot @ pi`` for a model without springs (gravity only: the
    springs' ``1/2 K (q - rest)^2`` is not in pi).

    Returns (y_kin, y_pot), each (n_params,) or (N, n_params). Friction and offset columns are
    zero (they do no conservative work).
    """
    Q, (V,), single = _common.batch_inputs(model, q, v=v)
    y_kin, y_pot = _energy_regressors(model, Q, V)
    return unbatch(y_kin, single), unbatch(y_pot, single)
