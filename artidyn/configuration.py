"""Configuration space: input checks, ``neutral``, ``integrate``, ``difference``, random states.

``q`` lives on a manifold (quaternions for spherical and free joints): move on it only with
:func:`integrate` and :func:`difference`. Every function accepts one state or a batch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .checks import MAX_STATE, as_model, check_object_array
from .errors import InputError, ShapeError, check_count, check_number, shown
from .joints import CYLINDRICAL, FREE, HELICAL, SPHERICAL
from .model import Model
from .spatial._num import cross
from .spatial.motion import cross_motion, homogeneous
from .spatial.rotations import (QUAT_TOL, exp3, exp6, log3, log6, matrix_to_quat, quat_conjugate,
                                quat_multiply, quat_to_matrix, quat_to_rotvec)

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from ._typing import Array


def as_batch(model: Model, x: ArrayLike, name: str, size_attr: str | int,
             allow_object: bool = True) -> tuple[Array, bool]:
    """Check one state (n,) or a batch (N, n); return (2-D array, was_single).

    Raises ShapeError naming the argument and the expected size, InputError on NaN / inf, on
    entries beyond :data:`artidyn.checks.MAX_STATE` (1e100: the results would overflow), on object
    arrays of anything but numbers and SymPy expressions, and when ``model`` is not a Model.
    """
    if not isinstance(model, Model):
        as_model(model)
    size = getattr(model, size_attr) if isinstance(size_attr, str) else int(size_attr)
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:   # ragged nested lists ...
        raise InputError(f"{name}: not an array of numbers ({str(exc).split('.')[0]})") from None
    if arr.dtype == object and not allow_object:
        raise InputError(f"{name}: numeric input expected, got an object array")
    if arr.dtype == object:
        check_object_array(arr, name)
    if arr.dtype != object and not np.issubdtype(arr.dtype, np.complexfloating):
        try:
            arr = arr.astype(float, copy=False)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{name}: cannot convert to numbers ({exc})") from None
    single = arr.ndim == 1
    if arr.ndim not in (1, 2) or arr.shape[-1] != size:
        what = f"nq = {model.nq}" if size_attr == "nq" else (f"nv = {model.nv}" if size_attr == "nv" else f"{size}")
        got = arr.shape[-1] if arr.ndim in (1, 2) else arr.shape
        hint = ""
        if model.nq != model.nv and size_attr in ("nq", "nv") and got in (model.nq, model.nv):
            hint = ("; this is nv: a velocity passed as a configuration?" if size_attr == "nq"
                    else "; this is nq: a configuration passed as a velocity?")
        raise ShapeError(f"{name} has {got} entries, model '{model.name}' needs {what} "
                         f"(one state of shape ({size},) or a batch of shape (N, {size})); got shape {arr.shape}"
                         f"{hint}")
    if arr.dtype != object and not np.all(np.abs(arr) <= MAX_STATE):   # NaN fails the comparison too
        if not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(np.atleast_2d(arr)))[0]
            raise InputError(f"{name} contains NaN or infinite values (first at state {bad[0]}, entry {bad[1]}) "
                             f"for model '{model.name}'")
        bad = np.argwhere(~(np.abs(np.atleast_2d(arr)) <= MAX_STATE))[0]
        raise InputError(f"{name}: entry {bad[1]} of state {bad[0]} is {np.atleast_2d(arr)[tuple(bad)]:.6g}, beyond "
                         f"the accepted range +/-{MAX_STATE:g} (artidyn.checks.MAX_STATE) for model '{model.name}': "
                         f"the results would overflow")
    return (arr[None, :] if single else arr), single


def as_q(model: Model, q: ArrayLike, name: str = "q", tol: float = QUAT_TOL) -> tuple[Array, bool]:
    """as_batch for configurations, plus quaternion checks (normalise within ``tol``, else refuse)."""
    Q, single = as_batch(model, q, name, "nq")
    if Q.dtype == object or not model.quaternion_slices:
        return Q, single
    Q = Q.astype(np.result_type(Q.dtype, float))  # a copy; complex stays complex (complex step)
    for s in model.quaternion_slices:
        n = np.sqrt(np.sum(Q[:, s] * Q[:, s], axis=1))  # analytic norm: equals |q| for real q
        bad = np.abs(n.real - 1) > tol
        if np.any(bad):
            k = int(np.argmax(bad))
            j = _joint_at_q(model, s.start)
            raise InputError(
                f"{name}[{s.start}:{s.stop}] (joint '{model.joint_names[j]}') is not a unit quaternion "
                f"(x, y, z, w): norm {n[k].real:.9g}{'' if single else f' in state {k}'}, allowed 1 +/- {tol:g}; "
                f"normalise it or move with artidyn.integrate")
        Q[:, s] /= n[:, None]
    return Q, single


def _joint_at_q(model, k):
    for i in range(1, model.nb + 1):
        if model.idx_q[i] <= k < model.idx_q[i] + model.nq_joint[i]:
            return i
    return 0


def batch_size(model: Model, **sizes: int) -> int:
    """The common batch size N of arguments with ``sizes[name]`` states each (1 broadcasts)."""
    N = max(sizes.values())
    if any(n not in (1, N) for n in sizes.values()):
        raise ShapeError(f"batch sizes do not match for model '{model.name}': "
                         + ", ".join(f"{k} has {n} states" for k, n in sizes.items()))
    return N


def unbatch(x: Array, single: bool) -> Array:
    return x[0] if single else x


def neutral(model: Model) -> Array:
    """The reference configuration: zeros, unit quaternions (0, 0, 0, 1)."""
    q = np.zeros(model.nq)
    for s in model.quaternion_slices:
        q[s.stop - 1] = 1.0
    return q


def integrate(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """q (+) v: the configuration reached from ``q`` by following the velocity ``v`` for unit time.

    Spherical joints: R' = R exp(omega); free joint: T' = T exp6([omega; v]) (body frame), as in
    pinocchio. Flat joints (revolute, prismatic, cylindrical, helical): q + v.
    """
    Q, single = as_q(model, q)
    V, single_v = as_batch(model, v, "v", "nv")
    N = batch_size(model, q=Q.shape[0], v=V.shape[0])
    Q = np.broadcast_to(Q, (N, model.nq))
    V = np.broadcast_to(V, (N, model.nv))
    out = np.array(Q, dtype=float)
    for i in range(1, model.nb + 1):
        iq, iv = model.idx_q[i], model.idx_v[i]
        t = model.joint_type[i]
        if t == SPHERICAL:
            out[:, iq:iq + 4] = _quat_normal(quat_multiply(Q[:, iq:iq + 4], _rotvec_quat(V[:, iv:iv + 3])))
        elif t == FREE:
            T = homogeneous(quat_to_matrix(Q[:, iq + 3:iq + 7]), Q[:, iq:iq + 3])
            Tn = T @ exp6(V[:, iv:iv + 6])
            out[:, iq:iq + 3] = Tn[:, :3, 3]
            out[:, iq + 3:iq + 7] = _quat_normal(quat_multiply(Q[:, iq + 3:iq + 7], _rotvec_quat(V[:, iv:iv + 3])))
        else:
            n = model.nq_joint[i]
            out[:, iq:iq + n] = Q[:, iq:iq + n] + V[:, iv:iv + n]
    if out.dtype != object and not np.all(np.isfinite(out)):
        n, k = np.argwhere(~np.isfinite(out))[0]
        raise InputError(f"integrate: q + v overflows for model '{model.name}' (state {n}, q entry {k}); "
                         f"v is too large")
    return unbatch(out, single and single_v)


def difference(model: Model, q0: ArrayLike, q1: ArrayLike) -> Array:
    """The velocity v with integrate(q0, v) == q1 (on the manifold, shortest rotation)."""
    Q0, s0 = as_q(model, q0, "q0")
    Q1, s1 = as_q(model, q1, "q1")
    batch_size(model, q0=Q0.shape[0], q1=Q1.shape[0])
    Q0, Q1 = np.broadcast_arrays(Q0, Q1)
    out = np.zeros((Q0.shape[0], model.nv))
    for i in range(1, model.nb + 1):
        iq, iv = model.idx_q[i], model.idx_v[i]
        t = model.joint_type[i]
        if t == SPHERICAL:
            out[:, iv:iv + 3] = quat_to_rotvec(quat_multiply(quat_conjugate(Q0[:, iq:iq + 4]), Q1[:, iq:iq + 4]))
        elif t == FREE:
            T0 = homogeneous(quat_to_matrix(Q0[:, iq + 3:iq + 7]), Q0[:, iq:iq + 3])
            T1 = homogeneous(quat_to_matrix(Q1[:, iq + 3:iq + 7]), Q1[:, iq:iq + 3])
            R0t = np.swapaxes(T0[:, :3, :3], 1, 2)
            rel = homogeneous(R0t @ T1[:, :3, :3], (R0t @ (T1[:, :3, 3] - T0[:, :3, 3])[..., None])[..., 0])
            out[:, iv:iv + 6] = log6(rel)
        else:
            n = model.nq_joint[i]
            out[:, iv:iv + n] = Q1[:, iq:iq + n] - Q0[:, iq:iq + n]
    return unbatch(out, s0 and s1)


def _rotvec_quat(w):
    th = np.linalg.norm(w, axis=-1)
    small = th < 1e-8
    k = np.where(small, 0.5 - th**2 / 48, np.sin(th / 2) / np.where(small, 1.0, th))
    return np.concatenate([k[..., None] * w, np.cos(th / 2)[..., None]], -1)


def _quat_normal(q):
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def random_configuration(model: Model, rng: int | np.random.Generator | None = None, size: int | None = None,
                         position_bound: float = 1.0) -> Array:
    """A random configuration inside the joint limits.

    Unlimited revolute joints: uniform in [-pi, pi]; unlimited prismatic: [-1, 1] m (a joint
    limited on one side only: a window of width 2 pi or 2 m from that limit; a cylindrical joint
    as a revolute then a prismatic one, a helical joint as a revolute one); floating
    base: position uniform in [-position_bound, position_bound]^3, orientation a uniform random
    unit quaternion; spherical: uniform unit quaternion. ``size`` gives a batch (size, nq).
    """
    rng = _generator(rng, "random_configuration")
    N = 1 if size is None else check_count(size, "random_configuration: size")
    position_bound = check_number(position_bound, "random_configuration: position_bound", minimum=0.0)
    q = np.zeros((N, model.nq))
    for i in range(1, model.nb + 1):
        iq, t = model.idx_q[i], model.joint_type[i]
        if t in (SPHERICAL, FREE):
            k = iq + (3 if t == FREE else 0)
            u = rng.normal(size=(N, 4))
            q[:, k:k + 4] = u / np.linalg.norm(u, axis=1, keepdims=True)
            if t == FREE:
                q[:, iq:iq + 3] = rng.uniform(-position_bound, position_bound, size=(N, 3))
        else:
            for j in range(model.nq_joint[i]):
                lo, hi = model.lower[iq + j], model.upper[iq + j]
                turns = (model.joint_kind[i] in ("revolute", "continuous") or (t == CYLINDRICAL and j == 0)
                         or t == HELICAL)
                default = np.pi if turns else 1.0
                if np.isfinite(lo) != np.isfinite(hi):  # one-sided limit: a window of width 2 default
                    lo, hi = (lo, lo + 2 * default) if np.isfinite(lo) else (hi - 2 * default, hi)
                lo = lo if np.isfinite(lo) else -default
                hi = hi if np.isfinite(hi) else default
                q[:, iq + j] = rng.uniform(lo, hi, size=N)
    return q[0] if size is None else q


def random_velocity(model: Model, rng: int | np.random.Generator | None = None, size: int | None = None,
                    scale: float = 1.0) -> Array:
    """A random velocity (standard normal times ``scale``)."""
    rng = _generator(rng, "random_velocity")
    shape = (model.nv,) if size is None else (check_count(size, "random_velocity: size"), model.nv)
    return check_number(scale, "random_velocity: scale") * rng.normal(size=shape)


def _generator(rng, where):
    """numpy's Generator for ``rng`` (None, a seed, a SeedSequence, a Generator ...), or an
    InputError naming the function: numpy's own words ("SeedSequence expects int or sequence of
    ints for entropy") name neither."""
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise InputError(f"{where}: rng must be None, an integer seed >= 0 or a numpy Generator, got "
                         f"{shown(rng)}") from None


