"""The shared vocabulary of the compiled narrow phase (:mod:`.contact_geometry`, :mod:`.convex`,
:mod:`.gjk`): the shape kinds and columns of the shape table ``SH``, the contact buffer ``CC``
and its writers, and the codes returned instead of a count.

``SH`` (ns, 15): one row per collision shape: body, kind, then up to 4 parameters (see
:mod:`.contact_geometry` for the primitives, :mod:`.gjk` for cylinders and meshes), then the
shape's own friction and restitution (columns SMU, SE; NaN: the settings' defaults), then a mesh's
box and sphere in its own frame (columns SLB ..: centre (3), half extents (3), radius about the
centre), from which the broad phase bounds it (:func:`.broadphase.world_bounds`). ``CC``
(cap, 10): one row per contact: d, n (3, unit, world, from b to a), p_a (3), p_b (3), with
``p_a - p_b = d n``.
"""
import numba as nb

SPHERE, CAPSULE, BOX, HALFSPACE, CYLINDER, MESH = 0, 1, 2, 3, 4, 5
SB, SK, SP = 0, 1, 2                # columns of SH: body, kind, first parameter
SMU, SE = 6, 7                      # columns of SH: the shape's own friction, restitution (NaN: none)
SLB = 8                             # columns of SH: a mesh's local box (centre, half extents), its radius
SH_COLUMNS = 15
FULL, FALLBACK = -1, -2             # returned instead of a count


@nb.njit
def put(CC, k, d, n0, n1, n2, a0, a1, a2, b0, b1, b2):
    """Row k of CC; False when the buffer is full."""
    if k >= CC.shape[0]:
        return False
    CC[k, 0] = d
    CC[k, 1], CC[k, 2], CC[k, 3] = n0, n1, n2
    CC[k, 4], CC[k, 5], CC[k, 6] = a0, a1, a2
    CC[k, 7], CC[k, 8], CC[k, 9] = b0, b1, b2
    return True


@nb.njit
def flip_from(CC, k0, k1):
    """Contacts k0 .. k1 - 1 computed with the shapes swapped: normal negated, points swapped."""
    for k in range(k0, k1):
        for r in range(3):
            CC[k, 1 + r] = -CC[k, 1 + r]
            x = CC[k, 4 + r]
            CC[k, 4 + r] = CC[k, 7 + r]
            CC[k, 7 + r] = x


@nb.njit
def plane(SH, j, T):
    """World normal and offset of half-space j placed at T."""
    m0, m1, m2 = SH[j, SP], SH[j, SP + 1], SH[j, SP + 2]
    n0 = T[0, 0] * m0 + T[0, 1] * m1 + T[0, 2] * m2
    n1 = T[1, 0] * m0 + T[1, 1] * m1 + T[1, 2] * m2
    n2 = T[2, 0] * m0 + T[2, 1] * m1 + T[2, 2] * m2
    return n0, n1, n2, SH[j, SP + 3] + n0 * T[0, 3] + n1 * T[1, 3] + n2 * T[2, 3]
