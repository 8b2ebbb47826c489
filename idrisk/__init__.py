"""idrisk: exact, fast identification disclosure risk for synthetic microdata.

The core function is :func:`identification_risk`, a reproduction of the R package
IdentificationRiskCalculation's ``IdentificationRisk()`` (use :mod:`idrisk.r` for R's
exact signature and result names). :func:`syn` is synthpop's CART partial synthesis with
R-identical draws.
"""

from .dask_risk import identification_risk_dask
from .result import IdentificationRiskResult
from .risk import identification_risk
from .rw_risk import risk_weights
from .rw_synthesizer import RiskWeightedSynthesizer
from .stan_backend import StanProgram
from .synthesis import SynthResult, syn

__version__ = "0.1.0"

__all__ = [
    "IdentificationRiskResult",
    "RiskWeightedSynthesizer",
    "StanProgram",
    "SynthResult",
    "identification_risk",
    "identification_risk_dask",
    "risk_weights",
    "syn",
    "__version__",
]
