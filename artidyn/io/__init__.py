"""Readers (URDF, Denavit-Hartenberg tables) and writers."""
