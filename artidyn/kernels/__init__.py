"""Compiled (numba) kernels behind the public dynamics and kinematics functions.

The public functions (:func:`artidyn.rnea`, ``aba``, ``crba``, ``gravity_torque``,
``nonlinear_effects``, ``body_placements``, ``frame_placement``, ``jacobian``, ``gaha``,
``christoffel``, ``hybrid_dynamics``) first offer their
arguments to :mod:`.dispatch`; float inputs run here, anything else (complex, SymPy objects, bad
input that needs an error message) runs the readable reference code. The kernels work on a
packed flat copy of the model (:mod:`.pack`, cached on ``model._cache``) and mirror the
reference algorithms one to one (tests/test_kernels.py holds them equal to 1e-12).

==================  =============================================================================
module              holds
==================  =============================================================================
``pack``            the packed table (one row per body, MuJoCo-style columns), internal frames
``spatial``         compiled 6-D algebra on the table's columns; sin/cos; input checks
``rnea``            RNEA for one state (+ ``rnea_single``)
``aba``             ABA for one state (+ ``aba_single``)
``crba``            CRBA for one state (+ ``crba_single``)
``kinematics``      placements, frame placement, Jacobian (+ ``*_single``)
``gaha``            the mass matrix by the Gibbs-Appell Hessian (+ ``gaha_single``)
``christoffel``     Christoffel symbols from dM/dq by the derivative of the CRBA (+ ``christoffel_single``)
``hybrid``          hybrid dynamics: ABA with prescribed joints (+ ``hybrid_single``)
``formulations``    the analytical formulations (Lagrange, Gibbs-Appell, Kane, Maggi,
                    Boltzmann-Hamel, Udwadia-Kalaba) for one state; entry points in
                    ``formulations_entry``; small dense algebra in ``dense``
``energy``          kinetic and potential energy of a state
``manifold``        integrate / difference / dexp^-1 on the configuration manifold
``stepping``        the simulation engine: a whole run in one call (``simulate_segment``) and
                    a chunk of a rollout (``rollout``); integrators, inputs, controllers
``slots``           the engine's codes and state slots (numbers only, shared with the Python side)
``batch``           the one ``prange`` entry point (chunks of states on numba's OpenMP threads);
                    the heavier batches run a chunk function on Python threads
                    (:func:`artidyn.threads.run_chunks`)
``dispatch``        the Python side: argument routing, no numba import until the first call
==================  =============================================================================

``with artidyn.kernels.reference_only(): ...`` (or ``use_kernels(False)``) runs the reference
code everywhere, e.g. to compare the two.
"""
from .dispatch import kernels_enabled, reference_only, use_kernels  # noqa: F401
