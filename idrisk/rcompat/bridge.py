"""Python side of the R wrapper package ``idriskR`` (r-compat/idriskR), called via reticulate.

R sends every data-frame column as plain vectors (values, NA mask, factor levels), so that
nothing depends on reticulate's own data-frame conversion; results go back as flat float64
lists (matrices in column-major order) with their dimensions: reticulate 1.28 cannot
exchange arrays with NumPy 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..risk._rcall import run_identification_risk
from ._columns import build_column
from .results import R_RESULT_ORDER

__all__ = ["frame_from_columns", "identification_risk_for_r"]

_MATRICES = ("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")


def frame_from_columns(names: Sequence[str], columns: Sequence[Mapping[str, Any]], nrow: int):
    """Build a DataFrame from R column descriptions.

    Each column is a mapping with ``kind`` (factor/character/logical/integer/double),
    ``values``, ``na`` and, for factors, ``levels`` and ``ordered``.

    Examples
    --------
    >>> cols = [{"kind": "factor", "values": [1, 2], "na": [False, False],
    ...          "levels": ["x", "y"], "ordered": False}]
    >>> frame_from_columns(["K"], cols, 2)["K"].tolist()
    ['x', 'y']
    """
    names = _as_list(names)
    columns = _as_list(columns)
    if len(names) != len(columns):
        raise ValueError(f"{len(names)} names for {len(columns)} columns")
    data = {}
    for name, col in zip(names, columns, strict=True):
        series = build_column(
            str(col["kind"]),
            _as_list(col["values"]) if col["kind"] == "character" else np.asarray(col["values"]),
            np.asarray(col.get("na"), dtype=bool) if col.get("na") is not None else None,
            [str(v) for v in _as_list(col.get("levels") or [])],
            bool(col.get("ordered", False)),
            str(name),
        )
        data[str(name)] = series.array
    return pd.DataFrame(data, index=pd.RangeIndex(int(nrow)))


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    if isinstance(x, np.ndarray):
        return x.reshape(-1).tolist()
    return list(x)


def identification_risk_for_r(
    origdata: pd.DataFrame,
    syndata: Sequence[pd.DataFrame],
    known: Sequence[str],
    syn: Sequence[str],
    r: Sequence[float] | None = None,
    percentage: bool = True,
    euclideanDist: bool = False,
) -> dict[str, Any]:
    """Run :func:`idrisk.r.IdentificationRisk` and package what R must return and print.

    Returns
    -------
    dict
        ``result``: None (R's NULL) or a dict of flat lists of floats by R name (matrices in
        column-major order); ``n``, ``m``; ``printed``: texts R shows via ``print()``;
        ``messages``: R ``message()`` texts; ``warnings``: other warnings.
    """
    r_arg = None if r is None else [float(v) for v in _as_list(r)]
    if r_arg is not None and len(r_arg) == 1:
        r_arg = r_arg[0]
    known_l = [str(k) for k in _as_list(known)]
    syn_l = [str(s) for s in _as_list(syn)]
    frames = list(_as_list(syndata))
    outcome = run_identification_risk(
        origdata, frames, known_l, syn_l, r_arg, bool(percentage), bool(euclideanDist)
    )
    result = outcome.result
    n, m = len(origdata), len(frames)
    out: dict[str, Any] = {
        "n": n,
        "m": m,
        "printed": list(outcome.printed),
        "messages": list(outcome.messages),
        "warnings": [f"{w.category.__name__}: {str(w.message).strip()}" for w in outcome.warnings],
        "result": None,
    }
    if result is None:
        return out
    flat = {}
    for key, value in result.to_r_dict().items():
        arr = np.asarray(value, dtype=np.float64)
        # plain lists: reticulate 1.28 cannot exchange arrays with NumPy 2
        flat[key] = (arr.reshape(n, m).ravel(order="F") if key in _MATRICES else arr).tolist()
    out["result"] = {key: flat[key] for key in R_RESULT_ORDER}
    return out
