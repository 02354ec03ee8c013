"""MuJoCo states of a model read by :func:`artidyn.io.mjcf.load_mjcf`: :class:`MujocoConverter`.

MuJoCo (Todorov et al., "MuJoCo: a physics engine for model-based control", IROS 2012) and
artidyn place the same bodies but write the state differently:

==============  ==========================================  ==========================================
joint           artidyn q / v                               MuJoCo qpos / qvel
==============  ==========================================  ==========================================
hinge, slide    angle / displacement from the file's pose   qpos = q + ref (``qpos0``); qvel = v
ball            quaternion (x, y, z, w) / omega_body        quaternion (w, x, y, z) / omega_body
free            [p, (x, y, z, w)] / [omega_body; v_body]    [p, (w, x, y, z)] / [v_world; omega_body]
==============  ==========================================  ==========================================

The velocity maps are linear, ``qvel = T(q) v``; generalised forces map by the transpose,
``tau = T^T qfrc``, and the mass matrix as ``M = T^T M_mj T``. Joints are matched by name
(MuJoCo's unnamed joints by their order). ``mujoco`` itself is never imported here: the converter
reads the arrays of the ``MjModel`` it is given.
"""
import numpy as np

from ..errors import InputError, ShapeError
from ..joints import FREE, SPHERICAL
from ..spatial.rotations import quat_to_matrix

_HINGE, _SLIDE, _BALL, _FREE = 3, 2, 1, 0      # mjtJoint


