"""synthpop's ``minnumlevels = 1`` rule: numeric columns with one value become factors.

Before its constant check, synthpop's ``syn`` turns every numeric column with at most one
distinct non-NA value (``length(table(x)) <= 1``: ``Inf`` counts as a value) into a factor
when the column has predictors (and a method other than ``"sample"``) or is a predictor.
Its level is R's ``as.character`` of the value (15 significant digits). With NAs the factor
then gets the level ``"NAtemp"`` like any factor, so it is not constant: it is synthesised as
a factor and used as a factor predictor. Without NAs it is a constant factor. At the end the
column is turned back into numbers (``as.numeric(as.character(.))``), so a value with more
than 15 significant digits comes back rounded to 15. An all-NA column stays numeric here (it
is constant either way).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._rtext import r_label
from .._schema import is_categorical

__all__ = ["as_numbers", "one_value_factors"]


def one_value_factors(data: pd.DataFrame, methods: dict[str, str],
                      pm: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``data`` with its one-valued numeric columns in use made factors (module docstring).

    Parameters
    ----------
    data : pandas.DataFrame
        The confidential data.
    methods : dict
        Column -> method, before the constant check.
    pm : pandas.DataFrame
        Predictor matrix (row = target) before the constant check.

    Returns
    -------
    (pandas.DataFrame, list of str)
        The working data (``data`` itself when nothing changes) and the columns made factors.
    """
    a = pm.to_numpy() != 0
    has_predictors = a.any(axis=1) & np.array([methods[c] not in ("", "sample")
                                               for c in pm.index])
    used = dict(zip(pm.index, has_predictors | a.any(axis=0)))
    changed = [c for c in data.columns
               if used[c] and not is_categorical(data[c])
               and data[c].dropna().nunique() == 1]
    if not changed:
        return data, []
    work = data.copy()
    for c in changed:
        col = data[c]
        label = r_label(col.dropna().iloc[0])
        labels = pd.Series(label, index=col.index, dtype=object).where(col.notna())
        work[c] = pd.Categorical(labels, categories=[label])
    return work, changed


def as_numbers(frame: pd.DataFrame, columns: list[str], original: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``columns`` (made factors) turned back into numbers of
    ``original``'s dtypes, from their labels (R's ``as.numeric(as.character(.))``)."""
    if not columns:
        return frame
    for c in columns:
        labels = frame[c].astype(object).to_numpy()
        values = np.array([np.nan if pd.isna(v) else float(v) for v in labels])
        frame[c] = pd.Series(values, index=frame.index).astype(original[c].dtype)
    return frame
