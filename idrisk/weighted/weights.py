"""Identification risk probabilities and risk weights of the risk-weighted synthesizers.

Implements the measures of Hu, Savitsky & Williams (risk-efficient Bayesian data
synthesis): for a sensitive continuous value ``y`` and the intruder-known pattern of
each record,

* confidential-data marginal risk ``IR_i^c`` = share of the records in i's pattern whose
  value lies outside the ball ``B(y_i, r)``;
* confidential-data pairwise risk ``IR_ij^c`` = share outside both ``B(y_i, r)`` and
  ``B(y_j, r)`` (0 across patterns);
* weights ``alpha^m = 1 - IR^c`` and ``alpha^pw_i = mean_{j != i} (1 - IR_ij^c)``, with the
  local adjustment ``min(c * alpha + g, 1)``;
* synthetic-data marginal risk ``IR_i = mean_l  #{h: y*_h not in B(y_i, r)} / |M_i| * T_i``.

The ball ``B(y, r)`` is described as everywhere in idrisk (``idrisk._radius``): ``r``,
``percentage``, ``abs_radius`` and ``closed``. The defaults are the papers' ball, the closed
interval ``[y - r|y|, y + r|y|]`` (``percentage=True, abs_radius=True, closed=True``; r a
fraction, e.g. 0.2 for 20%); ``percentage=False`` gives ``[y - r, y + r]`` (absolute), and
``closed=False, abs_radius=False`` R's open ball of :func:`idrisk.identification_risk`.

Pairwise weights are computed exactly in O(n log n): summing ``IR_ij^c`` over ``j`` equals
a sum over the records ``h`` outside ``B(y_i, r)`` of how many other balls exclude ``y_h``.

Examples
--------
>>> import numpy as np
>>> from idrisk.weighted.weights import risk_weights
>>> y = np.array([10.0, 11.0, 12.0, 50.0])
>>> risk_weights(y, ["a", "a", "a", "a"], r=0.1, weighting="marginal").round(2).tolist()
[0.5, 0.75, 0.5, 0.25]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from .._align import Align, check_align, check_frame_alignment
from .._radius import ball_bounds, in_ball
from .._result import Result

__all__ = [
    "SyntheticRisk",
    "adjust_weights",
    "ball_bounds",
    "confidential_marginal_risk",
    "marginal_weights",
    "pairwise_risk_matrix",
    "pairwise_weights",
    "pairwise_weights_naive",
    "pattern_codes",
    "risk_weights",
    "rpackage_record_risk",
    "synthetic_marginal_risk",
]


# --------------------------------------------------------------------------- inputs


def _as_values(y, name: str = "y") -> tuple[np.ndarray, pd.Index]:
    if isinstance(y, pd.DataFrame):
        raise TypeError(f"{name} must be one column (Series or 1-d array), got a DataFrame")
    index = y.index if isinstance(y, pd.Series) else None
    arr = np.asarray(y, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains missing or non-finite values")
    return arr, (index if index is not None else pd.RangeIndex(len(arr)))


def _aligned(y, pattern, align: Align = None):
    """``pattern`` in ``y``'s row order (see :mod:`idrisk._align`); raises naming ``pattern``."""
    if isinstance(y, pd.Series) and isinstance(pattern, (pd.Series, pd.DataFrame)):
        if len(pattern) != len(y):
            raise ValueError(f"pattern has {len(pattern)} records but y has {len(y)}")
        return check_frame_alignment(y, pattern, "pattern", align, reference_name="y")
    check_align(align)
    return pattern


def pattern_codes(pattern, n: int | None = None) -> np.ndarray:
    """Integer code of each record's known pattern.

    Parameters
    ----------
    pattern : array-like or DataFrame
        One label per record, or a DataFrame of known variables (each distinct row is a
        pattern). Missing values form their own level.
    n : int, optional
        Expected number of records (checked).

    Returns
    -------
    numpy.ndarray of int64, codes 0..P-1

    Examples
    --------
    >>> pattern_codes(["a", "b", "a"]).tolist()
    [0, 1, 0]
    """
    if isinstance(pattern, pd.DataFrame):
        if pattern.shape[1] == 0:
            codes = np.zeros(len(pattern), dtype=np.int64)
        else:
            keys = pattern.astype("object").where(pattern.notna(), "<NA>").astype(str)
            joined = keys.agg("\x1f".join, axis=1)
            codes = pd.factorize(joined)[0].astype(np.int64)
    else:
        arr = pattern.to_numpy() if isinstance(pattern, pd.Series) else np.asarray(pattern)
        if arr.ndim != 1:
            raise ValueError(f"pattern must be 1-dimensional or a DataFrame, got {arr.shape}")
        codes = pd.factorize(arr, use_na_sentinel=False)[0].astype(np.int64)
    if n is not None and len(codes) != n:
        raise ValueError(f"pattern has {len(codes)} records but y has {n}")
    return codes


