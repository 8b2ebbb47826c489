"""IdentificationRisk() result lists (R) <-> :class:`idrisk.risk.IdentificationRiskResult`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..risk.options import RiskOptions
from ..risk.result import IdentificationRiskResult
from ._session import robjects

__all__ = ["R_RESULT_ORDER", "result_to_r", "result_from_r", "r_result_dict"]

#: the names of R's result list, in the order the R package returns them
R_RESULT_ORDER = (
    "s_vector",
    "exp.risk_vector",
    "true.rate_vector",
    "false.rate_vector",
    "c_vector",
    "T_vector",
    "K_vector",
    "F_vector",
    "Risk_vector",
)
_MATRICES = ("c_vector", "T_vector", "K_vector", "F_vector", "Risk_vector")


def result_to_r(result: IdentificationRiskResult):
    """Build the R list that ``IdentificationRiskCalculation::IdentificationRisk`` returns.

    Nine entries in R's order; matrices are n x m doubles without dimnames, vectors are
    doubles of length m (NaN in ``false.rate_vector`` when s = 0), as the R package gives.

    Examples
    --------
    >>> rlist = result_to_r(res)  # doctest: +SKIP
    >>> list(robjects().r["names"](rlist))[:2]  # doctest: +SKIP
    ['s_vector', 'exp.risk_vector']
    """
    ro = robjects()
    d = result.to_r_dict()
    items = []
    for key in R_RESULT_ORDER:
        arr = np.asarray(d[key], dtype=np.float64)
        vec = ro.FloatVector(arr.ravel(order="F"))
        if key in _MATRICES:
            vec = ro.r["matrix"](vec, nrow=arr.shape[0], ncol=arr.shape[1])
        items.append((key, vec))
    return _named_list(items)


def _named_list(items: list[tuple[str, Any]]):
    ro = robjects()
    out = ro.vectors.ListVector.from_length(len(items))
    for i, (_, v) in enumerate(items):
        out[i] = v
    out.names = ro.StrVector([k for k, _ in items])
    return out


def r_result_dict(rlist) -> dict[str, np.ndarray] | None:
    """R's result list as a dict of float arrays (matrices n x m); None for R's NULL."""
    ro = robjects()
    if rlist is ro.NULL or getattr(rlist, "typeof", None) == 0:
        return None
    names = list(ro.r["names"](rlist))
    missing = [k for k in R_RESULT_ORDER if k not in names]
    if missing:
        raise KeyError(f"the R list is not an IdentificationRisk() result: missing {missing}")
    out: dict[str, np.ndarray] = {}
    for key in R_RESULT_ORDER:
        value = rlist[names.index(key)]
        arr = np.asarray(ro.r["as.double"](value), dtype=np.float64)
        if key in _MATRICES:
            dim = ro.r["dim"](value)
            nrow, ncol = (int(dim[0]), int(dim[1])) if dim is not ro.NULL else (len(arr), 1)
            arr = arr.reshape(ncol, nrow).T
        out[key] = arr
    return out


def result_from_r(
    rlist, index: pd.Index | None = None, *, options: RiskOptions | None = None
) -> IdentificationRiskResult | None:
    """Convert R's ``IdentificationRisk()`` list to an :class:`IdentificationRiskResult`.

    Returns None when R returned NULL (R's answer to a too short radius vector).
    """
    d = r_result_dict(rlist)
    if d is None:
        return None
    return IdentificationRiskResult.from_r_dict(d, index=index, options=options)