def within_limits(model: Model, q: ArrayLike, tol: float = 0.0) -> bool | Array:
    """True where every flat joint variable of ``q`` is inside its limits."""
    Q, single = as_q(model, q)
    tol = check_number(tol, "within_limits: tol")
    ok = np.all((Q >= model.lower - tol) & (Q <= model.upper + tol), axis=1)
    return bool(ok[0]) if single else ok


# B_k / k! for the right-trivialised dexp^-1 (signs of the odd term flipped): k = 1, 2, 4, 6
_DEXPINV = ((1, 1.0 / 2), (2, 1.0 / 12), (4, -1.0 / 720), (6, 1.0 / 30240), (8, -1.0 / 1209600))


def lie_slices(model: Model) -> list[tuple[slice, Callable[[Array, Array], Array]]]:
    """[(slice of v, bracket)] for the joints whose chart is not flat (spherical, free)."""
    key = "sim.lie_slices"
    if key not in model._cache:
        out = []
        for i in range(1, model.nb + 1):
            s = slice(int(model.idx_v[i]), int(model.idx_v[i] + model.nv_joint[i]))
            if model.joint_type[i] == SPHERICAL:
                out.append((s, cross))
            elif model.joint_type[i] == FREE:
                out.append((s, cross_motion))
        model._cache[key] = out
    return model._cache[key]


