"""A model seen symbolically: inputs, parameters (numeric or left symbolic) and the joint geometry.

Names (Khalil & Dombre, "Modeling, Identification and Control of Robots", ch. 9 and 12; the suffix
is the body / joint number i = 1..nb, run together below 10 and after ``_`` from 10 on:
``XX3``, ``XX_12``):

==========================  ========================================================================
``q1 .. qn``                configuration entries (1-based q index); ``qd1``, ``qdd1``: velocity and
                            acceleration entries (1-based v index)
``S2``, ``C2``              sin and cos of a revolute q entry; ``S23``, ``C23``: of ``q2 + q3``
                            (consecutive parallel revolute axes)
``XX3 XY3 XZ3 YY3 YZ3 ZZ3`` inertia matrix entries of body 3 about its origin, in its axes
``MX3 MY3 MZ3``, ``M3``     first moments (m c) and mass of body 3
``IA3 FV3 FC3``             armature, viscous and Coulomb friction of joint 3 (1-dof joints)
``G1 G2 G3``, ``G``         gravity components in the world; ``G`` its magnitude (fixed direction)
``PX3 PY3 PZ3``             origin of joint 3's frame in its parent body (lengths)
==========================  ========================================================================

``parameters`` (case-insensitive; ``XX12`` is read as ``XX_12``) lists the names to leave symbolic;
the groups ``"inertial"`` (the 10 per body), ``"friction"`` (IA, FV, FC), ``"lengths"`` (the
nonzero PX, PY, PZ) and ``"all"`` (inertial, friction and ``G``) expand. Every other
parameter is the model's number, with 0 and +-1 entries of the geometry snapped exactly (tolerance
1e-12) so that they cost nothing; a body's inertial parameters below 1e-12 times its largest one
(rounding noise such as 1e-19 left by the model's own arithmetic) are taken as 0.
"""
import re

import numpy as np
import sympy as sp

from ..errors import InputError
from ..joints import CYLINDRICAL, FREE, HELICAL, PRISMATIC, REVOLUTE, SPHERICAL, pitch_of
from .expr import SNAP, Emitter, index_tag, num, snap

BODY_NAMES = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
DOF_NAMES = ("IA", "FV", "FC")
GEOM_NAMES = ("PX", "PY", "PZ")


def _body_values(I6):
    """The 10 standard parameters of a 6x6 spatial inertia [[I_O, m[c]], [m[c]^T, m 1]]."""
    return {"XX": I6[0, 0], "XY": I6[0, 1], "XZ": I6[0, 2], "YY": I6[1, 1], "YZ": I6[1, 2], "ZZ": I6[2, 2],
            "MX": I6[2, 4], "MY": I6[0, 5], "MZ": I6[1, 3], "M": I6[5, 5]}


