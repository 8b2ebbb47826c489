"""Build pandas columns from the raw parts of an R vector (shared by rpy2 and reticulate)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["build_column", "str_dtype", "R_NA_INTEGER"]

#: R's NA_integer_ and NA logical are stored as INT_MIN
R_NA_INTEGER = np.iinfo(np.int32).min
_PANDAS3 = int(pd.__version__.split(".")[0]) >= 3


def str_dtype():
    """pandas' string dtype for R character vectors (``"str"`` on pandas >= 3, else object)."""
    return "str" if _PANDAS3 else object


def build_column(
    kind: str,
    values: Sequence | np.ndarray,
    na: Sequence[bool] | np.ndarray | None = None,
    levels: Sequence[str] | None = None,
    ordered: bool = False,
    name: str = "<vector>",
) -> pd.Series:
    """One pandas column from an R vector's values, NA mask and (for factors) levels.

    Parameters
    ----------
    kind : {"factor", "character", "logical", "integer", "double"}
    values : array-like
        Factor codes (1-based), strings, logicals (0/1), integers or doubles.
    na : array of bool, optional
        Where R had NA (for doubles: None keeps the NaN payloads of ``values``).
    levels, ordered
        Factor levels (labels, in R's order) and whether the factor is ordered.
    name : str
        Column name, used in messages.

    Examples
    --------
    >>> build_column("factor", [2, 1, 0], na=[False, False, True], levels=["b", "a"]).tolist()
    ['a', 'b', nan]
    >>> build_column("integer", [1, 0], na=[False, True]).dtype
    Int32Dtype()
    """
    n = len(values)
    mask = np.zeros(n, dtype=bool) if na is None else np.asarray(na, dtype=bool).reshape(n)
    if kind == "factor":
        codes = np.asarray(values, dtype=np.int64).reshape(n) - 1
        codes[mask | (codes < 0)] = -1
        cats = pd.Index([str(v) for v in (levels or [])], dtype=str_dtype())
        if len(cats) and codes.max(initial=-1) >= len(cats):
            raise ValueError(f"column {name!r}: factor code beyond its {len(cats)} levels")
        dtype = pd.CategoricalDtype(cats, ordered=bool(ordered))
        return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype), name=name)
    if kind == "character":
        vals = np.array(
            [None if m else str(v) for v, m in zip(values, mask, strict=True)], dtype=object
        )
        return pd.Series(vals, name=name, dtype=str_dtype())
    if kind == "logical":
        arr = np.asarray(values).reshape(n).astype(bool)
        if mask.any():
            return pd.Series(pd.arrays.BooleanArray(arr, mask), name=name)
        return pd.Series(arr, name=name, dtype=bool)
    if kind == "integer":
        arr = np.asarray(values).reshape(n)
        arr = np.where(mask, 0, arr).astype(np.int32)
        if mask.any():
            return pd.Series(pd.arrays.IntegerArray(arr, mask), name=name)
        return pd.Series(arr, name=name, dtype="int32")
    if kind == "double":
        arr = np.array(values, dtype=np.float64).reshape(n)
        if na is not None:
            arr[mask] = np.nan
        return pd.Series(arr, name=name)
    raise ValueError(f"column {name!r}: unknown R vector kind {kind!r}")
