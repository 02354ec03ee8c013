"""3-D and 6-D algebra: rotations, homogeneous transforms, spatial vectors and inertias."""
from .motion import (  # noqa: F401
    skew, unskew, homogeneous, inv_homogeneous, translation, transform_point,
    A, A_t, A_inv, A_inv_t, motion_to_child, motion_to_parent, force_to_parent, force_to_child,
    motion_apply, motion_apply_inv, force_apply, force_apply_inv,
    cross_motion, cross_force, crm, crf, spatial_inertia, inertia_parts, inertia_transform,
)
from .rotations import (  # noqa: F401
    rotx, roty, rotz, axis_angle_to_matrix, exp3, log3, exp6, log6, quat_to_matrix,
    matrix_to_quat, quat_multiply, quat_conjugate, quat_to_rotvec, rotvec_to_quat,
    rpy_to_matrix, matrix_to_rpy, check_quaternion,
)
from .axes import axis_from_azimuth_elevation, azimuth_elevation, azimuth_elevation_to_matrix  # noqa: F401
from .euler import (  # noqa: F401
    euler_to_matrix, matrix_to_euler, GimbalLockWarning, PROPER_ORDERS, TAIT_BRYAN_ORDERS,
)
