"""synthpop's handling of collinear and linearly dependent predictors in the CART synthesis.

Two rules of synthpop 1.9-3's ``syn``, implemented from their documented and observed
behaviour:

* **Collinear columns** (``syn``'s check of the predictor matrix, its ``collinear.out``): among
  the columns that predict or are predicted, those whose pairwise correlation (factors as their
  level codes, NAs pairwise left out) is ``|r| >= 0.99999`` form a set. In every set, the
  column earliest in the visit sequence is kept; each other column gets the method
  ``"collinear"``: it predicts nothing, and its synthetic value in a row is its value in the
  first data row whose value of the kept column equals the row's synthetic value of it (NA when
  there is none, e.g. after smoothing). No random number is drawn for it. synthpop prints
  "Variables a, b are collinear. Variables later in 'visit.sequence' are derived from a.";
  idrisk warns (:class:`~idrisk.exceptions.CollinearWarning`) with that text.
* **Dependent predictors** (``remove.lindep.syn``, before each tree): of a column's predictors
  (on the rows the tree is fitted on, factors as codes) those of variance ``<= 1e-5`` or
  correlated ``>= 0.99999`` (signed) with the column are left out; then, while the smallest
  eigenvalue of the remaining predictors' correlation matrix is below ``1e-5`` times the
  largest, the predictor with the largest weight in the smallest eigenvector is left out
  (synthpop's loop keeps the first correlation matrix and its eigenvectors throughout, and
  idrisk does the same). When no predictor is left synthpop stops with an error; so does idrisk.
  With two or more such eigenvalues any basis of their eigenspace is right, so synthpop's choice
  rests on the rounding of R's LAPACK: idrisk then warns that its choice may differ.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._schema import is_categorical
from .._stack import user_stacklevel
from ..exceptions import CollinearWarning, InputError
from .rpart_tree import _factor_levels

__all__ = ["derive_collinear", "drop_dependent_predictors", "first_match", "lindep_keep"]

_THRESHOLD = 0.99999  # collinear.out's and remove.lindep.syn's correlation bound
_EPS = 1e-5  # remove.lindep.syn's variance and eigenvalue-ratio bound


def _codes(col: pd.Series, drop_unused: bool = False) -> np.ndarray:
    """A column as R's ``data.matrix`` / ``as.numeric`` sees it: numbers as they are (NaN
    missing), a factor as its 1-based level codes, a missing category as one more level
    (synthpop's ``"NAtemp"``). ``drop_unused``: codes among the levels present only (R's
    ``y[, drop = TRUE]``)."""
    if not is_categorical(col):
        return col.to_numpy(dtype=float, na_value=np.nan)
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = np.asarray(col.cat.codes, dtype=np.int64).copy()
        codes[codes < 0] = len(col.cat.categories)
    else:
        levels = _factor_levels(col) or []
        lut = {v: i for i, v in enumerate(levels)}
        codes = np.array([len(levels) if pd.isna(v) else lut[v] for v in col], dtype=np.int64)
    if drop_unused:
        codes = np.unique(codes, return_inverse=True)[1].reshape(-1)
    return codes.astype(float) + 1.0


def _cor(x: np.ndarray, y: np.ndarray) -> float:
    """R's ``cor(x, y, use = "pairwise.complete.obs")`` of two columns (NaN without spread)."""
    ok = ~(np.isnan(x) | np.isnan(y))
    if ok.sum() < 2:
        return float("nan")
    xs, ys = x[ok], y[ok]
    dx, dy = xs - xs.mean(), ys - ys.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx == 0 or syy == 0:
        return float("nan")
    return float(min(1.0, max(-1.0, float(dx @ dy) / np.sqrt(sxx * syy))))


def collinear_sets(frame: pd.DataFrame) -> list[list[str]]:
    """synthpop's ``collinear.out``: the sets of columns of ``frame`` correlated at
    ``|r| >= 0.99999`` (one set per distinct row of the hit matrix with two hits or more, in
    column order)."""
    cols = list(frame.columns)
    x = [_codes(frame[c]) for c in cols]
    p = len(cols)
    z = np.eye(p)
    for i in range(p):
        for j in range(i):
            z[i, j] = z[j, i] = _cor(x[i], x[j])
    for i in range(p):  # a column without spread correlates with nothing (R: NA -> 0)
        if np.isnan(_cor(x[i], x[i])):
            z[i, i] = 0.0
    hit = np.abs(np.nan_to_num(z, nan=0.0)) >= _THRESHOLD
    seen: set[bytes] = set()
    sets = []
    for row in hit:
        key = row.tobytes()
        if key in seen:
            continue
        seen.add(key)
        if row.sum() > 1:
            sets.append([c for c, h in zip(cols, row) if h])
    return sets


def derive_collinear(data: pd.DataFrame, vs: list[str], methods: dict[str, str],
                     pm: pd.DataFrame) -> None:
    """Give the later columns of every collinear set synthpop's method ``"collinear"``
    (``methods`` and ``pm`` are changed in place) and warn which columns were derived.

    Parameters
    ----------
    data : pandas.DataFrame
        The confidential data.
    vs : list of str
        The visit sequence.
    methods : dict
        Column -> method (after the constant and sample rules).
    pm : pandas.DataFrame
        Predictor matrix (row = target), after the constant rule.
    """
    arr = pm.to_numpy() != 0
    inpred = [c for c, used in zip(pm.columns, arr.any(axis=1) | arr.any(axis=0)) if used]
    if not inpred:
        return
    for group in collinear_sets(data[inpred]):
        outside = [c for c in group if c not in vs]
        if outside:
            raise InputError(
                f"columns {', '.join(map(str, group))} are collinear and {outside[0]!r} is a "
                "predictor outside the visit sequence: synthpop's syn stops here with an error "
                "('the condition has length > 1'); leave it out of predictor_matrix or drop "
                "the copy", column=str(outside[0]))
        first = min(group, key=vs.index)
        warnings.warn(
            f"Variables {', '.join(map(str, group))} are collinear. Variables later in "
            f"'visit.sequence' are derived from {first} (synthpop's method \"collinear\": "
            f"the value of the first data row with the same value of {first}).",
            CollinearWarning, stacklevel=user_stacklevel())
        for c in group:
            if c != first:
                methods[c] = "collinear"
                pm.loc[c, :] = 0
                pm.loc[:, c] = 0
                pm.loc[c, first] = 1


