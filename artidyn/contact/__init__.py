"""Contact: unilateral contacts with Coulomb friction, impacts, and their solvers.

Contacts come from the model's collision shapes (:mod:`artidyn.geometry`)::

    from artidyn.contact import ContactSettings, contact_dynamics
    run = artidyn.simulate(model, q0, v0, t_final=2.0, dt=1e-3,
                           contact=ContactSettings(friction=0.5, restitution=0.3))   # Moreau-Jean
    res = contact_dynamics(model, q, v, tau, ContactSettings(friction=0.5))        # acceleration level

The solvers take the problem in Delassus form (G = J M^-1 J^T, free term b, friction mu)::

    from artidyn.contact import solve_contacts
    sol = solve_contacts(G, b, mu=0.8)                   # block Gauss-Seidel on the Coulomb cone
    sol = solve_contacts(G, b, mu=0.8, method="admm")   # robust to redundant contacts
    sol.lam, sol.u, sol.residuals, sol.iterations, sol.status
"""
from .dynamics import ContactDynamicsResult, contact_dynamics
from .inverse import ContactInverseResult, contact_inverse_dynamics
from .jacobian import contact_frames, contact_jacobian
from .moreau_jean import moreau_jean_step
from .settings import ContactSettings
from .solvers import (ContactSolution, LCPSolution, contact_residuals, lcp_residual, lemke,
                      pgs_lcp, project_cone, solve_contacts)

__all__ = ["ContactDynamicsResult", "ContactInverseResult", "ContactSettings", "ContactSolution", "LCPSolution",
           "contact_dynamics", "contact_inverse_dynamics",
           "contact_frames", "contact_jacobian", "contact_residuals", "lcp_residual", "lemke", "moreau_jean_step",
           "pgs_lcp", "project_cone", "solve_contacts"]
