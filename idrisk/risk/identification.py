"""``identification_risk``: the R package IdentificationRiskCalculation's ``IdentificationRisk()``.

Reproduces R's results to the last digit (quirks included, see the ``Notes``) and runs in
O(n log n) per synthetic dataset instead of R's O(n^2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pandas as pd

from .options import Radius, RiskOptions
from .prepared import prepare
from .result import IdentificationRiskResult

__all__ = ["identification_risk", "risk_from_options"]


def identification_risk(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str] = (),
    syn: str | Sequence[str] = (),
    r: Radius = None,
    percentage: bool = True,
    euclidean_dist: bool = False,
    *,
    closed: bool = False,
    abs_radius: bool = False,
    ellipsoid: bool = False,
    na_matches: bool = True,
    categorical: str | Sequence[str] | None = None,
    continuous: str | Sequence[str] | None = None,
    align: Literal["position", "index"] | None = None,
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> IdentificationRiskResult:
    """Identification disclosure risk of partially synthetic data (Hornby & Hu, 2021).

    Target record i of the confidential data matches synthetic record k when every known and
    every synthesized variable matches: categorical variables by equality, continuous variables
    when the synthetic value lies within the radius of i's confidential value. For each synthetic
    dataset, c_i counts the matches, T_i says whether i's own synthetic row is one of them, and
    the risk of record i is T_i / c_i.

    Parameters
    ----------
    confidential
        Confidential data, n rows.
    synthetic
        One synthetic DataFrame, a list of m or a :class:`~idrisk.SyntheticData`; row i of each
        is the synthetic version of confidential record i. Columns are matched by name.
    known, syn
        Names of the variables the intruder knows (unsynthesized) and of the synthesized ones.
        ``known`` may be empty (R requires one; here the match is then on ``syn`` alone).
    r
        Radius for continuous variables: None (match every variable exactly, numbers too), one
        number for all, a sequence handed out to the continuous known/syn columns **in the order
        they appear in the confidential data** (R's rule; extra entries are ignored with a
        warning), or a dict ``{column: radius}``. With None, numeric columns are matched by
        equality and an :class:`~idrisk.risk.ExactMatchWarning` names them.
    percentage
        Radius is ``r * value`` (True, R's default) or ``r`` itself.
    euclidean_dist
        R's ``euclideanDist``: every variable is still checked on its own interval, but known
        continuous variables use ``d_K = (sum d_v^2)^0.5`` and synthesized ones
        ``d_S = (d_K + sum d_v^2)^0.5`` (R's formula, kept as is, with the squares added in the
        order of ``known`` and ``syn`` and the root taken by C's ``pow``, as R does).
    closed
        Closed intervals ``[x - d, x + d]`` as written in the article (R uses open ones).
    abs_radius
        Percentage radius from ``|x|``, so that negative values can match (R: ``r * x``, and a
        value <= 0 never matches).
    ellipsoid
        A true Euclidean match: ``sum_v ((y_v - x_v) / d_v)^2 < 1`` over the continuous
        variables, the ellipse the article describes (cannot be combined with ``euclidean_dist``).
    na_matches
        R's behaviour (True): a missing continuous value, confidential or synthetic, matches
        anything. False: it never matches. A missing categorical value never matches either way.
    progress
        Show a progress bar over the synthetic datasets (default: only for large inputs).
    n_jobs
        Threads counting synthetic datasets in parallel (default: every core; 1 = none). The
        results do not depend on it.
    categorical, continuous
        Column types, overriding the package's rule for the known/syn columns they name: a
        numeric column in ``categorical`` is matched by equality (like an R factor), a
        text/category column of numbers in ``continuous`` is matched within the radius. Without
        them the package's rule holds (category/object/string/boolean columns
        are categorical and compared by label, numbers continuous), with two guards: a numeric
        column of few (<= 20) distinct whole numbers given a radius warns
        (:class:`~idrisk.risk.ContinuousCodesWarning`, e.g. Urban coded 1/2), and a text
        column of the confidential data whose values are mostly numbers (>= 95% parse, e.g.
        one ``"n/a"`` among incomes) is a ``TypeError`` naming the column and the stray
        values.
    align
        Row correspondence when the confidential data and a synthetic dataset both carry an
        index and the
        indexes differ (or hold the same labels in another order): None raises a
        ``ValueError`` naming the dataset; ``"position"`` pairs rows by position (R's
        behaviour); ``"index"`` reorders each synthetic dataset to the confidential index.
        Identical
        indexes, or a default ``RangeIndex`` against other labels, are paired by position.

    Returns
    -------
    IdentificationRiskResult
        ``c, T, K, F, risk`` (n x m DataFrames), ``s, exp_risk, true_rate, false_rate`` (Series
        over datasets), ``record_risk``; R's names through ``result.to_r_dict()``.
        ``exp_risk`` is the expected number of records identified, out of n. ``checks`` counts
        the records with NA in a continuous variable, never matched (empty interval) and with
        c = 0; a record with c = 0 gets T = 1 and risk 0 (R's convention: nothing matches it,
        so it cannot be identified).

    Warns
    -----
    RadiusWarning
        More radii than continuous columns (as R), or a percentage radius above 1.
    ContinuousCodesWarning
        Integer codes matched within a radius (see ``categorical``).
    RiskInputWarning
        More than 1% of records have NA in a continuous variable (confidential or synthetic),
        can never be matched (a value <= 0 under a percentage radius), or have no
        match for other reasons (c = 0): the number is R's, but the message says why and what
        to pass instead.

    Raises
    ------
    KeyError
        A known/syn column missing from the confidential data or from a synthetic dataset.
    ValueError
        Row counts differ, known and syn overlap, synthetic is empty, r has too few entries or
        a negative/NaN radius, or indexes differ (see ``align``).
    TypeError
        A continuous variable holds text in some dataset, or a text column holds numbers.

    Notes
    -----
    Quirks of the R package reproduced by default: open intervals computed as ``x - r*x`` and
    ``x + r*x``; a percentage radius around a value <= 0 is empty; NA continuous values match
    anything; factor levels are the union of the confidential data's and the *first* synthetic
    dataset's levels, so a label first seen in a later dataset is NA there and never matches;
    ``euclideanDist`` as described above.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import identification_risk
    >>> orig = pd.DataFrame({"Sex": ["F", "F", "M", "M"], "Income": [10.0, 11.0, 30.0, 50.0]})
    >>> syn1 = orig.assign(Income=[10.5, 14.0, 31.0, 20.0])
    >>> res = identification_risk(orig, [syn1], known=["Sex"], syn=["Income"], r=0.1)
    >>> res.c[1].tolist(), res.T[1].tolist()
    ([1, 1, 1, 0], [1, 0, 1, 1])
    >>> float(res.exp_risk[1])
    2.0
    >>> res.to_r_dict()["true.rate_vector"].tolist()
    [0.5]
    """
    options = RiskOptions(
        known=known, syn=syn, r=r, percentage=percentage, euclidean_dist=euclidean_dist,
        closed=closed, abs_radius=abs_radius, ellipsoid=ellipsoid, na_matches=na_matches,
        categorical=categorical or (), continuous=continuous or (), align=align,
    )  # fmt: skip
    return risk_from_options(confidential, synthetic, options, progress=progress, n_jobs=n_jobs)


def risk_from_options(
    confidential: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    options: RiskOptions,
    *,
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> IdentificationRiskResult:
    """:func:`identification_risk` with its options as one :class:`~idrisk.RiskOptions`.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import RiskOptions
    >>> orig = pd.DataFrame({"Sex": ["F", "M"], "Income": [10.0, 30.0]})
    >>> risk_from_options(orig, [orig], RiskOptions(known="Sex", syn="Income", r=0.1)).s.tolist()
    [2]
    """
    prepared = prepare(confidential, synthetic, options, reusable=False)
    return prepared.count(options=options, progress=progress, n_jobs=n_jobs)