def first_match(values, table) -> np.ndarray:
    """R's ``match(values, table)``: for each value the position of its first occurrence in
    ``table`` (-1 where it does not occur; NA matches NA)."""
    t = pd.Series(table)
    v = pd.Series(values)
    if isinstance(t.dtype, pd.CategoricalDtype):  # factors match by label
        t = t.astype(object)
        v = v.astype(object)
    codes, uniques = pd.factorize(t, use_na_sentinel=False)
    first = np.unique(codes, return_index=True)[1]
    where = pd.Index(uniques).get_indexer(v)
    return np.where(where >= 0, first[np.maximum(where, 0)], -1)


def lindep_keep(x: pd.DataFrame, y: pd.Series) -> tuple[np.ndarray, bool]:
    """synthpop's ``remove.lindep.syn(x, y)``: which predictors (columns of ``x``) a tree for
    ``y`` is grown on (module docstring).

    Parameters
    ----------
    x : pandas.DataFrame
        The predictors on the rows the tree is fitted on.
    y : pandas.Series
        The fitted column on those rows.

    Returns
    -------
    keep : numpy.ndarray
        One bool per column of ``x``.
    exact : bool
        False when two or more eigenvalues are below the bound: their eigenvectors span a
        space in which any basis is right, so which predictors synthpop leaves out depends on
        the rounding of R's LAPACK, and idrisk's choice may differ.
    """
    if x.shape[1] == 0:
        return np.zeros(0, dtype=bool), True
    xobs = np.column_stack([_codes(x[c]) for c in x.columns])
    yobs = _codes(y, drop_unused=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.var(xobs, axis=0, ddof=1)
    keep = np.nan_to_num(var, nan=0.0) > _EPS
    for col in np.flatnonzero(keep):
        r = _cor(xobs[:, col], yobs)
        keep[col] = not r >= _THRESHOLD  # NA: R's keep & NA
    ksum: int = int(keep.sum())
    if ksum == 0:
        return keep, True
    cx = np.corrcoef(xobs[:, keep], rowvar=False).reshape(ksum, ksum)
    vals, vecs = np.linalg.eigh(cx)
    vals, vecs = vals[::-1], vecs[:, ::-1]  # R's order: decreasing
    rounds = 0
    while ksum > 0 and vals[ksum - 1] / vals[0] < _EPS:
        j = int(np.argmax(np.abs(vecs[:, ksum - 1])))
        if j < ksum:  # synthpop's (1:ksum)[j] is NA beyond the remaining count: no change
            keep[np.flatnonzero(keep)[j]] = False
        ksum -= 1
        rounds += 1
    return keep, rounds < 2


def drop_dependent_predictors(data: pd.DataFrame, vs: list[str], methods: dict[str, str],
                              pm: pd.DataFrame, observed_rows: dict[str, np.ndarray]) -> None:
    """Apply :func:`lindep_keep` to every CART-synthesised column of the (padded) working
    ``data``: the predictors it leaves out are removed from its row of ``pm`` (in place), with a
    :class:`~idrisk.exceptions.CollinearWarning`.

    Raises
    ------
    InputError
        When no predictor is left (synthpop stops with "'x' is empty").
    """
    for v in vs:
        if methods.get(v) != "cart":
            continue
        preds = list(pm.columns[pm.loc[v].to_numpy() != 0])
        if not preds:
            continue
        rows = observed_rows.get(v)
        x, y = data[preds], data[v]
        if rows is not None:
            x, y = x.iloc[rows], y.iloc[rows]
        keep, exact = lindep_keep(x, y)
        if keep.all():
            continue
        if not keep.any():
            raise InputError(
                f"column {v!r}: every predictor ({', '.join(map(str, preds))}) is constant "
                "(variance below 1e-5) or correlated at 0.99999 or more with it; synthpop's syn "
                "warns 'All predictors are constant or have too high correlation' and stops "
                "with the error \"'x' is empty\". Leave the column out of syn, rescale the "
                "predictors or choose others with predictor_matrix.", column=str(v))
        dropped = [p for p, k in zip(preds, keep) if not k]
        pm.loc[v, dropped] = 0
        warnings.warn(
            f"column {v!r}: predictor(s) {', '.join(map(str, dropped))} left out of its tree, "
            "as synthpop's syn does (remove.lindep.syn: variance below 1e-5, correlation 0.99999 "
            "or more with the column, or linear dependence on the other predictors)",
            CollinearWarning, stacklevel=user_stacklevel())
        if not exact:
            warnings.warn(
                f"column {v!r}: its predictors {', '.join(map(str, preds))} hold two or more "
                "linear dependencies, so which of them synthpop leaves out depends on the "
                "rounding of R's LAPACK (any basis of their null space is right); idrisk "
                f"left out {', '.join(map(str, dropped))}, and where synthpop leaves out "
                "others the synthetic data differ from synthpop's. Drop the dependent "
                "columns, or leave them out of predictor_matrix, to match synthpop exactly.",
                CollinearWarning, stacklevel=user_stacklevel())
