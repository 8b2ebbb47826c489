"""Python side of the R wrapper package ``idriskR`` (r-compat/idriskR), called via reticulate.

R sends every data-frame column as plain vectors (values, NA mask, factor levels), so that
nothing depends on reticulate's own data-frame conversion; results go back as flat float64
lists (matrices in column-major order) with their dimensions: reticulate 1.28 cannot
exchange arrays with NumPy 2.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._columns import build_column
from .results import R_RESULT_ORDER

__all__ = ["frame_from_columns", "identification_risk_for_r", "R_NULL_ERROR", "R_MESSAGE"]

#: what R prints before returning NULL for a radius vector that is too short
R_NULL_ERROR = (
    "Error: radius vector must be length 1 or number of continuous synthetic and known variables."
)
#: R's message() when r is NULL
R_MESSAGE = "Assuming all synthetic and known vars to be categorical"
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
    from ..r import IdentificationRisk

    r_arg = None if r is None else [float(v) for v in _as_list(r)]
    if r_arg is not None and len(r_arg) == 1:
        r_arg = r_arg[0]
    known_l = [str(k) for k in _as_list(known)]
    syn_l = [str(s) for s in _as_list(syn)]
    frames = list(_as_list(syndata))
    printed, messages, returns_null = r_printed_lines(origdata, known_l, syn_l, r_arg)
    n, m = len(origdata), len(frames)
    out: dict[str, Any] = {
        "n": n,
        "m": m,
        "printed": printed,
        "messages": messages,
        "warnings": [],
        "result": None,
    }
    if returns_null:
        return out
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = IdentificationRisk(
            origdata, frames, known_l, syn_l, r_arg, bool(percentage), bool(euclideanDist)
        )
    for w in caught:
        text = str(w.message).strip()
        if w.category.__name__ in _R_CATEGORIES or text.startswith(_R_TEXTS):
            continue  # R's own lines are in `printed` / `messages` already
        out["warnings"].append(f"{w.category.__name__}: {text}")
    flat = {}
    for key in R_RESULT_ORDER:
        arr = np.asarray(result[key], dtype=np.float64)
        # plain lists: reticulate 1.28 cannot exchange arrays with NumPy 2
        flat[key] = (arr.reshape(n, m).ravel(order="F") if key in _MATRICES else arr).tolist()
    out["result"] = flat
    return out


_R_TEXTS = ("Warning", "Error", "Assuming", '[1] "')
_R_CATEGORIES = ("RadiusWarning", "RPrintedWarning", "RMessage")


def r_printed_lines(
    origdata: pd.DataFrame, known: list[str], syn: list[str], r: float | list[float] | None
) -> tuple[list[str], list[str], bool]:
    """What R's IdentificationRisk() prints for these arguments, and whether it returns NULL.

    Returns ``(print() lines, message() lines, returns_null)``. The rules (see the
    identification-risk spec): r NULL -> one message; a single r -> two Warning lines saying
    it uses the first 0 radii; more entries than continuous known/syn columns -> two Warning
    lines with that count; fewer (and more than one) -> an Error line and NULL.

    Examples
    --------
    >>> df = pd.DataFrame({"K": pd.Categorical(["a"]), "X": [1.0], "Y": [2.0]})
    >>> r_printed_lines(df, ["K"], ["X", "Y"], [0.1])[0][1]
    'Warning: only using the first 0 radii.'
    >>> r_printed_lines(df, ["K"], ["X", "Y"], [0.1, 0.2, 0.3])[0][1]
    'Warning: only using the first 2 radii.'
    >>> r_printed_lines(df, ["K"], ["X", "Y"], None)[1]
    ['Assuming all synthetic and known vars to be categorical']
    """
    from ..risk._prepare import is_categorical_dtype_like

    if r is None:
        return [], [R_MESSAGE], False
    if isinstance(r, Mapping):  # named radii are idrisk's, not an R call: nothing to print
        return [], [], False
    values = [r] if isinstance(r, int | float) else list(r)
    used = set(known) | set(syn)
    # the columns R treats as continuous: not factor/character (the engine's own rule)
    n_cont = sum(
        1 for c in origdata.columns if c in used and not is_categorical_dtype_like(origdata[c])
    )
    if len(values) == 1:
        return _r_warning_lines(0), [], False
    if len(values) < n_cont:
        return [_r_print(R_NULL_ERROR)], [], True
    if len(values) > n_cont:
        return _r_warning_lines(n_cont), [], False
    return [], [], False


def _r_print(text: str) -> str:
    """The text R passes to ``print()`` (the R wrapper prints it, giving ``[1] "text"``)."""
    return text


def _r_warning_lines(k: int) -> list[str]:
    return [
        _r_print(
            "Warning: length of radius vector longer than number of synthetic and known variables."
        ),
        _r_print(f"Warning: only using the first {k} radii."),
    ]
