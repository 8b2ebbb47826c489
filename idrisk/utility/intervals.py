"""Confidence-interval overlap (Karr et al. 2006) for regression coefficients."""

from __future__ import annotations

import pandas as pd

from .._synthetic import synthetic_frames
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


def coefficient_ci_overlap(
    confidential: pd.DataFrame, synthetic, formula: str, term: str, level: float = 0.95
) -> pd.Series:
    """CI overlap of one OLS regression coefficient (statsmodels formula) confidential vs synthetic.

    For a list of synthetic datasets the synthetic interval comes from
    :func:`combine_partial`.

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
    import statsmodels.formula.api as smf

    fit = smf.ols(formula, data=confidential).fit()
    if term not in fit.params.index:
        raise KeyError(f"term {term!r} not among the coefficients {list(fit.params.index)}")
    lo, hi = fit.conf_int(alpha=1 - level).loc[term]
    syns = synthetic_frames(synthetic)
    if len(syns) == 1:
        fs = smf.ols(formula, data=syns[0]).fit()
        est = float(fs.params[term])
        ls, hs = fs.conf_int(alpha=1 - level).loc[term]
    else:
        fits = [smf.ols(formula, data=s).fit() for s in syns]
        ce = combine_partial([f.params[term] for f in fits], [f.bse[term] ** 2 for f in fits],
                             level)
        est, ls, hs = ce.q_bar, ce.ci_low, ce.ci_high
    return pd.Series(
        {
            "estimate_orig": float(fit.params[term]),
            "ci_low_orig": float(lo),
            "ci_high_orig": float(hi),
            "estimate_syn": est,
            "ci_low_syn": float(ls),
            "ci_high_syn": float(hs),
            "overlap": ci_overlap((lo, hi), (ls, hs)),
        },
        name=term,
    )
