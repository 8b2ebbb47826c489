"""Risk-weighted Bayesian synthesizers.

Implements Hu, Savitsky & Williams, risk-efficient Bayesian data synthesis (papers
``shared/papers/000_*`` (preprint) and ``003_*`` (published); spec
``shared/specs/risk-weighted-synthesis.md``):

* ``weights.py`` -- identification risk probabilities (IR_i, IR_i^c, IR_ij^c), the
  marginal and pairwise weights α^m, α^pw and the c/g adjustment (:func:`risk_weights`);
* ``synthesizer.py`` -- :class:`RiskWeightedSynthesizer` (finite mixture of normals,
  negative binomial) on the Stan programs in ``stan/``;
* ``diagnostics.py`` -- utility tables, bootstrap CIs, whack-a-mole records;
* ``plots.py`` -- violin, whack-a-mole and weight plots.
"""

from .._lazy import lazy_attributes

_LAZY = {
    "SyntheticRisk": ".weights",
    "adjust_weights": ".weights",
    "confidential_marginal_risk": ".weights",
    "marginal_weights": ".weights",
    "pairwise_risk_matrix": ".weights",
    "pairwise_weights": ".weights",
    "pattern_codes": ".weights",
    "risk_weights": ".weights",
    "synthetic_marginal_risk": ".weights",
    "RiskWeightedSynthesizer": ".synthesizer",
    "WhackAMole": ".diagnostics",
    "bootstrap_ci": ".diagnostics",
    "ecdf_table": ".diagnostics",
    "regression_utility": ".diagnostics",
    "risk_summary": ".diagnostics",
    "utility_table": ".diagnostics",
    "whack_a_mole": ".diagnostics",
    "plot_risk_violins": ".plots",
    "plot_weights_vs_value": ".plots",
    "plot_whack_a_mole": ".plots",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = lazy_attributes(__name__, globals(), _LAZY)
