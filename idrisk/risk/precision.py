"""How precise is a file-level risk: Monte-Carlo intervals, the m a user needs, and
record-level stability over the m synthetic datasets.

Every file-level number of :func:`idrisk.identification_risk` (``s``, ``exp_risk``,
``true_rate``, ``false_rate``) is an average over m synthetic datasets drawn at random. Its
Monte-Carlo error is the spread of that average over new draws of the m datasets:

* :func:`interval` -- the mean over the m datasets, its standard error sd / sqrt(m) and a
  t-interval (m - 1 degrees of freedom) at ``level``;
* :func:`required_m` -- from a pilot result, the m at which the interval's half-width reaches
  a requested precision (absolute, or relative to the estimate): an estimate, since the pilot's
  sd is itself estimated;
* :func:`record_stability` -- per confidential record, in how many of the m datasets it is
  identified (a unique true match, K = 1, or a risk at or above a threshold).

What the interval covers: the randomness of the synthesis draws *given the confidential data*
and, when the synthesizer is fitted once and m datasets are drawn from that fit, *given the
fit*; the m datasets are taken as independent draws. What it does not cover: the sampling of
the confidential data from a population (a different sample would give a different risk), nor
the choice of the radius and of the known variables.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

#: an :class:`~idrisk.IdentificationRiskResult` (not imported: result.py imports this module)
IdentificationRiskResult = Any

__all__ = ["MEASURES", "interval", "interval_note", "m_advice_text", "record_stability",
           "required_m", "t_quantile"]

#: the file-level measures of an identification-risk result, in this order
MEASURES = ("s", "exp_risk", "true_rate", "false_rate")


@lru_cache(maxsize=256)
def t_quantile(level: float, df: int) -> float:
    """The two-sided t quantile: ``t_{(1 + level) / 2, df}``.

    Examples
    --------
    >>> round(t_quantile(0.95, 4), 4), round(t_quantile(0.95, 10**6), 4)
    (2.7764, 1.96)
    """
    from scipy.special import stdtrit  # scipy.special: a fifth of scipy.stats' import time

    return float(stdtrit(df, 0.5 + level / 2))


def _check_level(level: float) -> float:
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    return level


def interval_table(values: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Mean, se and t-interval of each column of ``values`` (one row per synthetic dataset).

    Missing values (a ``false_rate`` of a dataset with s = 0) are left out of that column, so
    its m is the number of datasets with a value. With fewer than two values ``se``,
    ``lower`` and ``upper`` are NaN: no interval can be given.

    Examples
    --------
    >>> t = interval_table(pd.DataFrame({"exp_risk": [10.0, 12.0, 11.0, 13.0]}))
    >>> t.loc["exp_risk", ["mean", "se", "lower", "upper"]].round(3).tolist()
    [11.5, 0.645, 9.446, 13.554]
    >>> list(t.columns)
    ['mean', 'se', 'lower', 'upper', 'm', 'level']
    """
    level = _check_level(level)
    rows = {}
    for name in values.columns:
        x = pd.to_numeric(values[name], errors="coerce").to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        k = len(x)
        mean = float(x.mean()) if k else math.nan
        if k >= 2:
            se = float(x.std(ddof=1)) / math.sqrt(k)
            half = t_quantile(level, k - 1) * se
            lower, upper = mean - half, mean + half
        else:
            se = lower = upper = math.nan
        rows[name] = {"mean": mean, "se": se, "lower": lower, "upper": upper, "m": k,
                      "level": level}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out["m"] = out["m"].astype(np.int64)
    out.index.name = "measure"
    return out


