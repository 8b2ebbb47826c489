"""Lossless conversion between pandas DataFrames and R data.frames (through rpy2).

rpy2's own pandas converter turns ``NA_integer_`` into -2147483648, logical ``NA`` into a
sentinel object and ``NA_character_`` into a non-missing object; this module does not use it.

Column types, R -> pandas -> R:

============================  ======================================================
R column                      pandas column
============================  ======================================================
factor / ordered factor       ``category`` (labels as str categories, level order and
                              ``ordered`` kept; unused levels kept; NA -> missing)
character                     ``str`` (pandas >= 3; ``object`` before); NA -> missing
logical                       ``bool``; ``boolean`` (nullable) when it holds NA
integer                       ``int32``; ``Int32`` (nullable) when it holds NA
double                        ``float64``; NA and NaN keep their exact bit patterns
============================  ======================================================

pandas -> R also accepts any numpy/nullable integer (to R integer when it fits in R's range,
else double with a warning), float32, nullable ``Float64`` (``pd.NA`` -> ``NA_real_``,
``NaN`` stays ``NaN``), ``string`` dtypes and object columns holding only str / bool / numbers.
Row names: automatic R row names <-> a default ``RangeIndex``; other row names <-> a str index.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import RConversionWarning
from ._columns import R_NA_INTEGER, build_column, str_dtype
from ._session import robjects

__all__ = [
    "dataframe_to_r",
    "dataframe_from_r",
    "dataframes_to_r",
    "dataframes_from_r",
    "series_to_r",
    "vector_from_r",
    "deparse_r",
    "to_python",
]

_INT_MAX = 2**31 - 1


@functools.cache
def _ri():
    robjects()
    import rpy2.rinterface as ri

    return ri


@functools.cache
def _rfun(name: str):
    return robjects().r(_R_HELPERS[name])


_R_HELPERS = {
    "factor": "function(codes, levels, ordered) structure(codes, levels = levels, "
    "class = if (ordered) c('ordered', 'factor') else 'factor')",
    "frame": "function(cols, nms, rn) { names(cols) <- nms; "
    "if (is.null(rn)) attr(cols, 'row.names') <- .set_row_names(if (length(cols)) "
    "length(cols[[1]]) else 0L) else attr(cols, 'row.names') <- rn; "
    "class(cols) <- 'data.frame'; cols }",
    "rownames": "function(x) if (.row_names_info(x) < 0L || .row_names_info(x, 2L) == 0L) "
    "NULL else as.character(rownames(x))",
    "nrow": "function(x) .row_names_info(x, 2L)",
    "isna": "function(x) is.na(x)",
    # the object arrives inside a list: an R call or symbol passed directly as an argument
    # would be evaluated (rpy2 builds the call f(<object>)), not inspected
    "class_in": "function(l) class(l[[1L]])",
    "deparse_in": "function(l) deparse(l[[1L]], width.cutoff = 500L)",
}

#: R types that R evaluates when they appear as an argument of a call (language objects)
_LANGUAGE_TYPES = ("LANGSXP", "SYMSXP", "PROMSXP", "EXPRSXP", "BCODESXP", "DOTSXP")


def _is_language(x) -> bool:
    """True for calls, formulas, symbols, expressions and promises (never evaluated here)."""
    ri = _ri()
    return getattr(x, "typeof", None) in tuple(getattr(ri.RTYPES, t) for t in _LANGUAGE_TYPES)


def deparse_r(x) -> str:
    """R's ``deparse()`` text of any R object, without evaluating it.

    Calls (e.g. what ``match.call()`` stores), formulas, symbols and expressions are handed
    to R inside a list, so R never evaluates them (``deparse(quote(sum(1, 2)))`` is
    ``"sum(1, 2)"``, not ``"3"``). Lines longer than R's 500 characters are joined with
    newlines.

    Examples
    --------
    >>> deparse_r(robjects().r("quote(sum(1, 2))"))  # doctest: +SKIP
    'sum(1, 2)'
    """
    return "\n".join(_rfun("deparse_in")(_ri().ListSexpVector([x])))


def _values(x) -> np.ndarray:
    """The numbers of an R integer/logical/double vector (a copy; empty vectors work)."""
    if len(x) == 0:
        return np.zeros(0, dtype=np.float64 if x.typeof == _ri().RTYPES.REALSXP else np.int32)
    return np.asarray(x.memoryview()).copy()


def _sexp(cls, arr: np.ndarray):
    """An R vector from a numpy array, bit for bit (NaN payloads included)."""
    if arr.size == 0:
        return cls([])
    return cls.from_memoryview(np.ascontiguousarray(arr).data)


# ----------------------------------------------------------------------------- pandas -> R
def series_to_r(values: pd.Series, name: str = "<vector>"):
    """Convert one pandas column to an R vector (see the module docstring for the types).

    Parameters
    ----------
    values : pandas.Series
    name : str
        Used in error messages.

    Examples
    --------
    >>> v = series_to_r(pd.Series(["b", None, "a"], dtype="category"))  # doctest: +SKIP
    >>> list(robjects().r["levels"](v))  # doctest: +SKIP
    ['a', 'b']
    """
    ri = _ri()
    s = pd.Series(values)
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _factor_to_r(s, name)
    if pd.api.types.is_bool_dtype(dtype):
        return _logical_to_r(s)
    if pd.api.types.is_integer_dtype(dtype):
        return _integer_to_r(s, name)
    if pd.api.types.is_float_dtype(dtype):
        if isinstance(dtype, np.dtype):  # numpy float: NaN payloads (R's NA vs NaN) are kept
            arr = np.array(s.to_numpy(dtype="float64"), copy=True)
        else:  # nullable Float: pd.NA -> NA_real_
            mask = s.isna().to_numpy()
            arr = s.to_numpy(dtype="float64", na_value=np.nan).copy()
            arr[mask] = _na_real()
        return _sexp(ri.FloatSexpVector, arr)
    if pd.api.types.is_string_dtype(dtype) or dtype is np.dtype(object):
        kind = pd.api.types.infer_dtype(s, skipna=True)
        if kind in ("string", "empty"):
            return _character_to_r(s)
        if kind == "boolean":
            return _logical_to_r(s.astype("boolean"))
        if kind == "integer":
            return _integer_to_r(s.astype("Int64"), name)
        if kind in ("floating", "mixed-integer-float", "decimal"):
            return series_to_r(s.astype("Float64"), name)
        raise TypeError(
            f"column {name!r}: object values of kind {kind!r} cannot be converted to R; "
            "expected str, bool or numbers (convert it first, e.g. with .astype(str))"
        )
    raise TypeError(
        f"column {name!r}: dtype {dtype} has no R counterpart here; expected category, str, "
        "bool, integer or float"
    )


def _na_real() -> float:
    arr = np.asarray(robjects().r("NA_real_").memoryview())
    return arr[0]


def _factor_to_r(s: pd.Series, name: str):
    ri = _ri()
    cats = s.cat.categories
    levels = [str(c) for c in cats]
    if len(set(levels)) != len(levels):
        raise ValueError(f"column {name!r}: categories {list(cats)} are not distinct as labels")
    codes = s.cat.codes.to_numpy().astype("int32") + 1
    codes[codes == 0] = ri.NA_Integer
    rcodes = _sexp(ri.IntSexpVector, codes)
    return _rfun("factor")(rcodes, ri.StrSexpVector(levels), bool(s.cat.ordered))


def _logical_to_r(s: pd.Series):
    ri = _ri()
    mask = s.isna().to_numpy()
    vals = s.to_numpy(dtype=bool, na_value=False) if mask.any() else s.to_numpy(dtype=bool)
    out = [ri.NA_Logical if m else bool(v) for v, m in zip(vals, mask, strict=True)]
    return ri.BoolSexpVector(out)


def _integer_to_r(s: pd.Series, name: str):
    ri = _ri()
    mask = s.isna().to_numpy()
    vals = s.to_numpy(dtype="float64", na_value=np.nan) if mask.any() else s.to_numpy()
    present = np.asarray(vals)[~mask]
    if present.size and (present.min() < -_INT_MAX or present.max() > _INT_MAX):
        warnings.warn(
            f"column {name!r}: integers outside R's integer range; stored as R double",
            RConversionWarning, stacklevel=3,
        )
        return series_to_r(s.astype("Float64"), name)
    arr = np.where(mask, ri.NA_Integer, np.nan_to_num(np.asarray(vals, dtype="float64")))
    arr = np.ascontiguousarray(arr.astype("int32"))
    return _sexp(ri.IntSexpVector, arr)


def _character_to_r(s: pd.Series):
    ri = _ri()
    mask = s.isna().to_numpy()
    vals = s.to_numpy(dtype=object)
    return ri.StrSexpVector(
        [ri.NA_Character if m else str(v) for v, m in zip(vals, mask, strict=True)]
    )


def dataframe_to_r(df: pd.DataFrame):
    """Convert a DataFrame to an R data.frame, keeping factors, NA and column order.

    A default ``RangeIndex`` (0..n-1) gives R's automatic row names; any other index is
    written as character row names (it must then be unique).

    Parameters
    ----------
    df : pandas.DataFrame

    Returns
    -------
    rpy2 ``data.frame``

    Examples
    --------
    >>> df = pd.DataFrame({"K": pd.Categorical(["a", None], categories=["b", "a"]),
    ...                    "X": [1.5, None]})
    >>> rdf = dataframe_to_r(df)  # doctest: +SKIP
    >>> robjects().r["levels"](rdf.rx2("K"))  # doctest: +SKIP
    ['b', 'a']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    ri = _ri()
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise ValueError(f"column names must be unique for R, got {names}")
    cols = ri.ListSexpVector([series_to_r(df.iloc[:, j], names[j]) for j in range(df.shape[1])])
    idx = df.index
    default = isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1
    if default:
        rn = ri.NULL
    else:
        labels = [str(v) for v in idx]
        if len(set(labels)) != len(labels):
            raise ValueError("the DataFrame index must be unique to become R row names")
        rn = ri.StrSexpVector(labels)
    if df.shape[1] == 0 and len(idx):
        raise ValueError("a DataFrame without columns cannot carry rows into R")
    return _rfun("frame")(cols, ri.StrSexpVector(names), rn)


