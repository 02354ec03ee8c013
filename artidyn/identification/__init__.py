"""Dynamic identification: the regressor ``tau = Y(q, v, a) pi`` in the standard parameters,
the energy regressors, the round trip model <-> pi, the base (identifiable) parameters (numerical
QR and the named grouping rules of Gautier & Khalil), estimation from data (filtering, ordinary
and weighted least squares), physically consistent estimation, excitation trajectories, report.

``pi`` layout: :mod:`artidyn.identification.parameters`; algorithms:
:mod:`artidyn.identification.regressor`, :mod:`artidyn.identification.base`,
:mod:`artidyn.identification.grouping`, :mod:`artidyn.identification.estimation`,
:mod:`artidyn.identification.physical`, :mod:`artidyn.identification.excitation`,
:mod:`artidyn.identification.report`. scipy and matplotlib are imported inside the functions.
"""
from .base import BaseParameters, base_parameters  # noqa: F401
from .estimation import (Identification, differentiate, identify, least_squares,  # noqa: F401
                         weighted_least_squares)
from .excitation import FourierTrajectory, optimize_excitation  # noqa: F401
from .grouping import GroupedParameters, grouped_parameters  # noqa: F401
from .parameters import (check_physical, model_to_parameters, n_parameters, parameter_names,  # noqa: F401
                         parameters_to_model)
from .physical import physical_estimate  # noqa: F401
from .regressor import energy_regressors, regressor  # noqa: F401
from .report import write_report  # noqa: F401

__all__ = ["BaseParameters", "FourierTrajectory", "GroupedParameters", "Identification", "base_parameters",
           "check_physical", "differentiate", "energy_regressors", "grouped_parameters", "identify",
           "least_squares", "model_to_parameters", "n_parameters", "optimize_excitation", "parameter_names",
           "parameters_to_model", "physical_estimate", "regressor", "weighted_least_squares", "write_report"]