def interval(result: IdentificationRiskResult, level: float = 0.95) -> pd.DataFrame:
    """Monte-Carlo interval of the file-level measures over the m synthetic datasets.

    Parameters
    ----------
    result
        An :class:`~idrisk.IdentificationRiskResult` (also ``result.interval(level)``), or the
        result of :func:`~idrisk.identification_risk_dask` with ``out_dir``.
    level
        Confidence level of the t-interval (0.95).

    Returns
    -------
    DataFrame
        One row per measure (``s``, ``exp_risk``, ``true_rate``, ``false_rate``), columns
        ``mean`` (over the m datasets), ``se`` (sd / sqrt(m)), ``lower`` and ``upper`` (mean
        -/+ t_{(1+level)/2, m-1} se), ``m`` (datasets with a value: a ``false_rate`` is
        missing where s = 0) and ``level``. With m = 1 ``se``, ``lower`` and ``upper`` are NaN
        and ``attrs["note"]`` says why (:func:`interval_note`).

    Notes
    -----
    The interval covers the randomness of the synthesis draws given the confidential data
    (and given the fit, when one fitted synthesizer drew all m datasets), treating the m
    datasets as independent draws. It does not cover the sampling of the confidential data,
    nor the choice of radius or known variables.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import identification_risk
    >>> conf = pd.DataFrame({"Sex": ["F", "F", "M", "M"], "Income": [10.0, 11.0, 30.0, 50.0]})
    >>> syns = [conf.assign(Income=v) for v in ([10.5, 14.0, 31.0, 20.0],
    ...                                         [10.2, 11.1, 45.0, 50.5],
    ...                                         [9.0, 10.6, 29.0, 52.0])]
    >>> res = identification_risk(conf, syns, known="Sex", syn="Income", r=0.1)
    >>> res.exp_risk.tolist()
    [2.0, 2.5, 3.0]
    >>> res.interval().loc["exp_risk", ["mean", "se", "lower", "upper"]].round(3).tolist()
    [2.5, 0.289, 1.258, 3.742]
    """
    table = interval_table(result.to_frame("dataset").astype(float)[list(MEASURES)], level)
    note = interval_note(result.m)
    if note:
        table.attrs["note"] = note
    return table


def interval_note(m: int) -> str:
    """The note for an interval from m datasets ('' when one can be given).

    Examples
    --------
    >>> interval_note(1)[:31], interval_note(2)
    ('m = 1: no interval can be given', '')
    """
    if m >= 2:
        return ""
    return ("m = 1: no interval can be given (the spread over synthetic datasets needs at "
            "least two); synthesize m >= 2 datasets")


