"""Categorical label synthesis with inherent risk bounds: DPMPM and DP-areal.

Implements Hu & Savitsky, *Bayesian Data Synthesis and Disclosure Risk Quantification: An
Application to the Consumer Expenditure Surveys* (paper
``shared/papers/004_f9c1bf1dd057f747.txt``; spec ``shared/specs/categorical-synthesis.md``):

* :class:`DPMPM`, :func:`dpmpm_synthesize` -- truncated Dirichlet process mixture of products of
  multinomials, blocked Gibbs sampler, partial synthesis with ``z="kept"|"prior"|"gibbs"``
  (``dpmpm.py``);
* :class:`DPAreal`, :func:`dp_areal_synthesize` -- the DP-areal count model (Poisson-lognormal
  with a truncated DP mixture on the log-rates), as the corrected Stan program of the
  supplement or a Metropolis-within-Gibbs sampler for the same posterior (``dp_areal.py``);
* :func:`plot_bounds`, :func:`plot_table_deviations` -- the paper's Figures 4 and 1
  (``plots.py``).

Risk measures for a synthesized label live in :mod:`idrisk.risk` (``attribute_risk``,
``inherent_bounds``) and utility measures in :mod:`idrisk.utility` (``table_deviations``,
``ordered_logit_utility``).
"""

from .dpmpm import DPMPM, CategoricalSynthesis, KStarWarning, dpmpm_synthesize

__all__ = [
    "DPMPM",
    "CategoricalSynthesis",
    "KStarWarning",
    "dpmpm_synthesize",
]