class _Grouped:
    """Records sorted by (pattern, value) with exact integer keys for within-group ranks."""

    def __init__(self, codes: np.ndarray, values: np.ndarray, *queries: np.ndarray) -> None:
        allv = np.concatenate([values, *queries])
        uniq, inv = np.unique(allv, return_inverse=True)
        self.u = np.int64(len(uniq) + 1)
        n = len(values)
        self.codes = codes
        self.rank_v = inv[:n].astype(np.int64)
        self.rank_q = [
            inv[n * (k + 1) : n * (k + 2)].astype(np.int64) for k in range(len(queries))
        ]
        keys = codes * self.u + self.rank_v
        self.order = np.argsort(keys, kind="stable")
        self.sorted_keys = keys[self.order]
        sizes = np.bincount(codes, minlength=int(codes.max()) + 1 if n else 0)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.start = offsets[codes]
        self.end = offsets[codes + 1]
        self.size = sizes[codes]

    def count_below(self, rank_t: np.ndarray, strict: bool = True) -> np.ndarray:
        """#{h in own group: value_h < t} (strict) or <= t; positions in sorted order."""
        side: Literal["left", "right"] = "left" if strict else "right"
        return np.searchsorted(self.sorted_keys, self.codes * self.u + rank_t, side=side)

    def outside(self, closed: bool) -> np.ndarray:
        """#{h in own group: value_h outside the ball (query 0 = lo, query 1 = hi)}."""
        below = self.count_below(self.rank_q[0], strict=closed) - self.start
        above = self.end - self.count_below(self.rank_q[1], strict=not closed)
        return below + above


# --------------------------------------------------------------------------- confidential


def confidential_marginal_risk(
    y, pattern, r: float, *, percentage: bool = True, abs_radius: bool = True,
    closed: bool = True, align: Align = None
) -> pd.Series:
    """Marginal identification risk of each record in the confidential data, ``IR_i^c``.

    ``IR_i^c = #{h in M_i : y_h not in B(y_i, r)} / |M_i|`` (published eq. 2).

    Parameters
    ----------
    y : array-like
        Sensitive values.
    pattern : array-like or DataFrame
        Known pattern of each record.
    r : float
        Radius of the ball ``B(y_i, r)``.
    percentage, abs_radius, closed : bool
        How the radius scales and whether the ball is closed (``idrisk._radius``); the
        defaults are the papers' closed ball ``[y - r|y|, y + r|y|]``.
    align : {None, "position", "index"}
        Row correspondence of ``y`` and ``pattern`` (see :mod:`idrisk._align`).

    Returns
    -------
    pandas.Series named ``"IR_c"``

    Examples
    --------
    >>> confidential_marginal_risk([10.0, 11.0, 30.0], [1, 1, 1], 0.1).round(3).tolist()
    [0.333, 0.333, 0.667]
    """
    ball = {"percentage": percentage, "abs_radius": abs_radius, "closed": closed}
    vals, index = _as_values(y)
    codes = pattern_codes(_aligned(y, pattern, align), len(vals))
    if len(vals) == 0:
        return pd.Series([], index=index, name="IR_c", dtype=float)
    lo, hi = ball_bounds(vals, r, **ball)
    g = _Grouped(codes, vals, lo, hi)
    return pd.Series(g.outside(closed) / g.size, index=index, name="IR_c")


def marginal_weights(
    y, pattern, r: float, *, percentage: bool = True, abs_radius: bool = True,
    closed: bool = True, align: Align = None
) -> pd.Series:
    """Marginal weights ``alpha_i^m = 1 - IR_i^c`` (before the c/g adjustment)."""
    risk = confidential_marginal_risk(y, pattern, r, percentage=percentage,
                                      abs_radius=abs_radius, closed=closed, align=align)
    return (1.0 - risk).rename("alpha_m")


