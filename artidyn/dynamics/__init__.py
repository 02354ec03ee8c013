"""Dynamic models: RNEA, ABA, CRBA, GAHA, Lagrange terms, energies, non-recursive Newton-Euler."""
