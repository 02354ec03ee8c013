"""Standard dynamic parameters of a model: the vector ``pi`` of the regressor ``tau = Y pi``.

Layout (``n_params = 10 nb + 4 nv``; :func:`parameter_names` gives one name per entry):

* per moving body i = 1..nb, 10 entries (Khalil & Dombre's standard parameters, chapter 9/12),
  all in body i's frame, about body i's origin ``O_i``::

      [m, mcx, mcy, mcz, XX, XY, XZ, YY, YZ, ZZ]

  ``m`` the mass, ``m c`` the first moment (c: centre of mass in the body frame) and the six
  independent ENTRIES of the 3x3 inertia matrix ``I_O = I_G + m [c][c]^T`` about the origin
  (``XY = I_O[0, 1]``, the matrix entry as in URDF's ``ixy``, not the product of inertia
  ``+int x y dm``). They are read from the model's 6x6 spatial inertia (Featherstone form)::

      model.I[i] = [[I_O, m [c]], [m [c]^T, m 1]]

  (the fixed children a body carries are lumped into it, as in the model).
* then per dof k = 0..nv-1 (in v order, every joint, the floating base included), 4 entries::

      [Ia, Fv, Fc, off]

  armature (rotor inertia, ``Ia a_k``), viscous friction (``Fv v_k``), Coulomb friction
  (``Fc sign(v_k)``) and a constant torque offset (``off``: a torque-sensor or current offset,
  or an unmodelled constant load). The model has ``armature``, ``damping`` and ``coulomb``
  fields but no offset: :func:`parameters_to_model` refuses a nonzero offset unless told to
  drop it (``offsets="drop"``); :func:`model_to_parameters` returns 0 for it.

Joint springs are NOT parameters (see :mod:`artidyn.identification.regressor`).
"""
import numpy as np

from ..builder import INERTIA_TOL
from ..errors import ModelError, ShapeError
from ..spatial.motion import skew

BODY_PARAMS = ("m", "mcx", "mcy", "mcz", "XX", "XY", "XZ", "YY", "YZ", "ZZ")
DOF_PARAMS = ("Ia", "Fv", "Fc", "off")
NB_BODY, NB_DOF = len(BODY_PARAMS), len(DOF_PARAMS)


def n_parameters(model):
    """10 nb + 4 nv."""
    return NB_BODY * model.nb + NB_DOF * model.nv


def body_columns(model, i):
    """slice of body i's 10 parameters in pi (i = 1..nb)."""
    return slice(NB_BODY * (i - 1), NB_BODY * i)


def dof_columns(model, kind):
    """indices in pi of one per-dof parameter ("Ia", "Fv", "Fc" or "off") for dofs 0..nv-1."""
    return NB_BODY * model.nb + NB_DOF * np.arange(model.nv) + DOF_PARAMS.index(kind)


def parameter_names(model):
    """One name per entry of pi: ``"link2.m"``, ``"link2.mcx"``, ``"link2.XX"`` ...,
    ``"joint3.Ia"``, ``"joint3.Fv"``, ``"joint3.Fc"``, ``"joint3.off"``; a joint with several
    dofs numbers them: ``"root_joint[0].Ia"`` ... ``"root_joint[5].off"``."""
    names = [f"{model.body_names[i]}.{p}" for i in range(1, model.nb + 1) for p in BODY_PARAMS]
    for i in range(1, model.nb + 1):
        k = int(model.nv_joint[i])
        for j in range(k):
            dof = model.joint_names[i] if k == 1 else f"{model.joint_names[i]}[{j}]"
            names += [f"{dof}.{p}" for p in DOF_PARAMS]
    return names


def _body_parameters(I6):
    """The 10 standard parameters of one 6x6 spatial inertia (entries read as the kernels do)."""
    return np.array([I6[5, 5], I6[2, 4], I6[0, 5], I6[1, 3],
                     I6[0, 0], I6[0, 1], I6[0, 2], I6[1, 1], I6[1, 2], I6[2, 2]])


def _spatial_inertia(p):
    """6x6 spatial inertia [[I_O, [h]], [[h]^T, m 1]] from 10 standard parameters (exact)."""
    m, h = p[0], p[1:4]
    XX, XY, XZ, YY, YZ, ZZ = p[4:]
    I6 = np.zeros((6, 6))
    I6[:3, :3] = [[XX, XY, XZ], [XY, YY, YZ], [XZ, YZ, ZZ]]
    I6[:3, 3:] = skew(h)
    I6[3:, :3] = skew(h).T
    I6[3:, 3:] = m * np.eye(3)
    return I6


def model_to_parameters(model):
    """The standard parameter vector pi (10 nb + 4 nv,) of a model (layout: module docstring).

    Offsets are 0 (the model has none). Exact: the entries are copied from ``model.I``,
    ``model.armature``, ``model.damping`` and ``model.coulomb``.
    """
    pi = np.zeros(n_parameters(model))
    for i in range(1, model.nb + 1):
        pi[body_columns(model, i)] = _body_parameters(np.asarray(model.I[i], dtype=float))
    pi[dof_columns(model, "Ia")] = model.armature
    pi[dof_columns(model, "Fv")] = model.damping
    pi[dof_columns(model, "Fc")] = model.coulomb
    return pi