def pairwise_weights(
    y, pattern, r: float, *, percentage: bool = True, abs_radius: bool = True,
    closed: bool = True, align: Align = None
) -> pd.Series:
    """Pairwise weights ``alpha_i^pw = sum_{j in M_i, j != i} (1 - IR_ij^c) / (|M_i| - 1)``.

    Exact O(n log n) algorithm. With ``e_h`` the number of balls ``B(y_j, r)`` of i's
    pattern that exclude ``y_h``, ``sum_{j != i} #{h: h outside B_i and B_j}`` equals
    ``sum_{h outside B_i} (e_h - 1)``; both counts come from binary searches on
    sorted values, and the sum from prefix sums.

    A record alone in its pattern has no pair; it gets its marginal weight
    ``1 - IR_i^c = 1`` (documented rule).

    Examples
    --------
    >>> pairwise_weights([10.0, 11.0, 30.0], [1, 1, 1], 0.1).round(4).tolist()
    [0.8333, 0.8333, 1.0]
    """
    vals, index = _as_values(y)
    codes = pattern_codes(_aligned(y, pattern, align), len(vals))
    if len(vals) == 0:
        return pd.Series([], index=index, name="alpha_pw", dtype=float)
    lo, hi = ball_bounds(vals, r, percentage=percentage, abs_radius=abs_radius, closed=closed)
    # e_h: number of balls in h's pattern excluding y_h = #{lo_j > y_h} + #{hi_j < y_h}
    # (closed balls; >= and <= for open ones; an empty ball is (inf, inf), counted once)
    g_lo = _Grouped(codes, lo, vals)
    g_hi = _Grouped(codes, hi, vals)
    n_lo_above = g_lo.end - g_lo.count_below(g_lo.rank_q[0], strict=not closed)
    n_hi_below = g_hi.count_below(g_hi.rank_q[0], strict=closed) - g_hi.start
    e = (n_lo_above + n_hi_below).astype(np.float64)
    # S_i = sum over h outside B_i of (e_h - 1)
    g = _Grouped(codes, vals, lo, hi)
    cum = np.concatenate([[0.0], np.cumsum((e - 1.0)[g.order])])
    pos_lo = g.count_below(g.rank_q[0], strict=closed)
    pos_hi = g.count_below(g.rank_q[1], strict=not closed)
    s = (cum[pos_lo] - cum[g.start]) + (cum[g.end] - cum[pos_hi])
    m = g.size.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1.0 - s / (m * (m - 1.0))
    single = g.size == 1
    alpha[single] = 1.0  # no pair: marginal weight 1 - IR^c = 1
    return pd.Series(np.clip(alpha, 0.0, 1.0), index=index, name="alpha_pw")


def pairwise_risk_matrix(
    y, r: float, *, percentage: bool = True, abs_radius: bool = True, closed: bool = True
) -> np.ndarray:
    """``IR_ij^c`` for all pairs of ONE pattern (an ``|M| x |M|`` matrix, ``O(|M|^3)``).

    Entry (i, j) is the share of the pattern's records outside both balls; the
    diagonal holds ``IR_i^c``.
    """
    vals = np.asarray(y, dtype=float)
    inside = in_ball(vals[None, :], vals[:, None], r, percentage=percentage,
                     abs_radius=abs_radius, closed=closed)
    out = (~inside).astype(np.int64)
    return (out @ out.T) / len(vals)


def pairwise_weights_naive(
    y, pattern, r: float, *, percentage: bool = True, abs_radius: bool = True,
    closed: bool = True, align: Align = None
) -> pd.Series:
    """Reference implementation of ``alpha^pw`` straight from the definition.

    Builds every pattern's full pairwise matrix (O(sum |M_p|^3)); use for checks only.
    """
    vals, index = _as_values(y)
    codes = pattern_codes(_aligned(y, pattern, align), len(vals))
    alpha = np.ones(len(vals))
    for code in np.unique(codes):
        idx = np.flatnonzero(codes == code)
        m = len(idx)
        if m == 1:
            continue
        mat = pairwise_risk_matrix(vals[idx], r, percentage=percentage,
                                   abs_radius=abs_radius, closed=closed)
        off = mat.sum(axis=1) - np.diag(mat)
        alpha[idx] = (m - 1 - off) / (m - 1)
    return pd.Series(alpha, index=index, name="alpha_pw")