def required_m(
    result: IdentificationRiskResult,
    precision: float | None = None,
    *,
    relative: float | None = None,
    level: float = 0.95,
    measure: str = "exp_risk",
) -> int:
    """The number of synthetic datasets m at which the interval's half-width reaches
    ``precision``, estimated from a pilot result.

    The half-width with m datasets is ``t_{(1+level)/2, m-1} * sd / sqrt(m)``; ``sd`` (over
    datasets) is taken from the pilot and the smallest m >= 2 whose half-width is at most the
    target is returned. **An estimate**: the pilot's sd is itself random (with m = 5 it is
    often off by 30% or more), so a larger pilot gives a steadier answer; check the interval of
    the final run.

    Parameters
    ----------
    result
        The pilot :class:`~idrisk.IdentificationRiskResult` (m >= 2).
    precision
        Target half-width in the measure's units (for ``exp_risk``: records).
    relative
        Target half-width as a share of the pilot's mean (0.05 = ±5%). Give exactly one of
        ``precision`` and ``relative``.
    level
        Confidence level of the interval (0.95).
    measure
        ``"exp_risk"`` (default), ``"s"``, ``"true_rate"`` or ``"false_rate"``.

    Returns
    -------
    int
        The estimated m (at least 2).

    Raises
    ------
    ValueError
        m = 1 (no sd to extrapolate from), a precision <= 0, both or neither of ``precision``
        and ``relative``, a relative precision of a measure whose mean is 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import identification_risk
    >>> conf = pd.DataFrame({"Sex": ["F", "F", "M", "M"], "Income": [10.0, 11.0, 30.0, 50.0]})
    >>> syns = [conf.assign(Income=v) for v in ([10.5, 14.0, 31.0, 20.0],
    ...                                         [10.2, 11.1, 45.0, 50.5],
    ...                                         [9.0, 10.6, 29.0, 52.0])]
    >>> res = identification_risk(conf, syns, known="Sex", syn="Income", r=0.1)
    >>> required_m(res, precision=0.5), required_m(res, relative=0.1)
    (7, 18)
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {list(MEASURES)}, got {measure!r}")
    level = _check_level(level)
    if (precision is None) == (relative is None):
        raise ValueError("give exactly one of precision (absolute half-width) and relative "
                         "(half-width as a share of the estimate)")
    values = getattr(result, measure).to_numpy(dtype=float)
    values = values[~np.isnan(values)]
    if len(values) < 2:
        raise ValueError(f"m = {len(values)}: the m needed cannot be estimated from fewer "
                         "than two synthetic datasets; run a pilot with m >= 2 (5 or more "
                         "gives a steadier estimate)")
    if precision is not None:
        target = float(precision)
        if not target > 0:
            raise ValueError(f"precision must be > 0, got {precision}")
    else:
        share = float(relative)  # type: ignore[arg-type]
        if not share > 0:
            raise ValueError(f"relative must be > 0, got {relative}")
        mean = float(values.mean())
        if mean == 0:
            raise ValueError(f"the pilot's mean {measure} is 0: a relative precision has no "
                             "meaning; give an absolute precision")
        target = share * abs(mean)
    sd = float(values.std(ddof=1))
    if sd == 0:
        return 2
    # smallest m with t_{m-1} sd / sqrt(m) <= target; the half-width falls with m
    m = max(2, math.ceil((1.959963984540054 * sd / target) ** 2))  # z: a lower bound
    while t_quantile(level, m - 1) * sd / math.sqrt(m) > target:
        m = max(m + 1, math.ceil((t_quantile(level, m - 1) * sd / target) ** 2))
    # step back while a smaller m still reaches the target (the jump above may overshoot)
    while m > 2 and t_quantile(level, m - 2) * sd / math.sqrt(m - 1) <= target:
        m -= 1
    return int(m)


def m_advice_text(result: IdentificationRiskResult, m_needed: int, precision: float, *,
                  relative: bool, level: float = 0.95, measure: str = "exp_risk") -> str:
    """One sentence of m advice, with the caveat that it is an estimate.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import identification_risk
    >>> conf = pd.DataFrame({"Sex": ["F", "M"], "Income": [10.0, 30.0]})
    >>> res = identification_risk(conf, [conf, conf.assign(Income=[10.5, 99.0])],
    ...                           known="Sex", syn="Income", r=0.1)
    >>> m_advice_text(res, 7, 0.1, relative=True)[:60]
    'for a 95% interval of exp_risk within ±10% of the estimate, '
    """
    what = f"±{100 * precision:g}% of the estimate" if relative else f"±{precision:g}"
    return (f"for a {100 * level:g}% interval of {measure} within {what}, about m = "
            f"{m_needed} synthetic datasets are needed (an estimate from the spread of the "
            f"m = {result.m} datasets at hand; that spread is itself uncertain, so check the "
            "interval of the final run)")


def record_stability(result: IdentificationRiskResult,
                     threshold: float | None = None) -> pd.DataFrame:
    """Per confidential record, in how many of the m synthetic datasets it is identified.

    Parameters
    ----------
    result
        An :class:`~idrisk.IdentificationRiskResult`.
    threshold
        None (default): identified = a unique true match (T = 1 and c = 1, i.e. K = 1).
        A number: identified = a record risk T / c at or above it (0 < threshold <= 1).

    Returns
    -------
    DataFrame
        Indexed like the confidential data: ``identified`` (number of datasets), ``share``
        (identified / m) and ``every`` (identified in all m datasets). Records identified in
        every dataset are risky whatever the draw; those identified in a few are risky by
        chance.

    Examples
    --------
    >>> import pandas as pd
    >>> from idrisk import identification_risk
    >>> conf = pd.DataFrame({"Sex": ["F", "F", "M", "M"], "Income": [10.0, 11.0, 30.0, 50.0]})
    >>> syns = [conf.assign(Income=v) for v in ([10.5, 14.0, 31.0, 20.0],
    ...                                         [10.2, 11.1, 45.0, 50.5])]
    >>> res = identification_risk(conf, syns, known="Sex", syn="Income", r=0.1)
    >>> record_stability(res)["identified"].tolist()
    [2, 0, 1, 1]
    >>> record_stability(res, threshold=0.5)["every"].tolist()
    [True, False, False, False]
    """
    if threshold is None:
        hit = result.K.to_numpy() == 1
    else:
        threshold = float(threshold)
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must lie in (0, 1], got {threshold}")
        hit = result.risk.to_numpy() >= threshold
    count = hit.sum(axis=1).astype(np.int64)
    m = result.m
    return pd.DataFrame({"identified": count, "share": count / m, "every": count == m},
                        index=result.c.index)


def stability_counts(stability: pd.DataFrame, m: int) -> pd.DataFrame:
    """Number of records identified in k of the m datasets, k = 1..m (no record named).

    Examples
    --------
    >>> st = pd.DataFrame({"identified": [0, 2, 1, 2]})
    >>> stability_counts(st, 2)["records"].tolist()
    [1, 2]
    """
    counts = np.bincount(stability["identified"].to_numpy(), minlength=m + 1)[1:]
    return pd.DataFrame({"datasets": np.arange(1, m + 1), "records": counts})