def check_physical(where, p, tol=INERTIA_TOL):
    """Physical consistency of 10 standard parameters: m >= 0 and the 4x4 pseudo-inertia
    ``J = [[tr(I_O)/2 1 - I_O, m c], [m c^T, m]]`` positive semidefinite (Wensing, Kim & Slotine
    2017; equivalent to m >= 0, I_G >= 0 and the triangle inequalities). Raises ModelError."""
    m, h = p[0], p[1:4]
    I_O = _spatial_inertia(p)[:3, :3]
    if not np.all(np.isfinite(p)):
        raise ModelError(f"{where}: parameters must be finite, got {p.tolist()}")
    if m < 0:
        raise ModelError(f"{where}: mass must be >= 0, got {m:g}")
    if m == 0 and np.any(h != 0):
        raise ModelError(f"{where}: zero mass with a nonzero first moment m c = {h.tolist()}")
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(I_O) * np.eye(3) - I_O
    J[:3, 3] = J[3, :3] = h
    J[3, 3] = m
    eig = np.linalg.eigvalsh(J)
    if eig.min() < -tol * max(1e-12, np.abs(J).max()) - 1e-14:
        raise ModelError(f"{where}: parameters not physically consistent, pseudo-inertia eigenvalues "
                         f"({', '.join(f'{e:.6g}' for e in eig)}) (m={m:g}, m c={h.tolist()}, "
                         f"I_O diagonal={np.diag(I_O).tolist()})")


def _body_fields(p):
    """(mass, com, inertia at com, 6x6 I) of one body from its 10 parameters."""
    m, h = p[0], p[1:4]
    I6 = _spatial_inertia(p)
    com = h / m if m != 0 else np.zeros(3)
    C = skew(com)
    I_com = I6[:3, :3] - m * (C @ C.T)
    return m, com, I_com, I6


def parameters_to_model(model, pi, check=True, offsets="raise"):
    """A copy of ``model`` with the standard parameters ``pi`` (layout: module docstring).

    Sets ``I`` (exactly the entries of pi), ``mass``, ``com`` and ``inertia_com`` (derived:
    ``com = m c / m``, ``I_G = I_O - m [c][c]^T``; com 0 for a massless body), ``armature``,
    ``damping`` and ``coulomb``. A body whose 10 entries equal those of ``model`` keeps its
    fields unchanged, so ``parameters_to_model(model, model_to_parameters(model))`` has the same
    arrays as ``model``, and ``model_to_parameters(parameters_to_model(model, pi)) == pi``
    exactly (offsets aside).

    Parameters
    ----------
    check : bool
        raise ModelError when a body's parameters are not physically consistent
        (:func:`check_physical`); identified parameters often are not. ``check=False`` builds
        the model anyway (M(q) may then be indefinite). Negative armature, damping or Coulomb
        coefficients are always refused (by ``Model.replace``).
    offsets : "raise" or "drop"
        the model has no offset field: "raise" refuses a nonzero offset (naming the dof),
        "drop" ignores the offsets.
    """
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (n_parameters(model),):
        raise ShapeError(f"pi has shape {pi.shape}, model '{model.name}' needs ({n_parameters(model)},) "
                         f"(10 per body x {model.nb} bodies + 4 per dof x {model.nv} dofs)")
    if offsets not in ("raise", "drop"):
        raise ValueError(f"offsets must be 'raise' or 'drop', got {offsets!r}")
    off = pi[dof_columns(model, "off")]
    if offsets == "raise" and np.any(off != 0):
        names = parameter_names(model)
        bad = [f"{names[c]}={pi[c]:g}" for c in dof_columns(model, "off")[off != 0]]
        raise ModelError(f"model '{model.name}' has no joint offsets; nonzero offsets {', '.join(bad)} "
                         f"(pass offsets='drop' to ignore them)")
    mass, com = np.array(model.mass, dtype=float), np.array(model.com, dtype=float)
    inertia_com, I = np.array(model.inertia_com, dtype=float), np.array(model.I, dtype=float)
    for i in range(1, model.nb + 1):
        p = pi[body_columns(model, i)]
        if np.array_equal(p, _body_parameters(I[i])):
            continue  # unchanged: keep the model's own arrays (exact round trip)
        if check:
            check_physical(f"model '{model.name}', body '{model.body_names[i]}'", p)
        mass[i], com[i], inertia_com[i], I[i] = _body_fields(p)
    return model.replace(mass=mass, com=com, inertia_com=inertia_com, I=I,
                         armature=pi[dof_columns(model, "Ia")], damping=pi[dof_columns(model, "Fv")],
                         coulomb=pi[dof_columns(model, "Fc")])
