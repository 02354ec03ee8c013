"""The codes and slots the compiled time stepping (:mod:`.stepping`) shares with the Python side.

Numbers only (no numba): :mod:`artidyn.sim.simulate` prepares a run's settings and reads its
state through these names, on the compiled route and on the readable reference route of the
adaptive method (which does not compile anything). Part of the kernels' cache stamp: the compiled
code reads them as constants.
"""

# --- methods, modes, and the slots of the int (ci) / float (cf) settings and state (si, sf) -------
SEMI_IMPLICIT, RK4, IMPLICIT, DOPRI5 = 0, 1, 2, 3
NONE, CONSTANT, HOLD, LINEAR = 0, 1, 2, 3                # tau and f_ext inputs
PD, COMPUTED_TORQUE, PRESCRIBED = 1, 2, 3                              # controllers

CI_METHOD, CI_TAU, CI_FEXT, CI_CTRL, CI_FRICTION, CI_CONSERVATIVE, CI_EVERY, CI_NSTEPS, \
    CI_STEP_LIMIT, CI_MAX_STEPS, CI_CLAMP_SAMPLES, CI_COULOMB, CI_RECORD, CI_BALANCE, CI_SIZE = range(15)
REC_Q, REC_V, REC_A, REC_TAU, REC_ENERGY = 1, 2, 4, 8, 16   # bits of ci[CI_RECORD]: what samples keep
CF_DT, CF_RTOL, CF_ATOL, CF_ENERGY_TOL, CF_ESCALE, CF_T0, CF_BSCALE, CF_SIZE = range(8)

OK, NONFINITE, ENERGY, UNDERFLOW, MAX_STEPS, BAD_INPUT, NOT_SPD = range(7)
DIVERGED = 8   # the energy balance of a run with inputs failed (the contact pipeline's code for it too)
SI_STATUS, SI_STEP, SI_SAMPLE, SI_EVENTS, SI_ACCEPTED, SI_REJECTED, SI_FSAL, SI_EVALS, SI_CHECKS, \
    SI_SIZE = range(10)
SF_T, SF_H, SF_E0, SF_TMAX, SF_DUMAX, SF_DRIFT, SF_ESCALE, SF_U0, SF_SIZE = range(9)
# the energy balance of runs with inputs (ci[CI_BALANCE]): the work of the inputs so far and its
# absolute value, the first energy, the largest kinetic energy, the largest excess over the scale,
# the inputs' power at the step's start (dopri5's FSAL stage)
SF_WORK, SF_ABSW, SF_BE0, SF_KMAX, SF_EXCESS, SF_P1 = range(SF_SIZE, SF_SIZE + 6)
SF_SIZE = SF_SIZE + 6

# W rows (scratch vectors of length max(nq, nv)): the FSAL acceleration and torque (A, TAU), a
# stage's q, xi, v and torque (Q, XI, V, TS), a dense sample's a and tau (DA, DT), the chart point
# of a dense sample (X), the implicit step's right-hand side (T1), the controller's reference and
# scratch (QR, VR, AR, C1, C2), q before the step (QPREV), then the 7 stage rates (KX.., KV..)
W_A, W_TAU, W_Q, W_XI, W_V, W_TS, W_DA, W_DT, W_X, W_T1, W_QR, W_VR, W_AR, W_C1, W_C2, W_QPREV = range(16)
W_KX, W_KV = 16, 23
W_ROWS = 30
G_KP, G_KD, G_ACT, G_DAMP, G_COUL = range(5)   # rows of ``gains`` (nv columns)
PGS_SWEEPS = 200

# Dormand-Prince 5(4) (Hairer, Norsett & Wanner, table 5.2): nodes, matrix, error weights b - b^
DP_C = (0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0)
DP_A = ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        (0.2, 0.0, 0.0, 0.0, 0.0, 0.0),
        (3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0),
        (44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0),
        (19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0, 0.0),
        (9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0.0),
        (35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0))
DP_E = (71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0)
# dense output: y(t + theta h) = y0 + theta (r2 + (1 - theta) (r3 + theta (r4 + (1 - theta) r5))) with
# r2 = y1 - y0, r3 = h k1 - r2, r4 = r2 - h k7 - r3, r5 = h sum_i d_i k_i (same source, sec. II.6)
DP_D = (-12715105075.0 / 11282082432.0, 0.0, 87487479700.0 / 32700410799.0, -10690763975.0 / 1880347072.0,
        701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0, 69997945.0 / 29380423.0)

# force elements (artidyn.sim.forces packs them, kernels.forces reads them): one float row per
# element, its integers (kind, bodies, indices) stored exactly as floats. Columns: kind, body a,
# body b; Drag: point (body frame), c1, c2 (body axes), a1, a2 (body axes), fluid velocity (world);
# Spring: the two points, rest length, damping, law, the coefficients' count (a table's rows);
# JointSpring: the dof's index in v and in q, 1 when it slides, rest and damping in the Spring's
# columns; the polynomial's coefficients k1, k2, ... (or the table: lengths, then tensions) from FE_DATA
FE_KIND, FE_BODY_A, FE_BODY_B = 0, 1, 2
FE_DRAG, FE_SPRING, FE_JOINT_SPRING = 0, 1, 2
FE_POINT, FE_C1, FE_C2, FE_A1, FE_A2, FE_WIND = 3, 6, 9, 12, 15, 18
FE_PA, FE_PB, FE_REST, FE_DAMP, FE_LAW, FE_N = 3, 6, 9, 10, 11, 12
FE_IV, FE_IQ, FE_SLIDES = 3, 4, 5
FE_POLY, FE_TABLE = 0, 1
FE_DATA = 21
