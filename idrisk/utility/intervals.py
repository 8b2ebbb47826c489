"""Confidence-interval overlap (Karr et al. 2006) for regression coefficients."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._stack import user_stacklevel
from .._synthetic import synthetic_frames, synthetic_name
from ..exceptions import UtilityWarning
from ._common import _kept_columns
from .combining import combine_partial

__all__ = ["ci_overlap", "coefficient_ci_overlap"]


def ci_overlap(confidential_ci, synthetic_ci) -> float:
    """Confidence-interval overlap (Karr et al. 2006) of two intervals (low, high).

    ``IO = 0.5 * [(min(u_o, u_s) - max(l_o, l_s)) / (u_o - l_o)
    + (min(u_o, u_s) - max(l_o, l_s)) / (u_s - l_s)]``; 1 = identical intervals, values
    <= 0 mean no overlap (negative values measure the gap).

    Examples
    --------
    >>> ci_overlap((0, 2), (1, 3))
    0.5
    """
    lo, uo = map(float, confidential_ci)
    ls, us = map(float, synthetic_ci)
    if not (uo > lo and us > ls):
        raise ValueError("each interval must be (low, high) with low < high")
    inter = min(uo, us) - max(lo, ls)
    return 0.5 * (inter / (uo - lo) + inter / (us - ls))


class _LmFit:
    """One OLS fit as R's ``lm``: unused factor levels dropped, aliased columns left out."""

    def __init__(self, formula: str, data: pd.DataFrame, name: str):
        import statsmodels.api as sm
        import statsmodels.formula.api as smf

        model = smf.ols(formula, data=data)
        rows = model.data.row_labels   # rows without missing values
        used = data.loc[rows] if rows is not None else data
        cats = [c for c in used.columns if isinstance(used[c].dtype, pd.CategoricalDtype)]
        trimmed = {c: used[c].cat.remove_unused_categories() for c in cats}
        trimmed = {c: t for c, t in trimmed.items()
                   if len(t.cat.categories) < len(used[c].cat.categories)}
        if trimmed:   # R's model.frame(drop.unused.levels = TRUE): the model built again
            used = used.assign(**trimmed)
            model = smf.ols(formula, data=used)
        self.names = list(model.exog_names)
        self.kept = _kept_columns(np.asarray(model.exog, dtype=float))
        self.fit = sm.OLS(model.endog, model.exog[:, self.kept]).fit()
        self.name = name
        self.references = {c: used[c].cat.categories[0] for c in cats
                           if len(used[c].cat.categories)}

    def term(self, term: str, level: float) -> tuple[float, float, float, float]:
        """Estimate, variance and interval of ``term``; a clear error when R's is NA."""
        if term not in self.names:
            raise ValueError(f"term {term!r} is not among the coefficients of {self.name} "
                             f"({self.names}): a level missing there?")
        j = self.names.index(term)
        if j not in self.kept:
            raise ValueError(f"term {term!r} is aliased in {self.name} (a linear combination "
                             "of the earlier columns; R's lm gives NA)")
        k = self.kept.index(j)
        lo, hi = self.fit.conf_int(alpha=1 - level)[k]
        return float(self.fit.params[k]), float(self.fit.bse[k] ** 2), float(lo), float(hi)


def coefficient_ci_overlap(
    confidential: pd.DataFrame, synthetic, formula: str, term: str, level: float = 0.95
) -> pd.Series:
    """CI overlap of one OLS regression coefficient (statsmodels formula) confidential vs synthetic.

    Each dataset is fitted as R's ``lm`` does: records with a missing value left out, unused
    levels of a categorical column dropped (so its first *present* level is the reference),
    and a column in the span of the earlier ones aliased (R's ``NA``; asking for such a term,
    or one whose level a dataset lacks, raises ``ValueError``). The intervals are R's
    ``confint`` (t quantiles). For a list of synthetic datasets the synthetic interval comes
    from :func:`combine_partial` (its ``q_bar`` and ``T`` are synthpop's
    ``summary(lm.synds(...), population.inference = TRUE, incomplete = TRUE)``).
    This is Karr et al.'s overlap of each data's own interval, not synthpop's ``compare``
    (which centres intervals of the confidential standard error on both estimates).

    Returns
    -------
    pandas.Series
        ``estimate_orig``, ``ci_low_orig``, ``ci_high_orig``, ``estimate_syn``, ``ci_low_syn``,
        ``ci_high_syn`` and ``overlap``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(3)
    >>> d = pd.DataFrame({"x": rng.normal(size=500)})
    >>> d["y"] = 2 * d.x + rng.normal(size=500)
    >>> float(coefficient_ci_overlap(d, d, "y ~ x", "x")["overlap"])
    1.0
    """
    orig = _LmFit(formula, confidential, "the confidential data")
    if term not in orig.names:
        raise KeyError(f"term {term!r} not among the coefficients {orig.names}")
    est_o, _, lo, hi = orig.term(term, level)
    syns = synthetic_frames(synthetic)
    fits = [_LmFit(formula, s, synthetic_name(i)) for i, s in enumerate(syns, start=1)]
    for f in fits:
        for c, ref in f.references.items():
            if term.startswith(f"{c}[") and c in orig.references and ref != orig.references[c]:
                warnings.warn(f"{c!r}: reference level {ref!r} in {f.name} but "
                              f"{orig.references[c]!r} in the confidential data (R's lm "
                              f"drops unused levels); {term!r} compares other contrasts",
                              UtilityWarning, stacklevel=user_stacklevel())
    parts = [f.term(term, level) for f in fits]
    if len(parts) == 1:
        est, _, ls, hs = parts[0]
    else:
        ce = combine_partial([p[0] for p in parts], [p[1] for p in parts], level)
        est, ls, hs = ce.q_bar, ce.ci_low, ce.ci_high
    return pd.Series(
        {
            "estimate_orig": est_o,
            "ci_low_orig": lo,
            "ci_high_orig": hi,
            "estimate_syn": est,
            "ci_low_syn": float(ls),
            "ci_high_syn": float(hs),
            "overlap": ci_overlap((lo, hi), (ls, hs)),
        },
        name=term,
    )
