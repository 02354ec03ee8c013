"""A scene: the model, its collision shapes and contact settings, the bilateral constraints, the
inputs (torque tables, controllers, Python functions, external wrenches) and the time grid,
built once from the arguments of :func:`~artidyn.simulate` / :func:`~artidyn.rollout` and
checked once. The compiled pipeline (:mod:`artidyn.kernels.scene_run`) and the readable one
(:mod:`.pipeline`) both read it.

The input stage is the smooth engine's (:mod:`artidyn.kernels.stepping`): a table of torques is
held or interpolated at the step's start ``t_k``; a controller adds its torque on the actuated
dofs; a Python function ``tau(t, q, v)`` (or ``tau(t, q, v, contact_forces)``, which also gets the
contact forces (nb + 1, 3) of the previous step) adds its value, held over the step.
"""
import inspect

import numpy as np

from ..checks import MAX_STATE as _MAX_STATE
from ..configuration import difference, integrate
from ..errors import ShapeError
from ..kernels import slots as K
from .inputs import stage_tables


def _ABS_MAX(x):
    """max |x| (NaN for an array holding NaN), without temporaries."""
    return max(x.max(), -x.min()) if x.size else 0.0


def _row(tt, t, left=False):
    """As :func:`artidyn.kernels.stepping.table_row`."""
    eps = 1e-9 * (abs(t) + (tt[-1] - tt[0]) / max(1, tt.size - 1) + 1e-300)
    x = t - eps if left else t + eps
    if x < tt[0]:
        return 0
    return int(np.searchsorted(tt, x, side="right") - 1)


def _weight(tt, t, k):
    if k + 1 >= tt.size:
        return 0.0
    return min(1.0, max(0.0, (t - tt[k]) / (tt[k + 1] - tt[k])))


def table_value(mode, tt, tv, t):
    """A table input at time t (tv (K, ...)): as :func:`artidyn.kernels.stepping.input_vector`."""
    if mode == K.NONE:
        return np.zeros(tv.shape[1:])
    k = 0 if mode == K.CONSTANT else _row(tt, t)
    if mode == K.LINEAR:
        s = _weight(tt, t, k)
        if s > 0.0:
            return (1.0 - s) * tv[k] + s * tv[k + 1]
    return tv[k].copy()


