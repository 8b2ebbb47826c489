"""synthpop's handling of missing values in the CART synthesis (``padMis.syn``, spec 5.6).

* A factor (categorical / string / bool column) with NAs that is synthesised or used as a
  predictor gets an extra last level ``"NAtemp"``: an ordinary level for the trees and the
  sampling, NA again in the output.
* A numeric column with NAs that is a predictor, or that is synthesised by CART, is split
  into a value column (same name, NA -> 0) and a missing-indicator factor ``<name>_1``
  (levels ``"0"`` = observed, ``"NAtemp"`` = missing) -- synthpop's ``<name>.0`` and
  ``<name>.NA``. Both move behind the data's other columns, in data order (synthpop appends
  them with ``cbind``; the column order is the order of the predictors, which decides rpart's
  ties). Whatever used the column uses the pair instead. When the column is synthesised, the
  indicator is visited first, with the column's method and predictors; the value column is
  then drawn with the same predictors (not the indicator) only for the rows drawn as
  observed, from a tree fitted (or a sample taken) on the data's observed rows only, and the
  rows drawn as missing get 0 (synthpop's rule ``<name>.NA != <code>`` with value 0). The
  column is rebuilt as NA where the indicator is ``"NAtemp"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._schema import is_categorical
from .rpart_tree import _factor_levels

__all__ = ["NA_LEVEL", "pad_missing"]

NA_LEVEL = "NAtemp"


@dataclass
class Padded:
    """Working data after synthpop's missing-value padding, and how to undo it.

    Attributes
    ----------
    data : pandas.DataFrame
        The working data (padded columns last, with their indicators).
    vs : list of str
        The visit sequence, indicators included.
    methods : dict
        Column -> method, indicators included.
    pm : pandas.DataFrame
        Predictor matrix over the working data's columns, in their order.
    na_factors : list of str
        Factors given the ``"NAtemp"`` level.
    indicators : dict
        Numeric column -> its missing-indicator column.
    observed_rows : dict
        Synthesised numeric column -> the data rows where it is observed (its value column
        is fitted on these rows and drawn for the rows whose indicator is drawn as observed).
    """

    data: pd.DataFrame
    vs: list[str]
    methods: dict[str, str]
    pm: pd.DataFrame
    na_factors: list[str]
    indicators: dict[str, str]
    observed_rows: dict[str, np.ndarray]

    def restore(self, out: pd.DataFrame, original: pd.DataFrame) -> pd.DataFrame:
        """A synthetic working dataset as a dataset of ``original``'s columns and types."""
        if not self.na_factors and not self.indicators and out.columns.equals(original.columns):
            return out  # nothing padded: ``out`` is already a fresh frame of the columns
        res = out[list(original.columns)].copy()
        for c in self.na_factors:
            res[c] = _restore_factor(out[c], original[c])
        for c, ind in self.indicators.items():
            vals = out[c].astype(float).to_numpy(copy=True)
            vals[(out[ind].astype(object) == NA_LEVEL).to_numpy()] = np.nan
            res[c] = pd.Series(vals, index=original.index).astype(original[c].dtype)
        return res


def _restore_factor(col: pd.Series, like: pd.Series) -> pd.Series:
    labels = col.astype(object).to_numpy(copy=True)
    labels[labels == NA_LEVEL] = None
    if isinstance(like.dtype, pd.CategoricalDtype):
        return pd.Series(pd.Categorical(labels, categories=like.cat.categories,
                                        ordered=like.cat.ordered), index=like.index)
    return pd.Series(labels, index=like.index, dtype=object).astype(like.dtype)


def drawn_observed(indicator) -> np.ndarray:
    """Positions of the rows whose indicator value is not ``"NAtemp"``."""
    return np.flatnonzero(np.asarray(indicator, dtype=object) != NA_LEVEL)


def pad_missing(data: pd.DataFrame, vs: list[str], methods: dict[str, str],
                pm: pd.DataFrame) -> Padded:
    """synthpop's padding of missing values (module docstring) for ``data`` with the resolved
    visit sequence ``vs``, ``methods`` and predictor matrix ``pm``.

    Parameters
    ----------
    data : pandas.DataFrame
        The confidential data.
    vs : list of str
        Visit sequence.
    methods : dict
        Column -> ``"sample"``, ``"cart"``, ``"constant"`` or ``""``.
    pm : pandas.DataFrame
        Predictor matrix (row = target).

    Returns
    -------
    Padded
    """
    work = data.copy()
    wvs = list(vs)
    wmethods = dict(methods)
    wpm = pm.copy()
    na_factors: list[str] = []
    indicators: dict[str, str] = {}
    observed: dict[str, np.ndarray] = {}
    for c in data.columns:
        col = data[c]
        if not col.isna().any():
            continue
        used = bool(pm[c].sum() > 0)
        if is_categorical(col):
            if c in vs or used:
                cats = _factor_levels(col) or []
                if NA_LEVEL in cats:
                    raise ValueError(f"column {c!r} already has a level {NA_LEVEL!r}")
                labels = col.astype(object).where(col.notna(), NA_LEVEL)
                work[c] = pd.Categorical(labels, categories=cats + [NA_LEVEL])
                na_factors.append(c)
            continue
        if not (used or (c in vs and methods[c] == "cart")):
            continue
        ind = f"{c}_1"
        if ind in data.columns:
            raise ValueError(f"column {c!r} has NAs but the helper name {ind!r} is taken")
        values = col.astype(float).fillna(0.0)
        work = work.drop(columns=c)  # the pair goes last, value column first (synthpop's cbind)
        work[c] = values
        work[ind] = pd.Categorical(np.where(col.isna(), NA_LEVEL, "0"),
                                   categories=["0", NA_LEVEL])
        indicators[c] = ind
        wmethods[ind] = methods[c]
        wpm[ind] = wpm[c]  # whoever uses the column uses its indicator too
        wpm.loc[ind] = wpm.loc[c]  # the indicator has the column's predictors
        if c in wvs:
            wvs.insert(wvs.index(c), ind)
            observed[c] = np.flatnonzero(col.notna().to_numpy())
    cols = list(work.columns)
    wpm = wpm.reindex(index=cols, columns=cols).fillna(0).astype(np.int64)
    return Padded(work, wvs, wmethods, wpm, na_factors, indicators, observed)
