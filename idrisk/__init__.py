"""idrisk: exact, fast identification disclosure risk for synthetic microdata.

The core function is :func:`identification_risk`, a reproduction of the R package
IdentificationRiskCalculation's ``IdentificationRisk()`` (use :mod:`idrisk.r` for R's
exact signature and result names). Around it: synthpop's CART synthesis with R-identical
draws (:func:`syn`), utility measures (:func:`pmse`, :func:`ecdf_utility`, ...), the
papers' analyses (:func:`radius_sweep`), risk-weighted Stan synthesizers
(:class:`RiskWeightedSynthesizer`, :func:`risk_weights`) and a Dask engine
(:func:`identification_risk_dask`). Everything but the core is imported on first use, so
``import idrisk`` stays quick.
"""

from importlib import import_module

from .result import IdentificationRiskResult
from .risk import identification_risk

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first access)
_LAZY = {
    "SynthResult": "synthesis",
    "syn": "synthesis",
    "combine_partial": "utility",
    "ecdf_utility": "utility",
    "pmse": "utility",
    "propensity_utility": "utility",
    "maximizing_radius": "analysis",
    "radius_sweep": "analysis",
    "identification_risk_dask": "dask_risk",
    "risk_weights": "rw_risk",
    "RiskWeightedSynthesizer": "rw_synthesizer",
    "StanProgram": "stan_backend",
}

__all__ = ["IdentificationRiskResult", "identification_risk", "__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'idrisk' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