def dexp_inv(model: Model, xi: ArrayLike, v: ArrayLike) -> Array:
    """Chart velocity d xi / dt of a body velocity ``v`` at the chart point ``xi`` (both (N, nv),
    or (nv,)): in the chart ``q(xi) = integrate(q_k, xi)``, ``d xi/dt = v + 1/2 ad_xi v + 1/12
    ad_xi^2 v - ...`` (right-trivialised, Bernoulli numbers; Munthe-Kaas' RKMK methods), the
    series cut after ``ad^8``."""
    single = np.ndim(v) == 1
    xi, v = np.atleast_2d(xi), np.atleast_2d(v)
    out = np.array(v, dtype=float)
    for s, ad in lie_slices(model):
        x, w = xi[:, s], v[:, s]
        term, power = w, 0
        for k, coef in _DEXPINV:
            while power < k:
                term, power = ad(x, term), power + 1
            out[:, s] += coef * term
    return out[0] if single else out


def dexp_inv_jacobians(model: Model, xi: ArrayLike, v: ArrayLike) -> tuple[Array, Array]:
    """``(G, D)`` (nv x nv each) at one chart point: ``dexp_inv(xi, v) = G(xi) v`` and ``D`` its
    derivative with respect to ``xi`` at fixed ``v``. With ``ad_xi w = -ad_w xi`` (the bracket is
    antisymmetric), ``d(ad_xi^k v) = sum_{j<k} ad_xi^j ad_{dxi} ad_xi^(k-1-j) v = -sum_{j<k} ad_xi^j
    ad_(w_(k-1-j)) dxi`` with ``w_m = ad_xi^m v``; the same truncated series as :func:`dexp_inv`."""
    xi, v = np.asarray(xi, dtype=float), np.asarray(v, dtype=float)
    G, D = np.eye(model.nv), np.zeros((model.nv, model.nv))
    for i in range(1, model.nb + 1):
        t = model.joint_type[i]
        if t not in (SPHERICAL, FREE):
            continue
        s = slice(int(model.idx_v[i]), int(model.idx_v[i] + model.nv_joint[i]))
        A = _ad_matrix(t, xi[s])
        top = _DEXPINV[-1][0]
        P, w = [np.eye(A.shape[0])], [v[s]]          # A^m and w_m, m = 0 .. top
        for _ in range(top):
            P.append(A @ P[-1])
            w.append(A @ w[-1])
        for k, coef in _DEXPINV:
            G[s, s] += coef * P[k]
            D[s, s] -= coef * sum(P[j] @ _ad_matrix(t, w[k - 1 - j]) for j in range(k))
    return G, D


