"""Utility measures for synthetic data, usable on any synthetic data (not only idrisk's).

From Hornby & Hu (2021) (paper ``shared/papers/002_*``) and the risk-weighted papers
(``shared/papers/000_*``, ``003_*``):

* :func:`pmse`, :func:`propensity_utility` -- pMSE / S_pMSE / SPECKS as synthpop's
  ``utility.gen``, and the article's U_p (``propensity.py``);
* :func:`ecdf_utility` -- ECDF utility U_m, U_a (``ecdf.py``);
* :func:`ci_overlap`, :func:`coefficient_ci_overlap` -- CI overlap (``intervals.py``);
* :func:`combine_partial`, :class:`CombinedEstimate` -- partial-synthesis combining rules
  (``combining.py``);
* :func:`table_deviations`, :func:`within_pattern_distribution` -- one-, two- and three-way
  table deviations of a synthesized label (``tables.py``; paper ``shared/papers/004_*``);
* :func:`ordered_logit_utility`, :func:`fit_ordered_logit` -- ordered logit (statsmodels
  ``OrderedModel``) on confidential and synthetic data, combined over m (``ordered_logit.py``).
"""

from .combining import CombinedEstimate, combine_partial
from .ecdf import ecdf_utility
from .intervals import ci_overlap, coefficient_ci_overlap
from .ordered_logit import OrderedLogitUtility, fit_ordered_logit, ordered_logit_utility
from .propensity import PMSEResult, pmse, propensity_utility
from .tables import TableDeviations, table_deviations, within_pattern_distribution

__all__ = [
    "CombinedEstimate",
    "OrderedLogitUtility",
    "PMSEResult",
    "TableDeviations",
    "ci_overlap",
    "coefficient_ci_overlap",
    "combine_partial",
    "ecdf_utility",
    "fit_ordered_logit",
    "ordered_logit_utility",
    "pmse",
    "propensity_utility",
    "table_deviations",
    "within_pattern_distribution",
]
