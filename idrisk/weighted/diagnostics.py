"""Utility and risk diagnostics of the risk-weighted synthesis papers.

* bootstrap CIs of mean / median / 90% quantile pooled across L synthetic datasets;
* a regression coefficient combined over datasets (partial-synthesis combining rules,
  :func:`idrisk.utility.combine_partial`);
* ECDF utility ``U_m``, ``U_a`` (:func:`idrisk.utility.ecdf_utility`) averaged over datasets;
* IQR and summary of a risk distribution; whack-a-mole records.

Examples
--------
>>> import pandas as pd
>>> from idrisk.weighted.diagnostics import whack_a_mole
>>> w = whack_a_mole(pd.Series([0.1, 0.2, 0.0]), pd.Series([0.0, 0.5, 0.3]))
>>> w.count
2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._align import Align, align_series
from .._result import Result

__all__ = [
    "WhackAMole",
    "bootstrap_ci",
    "ecdf_table",
    "regression_utility",
    "risk_summary",
    "utility_table",
    "whack_a_mole",
]

STATS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "mean": lambda a: a.mean(axis=-1),
    "median": lambda a: np.median(a, axis=-1),
    "q90": lambda a: np.quantile(a, 0.9, axis=-1),
}


def _stat_fn(stat: str | Callable) -> tuple[str, Callable]:
    if callable(stat):
        return getattr(stat, "__name__", "stat"), stat
    if stat not in STATS:
        raise ValueError(f"stat must be one of {sorted(STATS)} or a callable, got {stat!r}")
    return stat, STATS[stat]


def bootstrap_ci(
    values: Sequence[np.ndarray] | np.ndarray,
    stat: str | Callable = "mean",
    B: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> pd.Series:
    """Point estimate and pooled bootstrap CI of a statistic over L datasets.

    Each dataset is resampled ``B`` times; the CI is the central ``level`` interval of
    the pooled ``L * B`` bootstrap statistics (so between-dataset variation widens it,
    as in the papers' Table 6) and the point estimate is the mean over datasets of
    the statistic. With a single dataset this is the ordinary percentile bootstrap.

    Parameters
    ----------
    values : array (one dataset) or sequence of arrays (L datasets)
    stat : {"mean", "median", "q90"} or callable reducing the last axis
    B : int
        Bootstrap resamples per dataset.
    level : float
    seed : int

    Returns
    -------
    pandas.Series with ``estimate, ci_low, ci_high, length``

    Examples
    --------
    >>> import numpy as np
    >>> s = bootstrap_ci(np.arange(100.0), "mean", B=200, seed=1)
    >>> bool(s["ci_low"] < 49.5 < s["ci_high"])
    True
    """
    name, fn = _stat_fn(stat)
    arrs = [np.asarray(values, dtype=float)] if np.ndim(values[0]) == 0 else [
        np.asarray(v, dtype=float) for v in values
    ]
    rng = np.random.default_rng(seed)
    ests, boots = [], []
    for a in arrs:
        ests.append(float(fn(a)))
        idx = rng.integers(0, len(a), size=(B, len(a)))
        boots.append(fn(a[idx]))
    pooled = np.concatenate(boots)
    lo, hi = np.quantile(pooled, [(1 - level) / 2, (1 + level) / 2])
    return pd.Series(
        {"estimate": float(np.mean(ests)), "ci_low": lo, "ci_high": hi, "length": hi - lo},
        name=name,
    )


def utility_table(
    confidential: np.ndarray,
    synthetic: Mapping[str, Sequence[np.ndarray]],
    stats: Sequence[str] = ("mean", "median", "q90"),
    B: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Bootstrap CIs of each statistic for the data and each synthesizer.

    Returns a DataFrame indexed by (synthesizer, stat), ``"Data"`` first.
    """
    rows = {}
    for stat in stats:
        rows[("Data", stat)] = bootstrap_ci(confidential, stat, B, level, seed)
        for name, sets in synthetic.items():
            rows[(name, stat)] = bootstrap_ci(list(sets), stat, B, level, seed)
    out = pd.DataFrame(rows).T
    out.index.names = ["synthesizer", "stat"]
    return out


def regression_utility(
    confidential: pd.DataFrame,
    synthetic: Mapping[str, Sequence[pd.DataFrame]],
    formula: str,
    term: str,
    level: float = 0.95,
) -> pd.DataFrame:
    """OLS coefficient ``term`` on the data and combined over each synthesizer's datasets.

    Uses statsmodels' formula OLS and :func:`idrisk.utility.combine_partial`
    (partial-synthesis combining rules). Returns estimate and CI per synthesizer.
    """
    import statsmodels.formula.api as smf

    from idrisk.utility import combine_partial

    fit = smf.ols(formula, data=confidential).fit()
    ci = fit.conf_int(1 - level).loc[term]
    rows = {"Data": {"estimate": fit.params[term], "ci_low": ci[0], "ci_high": ci[1]}}
    for name, sets in synthetic.items():
        fits = [smf.ols(formula, data=d).fit() for d in sets]
        comb = combine_partial(
            [f.params[term] for f in fits], [f.bse[term] ** 2 for f in fits], level=level
        )
        rows[name] = {"estimate": comb.q_bar, "ci_low": comb.ci_low, "ci_high": comb.ci_high}
    out = pd.DataFrame(rows).T
    out["length"] = out["ci_high"] - out["ci_low"]
    out.index.name = "synthesizer"
    return out


def ecdf_table(
    confidential: np.ndarray | pd.Series, synthetic: Mapping[str, Sequence[np.ndarray]]
) -> pd.DataFrame:
    """ECDF utility ``U_m`` and ``U_a`` of each synthesizer, averaged over its datasets."""
    from idrisk.utility import ecdf_utility

    orig = pd.Series(np.asarray(confidential, dtype=float))
    rows = {}
    for name, sets in synthetic.items():
        per = ecdf_utility(orig, [pd.Series(np.asarray(s, dtype=float)) for s in sets])
        rows[name] = per[["U_m", "U_a"]].mean()
    out = pd.DataFrame(rows).T
    out.index.name = "synthesizer"
    return out


def risk_summary(risks: Mapping[str, pd.Series]) -> pd.DataFrame:
    """Mean, quartiles, IQR, 90% quantile and maximum of each risk distribution.

    Examples
    --------
    >>> risk_summary({"a": pd.Series([0.0, 0.1, 0.2, 0.3])}).loc["a", "IQR"].round(3)
    np.float64(0.15)
    """
    rows = {}
    for name, s in risks.items():
        q = s.quantile([0.25, 0.5, 0.75, 0.9])
        rows[name] = {
            "mean": s.mean(), "q25": q[0.25], "median": q[0.5], "q75": q[0.75],
            "IQR": q[0.75] - q[0.25], "q90": q[0.9], "max": s.max(),
        }
    out = pd.DataFrame(rows).T
    out.index.name = "risk"
    return out


@dataclass(frozen=True, repr=False)
class WhackAMole(Result):
    """Records whose risk rose by more than ``threshold`` under a weighted synthesizer.

    Attributes
    ----------
    records : pandas.DataFrame
        ``unweighted``, ``weighted``, ``increase`` of the flagged records.
    count : int
    threshold : float
    n : int
        Number of records compared.
    """

    records: pd.DataFrame
    count: int
    threshold: float
    n: int

    def summary(self) -> pd.DataFrame:
        """One row: records compared, records flagged, threshold, largest increase."""
        top = float(self.records["increase"].max()) if self.count else 0.0
        return pd.DataFrame([{"n": self.n, "flagged": self.count, "threshold": self.threshold,
                              "largest_increase": top}])

    def _header(self) -> str:
        return (f"WhackAMole({self.count} of {self.n} records with risk up by > "
                f"{self.threshold})")

    def to_frame(self) -> pd.DataFrame:
        """The flagged records: ``unweighted``, ``weighted``, ``increase``."""
        return self.records.copy()


def whack_a_mole(
    unweighted: pd.Series, weighted: pd.Series, threshold: float = 0.25, align: Align = None
) -> WhackAMole:
    """Flag records whose identification risk increases by more than ``threshold``.

    Parameters
    ----------
    unweighted, weighted : Series
        Record-level risks under the unweighted and a risk-weighted synthesizer
        (same index).
    threshold : float
        The papers use 0.25.
    align : {None, "position", "index"}
        Row correspondence when both are Series with different indexes: None raises a
        ValueError naming ``weighted`` (see :mod:`idrisk._align`).

    Examples
    --------
    >>> u = pd.Series([0.1, 0.2, 0.3], index=["a", "b", "c"])
    >>> whack_a_mole(u, pd.Series([0.1, 0.6, 0.3], index=["a", "b", "c"])).count
    1
    >>> whack_a_mole(u, pd.Series([0.1, 0.6, 0.3], index=["c", "b", "a"]))
    Traceback (most recent call last):
    ...
    ValueError: weighted: its index differs from unweighted's (same labels in a different order: ...
    """
    arrs = align_series({"unweighted": unweighted, "weighted": weighted}, align)
    index = unweighted.index if isinstance(unweighted, pd.Series) else None
    u = pd.Series(arrs["unweighted"].astype(float), index=index)
    w = pd.Series(arrs["weighted"].astype(float), index=u.index)
    inc = w - u
    flagged = inc > threshold
    rec = pd.DataFrame({"unweighted": u, "weighted": w, "increase": inc})[flagged]
    return WhackAMole(rec, int(flagged.sum()), float(threshold), len(u))