def rkmk4(model: Model, accel: Callable[[float, Array, Array], Array], t: float, q: Array, v: Array,
          h: float) -> tuple[Array, Array]:
    """One classical Runge-Kutta step of ``qdot = v`` (on the manifold), ``vdot = accel(t, q, v)``
    for one state, in the chart at ``q`` (RKMK4: the chart velocity ``dexp_inv(xi, v)`` at each
    stage): fourth order also for rotating bodies. Returns ``(q_next, v_next)``."""
    k1x, k1v = v, accel(t, q, v)
    x2, v2 = 0.5 * h * k1x, v + 0.5 * h * k1v
    k2x, k2v = dexp_inv(model, x2, v2), accel(t + 0.5 * h, integrate(model, q, x2), v2)
    x3, v3 = 0.5 * h * k2x, v + 0.5 * h * k2v
    k3x, k3v = dexp_inv(model, x3, v3), accel(t + 0.5 * h, integrate(model, q, x3), v3)
    x4, v4 = h * k3x, v + h * k3v
    k4x, k4v = dexp_inv(model, x4, v4), accel(t + h, integrate(model, q, x4), v4)
    return (integrate(model, q, h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)),
            v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v))


def _ad_matrix(t, xi):
    """The matrix of ``ad_xi`` for a spherical joint (``[xi]x``) or a free joint (``crm(xi)``)."""
    def sk(w):
        return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    if t == SPHERICAL:
        return sk(xi)
    out = np.zeros((6, 6))
    out[:3, :3] = out[3:, 3:] = sk(xi[:3])
    out[3:, :3] = sk(xi[3:])
    return out