def adjust_weights(alpha, c: float = 1.0, g: float = 0.0) -> pd.Series:
    """Local adjustment ``alpha* = min(c * alpha + g, 1)`` (clipped below at 0).

    Examples
    --------
    >>> adjust_weights([0.2, 0.5, 0.9], c=1.5).round(2).tolist()
    [0.3, 0.75, 1.0]
    """
    if not np.isfinite(c) or c < 0:
        raise ValueError(f"c must be a non-negative number, got {c!r}")
    if not np.isfinite(g):
        raise ValueError(f"g must be a finite number, got {g!r}")
    s = alpha if isinstance(alpha, pd.Series) else pd.Series(np.asarray(alpha, dtype=float))
    return s.mul(c).add(g).clip(lower=0.0, upper=1.0)


def risk_weights(
    y,
    pattern,
    r: float,
    *,
    weighting: str = "marginal",
    c: float = 1.0,
    g: float = 0.0,
    percentage: bool = True,
    abs_radius: bool = True,
    closed: bool = True,
    align: Align = None,
) -> pd.Series:
    """Record weights ``alpha`` for a risk-weighted pseudo posterior.

    Parameters
    ----------
    y : array-like
        Sensitive values (the scale on which closeness is judged, e.g. income).
    pattern : array-like or DataFrame
        Known-pattern label of each record (or the known variables).
    r : float
        Radius of the ball ``B(y_i, r)``: with the defaults a fraction of ``|y_i|``
        (0.2 = 20%).
    weighting : {"marginal", "pairwise"}
        Which risk weighting.
    c, g : float
        Local adjustment ``min(c * alpha + g, 1)``; the papers try c = 1.5 and g = 0.1.
    percentage, abs_radius, closed : bool
        The ball (``idrisk._radius``). Defaults: the papers' closed ball
        ``[y - r|y|, y + r|y|]``; ``percentage=False`` for an absolute radius ``[y - r, y + r]``.
    align : {None, "position", "index"}
        Row correspondence of ``y`` and ``pattern`` when both are pandas objects with
        different indexes: None raises a ValueError naming ``pattern``; see
        :mod:`idrisk._align`.

    Returns
    -------
    pandas.Series named ``"alpha"``, values in [0, 1]

    Examples
    --------
    >>> risk_weights([10.0, 11.0, 30.0], [1, 1, 1], r=0.1, weighting="pairwise").round(3).tolist()
    [0.833, 0.833, 1.0]
    """
    ball = {"percentage": percentage, "abs_radius": abs_radius, "closed": closed}
    if weighting == "marginal":
        alpha = marginal_weights(y, pattern, r, **ball, align=align)
    elif weighting == "pairwise":
        alpha = pairwise_weights(y, pattern, r, **ball, align=align)
    else:
        raise ValueError(f"weighting must be 'marginal' or 'pairwise', got {weighting!r}")
    return adjust_weights(alpha, c, g).rename("alpha")


# --------------------------------------------------------------------------- synthetic


@dataclass(frozen=True, repr=False)
class SyntheticRisk(Result):
    """Synthetic-data marginal identification risk (published eq. 1).

    Attributes
    ----------
    per_dataset : pandas.DataFrame
        ``IR_i^(l)``, n x L (columns 1..L).
    record_risk : pandas.Series
        ``IR_i``: the mean over the L datasets.
    r : float
    percentage, abs_radius, closed : bool
        The ball (``idrisk._radius``).
    """

    per_dataset: pd.DataFrame
    record_risk: pd.Series
    r: float
    percentage: bool
    abs_radius: bool
    closed: bool

    def summary(self) -> pd.DataFrame:
        """Mean, quartiles, IQR, 90% quantile and maximum of the record risks."""
        s = self.record_risk
        q = s.quantile([0.25, 0.5, 0.75, 0.9])
        return pd.DataFrame(
            [{"records": len(s), "datasets": self.per_dataset.shape[1], "mean": s.mean(),
              "q25": q[0.25], "median": q[0.5], "q75": q[0.75], "IQR": q[0.75] - q[0.25],
              "q90": q[0.9], "max": s.max()}], index=pd.Index(["IR"], name="risk"))

    def _header(self) -> str:
        return (f"SyntheticRisk(n={len(self.record_risk)}, L={self.per_dataset.shape[1]}, "
                f"r={self.r}, percentage={self.percentage}, abs_radius={self.abs_radius}, "
                f"closed={self.closed})")

    def to_frame(self) -> pd.DataFrame:
        """One row per record and dataset: ``record``, ``dataset``, ``risk`` (``IR_i^(l)``)."""
        long = self.per_dataset.rename_axis(index="record", columns="dataset").stack()
        return long.rename("risk").reset_index()


