"""ECDF utility (Woo et al. 2009): U_m (maximum) and U_a (mean squared) ECDF distance."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._schema import require_columns
from .._synthetic import synthetic_frames, synthetic_name

__all__ = ["ecdf_utility"]


def _ecdf_one(confidential: np.ndarray, synthetic: np.ndarray) -> tuple[float, float]:
    pooled = np.concatenate([confidential, synthetic])
    f_o = np.searchsorted(np.sort(confidential), pooled, side="right") / len(confidential)
    f_s = np.searchsorted(np.sort(synthetic), pooled, side="right") / len(synthetic)
    diff = f_o - f_s
    return float(np.max(np.abs(diff))), float(np.mean(diff**2))


def _as_1d(x, name: str) -> np.ndarray:
    """Values as floats, a missing value as +inf: missing values form one category placed
    after every value (as R's ``sort(na.last = TRUE)``)."""
    if isinstance(x, pd.Series):
        arr = x.to_numpy(dtype=float, na_value=np.nan)
    else:
        arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    return np.where(np.isnan(arr), np.inf, arr)


def ecdf_utility(confidential, synthetic, variable: str | None = None) -> pd.DataFrame:
    """ECDF utility (Woo et al. 2009) of one variable, per synthetic dataset.

    The confidential and synthetic values are pooled; at every pooled point the two empirical
    CDFs are compared: ``U_m = max |F_orig - F_syn|``, ``U_a = mean (F_orig - F_syn)^2``.
    Smaller is better. Missing values are not dropped: they form one category placed after
    every value (synthpop's ``utility.gen`` likewise keeps missingness in the comparison),
    so a different share of missing values counts as a difference of the distributions.

    Parameters
    ----------
    confidential : DataFrame or 1-D array-like
        The confidential data (a DataFrame, as for the other utility measures), or the values
        of the one variable.
    synthetic : DataFrame, list of DataFrames, SyntheticData, or 1-D array-like(s)
        The synthetic data: frames when ``confidential`` is a DataFrame, otherwise the values
        (one array, or a list of them: one per synthetic dataset).
    variable : str, optional
        The column compared when the data are DataFrames (may be left out when they have one
        column).

    Returns
    -------
    pandas.DataFrame
        Columns ``U_m`` and ``U_a``, one row per synthetic dataset (index ``dataset``
        1..m), whether one dataset or a list is given. A tidy-frame function (glossary rule:
        an answer that is one table is returned as that table, tidy; an answer with several
        parts is a Result).

    Examples
    --------
    >>> ecdf_utility([1, 2, 3, 4], [[1, 2, 3, 4], [1, 1, 1, 1]]).to_dict("index")
    {1: {'U_m': 0.0, 'U_a': 0.0}, 2: {'U_m': 0.75, 'U_a': 0.390625}}
    >>> ecdf_utility([1, 2], [3, 4]).round(3).loc[1].tolist()
    [1.0, 0.375]
    >>> ecdf_utility([1.0, None], [1.0, 1.0]).loc[1].tolist()    # the missing share differs
    [0.5, 0.1875]
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"x": [1, 2, 3, 4], "y": [0, 0, 1, 1]})
    >>> ecdf_utility(conf, [conf, conf.assign(x=1)], "x")["U_m"].tolist()
    [0.0, 0.75]
    """
    if isinstance(confidential, pd.DataFrame):
        frames = synthetic_frames(synthetic)
        if variable is None:
            if confidential.shape[1] != 1:
                raise ValueError("variable: name the column to compare (the confidential data "
                                 f"has {confidential.shape[1]} columns)")
            variable = str(confidential.columns[0])
        require_columns(confidential, [variable], "variable", "the confidential data")
        for j, frame in enumerate(frames, start=1):
            require_columns(frame, [variable], "variable", synthetic_name(j))
        confidential, synthetic = confidential[variable], [f[variable] for f in frames]
    elif variable is not None:
        raise TypeError("variable is for DataFrames: confidential is not a DataFrame")
    orig = _as_1d(confidential, "confidential")
    is_list = isinstance(synthetic, Sequence | pd.Series | np.ndarray) and not isinstance(
        synthetic, str
    ) and len(synthetic) > 0 and np.ndim(synthetic[0] if not isinstance(
        synthetic, pd.Series) else synthetic.iloc[0]) == 1
    sets = list(synthetic) if is_list else [synthetic]
    rows = [_ecdf_one(orig, _as_1d(s, f"synthetic[{k}]")) for k, s in enumerate(sets)]
    return pd.DataFrame(
        rows, columns=["U_m", "U_a"], index=pd.RangeIndex(1, len(rows) + 1, name="dataset")
    )