def dataframes_to_r(frames: Sequence[pd.DataFrame], names: Sequence[str] | None = None):
    """Convert a list of DataFrames to an R list of data.frames (optionally named)."""
    ri = _ri()
    out = ri.ListSexpVector([dataframe_to_r(f) for f in frames])
    if names is not None:
        if len(names) != len(frames):
            raise ValueError(f"names has {len(names)} entries for {len(frames)} data frames")
        out = robjects().r["setNames"](out, ri.StrSexpVector([str(n) for n in names]))
    return out


# ----------------------------------------------------------------------------- R -> pandas
def _rclass(x) -> list[str]:
    """R's ``class(x)``; safe for language objects (they are not evaluated)."""
    return list(_rfun("class_in")(_ri().ListSexpVector([x])))


def vector_from_r(x, name: str = "<vector>") -> pd.Series:
    """Convert one R atomic vector or factor to a pandas Series (see the module docstring)."""
    ri = _ri()
    ro = robjects()
    typeof = x.typeof
    classes = _rclass(x)
    if "factor" in classes:
        codes = _values(x)
        return build_column(
            "factor",
            codes,
            codes == R_NA_INTEGER,
            list(ro.r["levels"](x)),
            "ordered" in classes,
            name,
        )
    attrs = [a for a in classes if a not in ("integer", "numeric", "character", "logical")]
    if attrs:
        raise TypeError(
            f"column {name!r}: R class {classes} is not supported; convert it in R first "
            "(e.g. as.character() for dates)"
        )
    if typeof == ri.RTYPES.REALSXP:
        return build_column("double", _values(x), name=name)
    if typeof in (ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP):
        arr = _values(x)
        kind = "integer" if typeof == ri.RTYPES.INTSXP else "logical"
        return build_column(kind, arr, arr == R_NA_INTEGER, name=name)
    if typeof == ri.RTYPES.STRSXP:
        values = list(x)
        na = [v is ri.NA_Character for v in values]
        return build_column("character", values, na, name=name)
    raise TypeError(
        f"column {name!r}: R type {typeof!r} is not supported (expected a factor, character, "
        "logical, integer or double vector)"
    )