def synthetic_marginal_risk(
    y,
    pattern,
    synthetic: Sequence | np.ndarray,
    r: float,
    *,
    percentage: bool = True,
    abs_radius: bool = True,
    closed: bool = True,
    align: Align = None,
) -> SyntheticRisk:
    """Synthetic-data marginal risk ``IR_i = mean_l IR_i^(l)``.

    ``IR_i^(l) = #{h in M_i : y*_h^(l) not in B(y_i, r)} / |M_i| * T_i^(l)`` with
    ``T_i^(l) = 1`` when ``y*_i^(l)`` lies in ``B(y_i, r)``.

    Parameters
    ----------
    y : array-like
        Confidential values.
    pattern : array-like or DataFrame
        Known pattern (not synthesized, so shared by confidential and synthetic data).
    synthetic : sequence of array-likes, or 2-d array (L x n)
        Synthetic values; element i of each is record i's synthetic value.
    r, percentage, abs_radius, closed : see :func:`risk_weights`
    align : {None, "position", "index"}
        Row correspondence of ``y``, ``pattern`` and each synthetic Series when they are
        pandas objects with different indexes (None: raise naming the argument).

    Examples
    --------
    >>> res = synthetic_marginal_risk([10.0, 11.0, 30.0], [1, 1, 1], [[10.5, 20.0, 29.0]], 0.1)
    >>> res.record_risk.round(3).tolist()
    [0.667, 0.0, 0.667]
    """
    vals, index = _as_values(y)
    codes = pattern_codes(_aligned(y, pattern, align), len(vals))
    if isinstance(y, pd.Series):
        synthetic = [
            check_frame_alignment(y, s, f"synthetic[{k}]", align, reference_name="y")
            if isinstance(s, pd.Series) and len(s) == len(y)
            else s
            for k, s in enumerate(synthetic)
        ]
    syn = [np.asarray(s, dtype=float).reshape(-1) for s in synthetic]
    if not syn:
        raise ValueError("synthetic must hold at least one dataset")
    ball = {"percentage": percentage, "abs_radius": abs_radius, "closed": closed}
    lo, hi = ball_bounds(vals, r, **ball)
    cols = {}
    for ell, ys in enumerate(syn, start=1):
        if len(ys) != len(vals):
            raise ValueError(f"synthetic dataset {ell} has {len(ys)} values, expected {len(vals)}")
        if not np.all(np.isfinite(ys)):
            raise ValueError(f"synthetic dataset {ell} contains non-finite values")
        g = _Grouped(codes, ys, lo, hi)
        t = in_ball(ys, vals, r, **ball)
        cols[ell] = g.outside(closed) / g.size * t
    per = pd.DataFrame(cols, index=index)
    return SyntheticRisk(per, per.mean(axis=1).rename("IR"), float(r), bool(percentage),
                         bool(abs_radius), bool(closed))


def rpackage_record_risk(
    confidential: pd.DataFrame,
    synthetic: list[pd.DataFrame],
    known: list[str],
    syn: str,
    r: float,
) -> pd.Series:
    """The R package's record-level risk (mean over datasets of ``T_i / c_i``).

    A thin wrapper around :func:`idrisk.risk.identification_risk` (percentage radius);
    returned for comparison with :func:`synthetic_marginal_risk`.
    """
    from idrisk.risk import identification_risk

    res = identification_risk(confidential, synthetic, known=known, syn=[syn], r=r,
                              percentage=True)
    return res.record_risk.rename("IR_Tc")
