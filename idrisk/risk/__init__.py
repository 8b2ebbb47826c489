"""Disclosure risk of synthetic microdata.

Implements the identification risk of Hornby & Hu (2021), the R package
IdentificationRiskCalculation's ``IdentificationRisk()`` (paper: Transactions on Data Privacy
14, 2021): expected match
risk, true and false match rates, record-level c, T, K, F and risk matrices.

* :func:`identification_risk` -- the single-machine engine (``identification.py``, with
  its options in ``options.py`` (:class:`RiskOptions`), input rules in ``_prepare.py``,
  the counting engine in ``matching.py`` and the result in ``result.py``);
* :func:`identification_risk_dask` -- the same computation on Dask (``dask_engine.py``);
* :func:`disclosure` / :func:`disclosure_summary` -- synthpop 1.9-3's disclosure measures
  (``disclosure_measures.py``, tables in ``_synthpop_tables.py``, R's factors in ``_rfactor.py``;
  R's shapes in :mod:`idrisk.r`, from ``idrisk/_rdisclosure.py``).

This part imports nothing from the rest of idrisk: synthesizers depend on it, never the
other way round.
"""

from .._lazy import lazy_attributes
from ..exceptions import (
    ContinuousCodesWarning,
    ExactMatchWarning,
    RadiusWarning,
    RiskInputWarning,
    RParityWarning,
    SynthpopQuirkWarning,
)
from .identification import identification_risk
from .options import RiskOptions
from .result import IdentificationRiskResult

_LAZY = {
    "identification_risk_dask": ".dask_engine",
    # synthpop's disclosure measures
    "DisclosureResult": ".disclosure_measures",
    "DisclosureSummary": ".disclosure_measures",
    "disclosure": ".disclosure_measures",
    "disclosure_summary": ".disclosure_measures",
    # categorical labels (Hu & Savitsky): attribute risk and the inherent Min/Max bounds
    "AttributeRiskResult": ".attribute",
    "attribute_risk": ".attribute",
    "InherentBounds": ".bounds",
    "inherent_bounds": ".bounds",
    "label_risk": ".bounds",
    # Monte-Carlo precision and what drives the risk (idrisk.risk.precision, .whatif)
    "record_stability": ".precision",
    "required_m": ".precision",
    "WhatIfResult": ".whatif",
    "what_if": ".whatif",
}

__all__ = [
    "ContinuousCodesWarning",
    "ExactMatchWarning",
    "IdentificationRiskResult",
    "RParityWarning",
    "RadiusWarning",
    "RiskInputWarning",
    "RiskOptions",
    "SynthpopQuirkWarning",
    "identification_risk",
    *_LAZY,
]

__getattr__, __dir__ = lazy_attributes(__name__, globals(), _LAZY)
