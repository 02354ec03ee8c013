"""Symbolic models and generated code: the customised Newton-Euler of Khalil & Kleinfinger.

Khalil & Dombre, "Modeling, Identification and Control of Robots", ch. 9; Khalil & Kleinfinger,
"Minimum operations and minimum parameters of the dynamic models of tree structure robots" (1987).
Each function returns a :class:`SymbolicModel`: a list of intermediate variables (``WI12 = S2*qd1``)
and outputs, with operation counts (``sm.ops``), LaTeX / Markdown, and numeric code (NumPy, numba,
C): ``sm.lambdify(backend)``.

    sm = inverse_dynamics(model, parameters=None)  # tau = ID(q, qd, qdd), == artidyn.rnea
    mass_matrix(model); gravity(model); coriolis(model[, product=True]); lagrange(model)
    placement(model, frame); jacobian(model, frame, expressed="world")
    closed_loop(model)                              # closed chain: tau_a(q, qda, qdda), independent coordinates

``parameters`` names what stays symbolic (``"M3"``, ``"XX2"``, ``"MX4"``, ``"IA1"``, ``"FV1"``,
``"G"``, ``"PX2"``, groups ``"inertial"``, ``"friction"``, ``"all"``): see
:mod:`artidyn.symbolic.context`. SymPy is imported only when one of these is called.
"""

__all__ = ["inverse_dynamics", "mass_matrix", "gravity", "coriolis", "lagrange", "placement", "jacobian",
           "closed_loop", "SymbolicModel", "planar_chain", "operation_counts"]


def __getattr__(name):
    if name in ("inverse_dynamics", "mass_matrix", "gravity", "coriolis", "lagrange", "placement", "jacobian"):
        from . import models
        return getattr(models, name)
    if name == "closed_loop":
        from .loops import closed_loop
        return closed_loop
    if name == "SymbolicModel":
        from .program import SymbolicModel
        return SymbolicModel
    if name in ("planar_chain", "operation_counts"):
        from . import counts
        return getattr(counts, name)
    raise AttributeError(f"module 'artidyn.symbolic' has no attribute {name!r}")