class Context:
    """Symbols of one model: q/qd/qdd entries, parameters, sin/cos, per-joint rotations."""

    def __init__(self, model, parameters=None):
        self.model = model
        self.E = Emitter()
        self.q = [self._sym(f"q{k + 1}") for k in range(model.nq)]
        self.qd = [self._sym(f"qd{k + 1}") for k in range(model.nv)]
        self.qdd = [self._sym(f"qdd{k + 1}") for k in range(model.nv)]
        self.values = self._numeric_values()
        self.symbolic = self._parse(parameters)
        self.params = {n: (self._sym(n) if n in self.symbolic else
                           (snap(v) if n[:2] in GEOM_NAMES else num(v))) for n, v in self.values.items()}
        g = np.asarray(model.gravity, dtype=float)
        if "G" in self.symbolic:
            gn = float(np.linalg.norm(g))
            if gn == 0:
                raise InputError(f"parameters: 'G' (gravity magnitude) needs a nonzero gravity; model "
                                 f"'{model.name}' has gravity {g.tolist()}")
            self.gravity = [self.params["G"] * snap(x / gn) for x in g]
        else:
            self.gravity = [self.params[f"G{k + 1}"] for k in range(3)]
        self._sincos = {}
        self._memo = {}
        for n in self.values:
            self.E.reserve(n)

    def _sym(self, name):
        self.E.reserve(name)
        return sp.Symbol(name, real=True)

    # --- parameters ------------------------------------------------------------------------
    def _numeric_values(self):
        m = self.model
        vals = {}
        for i in range(1, m.nb + 1):
            t = index_tag(i)
            body = _body_values(np.asarray(m.I[i]))
            noise = SNAP * max(abs(float(v)) for v in body.values())
            for k, v in body.items():           # rounding noise of the model's arithmetic (1e-19) -> 0
                vals[k + t] = float(v) if abs(float(v)) > noise else 0.0
            for k, v in zip(GEOM_NAMES, m.joint_placement[i][:3, 3]):
                vals[k + t] = float(v)
            if m.nv_joint[i] == 1:
                dof = int(m.idx_v[i])
                vals["IA" + t] = float(m.armature[dof])
                vals["FV" + t] = float(m.damping[dof])
                vals["FC" + t] = float(m.coulomb[dof])
        g = np.asarray(m.gravity, dtype=float)
        for k in range(3):
            vals[f"G{k + 1}"] = float(g[k])
        vals["G"] = float(np.linalg.norm(g))
        return vals

    def _parse(self, parameters):
        if parameters is None:
            return set()
        if isinstance(parameters, str):
            parameters = [parameters]
        out = set()
        for p in parameters:
            name = str(p).strip().upper()
            if name in ("INERTIAL", "ALL"):
                out |= {n for n in self.values if n.rstrip("0123456789_") in BODY_NAMES}
            if name in ("FRICTION", "ALL"):
                out |= {n for n in self.values if n[:2] in DOF_NAMES}
            if name == "ALL":
                out.add("G")
            if name == "LENGTHS":
                out |= {n for n in self.values if n[:2] in GEOM_NAMES and self.values[n] != 0}
            if name in ("INERTIAL", "FRICTION", "ALL", "LENGTHS"):
                continue
            mt = re.match(r"^([A-Z]+)(\d+)$", name)
            if mt and int(mt.group(2)) >= 10 and name not in self.values:
                name = f"{mt.group(1)}_{mt.group(2)}"
            if name not in self.values:
                import difflib
                close = difflib.get_close_matches(name, list(self.values), n=3)
                hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
                raise InputError(f"parameters: unknown parameter {p!r} for model '{self.model.name}'{hint} "
                                 f"(names: XX3 ... ZZ3, MX3 MY3 MZ3 M3 per body, IA3 FV3 FC3 per 1-dof joint, "
                                 f"PX3 PY3 PZ3 lengths, G1 G2 G3 or G gravity; groups 'inertial', 'friction', 'lengths', 'all')")
            out.add(name)
        if "G" in out and out & {"G1", "G2", "G3"}:
            raise InputError("parameters: give either 'G' (gravity magnitude) or components 'G1' 'G2' 'G3', not both")
        return out

    def p(self, name, i=None):
        """A parameter: its symbol when left symbolic, else its number."""
        return self.params[name + ("" if i is None else index_tag(i))]

    def inertia(self, i):
        """(J 3x3, MS 3, M) of body i, about its origin in its axes."""
        P = lambda k: self.p(k, i)  # noqa: E731
        J = [[P("XX"), P("XY"), P("XZ")], [P("XY"), P("YY"), P("YZ")], [P("XZ"), P("YZ"), P("ZZ")]]
        return J, [P("MX"), P("MY"), P("MZ")], P("M")

    def dof_param(self, name, i, j):
        """IA / FV / FC of dof j of joint i (symbolic only on 1-dof joints)."""
        m = self.model
        if m.nv_joint[i] == 1:
            return self.p(name, i)
        arr = {"IA": m.armature, "FV": m.damping, "FC": m.coulomb}[name]
        return num(arr[int(m.idx_v[i]) + j])

    # --- sin / cos ---------------------------------------------------------------------------
    def sincos(self, ks):
        """(S, C) of the sum of the q entries ``ks`` (0-based), named S2 / S23 ..."""
        ks = tuple(ks)
        if ks not in self._sincos:
            arg = sum(self.q[k] for k in ks)
            tag = "".join(str(k + 1) for k in ks) if all(k < 9 for k in ks) else "_".join(str(k + 1) for k in ks)
            self._sincos[ks] = (self.E.var(sp.sin(arg), f"S{tag}"), self.E.var(sp.cos(arg), f"C{tag}"))
        return self._sincos[ks]

    # --- joint geometry ------------------------------------------------------------------------
    def joint(self, i):
        """(type, axis (3 exact), q entries, qd, qdd of joint i)."""
        m = self.model
        t = int(m.joint_type[i])
        a = [snap(x) for x in m.joint_axis[i]]
        q0, v0 = int(m.idx_q[i]), int(m.idx_v[i])
        return t, a, list(range(q0, q0 + int(m.nq_joint[i]))), self.qd[v0:v0 + int(m.nv_joint[i])], \
            self.qdd[v0:v0 + int(m.nv_joint[i])]

    def subspace(self, i):
        """(angular rows, linear rows) of S_i: lists of nv_i columns of 3 exact entries."""
        S = np.asarray(self.model.S[i])
        ang = [[snap(S[r, c]) for r in range(3)] for c in range(S.shape[1])]
        lin = [[snap(S[r, c]) for r in range(3, 6)] for c in range(S.shape[1])]
        return ang, lin

    def RP(self, i):
        """Constant rotation of joint i's frame in the parent body (3x3 exact / Float)."""
        P = self.model.joint_placement[i]
        return [[snap(P[r, c]) for c in range(3)] for r in range(3)]

    def pos_fixed(self, i):
        """Origin of joint i's frame in the parent body (numbers or PX/PY/PZ symbols)."""
        return [self.p(k, i) for k in GEOM_NAMES]

    def rot_axis(self, a, ks, tag):
        """Rot(a, sum q_ks) (Rodrigues) with S/C names; sparse for a coordinate axis."""
        S, C = self.sincos(ks)
        ax = [[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]]
        ax2 = [[sum(ax[r][k] * ax[k][c] for k in range(3)) for c in range(3)] for r in range(3)]
        omc = None
        out = []
        for r in range(3):
            row = []
            for c in range(3):
                e = (1 if r == c else 0) + ax[r][c] * S
                if ax2[r][c] != 0:
                    if sp.sympify(ax2[r][c] + (1 if r == c else 0)) == 0 and r == c:
                        e = ax[r][c] * S + C                  # 1 - (1 - C) on the axis' normal plane
                    else:
                        omc = omc if omc is not None else self.E.var(1 - C, f"OC{tag}")
                        e = e + ax2[r][c] * omc
                row.append(self.E.var(e, f"RJ{r + 1}{c + 1}{tag}"))
            out.append(row)
        return out

    def quat_matrix(self, qs, tag):
        """Rotation of the unit quaternion (x, y, z, w) held by the q entries ``qs``."""
        x, y, z, w = (self.q[k] for k in qs)
        E = self.E
        v = lambda e, n: E.var(e, n + tag)  # noqa: E731
        xx, yy, zz = v(x * x, "QXX"), v(y * y, "QYY"), v(z * z, "QZZ")
        xy, xz, yz = v(x * y, "QXY"), v(x * z, "QXZ"), v(y * z, "QYZ")
        xw, yw, zw = v(x * w, "QXW"), v(y * w, "QYW"), v(z * w, "QZW")
        R = [[1 - 2 * (yy + zz), 2 * (xy - zw), 2 * (xz + yw)],
             [2 * (xy + zw), 1 - 2 * (xx + zz), 2 * (yz - xw)],
             [2 * (xz - yw), 2 * (yz + xw), 1 - 2 * (xx + yy)]]
        return [[E.var(R[r][c], f"RJ{r + 1}{c + 1}{tag}") for c in range(3)] for r in range(3)]

    def RJ(self, i):
        """Rotation of the joint transform T_J(q_i) (3x3 expressions); None for the identity."""
        key = ("RJ", i)
        if key not in self._memo:
            self._memo[key] = self._RJ(i)
        return self._memo[key]

    def _RJ(self, i):
        t, a, qs, _, _ = self.joint(i)
        tag = index_tag(i)
        if t in (REVOLUTE, CYLINDRICAL, HELICAL):
            return self.rot_axis(a, qs[:1], tag)
        if t == SPHERICAL:
            return self.quat_matrix(qs, tag)
        if t == FREE:
            return self.quat_matrix(qs[3:7], tag)
        if t == PRISMATIC:
            return None
        raise InputError(f"symbolic: {self.model.describe_joint(i)}: unsupported joint type")

    def pos(self, i):
        """Origin of body i in its parent body: P.p + R_P t_J(q) (3 expressions)."""
        key = ("pos", i)
        if key not in self._memo:
            self._memo[key] = self._pos(i)
        return self._memo[key]

    def _pos(self, i):
        t, a, qs, _, _ = self.joint(i)
        p = self.pos_fixed(i)
        tJ = None
        if t == PRISMATIC:
            tJ = [x * self.q[qs[0]] for x in a]
        elif t == CYLINDRICAL:
            tJ = [x * self.q[qs[1]] for x in a]
        elif t == HELICAL:          # the screw's slide: pitch * angle along the axis
            h = snap(pitch_of(t, self.model.S[i]))
            tJ = [x * h * self.q[qs[0]] for x in a]
        elif t == FREE:
            tJ = [self.q[k] for k in qs[:3]]
        if tJ is None:
            return p
        R = self.RP(i)
        return self.E.vec([p[r] + sum(R[r][c] * tJ[c] for c in range(3)) for r in range(3)], "P", index_tag(i))


def matvec(R, x):
    """R x for 3x3 / 3 lists (no emission)."""
    return [sum(R[r][c] * x[c] for c in range(3)) for r in range(3)]


def matTvec(R, x):
    """R^T x for 3x3 / 3 lists (no emission)."""
    return [sum(R[c][r] * x[c] for c in range(3)) for r in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def is_identity(R):
    return all(sp.sympify(R[r][c]) == (1 if r == c else 0) for r in range(3) for c in range(3))
