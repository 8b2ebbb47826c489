"""Categorical label synthesis with inherent risk bounds: DPMPM and DP-areal.

Implements Hu & Savitsky, *Bayesian Data Synthesis and Disclosure Risk Quantification: An
Application to the Consumer Expenditure Surveys*:

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

* :func:`ce_label_data`, :func:`simulate_label_data` -- the public CE sample with an
  Educ x Tenure label, and simulated data with the paper's 40 pattern sizes (``data.py``).
"""

from ..exceptions import KStarWarning
from .data import PAPER_PATTERN_SIZES, ce_label_data, simulate_label_data
from .dp_areal import ArealData, DPAreal, areal_data, dp_areal_synthesize
from .dpmpm import DPMPM, dpmpm_synthesize
from .plots import plot_bounds, plot_table_deviations

__all__ = [
    "DPMPM",
    "PAPER_PATTERN_SIZES",
    "ArealData",
    "DPAreal",
    "KStarWarning",
    "areal_data",
    "ce_label_data",
    "dp_areal_synthesize",
    "dpmpm_synthesize",
    "plot_bounds",
    "plot_table_deviations",
    "simulate_label_data",
]
