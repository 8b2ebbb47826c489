"""``identification_risk``: the R package IdentificationRiskCalculation's ``IdentificationRisk()``.

Reproduces R's results to the last digit (quirks included, see the ``Notes``) and runs in
O(n log n) per synthetic dataset instead of R's O(n^2).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ._prepare import RiskInputWarning, dataset_label, input_checks, prepare_inputs
from .matching import CountCache, KeyEncoder, MatchRule, count_matches, half_widths
from .result import IdentificationRiskResult

__all__ = ["identification_risk"]


def _n_workers(n_jobs: int | None, m: int) -> int:
    if n_jobs is None:
        n_jobs = os.cpu_count() or 1
    if not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer or None, got {n_jobs!r}")
    return max(1, min(n_jobs, m - 1))


Radius = None | float | Sequence[float] | Mapping[str, float]


def identification_risk(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str],
    syn: str | Sequence[str],
    r: Radius = None,
    percentage: bool = True,
    euclidean_dist: bool = False,
    *,
    closed: bool = False,
    abs_radius: bool = False,
    ellipsoid: bool = False,
    na_matches: bool = True,
    progress: bool | None = None,
    n_jobs: int | None = None,
    categorical: str | Sequence[str] | None = None,
    continuous: str | Sequence[str] | None = None,
    align: str | None = None,
) -> IdentificationRiskResult:
    """Identification disclosure risk of partially synthetic data (Hornby & Hu, 2021).

    Target record i of the confidential data matches synthetic record k when every known and
    every synthesized variable matches: categorical variables by equality, continuous variables
    when the synthetic value lies within the radius of i's confidential value. For each synthetic
    dataset, c_i counts the matches, T_i says whether i's own synthetic row is one of them, and
    the risk of record i is T_i / c_i.

    Parameters
    ----------
    origdata
        Confidential data, n rows.
    syndata
        One synthetic DataFrame or a list of m; row i of each is the synthetic version of
        confidential record i. Columns are matched by name.
    known, syn
        Names of the variables the intruder knows (unsynthesized) and of the synthesized ones.
        ``known`` may be empty (R requires one; here the match is then on ``syn`` alone).
    r
        Radius for continuous variables: None (match every variable exactly, numbers too), one
        number for all, a sequence handed out to the continuous known/syn columns **in the order
        they appear in origdata** (R's rule; extra entries are ignored with a warning), or a dict
        ``{column: radius}``.
    percentage
        Radius is ``r * value`` (True, R's default) or ``r`` itself.
    euclidean_dist
        R's ``euclideanDist``: every variable is still checked on its own interval, but known
        continuous variables use ``d_K = sqrt(sum d_v^2)`` and synthesized ones
        ``d_S = sqrt(d_K + sum d_v^2)`` (R's formula, kept as is).
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
        Column types, overriding the dtype rule for the known/syn columns they name: a numeric
        column in ``categorical`` is matched by equality (like an R factor), a text/category
        column of numbers in ``continuous`` is matched within the radius. Without them R's rule
        holds (category/object/string columns are factors, numbers continuous), with two
        guards: a numeric column of few (<= 20) distinct whole numbers given a radius warns
        (:class:`~idrisk.risk._prepare.ContinuousCodesWarning`, e.g. Urban coded 1/2), and a text
        column of origdata whose values are mostly numbers (>= 95% parse, e.g. one ``"n/a"``
        among incomes) is a ``TypeError`` naming the column and the stray values.
    align
        Row correspondence when origdata and a synthetic dataset both carry an index and the
        indexes differ (or hold the same labels in another order): None raises a
        ``ValueError`` naming the dataset; ``"position"`` pairs rows by position (R's
        behaviour); ``"index"`` reorders each synthetic dataset to origdata's index. Identical
        indexes, or a default ``RangeIndex`` against other labels, are paired by position.

    Returns
    -------
    IdentificationRiskResult
        ``c, T, K, F, risk`` (n x m DataFrames), ``s, exp_risk, true_rate, false_rate`` (Series
        over datasets), ``record_risk``; R's names work as keys (``result["c_vector"]``).
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
        More than 1% of records have NA in a continuous variable (origdata or a synthetic
        dataset), can never be matched (a value <= 0 under a percentage radius), or have no
        match for other reasons (c = 0): the number is R's, but the message says why and what
        to pass instead.

    Raises
    ------
    KeyError
        A known/syn column missing from origdata or from a synthetic dataset.
    ValueError
        Row counts differ, known and syn overlap, syndata is empty, r has too few entries or
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
    >>> res["true.rate_vector"].tolist()
    [0.5]
    """
    if ellipsoid and euclidean_dist:
        raise ValueError(
            "ellipsoid=True and euclidean_dist=True: choose one (ellipsoid is the true Euclidean "
            "match; euclidean_dist is R's per-variable radius formula)"
        )
    prep = prepare_inputs(
        origdata,
        syndata,
        known,
        syn,
        r,
        categorical=categorical,
        continuous=continuous,
        align=align,
        percentage=percentage,
    )
    rule = MatchRule(closed=closed, na_matches=na_matches, ellipsoid=ellipsoid)

    if prep.radii is None:
        x = d = np.empty((prep.n, 0))
    else:
        x = prep.cont_orig
        radii = np.array([prep.radii[c] for c in prep.continuous], dtype=np.float64)
        d = half_widths(
            x,
            radii,
            percentage=percentage,
            abs_radius=abs_radius,
            euclidean_dist=euclidean_dist,
            known=prep.cont_known,
        )

    checks = input_checks(prep, d if prep.radii is not None else None, closed)
    encoder = KeyEncoder(prep.cat_orig)
    cache = CountCache()
    c = np.empty((prep.n, prep.m), dtype=np.int64, order="F")
    own = np.empty((prep.n, prep.m), dtype=bool, order="F")

    def count(j: int) -> None:
        skey = encoder.transform(prep.cat_syn[j])
        y = prep.cont_syn[j] if prep.radii is not None else np.empty((prep.n, 0))
        c[:, j], own[:, j] = count_matches(encoder.keys, skey, x, d, y, rule, encoder.n_keys, cache)
        prep.release(j)

    if progress is None:
        progress = prep.n * prep.m >= 5_000_000
    workers = _n_workers(n_jobs, prep.m)
    with tqdm(
        total=prep.m, desc="identification risk", unit="dataset", disable=not progress
    ) as bar:
        count(0)  # the first dataset fills the shared cache (plan, target orders)
        bar.update()
        if workers == 1:
            for j in range(1, prep.m):
                count(j)
                bar.update()
        else:  # numpy releases the GIL in its sorts and searches
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for _ in pool.map(count, range(1, prep.m)):
                    bar.update()

    settings = prep.settings(
        percentage=percentage,
        euclidean_dist=euclidean_dist,
        closed=closed,
        abs_radius=abs_radius,
        ellipsoid=ellipsoid,
        na_matches=na_matches,
    )
    result = IdentificationRiskResult.from_counts(
        c, own, index=prep.index, settings=settings, checks=checks
    )
    warn_about_checks(
        result, checks, prep.names, percentage=percentage, stacklevel=3,
        orig_name=dataset_label(origdata, None),
    )
    return result


def warn_about_checks(
    result: IdentificationRiskResult,
    checks: dict,
    names: Sequence[str],
    *,
    percentage: bool,
    stacklevel: int = 2,
    threshold: float = 0.01,
    orig_name: str = "origdata",
) -> None:
    """:class:`RiskInputWarning` for every count above ``threshold`` (a share of n)."""
    n = result.n
    limit = threshold * n
    na_rule = result.settings.get("na_matches", True)
    na_effect = (
        "under R's rule NA matches anything, which raises the risk; pass na_matches=False "
        "(NA never matches) or drop/impute them"
        if na_rule
        else "with na_matches=False they are never matched"
    )

    def share(k: int) -> str:
        return f"{k} of {n} records ({100 * k / n:.1f}%)"

    def by_col(d: dict) -> str:
        return ", ".join(f"{c}: {k}" for c, k in d.items())

    messages = []
    if checks["na_origdata"] > limit:
        messages.append(
            f"{orig_name}: {share(checks['na_origdata'])} have NA in a continuous known/syn "
            f"variable ({by_col(checks['na_origdata_by_column'])}); {na_effect}"
        )
    na_syn = np.asarray(checks["na_syndata"])
    if (na_syn > limit).any():
        worst = int(np.argmax(na_syn))
        many = [names[j] for j in np.flatnonzero(na_syn > limit)]
        shown = ", ".join(many[:3]) + (", …" if len(many) > 3 else "")
        messages.append(
            f"{shown}: up to {share(int(na_syn[worst]))} have NA in a continuous known/syn "
            f"variable ({by_col(checks['na_syndata_by_column'])}); {na_effect}"
        )
    if checks["never_match"] > limit:
        fix = (
            "pass abs_radius=True (radius from |x|) or percentage=False (absolute radius)"
            if percentage
            else "use a positive radius or closed=True"
        )
        but_na = (
            " (only a missing synthetic value, which matches anything under R's rule, can "
            "match them)"
            if na_rule and np.asarray(checks["na_syndata"]).any()
            else ""
        )
        messages.append(
            f"{orig_name}: {share(checks['never_match'])} can never be matched{but_na}: their "
            f"radius interval is empty ({by_col(checks['never_match_by_column'])}"
            + ("; a value <= 0 under a percentage radius, R's rule" if percentage else "")
            + ")"
            + ("" if but_na else ", so they get c = 0, T = 1 and risk 0")
            + f"; {fix}"
        )
    c_zero = result.checks["c_zero"].to_numpy()
    unexplained = c_zero - checks["never_match"]
    if (unexplained > limit).any():
        j = int(np.argmax(unexplained))
        messages.append(
            f"{names[j]}: {share(int(c_zero[j]))} have no matching synthetic record (c = 0"
            + (f"; {int(checks['never_match'])} never matchable" if checks["never_match"] else "")
            + "), so they get T = 1 and "
            "risk 0 (R's convention) and add nothing to the expected risk; check the radius "
            "and the categorical levels of the synthetic data"
        )
    for message in messages:
        warnings.warn(message, RiskInputWarning, stacklevel=stacklevel)
