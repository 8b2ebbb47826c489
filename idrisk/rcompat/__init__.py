"""Interoperability with R: data frames, IdentificationRisk results, R packages side by side.

Needs R and rpy2 (``pip install 'idrisk[r]'``) only when a function is called; importing this
module never starts R. Missing pieces raise :class:`RNotAvailableError` (or its subclass
:class:`RPackageNotInstalledError`) naming what to install.
"""

from ..exceptions import (
    RCallError,
    RMessage,
    RNotAvailableError,
    RPackageNotInstalledError,
    RPrintedWarning,
    RReturnedNull,
)
from ._session import r_package_available, require_r_package
from .cases import RiskCase, read_case
from .cli import add_check_r_arguments, run_check_r
from .convert import (
    dataframe_from_r,
    dataframe_to_r,
    dataframes_from_r,
    dataframes_to_r,
    deparse_r,
    series_to_r,
    vector_from_r,
)
from .crosscheck import ComponentDiff, CrossCheckReport, compare_results, cross_check
from .results import result_from_r, result_to_r
from .run_r import identification_risk_r, load_r_dataset
from .synthpop import SynthpopResult, synthpop_syn

__all__ = [
    "ComponentDiff",
    "CrossCheckReport",
    "RCallError",
    "RMessage",
    "RPrintedWarning",
    "RReturnedNull",
    "RiskCase",
    "SynthpopResult",
    "add_check_r_arguments",
    "compare_results",
    "cross_check",
    "identification_risk_r",
    "load_r_dataset",
    "read_case",
    "result_from_r",
    "result_to_r",
    "run_check_r",
    "synthpop_syn",
    "RNotAvailableError",
    "RPackageNotInstalledError",
    "dataframe_from_r",
    "deparse_r",
    "dataframe_to_r",
    "dataframes_from_r",
    "dataframes_to_r",
    "r_package_available",
    "require_r_package",
    "series_to_r",
    "vector_from_r",
]
