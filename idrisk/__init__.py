"""idrisk: exact, fast identification disclosure risk for synthetic microdata.

The core function is :func:`identification_risk`, a reproduction of the R package
IdentificationRiskCalculation's ``IdentificationRisk()`` (use :mod:`idrisk.r` for R's
exact signature and result names). The toolkit's parts are subpackages:

* :mod:`idrisk.risk` -- identification risk (single machine and Dask);
* :mod:`idrisk.synthesis` -- synthpop's CART synthesis with R-identical draws (:func:`syn`);
* :mod:`idrisk.weighted` -- risk-weighted Stan synthesizers (:class:`RiskWeightedSynthesizer`,
  :func:`risk_weights`);
* :mod:`idrisk.survey` -- private survey tables (FBS, FBP, Laplace);
* :mod:`idrisk.categorical` -- categorical label synthesis (DPMPM, DP-areal);
* :mod:`idrisk.utility` -- utility measures (:func:`pmse`, :func:`ecdf_utility`, ...);
* :mod:`idrisk.stan` -- the Stan backend (:class:`StanProgram`);
* :mod:`idrisk.rcompat` -- R through rpy2.

Everything is imported on first use, so ``import idrisk`` (and ``idrisk --help``) stays
quick.
"""

from ._lazy import lazy_attributes

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first access)
_LAZY = {
    "CARTSynthesizer": ".synthesis",
    "ContinuousCodesWarning": ".risk",
    "ExactMatchWarning": ".risk",
    "IdentificationRiskResult": ".risk",
    "RParityWarning": ".risk",
    "RadiusWarning": ".risk",
    "RiskInputWarning": ".risk",
    "RiskOptions": ".risk",
    "identification_risk": ".risk",
    "SyntheticData": "._synthetic",
    "syn": ".synthesis",
    "combine_partial": ".utility",
    "ecdf_utility": ".utility",
    "pmse": ".utility",
    "propensity_utility": ".utility",
    "maximizing_radius": ".analysis",
    "radius_sweep": ".analysis",
    "report": ".reporting",
    "RiskReport": ".reporting",
    "identification_risk_dask": ".risk",
    "risk_weights": ".weighted",
    "RiskWeightedSynthesizer": ".weighted",
    "StanProgram": ".stan",
    "FBP": ".survey",
    "FBS": ".survey",
    "SurveyTable": ".survey",
    "combine_tables": ".survey",
    "design_table": ".survey",
    "half_sample_replicates": ".survey",
    "inclusion_probabilities": ".survey",
    "laplace_table": ".survey",
    "DPMPM": ".categorical",
    "DPAreal": ".categorical",
    "dpmpm_synthesize": ".categorical",
    "dp_areal_synthesize": ".categorical",
    "attribute_risk": ".risk",
    "disclosure": ".risk",
    "disclosure_summary": ".risk",
    "inherent_bounds": ".risk",
    "label_risk": ".risk",
    "table_deviations": ".utility",
    "ordered_logit_utility": ".utility",
}

__all__ = ["__version__", *_LAZY]

__getattr__, __dir__ = lazy_attributes(__name__, globals(), _LAZY)
