"""Partial-synthesis combining rules (Reiter & Raghunathan 2007)."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._result import Result
from ..exceptions import UtilityWarning

__all__ = ["CombinedEstimate", "combine_partial"]


@dataclass(frozen=True, repr=False)
class CombinedEstimate(Result):
    """Partial-synthesis combined estimate (Reiter & Raghunathan 2007).

    Attributes
    ----------
    q_bar, b, u_bar, T, df : float
        Mean of the m estimates, their between variance, the mean within variance, the
        total variance ``u_bar + b / m`` and the t reference's degrees of freedom.
    m : int
    level, ci_low, ci_high : float
        The interval ``q_bar +- t_{df} sqrt(T)`` at ``level``.
    """

    q_bar: float
    b: float
    u_bar: float
    T: float
    df: float
    m: int
    level: float
    ci_low: float
    ci_high: float

    def summary(self) -> pd.DataFrame:
        """One row: estimate, total variance, interval."""
        return pd.DataFrame(
            [{"q_bar": self.q_bar, "T": self.T, "df": self.df, "ci_low": self.ci_low,
              "ci_high": self.ci_high}], index=pd.Index(["estimate"]),
        )

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame with every field."""
        return pd.DataFrame([asdict(self)])

    def _header(self) -> str:
        return (
            f"CombinedEstimate(q_bar={self.q_bar:.6g}, T={self.T:.6g} (u_bar={self.u_bar:.6g}, "
            f"b={self.b:.6g}, m={self.m}), df={self.df:.4g}, "
            f"{100 * self.level:g}% CI=[{self.ci_low:.6g}, {self.ci_high:.6g}])"
        )


def combine_partial(estimates, variances, level: float = 0.95) -> CombinedEstimate:
    """Combine m point estimates from partially synthetic datasets.

    ``q_bar = mean(q_l)``, ``b = var(q_l)`` (ddof 1), ``u_bar = mean(u_l)``,
    ``T = u_bar + b/m``, ``df = (m - 1)(1 + u_bar / (b/m))^2``; the interval is
    ``q_bar +- t_{df, (1+level)/2} sqrt(T)``. With ``b = 0`` the degrees of freedom are
    infinite (normal quantile). With m = 1 there is no between variance: ``b = 0`` and
    ``T = u_bar`` (a warning says so).

    Examples
    --------
    >>> ce = combine_partial([1.0, 2.0, 3.0], [0.5, 0.5, 0.5])
    >>> round(ce.q_bar, 6), round(ce.b, 6), round(ce.T, 6), round(ce.df, 4)
    (2.0, 1.0, 0.833333, 12.5)
    """
    q = np.asarray(estimates, dtype=float).ravel()
    u = np.asarray(variances, dtype=float).ravel()
    if q.size == 0:
        raise ValueError("estimates is empty")
    if q.shape != u.shape:
        raise ValueError(
            f"estimates and variances must have the same length, got {q.size} and {u.size}"
        )
    if np.isnan(q).any() or np.isnan(u).any():
        raise ValueError("estimates/variances contain missing values")
    if (u < 0).any():
        raise ValueError("variances must be non-negative")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    m = q.size
    q_bar = float(q.mean())
    u_bar = float(u.mean())
    if m == 1:
        warnings.warn("combine_partial with m = 1: no between-dataset variance, T = u_bar",
                      UtilityWarning, stacklevel=2)
        b = 0.0
    else:
        b = float(q.var(ddof=1))
    T = u_bar + b / m
    df = float("inf") if b == 0 else (m - 1) * (1 + u_bar / (b / m)) ** 2
    crit = stats.norm.ppf((1 + level) / 2) if np.isinf(df) else stats.t.ppf((1 + level) / 2, df)
    half = float(crit * np.sqrt(T))
    return CombinedEstimate(q_bar, b, u_bar, T, df, m, level, q_bar - half, q_bar + half)