def dataframe_from_r(rdf) -> pd.DataFrame:
    """Convert an R data.frame to a DataFrame (factors become categoricals with labels).

    Examples
    --------
    >>> rdf = robjects().r("data.frame(f = factor(c('b', NA), levels = c('b', 'a')))")
    ... # doctest: +SKIP
    >>> dataframe_from_r(rdf)["f"].cat.categories.tolist()  # doctest: +SKIP
    ['b', 'a']
    """
    ro = robjects()
    if "data.frame" not in _rclass(rdf):
        raise TypeError(f"expected an R data.frame, got an R object of class {_rclass(rdf)}")
    names = list(ro.r["names"](rdf)) if len(rdf) else []
    cols = {nm: vector_from_r(rdf[j], nm) for j, nm in enumerate(names)}
    nrow = int(_rfun("nrow")(rdf)[0])
    rn = _rfun("rownames")(rdf)
    index = pd.RangeIndex(nrow) if rn is ro.NULL else pd.Index(list(rn), dtype=str_dtype())
    if len(set(names)) != len(names):
        raise ValueError(f"R data.frame has duplicated column names {names}")
    return pd.DataFrame({nm: s.array for nm, s in cols.items()}, index=index)


def dataframes_from_r(rlist) -> list[pd.DataFrame]:
    """Convert an R list of data.frames (or one data.frame) to a list of DataFrames."""
    if "data.frame" in _rclass(rlist):
        return [dataframe_from_r(rlist)]
    return [dataframe_from_r(x) for x in rlist]