def dintegrate(model: Model, q: ArrayLike, v: ArrayLike) -> tuple[Array, Array]:
    """The Jacobians of ``q (+) v`` in the tangent spaces: ``(J_q, J_v)`` (nv x nv each), with
    ``integrate(q (+) dq, v) = integrate(q, v) (+) (J_q dq)`` and ``integrate(q, v + dv) =
    integrate(q, v) (+) (J_v dv)`` to first order. Vector joints: identities; spherical and free
    joints (right-trivialised, ``R exp(v)``, ``T exp6(v)``): ``J_q = Ad(exp(-v)) = exp(-ad_v)``
    and ``J_v`` the right Jacobian of the exponential, ``sum_k (-ad_v)^k / (k + 1)!`` (Chirikjian,
    "Stochastic Models, Information Theory, and Lie Groups", vol. 2; pinocchio's dIntegrate)."""
    import scipy.linalg

    v = np.asarray(v, dtype=float)
    Jq, Jv = np.eye(model.nv), np.eye(model.nv)
    for i in range(1, model.nb + 1):
        t = model.joint_type[i]
        if t not in (SPHERICAL, FREE):
            continue
        s = slice(int(model.idx_v[i]), int(model.idx_v[i] + model.nv_joint[i]))
        ad = _ad_matrix(t, v[s])
        n = ad.shape[0]
        block = np.zeros((2 * n, 2 * n))
        block[:n, :n], block[:n, n:] = -ad, np.eye(n)
        E = scipy.linalg.expm(block)          # [[exp(-ad), phi_1(-ad)], [0, I]]
        Jq[s, s], Jv[s, s] = E[:n, :n], E[:n, n:]
    return Jq, Jv