class MujocoConverter:
    """Converters between artidyn states and those of a ``mujoco.MjModel`` of the same MJCF file.

    Methods (one state at a time): ``to_mj_qpos`` / ``from_mj_qpos``, ``to_mj_qvel(q, v)`` /
    ``from_mj_qvel(q, qvel)``, ``from_mj_qfrc(q, qfrc)`` (qfrc_bias, qfrc_inverse ...),
    ``to_mj_qfrc(q, tau)``, ``from_mj_matrix(q, M)`` (e.g. ``mujoco.mj_fullM``'s result) and
    ``velocity_map(q)``, the (nv, nv) matrix T with ``qvel = T v``.
    """

    def __init__(self, model, mj_model):
        self.model, self.mj = model, mj_model
        if mj_model.nv != model.nv or mj_model.nq != model.nq or mj_model.njnt != model.nb:
            raise InputError(f"MujocoConverter: artidyn '{model.name}' has nq={model.nq}, nv={model.nv}, {model.nb} "
                             f"joints; MuJoCo's model nq={mj_model.nq}, nv={mj_model.nv}, {mj_model.njnt} joints")
        names = [mj_model.joint(j).name for j in range(mj_model.njnt)]
        order = sorted(range(1, model.nb + 1), key=lambda i: int(model.idx_v[i]))
        self.pairs = []        # (artidyn body i, MuJoCo joint j)
        for j, name in enumerate(names):
            i = model.joint_id(name) if name else order[j]
            jt = int(mj_model.jnt_type[j])
            ok = {_FREE: FREE, _BALL: SPHERICAL}.get(jt, None)
            if (ok is not None and model.joint_type[i] != ok) or (ok is None and model.nv_joint[i] != 1):
                raise InputError(f"MujocoConverter: joint '{model.joint_names[i]}' is {model.joint_kind[i]} in "
                                 f"artidyn, MuJoCo type {jt}")
            self.pairs.append((i, j))

    def _rows(self, i, j):
        m, mj = self.model, self.mj
        return (int(m.idx_q[i]), int(m.idx_v[i]), int(mj.jnt_qposadr[j]), int(mj.jnt_dofadr[j]), int(mj.jnt_type[j]))

    def from_mj_qpos(self, qpos):
        """MuJoCo qpos -> artidyn q."""
        qpos = self._check(qpos, self.mj.nq, "qpos")
        q = np.zeros(self.model.nq)
        for i, j in self.pairs:
            a, _, p, _, jt = self._rows(i, j)
            if jt == _FREE:
                q[a:a + 3], q[a + 3:a + 6], q[a + 6] = qpos[p:p + 3], qpos[p + 4:p + 7], qpos[p + 3]
            elif jt == _BALL:
                q[a:a + 3], q[a + 3] = qpos[p + 1:p + 4], qpos[p]
            else:
                q[a] = qpos[p] - self.mj.qpos0[p]
        return q

    def to_mj_qpos(self, q, check=True):
        """artidyn q -> MuJoCo qpos (``check``: :func:`artidyn.interop.check_configuration` on q first)."""
        q = self._check(q, self.model.nq, "q")
        if check:
            from .convention import check_configuration
            check_configuration(self.model, q)
        qpos = np.zeros(self.mj.nq)
        for i, j in self.pairs:
            a, _, p, _, jt = self._rows(i, j)
            if jt == _FREE:
                qpos[p:p + 3], qpos[p + 4:p + 7], qpos[p + 3] = q[a:a + 3], q[a + 3:a + 6], q[a + 6]
            elif jt == _BALL:
                qpos[p + 1:p + 4], qpos[p] = q[a:a + 3], q[a + 3]
            else:
                qpos[p] = q[a] + self.mj.qpos0[p]
        return qpos

    def velocity_map(self, q):
        """T (nv, nv) with ``qvel = T v`` at the artidyn configuration q (free joints: [R v_b; omega])."""
        q = self._check(q, self.model.nq, "q")
        T = np.zeros((self.mj.nv, self.model.nv))
        for i, j in self.pairs:
            a, va, _, d, jt = self._rows(i, j)
            if jt == _FREE:
                R = quat_to_matrix(q[a + 3:a + 7] / np.linalg.norm(q[a + 3:a + 7]))
                T[d:d + 3, va + 3:va + 6] = R
                T[d + 3:d + 6, va:va + 3] = np.eye(3)
            else:
                n = int(self.model.nv_joint[i])
                T[d:d + n, va:va + n] = np.eye(n)
        return T

    def to_mj_qvel(self, q, v):
        return self.velocity_map(q) @ self._check(v, self.model.nv, "v")

    def from_mj_qvel(self, q, qvel):
        return self.velocity_map(q).T @ self._check(qvel, self.mj.nv, "qvel")   # T is orthogonal

    def _drift(self, q, v):
        """d(T)/dt v: the part of qacc not from a (free joints: R (omega x v_body) on the linear rows)."""
        out = np.zeros(self.mj.nv)
        for i, j in self.pairs:
            a, va, _, d, jt = self._rows(i, j)
            if jt == _FREE:
                R = quat_to_matrix(q[a + 3:a + 7] / np.linalg.norm(q[a + 3:a + 7]))
                out[d:d + 3] = R @ np.cross(v[va:va + 3], v[va + 3:va + 6])
        return out

    def to_mj_qacc(self, q, v, a):
        """artidyn a (free joint: d/dt [omega_b; v_b]) -> MuJoCo qacc = T a + dT/dt v."""
        q, v = self._check(q, self.model.nq, "q"), self._check(v, self.model.nv, "v")
        return self.velocity_map(q) @ self._check(a, self.model.nv, "a") + self._drift(q, v)

    def from_mj_qacc(self, q, v, qacc):
        """MuJoCo qacc -> artidyn a; ``rnea(model, q, v, from_mj_qacc(q, v, 0))`` is qfrc_bias in
        artidyn's coordinates (MuJoCo's bias keeps the world-frame linear velocity constant)."""
        q, v = self._check(q, self.model.nq, "q"), self._check(v, self.model.nv, "v")
        return self.velocity_map(q).T @ (self._check(qacc, self.mj.nv, "qacc") - self._drift(q, v))

    def from_mj_qfrc(self, q, qfrc):
        """A MuJoCo generalised force (qfrc_bias, qfrc_inverse, ...) -> artidyn tau = T^T qfrc."""
        return self.velocity_map(q).T @ self._check(qfrc, self.mj.nv, "qfrc")

    def to_mj_qfrc(self, q, tau):
        return self.velocity_map(q) @ self._check(tau, self.model.nv, "tau")

    def from_mj_matrix(self, q, M):
        """A MuJoCo (nv, nv) matrix over qvel (the mass matrix of ``mj_fullM``) -> artidyn's: T^T M T."""
        T = self.velocity_map(q)
        return T.T @ np.asarray(M, dtype=float) @ T

    @staticmethod
    def _check(x, n, what):
        x = np.asarray(x, dtype=float)
        if x.shape != (n,):
            raise ShapeError(f"MujocoConverter: {what} must have shape ({n},), got {x.shape}")
        return x
