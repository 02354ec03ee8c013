"""Compiled (numba) kernels behind the public dynamics and kinematics functions."""
