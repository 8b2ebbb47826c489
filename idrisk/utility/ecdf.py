"""ECDF utility (Woo et al. 2009): U_m (maximum) and U_a (mean squared) ECDF distance."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ecdf_utility"]


def _ecdf_one(original: np.ndarray, synthetic: np.ndarray) -> tuple[float, float]:
    pooled = np.concatenate([original, synthetic])
    f_o = np.searchsorted(np.sort(original), pooled, side="right") / len(original)
    f_s = np.searchsorted(np.sort(synthetic), pooled, side="right") / len(synthetic)
    diff = f_o - f_s
    return float(np.max(np.abs(diff))), float(np.mean(diff**2))


def _as_1d(x, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains missing values")
    return arr


def ecdf_utility(original, synthetic) -> pd.Series | pd.DataFrame:
    """ECDF utility (Woo et al. 2009) of one variable.

    The original and synthetic values are pooled; at every pooled point the two empirical
    CDFs are compared: ``U_m = max |F_orig - F_syn|``, ``U_a = mean (F_orig - F_syn)^2``.
    Smaller is better.

    Parameters
    ----------
    original : 1-D array-like
    synthetic : 1-D array-like, or a list of them (one per synthetic dataset)

    Returns
    -------
    pandas.Series with index ``["U_m", "U_a"]``, or for a list a DataFrame with one row per
    synthetic dataset (index 1..m).

    Examples
    --------
    >>> ecdf_utility([1, 2, 3, 4], [1, 2, 3, 4]).tolist()
    [0.0, 0.0]
    >>> ecdf_utility([1, 2], [3, 4]).round(3).tolist()
    [1.0, 0.375]
    """
    orig = _as_1d(original, "original")
    is_list = isinstance(synthetic, list | tuple) and len(synthetic) > 0 and np.ndim(
        synthetic[0]
    ) == 1
    if is_list:
        rows = [
            _ecdf_one(orig, _as_1d(s, f"synthetic[{k}]")) for k, s in enumerate(synthetic)
        ]
        return pd.DataFrame(
            rows, columns=["U_m", "U_a"], index=pd.RangeIndex(1, len(rows) + 1, name="dataset")
        )
    u_m, u_a = _ecdf_one(orig, _as_1d(synthetic, "synthetic"))
    return pd.Series([u_m, u_a], index=["U_m", "U_a"], name="ecdf_utility")