def to_python(x: Any) -> Any:
    """Best-effort conversion of a general R value (settings lists, named vectors) to Python.

    data.frames -> DataFrame, matrices with dimnames -> DataFrame, named atomic vectors ->
    dict, unnamed length-1 vectors -> scalar, lists -> dict (named) or list, NULL -> None,
    calls and formulas -> their deparsed text; other objects are returned unchanged.
    """
    ro = robjects()
    ri = _ri()
    if x is ro.NULL or getattr(x, "typeof", None) == ri.RTYPES.NILSXP:
        return None
    if _is_language(x):
        return deparse_r(x)
    classes = _rclass(x)
    if "data.frame" in classes:
        return dataframe_from_r(x)
    if x.typeof == ri.RTYPES.VECSXP:
        items = [to_python(v) for v in x]
        nms = ro.r["names"](x)
        if nms is ro.NULL:
            return items
        return dict(zip(list(nms), items, strict=True))
    if x.typeof in (ri.RTYPES.REALSXP, ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP, ri.RTYPES.STRSXP):
        dim = ro.r["dim"](x)
        if dim is not ro.NULL and len(dim) == 2:
            flat = vector_from_r(ro.r["as.vector"](x)).to_numpy()
            mat = flat.reshape(int(dim[1]), int(dim[0])).T
            dn = ro.r["dimnames"](x)
            rows = cols = None
            if dn is not ro.NULL:
                rows = None if dn[0] is ro.NULL else list(dn[0])
                cols = None if dn[1] is ro.NULL else list(dn[1])
            return pd.DataFrame(mat, index=rows, columns=cols)
        if "factor" in classes:
            return vector_from_r(x).tolist()
        if [c for c in classes if c not in ("integer", "numeric", "character", "logical")]:
            return x
        values = vector_from_r(x).tolist()
        nms = ro.r["names"](x)
        if nms is not ro.NULL:
            return dict(zip(list(nms), values, strict=True))
        return values[0] if len(values) == 1 else values
    return x
