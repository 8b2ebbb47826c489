"""Design-based survey tables: weighted counts and means with standard errors.

Counts are ``N_c = sum_{i in c} w_i`` and means are Hajek ratios
``mu_c = sum_{i in c} w_i y_i / N_c``.  Variances follow R's ``survey`` package for a
stratified one-stage design sampled with replacement (``svydesign(ids = ~1, strata = ~h,
weights = ~w)``): with scores ``z_i`` (``w_i 1_c(i)`` for a count,
``w_i 1_c(i) (y_i - mu_c) / N_c`` for a mean)

    V = sum_h n_h / (n_h - 1) * sum_{i in h} (z_i - zbar_h)^2 .

Domains are estimated by zeroing the scores of units outside the domain, never by
subsetting, so ``n_h`` always counts every sampled unit of stratum ``h``.  Replicate
variances use full replicate weights as ``svrepdesign(type = "other", scale = 1,
rscales = 1 / (R - 1), mse = FALSE)``: ``V = sum_r (theta_r - mean(theta))^2 / (R - 1)``.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._interface import spell
from .._result import Result
from .._schema import is_categorical, sorted_levels
from .._stack import user_stacklevel
from ..exceptions import ReplicateWarning

__all__ = [
    "ALL",
    "LONELY_PSU",
    "SurveyTable",
    "combine_tables",
    "design_table",
    "half_sample_replicates",
    "inclusion_probabilities",
    "table_cells",
]

ALL = "All"
LONELY_PSU = ("fail", "remove", "certainty", "adjust", "average")
STAT_COLUMNS = ("count", "count_se", "mean", "mean_se")


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, repr=False)
class SurveyTable(Result):
    """A table of weighted counts and means, one row per cell, margin and total.

    Attributes
    ----------
    table : pandas.DataFrame
        The ``by`` columns (``"All"`` on margin and total rows), ``count``, ``count_se``,
        ``mean``, ``mean_se``; combined tables (over m synthetic datasets) add, for each
        statistic ``s`` in (count, mean), ``s_b``, ``s_ubar``, ``s_df``, ``s_low``, ``s_high``.
    by : list of str
        The grouping columns.
    method : str
        ``"direct"``, ``"fbs"``, ``"fbp"`` or ``"laplace"``.
    variance : str
        ``"taylor"`` or ``"replicate"``.
    n : int or None
        Records the table was computed from (direct tables).
    replicates : int or None
        Replicate weights behind the standard errors (``variance="replicate"``).
    m, level : int, float or None
        Datasets combined and the interval level (combined tables).
    epsilon, delta_alpha : float or None
        The privacy accounting of a synthetic table (FBS, FBP).
    info : dict
        Mechanism-specific details (the Laplace mechanism's budget split, sensitivities,
        backend).
    """

    table: pd.DataFrame
    by: list[str]
    method: str = "direct"
    variance: str = "taylor"
    n: int | None = None
    replicates: int | None = None
    m: int | None = None
    level: float | None = None
    epsilon: float | None = None
    delta_alpha: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """Counts, means and their standard errors, indexed by the ``by`` labels."""
        cols = [c for c in STAT_COLUMNS if c in self.table]
        if not self.by:
            return self.table[cols].set_axis(pd.Index([ALL], name="cell"))
        return self.table.set_index(self.by)[cols]

    def to_frame(self) -> pd.DataFrame:
        """A copy of the table as a DataFrame (one row per cell, margin and total)."""
        return self.table.copy()

    def __len__(self) -> int:
        return len(self.table)

    def _header(self) -> str:
        typed = {k: getattr(self, k) for k in ("n", "replicates", "m", "level", "epsilon",
                                               "delta_alpha")}
        values = {k: v for k, v in typed.items() if v is not None}
        values.update({k: v for k, v in self.info.items() if k not in values})
        extra = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in values.items()
            if isinstance(v, (int, float, str)) and not isinstance(v, bool)
        )
        head = f"SurveyTable(method={self.method!r}, by={self.by}, variance={self.variance!r}"
        return head + (f", {extra})" if extra else ")")

    def cell(self, **labels: Any) -> pd.Series:
        """The row with the given ``by`` labels (missing ``by`` columns mean ``"All"``)."""
        mask = np.ones(len(self.table), dtype=bool)
        for col in self.by:
            want = labels.get(col, ALL)
            mask &= (self.table[col].astype(str) == str(want)).to_numpy()
        if mask.sum() != 1:
            raise KeyError(f"no single row with labels {labels} (by={self.by})")
        return self.table.loc[mask].iloc[0]

    def additivity(self, stat: str = "count") -> float:
        """Largest ``|sum over cells - margin|`` of ``stat`` relative to the margin.

        Each margin or total row is compared with the sum of the finest cells that make
        it up.  Zero (to rounding) for design-based and synthetic tables; not for Laplace.
        """
        if stat != "count":
            raise ValueError("additivity is defined for counts only (stat='count')")
        t = self.table
        is_all = t[self.by].astype(str).eq(ALL)
        cells = t.loc[~is_all.any(axis=1)]
        worst = 0.0
        for idx in t.index[is_all.any(axis=1)]:
            row = t.loc[idx]
            mask = np.ones(len(cells), dtype=bool)
            for col in self.by:
                if str(row[col]) != ALL:
                    mask &= (cells[col].astype(str) == str(row[col])).to_numpy()
            total = float(cells.loc[mask, "count"].sum())
            worst = max(worst, abs(total - float(row["count"])) / abs(float(row["count"])))
        return worst


# --------------------------------------------------------------------------- inputs


def _column(data: pd.DataFrame, name: str, arg: str) -> pd.Series:
    if not isinstance(name, str):
        raise TypeError(f"{arg} must be a column name (str), got {type(name).__name__}")
    if name not in data.columns:
        raise KeyError(f"{arg}={name!r} is not a column of data ({', '.join(map(str, data))})")
    return data[name]


def _numeric(data: pd.DataFrame, name: str, arg: str, positive: bool = False) -> np.ndarray:
    s = _column(data, name, arg)
    if is_categorical(s):
        raise TypeError(f"{arg} column {name!r} must be numeric, got dtype {s.dtype}")
    x = s.to_numpy(dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{arg} column {name!r} has missing or non-finite values")
    if positive and np.any(x <= 0):
        raise ValueError(f"{arg} column {name!r} must be positive (min {x.min():g})")
    return x


def _weights(data: pd.DataFrame, weight: str) -> np.ndarray:
    """The ``weight`` column: numeric, finite and not negative (zero weights allowed)."""
    w = _numeric(data, weight, "weight")
    if np.any(w < 0):
        raise ValueError(f"weight column {weight!r} has negative values")
    return w


def _levels(s: pd.Series) -> list:
    if isinstance(s.dtype, pd.CategoricalDtype):
        present = set(s.dropna().unique())
        return [c for c in s.cat.categories if c in present]
    return sorted_levels(s)


def _by_list(by) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def table_cells(
    data: pd.DataFrame, by: Sequence[str], margins: bool = True
) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows of a table and the n x rows membership matrix.

    Cells come first (every observed combination of the ``by`` levels, in level order),
    then the margins of each proper subset of ``by`` (more kept columns first), then the
    total; dropped columns carry the label ``"All"``.

    Returns
    -------
    labels : pandas.DataFrame
        One row per table row, the ``by`` columns.
    member : numpy.ndarray of bool, shape (n, rows)
    """
    by = _by_list(by)
    for b in by:
        col = _column(data, b, "by")
        if col.isna().any():
            raise ValueError(f"by column {b!r} has missing values")
    n = len(data)
    rows: list[dict] = []
    masks: list[np.ndarray] = []
    if margins:
        groupings = [
            list(keep)
            for k in range(len(by), -1, -1)
            for keep in itertools.combinations(by, k)
        ]
    else:
        groupings = [list(by)]
    for keep in groupings:
        if not keep:
            rows.append(dict.fromkeys(by, ALL))
            masks.append(np.ones(n, dtype=bool))
            continue
        values = {b: data[b].to_numpy() for b in keep}
        for combo in itertools.product(*(_levels(data[b]) for b in keep)):
            mask = np.ones(n, dtype=bool)
            for b, lev in zip(keep, combo, strict=True):
                mask &= values[b] == lev
            if not mask.any():
                continue
            rows.append({b: (combo[keep.index(b)] if b in keep else ALL) for b in by})
            masks.append(mask)
    labels = pd.DataFrame(rows, columns=by)
    for b in by:
        labels[b] = labels[b].astype(object)
    member = np.column_stack(masks) if masks else np.zeros((n, 0), dtype=bool)
    return labels, member


