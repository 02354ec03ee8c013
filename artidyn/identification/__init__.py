"""Dynamic identification: the regressor ``tau = Y(q, v, a) pi`` in the standard parameters,
the energy regressors, the round trip model <-> pi, and the base (identifiable) parameters.

``pi`` layout: :mod:`artidyn.identification.parameters`; algorithms:
:mod:`artidyn.identification.regressor`, :mod:`artidyn.identification.base`.
"""
from .base import BaseParameters, base_parameters  # noqa: F401
from .parameters import (check_physical, model_to_parameters, n_parameters, parameter_names,  # noqa: F401
                         parameters_to_model)
from .regressor import energy_regressors, regressor  # noqa: F401

__all__ = ["BaseParameters", "base_parameters", "check_physical", "energy_regressors", "model_to_parameters",
           "n_parameters", "parameter_names", "parameters_to_model", "regressor"]
