"""Contact settings: the laws (Coulomb friction, Newton restitution), the detection margin, the
time-stepping parameters and the solver."""
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

SOLVERS = ("pgs", "admm", "lemke")
CONES = ("soc", "pyramid")
PENETRATION_TOL = 1e-3     # m: an initial penetration deeper than margin + this is reported


@dataclass(frozen=True)
class ContactSettings:
    """How contacts behave and are solved.

    friction : Coulomb coefficient mu (0: frictionless), for every pair whose shapes have none of
        their own (see below).
    restitution : Newton's coefficient e in [0, 1]: the normal velocity after an impact is
        ``-e`` times the one before (``u_n+ + e u_n- >= 0``, complementary to the impulse).
    margin : detection distance (m): pairs closer than this (plus what the bodies can travel in a
        step) are candidates; a candidate becomes active when its gap predicted half a step ahead,
        ``g + gamma h u_n``, is <= 0 (Siconos' rule, gamma = 1/2).
    theta : Moreau-Jean's theta (1/2: the midpoint on the positions; 1: backward Euler).
    gamma : the prediction factor of the active set.
    solver : "admm" (the default: robust to redundant contacts, e.g. a face resting on its
        corners; it factors the dense Delassus matrix, a cost that grows as the cube of the
        contacts), "pgs" (non-smooth Gauss-Seidel over contacts, exact per-contact solves; compiled
        on the blocks of the Delassus matrix that couple contacts sharing a body, so that a sweep
        grows with the contacts: the choice for piles and many-body scenes; it converges linearly,
        so a tight tol may end at max_iter, with the residual in the run's stats), or "lemke"
        (exact, frictionless or the friction pyramid, for small problems).
    cone : "soc" (the exact Coulomb cone) or "pyramid" (4 facets).
    tol, max_iter : the solver's stopping rule.
    joint_limits : the position limits of 1-dof joints as unilateral constraints (frictionless, with
        ``limit_restitution``); False leaves them free (as the smooth integrators do).
    limit_restitution : Newton's coefficient at a joint limit.
    impacts : "simultaneous" (Newton's law on all the contacts of a step at once, in one problem:
        Moreau-Jean's own law) or "sequential" (the approaching contacts first, one binary impact at
        a time, the most approaching first, each with Newton's law on its current velocity; then
        the step without restitution): a chain of touching balls passes the velocity through.
    penetration : what a run does when its initial state has a pair of shapes penetrating deeper
        than ``margin + PENETRATION_TOL`` (1 mm beyond the margin): "warn" (the default: a
        :class:`~artidyn.errors.PenetrationWarning` naming the shapes, their bodies and the depth,
        and the run goes on from that state) or "raise" (an :class:`~artidyn.InputError` with the
        same message). The state is never moved: the Moreau-Jean law works on velocities (the
        pair is active and ``u_n >= 0`` holds, so the bodies neither sink further nor are pushed
        out), so an overlap at the start stays for the whole run; move the bodies apart (or lift
        them by the depth) to start in contact. "exclude_self": the overlapping pairs of two of the
        robot's own bodies (convex hulls of meshes that overlap at the joints in the reference
        posture, as MoveIt's "default collision" pairs) are left out of the run, with a warning
        naming the body pairs; pairs with the world are warned of as by "warn".

    Each collision shape may carry its own ``friction`` and ``restitution``
    (:meth:`artidyn.ModelBuilder.add_collision`, MJCF ``friction``, URDF
    ``<contact><lateral_friction>``); ``friction`` and ``restitution`` here are the defaults of the
    shapes without, and a pair takes the larger of its two shapes' values (MuJoCo's rule for
    friction; :func:`artidyn.geometry.shapes.pair_parameters`).
    """

    friction: float = 0.0
    restitution: float = 0.0
    margin: float = 1e-3
    theta: float = 0.5
    gamma: float = 0.5
    solver: str = "admm"
    cone: str = "soc"
    tol: float = 1e-10
    max_iter: int = 500
    joint_limits: bool = True
    limit_restitution: float = 0.0
    impacts: str = "simultaneous"
    penetration: str = "warn"

    def __post_init__(self):
        for name, lo, hi in (("friction", 0.0, np.inf), ("restitution", 0.0, 1.0), ("margin", 0.0, np.inf),
                             ("theta", 0.0, 1.0), ("gamma", 0.0, 1.0), ("tol", 0.0, np.inf),
                             ("limit_restitution", 0.0, 1.0)):
            x = getattr(self, name)
            if not (isinstance(x, (int, float, np.floating, np.integer)) and lo <= float(x) <= hi):
                raise InputError(f"ContactSettings: {name} must be a number in [{lo}, {hi}], got {x!r}")
        if self.theta < 0.5:
            raise InputError(f"ContactSettings: theta must be in [0.5, 1] (unstable below), got {self.theta}")
        if self.solver not in SOLVERS:
            raise InputError(f"ContactSettings: solver must be one of {', '.join(SOLVERS)}, got {self.solver!r}")
        if self.impacts not in ("simultaneous", "sequential"):
            raise InputError(f"ContactSettings: impacts must be 'simultaneous' or 'sequential', got {self.impacts!r}")
        if self.penetration not in ("warn", "raise", "exclude_self"):
            raise InputError(f"ContactSettings: penetration must be 'warn', 'raise' or 'exclude_self', got "
                             f"{self.penetration!r}")
        if self.cone not in CONES:
            raise InputError(f"ContactSettings: cone must be one of {', '.join(CONES)}, got {self.cone!r}")
        for name in ("joint_limits",):
            x = getattr(self, name)
            if not (isinstance(x, (bool, np.bool_)) or (isinstance(x, (int, np.integer)) and x in (0, 1))):
                raise InputError(f"ContactSettings: {name} must be True or False, got {x!r}")
        if not (isinstance(self.max_iter, (int, np.integer)) and self.max_iter >= 1):
            raise InputError(f"ContactSettings: max_iter must be a positive integer, got {self.max_iter!r}")