def _wants_forces(fn):
    """True when the Python function requires a fourth argument (the contact forces)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        return False
    return len(params) >= 4          # a fourth argument with a default value is the function's own


class Inputs:
    """The input stage of a scene: tables, controller, Python functions."""

    def __init__(self, model, tau, f_ext, controller, grid, N, single, friction, forces=None):
        from .forces import check_forces, pack_forces

        self.model = model
        self.forces = check_forces(forces)
        self.fe = pack_forces(model, self.forces)      # the force elements' table (no rows: none)
        (self.tau_mode, self.tau_t, self.tau_v, self.tau_fn, self.f_mode, self.f_t, self.f_v, self.f_fn, code,
         self.gains, self.ref) = stage_tables(model, tau, f_ext, controller, grid, N, single)
        self.forces_arg = self.tau_fn is not None and _wants_forces(self.tau_fn)
        ci = np.zeros(K.CI_SIZE, np.int64)
        ci[K.CI_TAU], ci[K.CI_FEXT], ci[K.CI_CTRL], ci[K.CI_FRICTION] = self.tau_mode, self.f_mode, code, int(friction)
        self.ci, self.friction = ci, bool(friction)
        # writable C arrays always (copied only when not): one compiled specialization of the run
        self.tau_t, self.tau_v, self.f_t, self.f_v, self.gains = (np.require(x, float, ("C", "W")) for x in (
            self.tau_t, self.tau_v, self.f_t, self.f_v, self.gains))
        self.ref = tuple(np.require(x, float, ("C", "W")) for x in self.ref)

    @property
    def python(self):
        """The bits of the Python functions (kernels.scene_run.PY_TAU, PY_FEXT)."""
        return (1 if self.tau_fn is not None else 0) | (2 if self.f_fn is not None else 0)

    def packet(self, r=0):
        """The kernels' input tuple for run r."""
        tv = self.tau_v[r if self.tau_v.shape[0] > 1 else 0]
        fv = self.f_v[r if self.f_v.shape[0] > 1 else 0]
        return (self.ci, self.tau_t, tv, self.f_t, fv, self.gains) + self.ref + (self.fe,)

    # --- the readable input stage --------------------------------------------------------------
    def implicit_damping(self):
        """The damping the Moreau-Jean step takes implicitly beside the joints' (nv): a PD
        controller's kd on its actuated dofs (as :func:`artidyn.kernels.scene_run.implicit_damping`)."""
        if self.ci[K.CI_CTRL] == K.PD:
            return self.gains[K.G_KD] * self.gains[K.G_ACT]
        return np.zeros(self.model.nv)

    def reference(self, t, q, v, forces, r=0):
        """(tau (nv,), f_ext (nb+1, 6) or None) at (t, q, v): the same values as the kernels (f_ext
        with the force elements' wrenches)."""
        from ..dynamics import rnea

        model = self.model
        tau = table_value(self.tau_mode, self.tau_t, self.tau_v[r if self.tau_v.shape[0] > 1 else 0], t)
        F = None
        if self.f_mode != K.NONE:
            F = table_value(self.f_mode, self.f_t, self.f_v[r if self.f_v.shape[0] > 1 else 0], t)
        code = self.ci[K.CI_CTRL]
        if code:
            g = self.gains
            rt, rq, rv, ra = self.ref
            k = _row(rt, t)
            s = _weight(rt, t, k)
            if s == 0.0:
                qr, vr, ar = rq[k], rv[k], ra[k]
            else:
                qr = integrate(model, rq[k], s * difference(model, rq[k], rq[k + 1]))
                vr, ar = (1 - s) * rv[k] + s * rv[k + 1], (1 - s) * ra[k] + s * ra[k + 1]
            fb = g[K.G_KP] * difference(model, q, qr) + g[K.G_KD] * (vr - v)
            if code == K.PD:
                tau = tau + g[K.G_ACT] * fb
            else:
                tau = tau + g[K.G_ACT] * rnea(model, q, v, ar + fb, friction=self.friction)
        if self.python:
            fext = np.zeros((model.nb + 1, 6)) if F is None else F
            q, v = q.view(), v.view()
            q.flags.writeable = v.flags.writeable = False
            self.call_python(t, q, v, forces, tau, fext)
            if self.f_fn is not None:
                F = fext
        if self.forces:
            from .forces import element_wrenches
            Fe = element_wrenches(model, self.forces, q, v)
            F = Fe if F is None else F + Fe
        return tau, F

    def exchange(self):
        """The buffer the compiled loop shares with the Python functions (q, v, the previous contact
        forces, tau, f_ext one after the other) and the function of t it calls in object mode."""
        model = self.model
        nq, nv, nb1 = model.nq, model.nv, model.nb + 1
        X = np.zeros(nq + 2 * nv + 9 * nb1)
        cut = np.cumsum([nq, nv, 3 * nb1, nv])
        q, v, forces, tau, fext = np.split(X, cut)
        forces, fext = forces.reshape(nb1, 3), fext.reshape(nb1, 6)
        views = []
        for x in (q, v, forces):
            x = x.view()
            x.flags.writeable = False
            views.append(x)
        q, v, forces = views
        fn, shape, f64, add = self.tau_fn, tau.shape, np.float64, np.add
        if fn is None or self.f_fn is not None or self.forces_arg:
            return X, (lambda t: self.call_python(t, q, v, forces, tau, fext))

        def call(t):            # the common case, short: tau(t, q, v) returning a float array (nv,)
            out = fn(t, q, v)
            if type(out) is np.ndarray and out.shape == shape and out.dtype == f64:
                add(tau, out, out=tau)      # its range is checked by the compiled loop (PY_RANGE)
            else:
                self.call_python(t, q, v, forces, tau, fext, out)
        return X, call

    def call_python(self, t, q, v, forces, tau, fext, out=None):
        """The user's functions at (t, q, v): tau += tau_fn(...), fext <- f_fn(...), checked (q, v,
        forces read-only; a float array (nv,) of finite values takes the short path)."""
        fn = self.tau_fn
        if fn is not None:
            if out is None:
                out = fn(t, q, v, forces) if self.forces_arg else fn(t, q, v)
            if type(out) is np.ndarray and out.shape == tau.shape and out.dtype == np.float64 and \
                    _ABS_MAX(out) <= _MAX_STATE:           # NaN fails the comparison
                tau += out
            else:
                from .smooth import python_torque as _python_torque, torque_value as _torque_value
                tau += _python_torque(self.model, self._bact(), _torque_value(out, t))
        if self.f_fn is not None:
            out = np.asarray(self.f_fn(t, q, v), dtype=float)
            if out.shape != fext.shape or not np.all(np.isfinite(out)):
                raise ShapeError(f"f_ext(t, q, v) returned shape {out.shape} (or non-finite values) at t = {t:.6g} "
                                 f"s; expected finite {fext.shape}")
            fext[:] = out

    def _bact(self):
        b = getattr(self, "_B", None)
        if b is None:
            from ..dynamics import actuation_matrix
            b = self._B = actuation_matrix(self.model)
        return b