def _strata_codes(data: pd.DataFrame, strata: str | None) -> tuple[np.ndarray, list]:
    if strata is None:
        return np.zeros(len(data), dtype=np.int64), ["(one stratum)"]
    s = _column(data, strata, "strata")
    if s.isna().any():
        raise ValueError(f"strata column {strata!r} has missing values")
    levels = _levels(s)
    lookup = {lev: k for k, lev in enumerate(levels)}
    return np.array([lookup[v] for v in s.to_numpy()], dtype=np.int64), levels


# --------------------------------------------------------------------------- estimators


def _point(w: np.ndarray, y: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts and Hajek means of every column of ``member`` (w may be n x R)."""
    m = member.astype(float)
    count = w.T @ m if w.ndim == 2 else w @ m
    wy = (w * y[:, None]) if w.ndim == 2 else w * y
    total = wy.T @ m if w.ndim == 2 else wy @ m
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
    return count, mean


def _stratified_variance(
    z: np.ndarray, codes: np.ndarray, levels: list, lonely_psu: str, member: np.ndarray
) -> np.ndarray:
    """Taylor variance of the totals of each column of the score matrix ``z`` (n x k).

    ``member`` (n x k, bool) marks the units of each column's domain: with
    ``lonely_psu="average"`` only the strata holding a unit of the domain are counted.
    """
    n_strata = len(levels)
    nh = np.bincount(codes, minlength=n_strata)
    sums = np.zeros((n_strata, z.shape[1]))
    np.add.at(sums, codes, z)
    means = sums / nh[:, None]
    dev = z - means[codes]
    ss = np.zeros((n_strata, z.shape[1]))
    np.add.at(ss, codes, dev * dev)
    lonely = nh == 1
    out = np.zeros(z.shape[1])
    ok = ~lonely
    out += np.sum(ss[ok] * (nh[ok] / (nh[ok] - 1))[:, None], axis=0)
    if lonely.any():
        if lonely_psu == "fail":
            bad = [str(levels[k]) for k in np.flatnonzero(lonely)]
            raise ValueError(
                f"stratum {', '.join(bad)} has only one unit; choose {spell('lonely_psu')} "
                f"one of {LONELY_PSU[1:]} (R's options(survey.lonely.psu))"
            )
        idx = np.isin(codes, np.flatnonzero(lonely))
        if lonely_psu == "adjust":
            # a lonely unit's score is centred at zero instead of its stratum mean
            out += np.sum(z[idx] ** 2, axis=0)
        elif lonely_psu == "average":
            # R estimates a domain on the subset of its units (whatever their weights): the
            # strata counted are those holding a unit of the domain, and its strata with 2+
            # units stand in for its lonely ones; a domain with lonely strata only has NaN
            hits = np.zeros((n_strata, z.shape[1]))
            np.add.at(hits, codes, member.astype(float))
            n_in = np.sum(hits > 0, axis=0)
            n_lonely = np.sum(hits[lonely] > 0, axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = n_in / (n_in - n_lonely)
            out = np.where(n_in > n_lonely, out * factor, np.nan)
        # "remove" and "certainty": the lonely stratum contributes nothing
    return out


def _taylor(w, y, member, codes, levels, count, mean, lonely_psu):
    m = member.astype(float)
    z_count = w[:, None] * m
    resid = np.where(member, y[:, None] - np.nan_to_num(mean)[None, :], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z_mean = w[:, None] * resid / count[None, :]
    var_count = _stratified_variance(z_count, codes, levels, lonely_psu, member)
    var_mean = _stratified_variance(np.nan_to_num(z_mean), codes, levels, lonely_psu, member)
    var_mean = np.where(count > 0, var_mean, np.nan)
    return var_count, var_mean


def _replicate_variance(theta_r: np.ndarray, scale: float, rscales: np.ndarray, mse: bool,
                        theta: np.ndarray, what: str) -> np.ndarray:
    """``scale * sum_r rscales_r (theta_r - c)^2`` per column of ``theta_r`` (R x k).

    Replicates in which a column's statistic is NaN are left out of that column (its
    ``rscales`` and, with ``mse=False``, its centre), as R's ``svrVar`` does, with a
    :class:`~idrisk.exceptions.ReplicateWarning`; a column with no finite replicate is NaN.
    """
    ok = ~np.isnan(theta_r)
    n_ok = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_r = np.where(ok, theta_r, 0.0).sum(axis=0) / n_ok
    centre = theta if mse else mean_r
    dev = np.where(ok, theta_r - centre[None, :], 0.0)
    out = scale * np.sum(rscales[:, None] * dev**2, axis=0)
    dropped = theta_r.shape[0] - n_ok
    if dropped.any():
        rows = np.flatnonzero(dropped)
        warnings.warn(
            f"{what} of {rows.size} table row(s) undefined in some replicates (all units of "
            f"the row with weight zero): up to {dropped.max()} of {theta_r.shape[0]} "
            "replicates left out of their standard errors (R: 'replicates gave NA results "
            "and were discarded')",
            ReplicateWarning, stacklevel=user_stacklevel(),
        )
    return np.where(n_ok > 0, out, np.nan)


def design_table(
    data: pd.DataFrame,
    y: str,
    weight: str,
    strata: str | None = None,
    by: Sequence[str] | str | None = None,
    *,
    margins: bool = True,
    variance: str = "taylor",
    replicate_weights: np.ndarray | pd.DataFrame | None = None,
    scale: float = 1.0,
    rscales: Sequence[float] | None = None,
    mse: bool = False,
    lonely_psu: str = "fail",
) -> SurveyTable:
    """Weighted counts and means by ``by`` with design-based standard errors.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per sampled unit.
    y : str
        Outcome column (numeric).
    weight : str
        Survey weight column (positive; zero is allowed for units out of a replicate).
    strata : str, optional
        Stratum column; ``None`` for an unstratified design.
    by : str or sequence of str, optional
        Grouping columns; cells are their observed combinations (None: the total only).
    margins : bool
        Add the margins of every proper subset of ``by`` and the total (label ``"All"``).
    variance : {"taylor", "replicate"}
        Taylor linearization for a stratified with-replacement one-stage design (R's
        ``svydesign(ids = ~1, strata = ~strata, weights = ~weight)``), or replicate
        variances from ``replicate_weights``.
    replicate_weights : array or DataFrame, shape (n, R)
        Full replicate weights (not multipliers), for ``variance="replicate"``.
    scale, rscales, mse : float, sequence, bool
        As R's ``svrepdesign(type = "other", ...)``: ``V = scale * sum_r rscales_r
        (theta_r - c)^2`` with ``c`` the mean of the replicates (``mse=False``) or the
        full-sample estimate (``mse=True``); ``rscales`` defaults to ``1 / (R - 1)``.
        A replicate in which a row's mean is undefined (every unit of the row has weight
        zero in it) is left out of that row's standard error, with a
        :class:`~idrisk.exceptions.ReplicateWarning`, as R discards replicates giving NA;
        with no replicate left the standard error is NaN (R stops: "All replicates
        contained NAs").
    lonely_psu : {"fail", "remove", "certainty", "adjust", "average"}
        A stratum with one unit, as R's ``options(survey.lonely.psu)``: raise; contribute
        zero (``remove``, ``certainty``); centre the unit's score at zero instead of its
        stratum mean (``adjust``); or multiply the variance of a row by (number of strata
        holding a unit of the row) / (that number minus the lonely strata among them),
        whatever the units' weights, as R does on the subset of a domain's units
        (``average``; NaN for a row whose units are all in lonely strata). Checked against
        R's ``survey`` for every option.

    Returns
    -------
    SurveyTable
        A row whose units all have weight zero is kept (count 0, mean NaN); R's ``svyby``
        leaves such a group out.

    Examples
    --------
    >>> df = pd.DataFrame({"h": [1, 1, 2, 2, 2], "g": ["a", "b", "a", "b", "b"],
    ...                    "y": [1.0, 2.0, 3.0, 4.0, 5.0], "w": [10.0, 10.0, 5.0, 5.0, 5.0]})
    >>> tab = design_table(df, "y", "w", strata="h", by=["g"])
    >>> tab.to_frame()[["g", "count", "mean"]]
         g  count      mean
    0    a   15.0  1.666667
    1    b   20.0  3.250000
    2  All   35.0  2.571429
    """
    if variance not in ("taylor", "replicate"):
        raise ValueError(f"variance must be 'taylor' or 'replicate', got {variance!r}")
    if lonely_psu not in LONELY_PSU:
        raise ValueError(f"lonely_psu must be one of {LONELY_PSU}, got {lonely_psu!r}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if len(data) == 0:
        raise ValueError("data has no rows")
    by = _by_list(by)
    yv = _numeric(data, y, "y")
    w = _weights(data, weight)
    codes, levels = _strata_codes(data, strata)
    labels, member = table_cells(data, by, margins=margins)
    count, mean = _point(w, yv, member)
    replicates = None
    if variance == "taylor":
        if replicate_weights is not None or rscales is not None:
            arg = "replicate_weights" if replicate_weights is not None else "rscales"
            raise ValueError(f"{arg} given but variance='taylor'")
        var_count, var_mean = _taylor(w, yv, member, codes, levels, count, mean, lonely_psu)
    else:
        if replicate_weights is None:
            raise ValueError("variance='replicate' needs replicate_weights (n x R)")
        W = np.asarray(replicate_weights, dtype=float)
        if W.ndim != 2 or W.shape[0] != len(data):
            raise ValueError(
                f"replicate_weights must have shape (n={len(data)}, R), got {W.shape}"
            )
        if not np.all(np.isfinite(W)) or np.any(W < 0):
            raise ValueError("replicate_weights must be finite and non-negative")
        R = W.shape[1]
        if R < 2:
            raise ValueError("replicate_weights needs at least 2 replicates")
        rs = np.full(R, 1.0 / (R - 1)) if rscales is None else np.asarray(rscales, float)
        if rs.shape != (R,):
            raise ValueError(f"rscales must have length R={R}, got {rs.shape}")
        if not np.all(np.isfinite(rs)) or np.any(rs < 0):
            raise ValueError("rscales must be finite and non-negative")
        if not np.isfinite(scale) or scale <= 0:
            raise ValueError(f"scale must be a positive number, got {scale!r}")
        count_r, mean_r = _point(W, yv, member)
        var_count = _replicate_variance(count_r, scale, rs, mse, count, "count")
        var_mean = _replicate_variance(mean_r, scale, rs, mse, mean, "mean")
        replicates = R
    table = labels.copy()
    table["n"] = member.sum(axis=0)
    table["count"] = count
    table["count_se"] = np.sqrt(var_count)
    table["mean"] = mean
    table["mean_se"] = np.sqrt(var_mean)
    return SurveyTable(table=table, by=by, method="direct", variance=variance, n=len(data),
                       replicates=replicates)


# --------------------------------------------------------------------------- combining


def combine_tables(
    tables: Sequence[SurveyTable], level: float = 0.95, method: str | None = None
) -> SurveyTable:
    """Combine tables from m partially synthetic datasets (Reiter & Raghunathan 2007).

    Per row and statistic ``s`` (count, mean): ``q_bar`` = mean of the m estimates,
    ``b`` = their sample variance, ``u_bar`` = mean of the m squared standard errors,
    ``T = u_bar + b/m`` and a t reference with ``df = (m - 1)(1 + u_bar/(b/m))^2``.
    With m = 1 (or b = 0) there is no between variance: ``T = u_bar`` and a normal
    reference (``df = inf``). Same rules as :func:`idrisk.utility.combining.combine_partial`,
    vectorised over rows.

    Returns
    -------
    SurveyTable
        ``count``, ``mean`` (``q_bar``), ``count_se``, ``mean_se`` (``sqrt(T)``) and
        ``*_b``, ``*_ubar``, ``*_df``, ``*_low``, ``*_high``.
    """
    tables = list(tables)
    if not tables:
        raise ValueError("tables is empty")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    first = tables[0]
    key_cols = first.by
    for k, t in enumerate(tables[1:], start=2):
        if t.by != key_cols or not t.table[key_cols].astype(str).equals(
            first.table[key_cols].astype(str)
        ):
            raise ValueError(f"table {k} has different rows than table 1; cannot combine")
    m = len(tables)
    out = first.table[[*key_cols, "n"]].copy() if "n" in first.table else first.table[
        key_cols].copy()
    crit_level = (1 + level) / 2
    for s in ("count", "mean"):
        q = np.column_stack([t.table[s].to_numpy(float) for t in tables])
        u = np.column_stack([t.table[f"{s}_se"].to_numpy(float) ** 2 for t in tables])
        q_bar = q.mean(axis=1)
        u_bar = u.mean(axis=1)
        b = q.var(axis=1, ddof=1) if m > 1 else np.zeros(len(q))
        T = u_bar + b / m
        with np.errstate(divide="ignore", invalid="ignore"):
            df = np.where(b > 0, (m - 1) * (1 + u_bar / (b / m)) ** 2, np.inf)
        crit = np.where(np.isinf(df), stats.norm.ppf(crit_level),
                        stats.t.ppf(crit_level, np.where(np.isinf(df), 1.0, df)))
        half = crit * np.sqrt(T)
        out[s] = q_bar
        out[f"{s}_se"] = np.sqrt(T)
        out[f"{s}_b"] = b
        out[f"{s}_ubar"] = u_bar
        out[f"{s}_df"] = df
        out[f"{s}_low"] = q_bar - half
        out[f"{s}_high"] = q_bar + half
    order = [*key_cols, *(["n"] if "n" in out else []), *STAT_COLUMNS]
    out = out[order + [c for c in out.columns if c not in order]]
    return SurveyTable(out, by=list(key_cols), method=method or first.method,
                       variance=first.variance, m=m, level=level)


# --------------------------------------------------------------------------- replicates


def half_sample_replicates(
    data: pd.DataFrame,
    strata: str | None,
    weight: str,
    R: int = 10,
    seed: int | None = None,
) -> pd.DataFrame:
    """Random half-sample replicate weights (Preston 2009's rescaled bootstrap).

    In each stratum and replicate a simple random sample of ``m_h = floor(n_h / 2)`` units
    is kept.  Replicate weights are ``w_i (1 - lam_h + lam_h (n_h / m_h) d_i)`` with ``d_i``
    the kept indicator and ``lam_h = sqrt(m_h / (n_h - m_h))``.  For even ``n_h`` this is
    ``lam_h = 1``: kept units get twice their weight and the others zero.  For odd ``n_h``
    Preston's rescaling keeps the variance estimator unbiased (units left out keep
    ``(1 - lam_h) w_i``).  Use the result with ``design_table(..., variance="replicate")``
    (``V = sum_r (theta_r - mean)^2 / (R - 1)``).

    Parameters
    ----------
    data : DataFrame
    strata : str or None
    weight : str
    R : int
        Number of replicates (at least 2).
    seed : int
        Seed of numpy's ``default_rng``.

    Returns
    -------
    pandas.DataFrame
        n x R, columns ``rep1..repR``, same index as ``data``.

    Raises
    ------
    ValueError
        When a stratum has a single unit (it cannot be half-sampled).

    Examples
    --------
    >>> df = pd.DataFrame({"h": [1, 1, 2, 2], "w": [1.0, 3.0, 2.0, 2.0]})
    >>> reps = half_sample_replicates(df, "h", "w", R=3, seed=1)
    >>> sorted(set(reps.to_numpy().ravel().tolist()))
    [0.0, 2.0, 4.0, 6.0]
    """
    if not isinstance(R, (int, np.integer)) or R < 2:
        raise ValueError(f"R must be an integer >= 2, got {R!r}")
    w = _weights(data, weight)
    codes, levels = _strata_codes(data, strata)
    rng = np.random.default_rng(seed)
    out = np.empty((len(data), R))
    for k, lev in enumerate(levels):
        idx = np.flatnonzero(codes == k)
        nh = idx.size
        if nh < 2:
            raise ValueError(f"stratum {lev!r} of {strata!r} has one unit: cannot half-sample")
        mh = nh // 2
        lam = np.sqrt(mh / (nh - mh))
        for r in range(R):
            keep = np.zeros(nh)
            keep[rng.choice(nh, size=mh, replace=False)] = 1.0
            out[idx, r] = w[idx] * (1.0 - lam + lam * (nh / mh) * keep)
    return pd.DataFrame(out, index=data.index, columns=[f"rep{r + 1}" for r in range(R)])


# --------------------------------------------------------------------------- PPS


def inclusion_probabilities(a: Sequence[float] | np.ndarray, n: int) -> np.ndarray:
    """First-order inclusion probabilities of a PPS design of size ``n``.

    Same rule as R's ``sampling::inclusionprobabilities``: ``pi = n a / sum(a)``; units
    whose ``pi`` reaches 1 are taken with certainty and the remaining ``n - #certain``
    is spread over the others in proportion to ``a``, until no new unit reaches 1.
    Units with ``a = 0`` get 0, and every unit gets 0 when ``n = 0``.

    Examples
    --------
    >>> inclusion_probabilities([1, 2, 3, 10], 2).round(6).tolist()
    [0.166667, 0.333333, 0.5, 1.0]
    """
    a = np.asarray(a, dtype=float)
    if a.ndim != 1 or a.size == 0:
        raise ValueError("a must be a non-empty vector of sizes")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("a must be finite and non-negative")
    pos = a > 0
    if not 0 <= n <= pos.sum():
        raise ValueError(f"n must be between 0 and the number of positive sizes ({pos.sum()})")
    pik = np.zeros_like(a)
    if n == 0:
        return pik
    pik[pos] = n * a[pos] / a.sum()
    sub = pik[pos]
    n_cert = int(np.sum(sub >= 1))
    prev = -1
    while n_cert != prev:
        small = sub < 1
        x = sub[small]
        sub[small] = (n - n_cert) * (x / x.sum())
        sub[~small] = 1.0
        prev = n_cert
        n_cert = int(np.sum(sub >= 1))
    pik[pos] = sub
    return pik
