"""Turn ``identification_risk`` inputs into plain arrays, validating them on the way.

Everything that depends on pandas dtypes, column names and the R package's
conventions (factor level union, which columns are continuous, how the radius
vector is handed out) lives here; the counting engine in
:mod:`idrisk.risk.matching` sees only integer codes and floating bounds.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["PreparedInputs", "RadiusWarning", "prepare_inputs", "is_categorical_dtype_like"]


class RadiusWarning(UserWarning):
    """The radius vector had more entries than continuous variables (R prints a warning)."""


# --------------------------------------------------------------------------- dtypes


def is_categorical_dtype_like(series: pd.Series) -> bool:
    """True where R (through rpy2's pandas converter) would see a factor or character vector.

    ``category``, ``object`` and string dtypes are factors; numbers and booleans are not.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return True
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        return False
    return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def _r_label(value: object) -> str:
    """R's ``as.character`` label of ``value`` (``2`` and ``2.0`` both give ``"2"``)."""
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if (
        isinstance(value, (float, np.floating))
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        return str(int(value))
    return str(value)


def _levels_of(series: pd.Series) -> list[str]:
    """Levels of a factor-like column as labels (declared categories first, as R keeps them)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        values = list(series.cat.categories)
    else:
        values = sorted(pd.unique(series.dropna()), key=_r_label)
    return [_r_label(v) for v in values]


def _codes_for(series: pd.Series, levels: pd.Index, memo: dict | None = None) -> np.ndarray:
    """Integer level codes of ``series`` in ``levels``; -1 for NA or a label not in ``levels``.

    ``memo`` caches the label lookup of a categorical dtype (frames usually share one).
    """
    if isinstance(series.dtype, pd.CategoricalDtype):  # codes are there already
        codes = series.cat.codes.to_numpy().astype(np.int64)
        uniques = series.cat.categories
        key = (id(levels), series.dtype)
    else:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        key = None
    if len(uniques) == 0:
        return np.full(len(series), -1, dtype=np.int64)
    lookup = memo.get(key) if memo is not None and key is not None else None
    if lookup is None:
        lookup = levels.get_indexer([_r_label(u) for u in uniques]).astype(np.int64)
        if memo is not None and key is not None:
            memo[key] = lookup
    return np.where(codes >= 0, lookup[np.maximum(codes, 0)], -1)


def _exact_codes(values: list[np.ndarray]) -> list[np.ndarray]:
    """Common codes for numeric columns matched by equality (``r = None``); NaN gets -1."""
    stacked = np.concatenate(values) + 0.0  # + 0.0 folds -0.0 into 0.0
    codes, _ = pd.factorize(stacked, use_na_sentinel=True)
    out, start = [], 0
    for v in values:
        out.append(codes[start : start + len(v)].astype(np.int64))
        start += len(v)
    return out


def _numeric(series: pd.Series, column: str, where: str) -> np.ndarray:
    """A continuous column as float64 (NaN for NA), or a TypeError naming it."""
    if is_categorical_dtype_like(series):
        raise TypeError(
            f"column {column!r} is continuous (numeric in origdata) but holds text or categories "
            f"in {where} (dtype {series.dtype}); convert it to numbers or make it categorical "
            "in origdata too"
        )
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


# --------------------------------------------------------------------------- radius


def _radius_vector(
    r: None | float | Sequence[float] | Mapping[str, float], continuous: list[str]
) -> dict[str, float] | None:
    """Hand the radius entries out to the continuous columns, as R does (data-frame order)."""
    if r is None:
        return None
    if isinstance(r, Mapping):
        missing = [c for c in continuous if c not in r]
        if missing:
            raise ValueError(
                f"r: no radius given for continuous column(s) {missing}; "
                f"the dict must cover {continuous}"
            )
        extra = [k for k in r if k not in continuous]
        if extra:
            raise ValueError(
                f"r: {extra} are not continuous known/syn columns; expected keys among {continuous}"
            )
        radii = {c: float(r[c]) for c in continuous}
    else:
        values = np.atleast_1d(np.asarray(r, dtype=np.float64))
        if values.ndim != 1 or values.size == 0:
            raise ValueError(f"r must be None, a number, a sequence or a dict; got {r!r}")
        if values.size == 1:
            radii = {c: float(values[0]) for c in continuous}
        elif values.size < len(continuous):
            raise ValueError(
                f"r has {values.size} entries but there are {len(continuous)} continuous "
                f"known/syn columns {continuous}: give one radius, or one per column in "
                "data-frame order (R prints an error and returns NULL here)"
            )
        else:
            if values.size > len(continuous):
                warnings.warn(
                    f"r has {values.size} entries but only {len(continuous)} continuous known/syn "
                    f"columns {continuous}: using the first {len(continuous)} radii",
                    RadiusWarning,
                    stacklevel=4,
                )
            radii = {c: float(v) for c, v in zip(continuous, values)}
    for column, value in radii.items():
        if not np.isfinite(value) or value < 0:
            raise ValueError(
                f"r: the radius for column {column!r} must be finite and >= 0, got {value}"
            )
    return radii


# --------------------------------------------------------------------------- container


@dataclass
class PreparedInputs:
    """Arrays for the counting engine.

    Attributes
    ----------
    cat_orig, cat_syn
        ``(n, p_cat)`` int64 level codes (-1 = NA, never matches) of the confidential data and of
        each synthetic dataset; columns are the categorical known/syn variables.
    cont_orig, cont_syn
        ``(n, p_cont)`` float64 values of the continuous known/syn variables (NaN = NA).
    cont_known
        Boolean mask over the continuous columns: True for known variables.
    radii
        Column -> radius; None when ``r`` is None (everything matched exactly).
    """

    index: pd.Index
    known: list[str]
    syn: list[str]
    categorical: list[str]
    continuous: list[str]
    cat_orig: np.ndarray
    cat_syn: list[np.ndarray]
    cont_orig: np.ndarray
    cont_syn: list[np.ndarray]
    cont_known: np.ndarray
    radii: dict[str, float] | None
    levels: dict[str, list[str]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.index)

    @property
    def m(self) -> int:
        return len(self.cat_syn)

    def settings(self, **options: object) -> dict[str, object]:
        """The call's settings as stored on the result: variables, radii and ``options``."""
        return {
            "known": self.known,
            "syn": self.syn,
            "radii": self.radii,
            **options,
            "categorical": self.categorical,
            "continuous": self.continuous,
        }


def _as_name_list(value: str | Sequence[str] | None, argument: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{argument}: column names must be strings, got {name!r}")
    duplicated = sorted({x for x in names if names.count(x) > 1})
    if duplicated:
        raise ValueError(f"{argument}: column(s) {duplicated} listed more than once")
    return names


def _check_unique_columns(frame: pd.DataFrame, names: list[str], where: str) -> None:
    duplicated = frame.columns[frame.columns.duplicated()]
    clash = sorted(set(duplicated) & set(names))
    if clash:
        raise ValueError(f"{where} has more than one column named {clash}")


def _as_frame_list(syndata: pd.DataFrame | Sequence[pd.DataFrame]) -> list[pd.DataFrame]:
    if isinstance(syndata, pd.DataFrame):
        return [syndata]
    if isinstance(syndata, (str, bytes)) or not isinstance(syndata, Sequence):
        raise TypeError(
            f"syndata must be a DataFrame or a list of DataFrames, got {type(syndata).__name__}"
        )
    frames = list(syndata)
    if not frames:
        raise ValueError("syndata is empty: give at least one synthetic dataset")
    for j, frame in enumerate(frames, start=1):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(
                f"syndata: synthetic dataset {j} (syndata[{j - 1}]) is a "
                f"{type(frame).__name__}, expected a DataFrame"
            )
    return frames


def prepare_inputs(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str] | None,
    syn: str | Sequence[str] | None,
    r: None | float | Sequence[float] | Mapping[str, float],
) -> PreparedInputs:
    """Validate the inputs and encode them as the R package sees them.

    * factor/character columns of ``origdata`` become factors whose levels are the union of the
      levels in ``origdata`` and in the *first* synthetic dataset; labels found in neither are NA;
    * with ``r`` None every known/syn variable is matched exactly (numbers too);
    * otherwise the remaining (numeric or logical) known/syn columns are continuous and receive
      the radius entries in data-frame order.
    """
    if not isinstance(origdata, pd.DataFrame):
        raise TypeError(f"origdata must be a DataFrame, got {type(origdata).__name__}")
    frames = _as_frame_list(syndata)
    known_l = _as_name_list(known, "known")
    syn_l = _as_name_list(syn, "syn")
    overlap = sorted(set(known_l) & set(syn_l))
    if overlap:
        raise ValueError(
            f"known and syn overlap in {overlap}: a variable is either known or synthesized"
        )
    if not known_l and not syn_l:
        raise ValueError("known and syn are both empty: name at least one variable to match on")
    for argument, names in (("known", known_l), ("syn", syn_l)):
        missing = [c for c in names if c not in origdata.columns]
        if missing:
            raise KeyError(f"{argument}: column(s) {missing} not found in origdata")
    n = len(origdata)
    used = known_l + syn_l
    _check_unique_columns(origdata, used, "origdata")
    for j, frame in enumerate(frames, start=1):
        where = f"synthetic dataset {j} (syndata[{j - 1}])"
        _check_unique_columns(frame, used, where)
        for argument, names in (("known", known_l), ("syn", syn_l)):
            missing = [c for c in names if c not in frame.columns]
            if missing:
                raise KeyError(f"{argument}: column(s) {missing} not found in {where}")
        if len(frame) != n:
            raise ValueError(
                f"{where} has {len(frame)} rows but origdata has {n}: row i of every synthetic "
                "dataset must be the synthetic version of confidential record i"
            )
    if n == 0:
        raise ValueError("origdata has no rows")

    # column order of the data frame decides the radius hand-out
    ordered = [c for c in origdata.columns if c in set(used)]
    is_factor = {c: is_categorical_dtype_like(origdata[c]) for c in ordered}
    if r is None:
        categorical, continuous = ordered, []
    else:
        categorical = [c for c in ordered if is_factor[c]]
        continuous = [c for c in ordered if not is_factor[c]]
    radii = _radius_vector(r, continuous)

    levels: dict[str, list[str]] = {}
    cat_orig_cols: list[np.ndarray] = []
    cat_syn_cols: list[list[np.ndarray]] = [[] for _ in frames]
    for c in categorical:
        if is_factor[c]:
            lv = _levels_of(origdata[c])
            extra = [x for x in _levels_of(frames[0][c]) if x not in set(lv)]
            lv = lv + extra
            levels[c] = lv
            index = pd.Index(lv)
            memo: dict = {}
            cat_orig_cols.append(_codes_for(origdata[c], index, memo))
            for j, frame in enumerate(frames):
                cat_syn_cols[j].append(_codes_for(frame[c], index, memo))
        else:  # numeric column matched exactly (r is None)
            values = [_numeric(origdata[c], c, "origdata")] + [
                _numeric(f[c], c, f"synthetic dataset {j} (syndata[{j - 1}])")
                for j, f in enumerate(frames, start=1)
            ]
            codes = _exact_codes(values)
            cat_orig_cols.append(codes[0])
            for j in range(len(frames)):
                cat_syn_cols[j].append(codes[j + 1])

    def stack_int(cols: list[np.ndarray]) -> np.ndarray:
        return np.column_stack(cols) if cols else np.empty((n, 0), dtype=np.int64)

    def stack_float(frame: pd.DataFrame, where: str) -> np.ndarray:
        if not continuous:
            return np.empty((n, 0), dtype=np.float64)
        return np.column_stack([_numeric(frame[c], c, where) for c in continuous])

    return PreparedInputs(
        index=origdata.index,
        known=known_l,
        syn=syn_l,
        categorical=categorical,
        continuous=continuous,
        cat_orig=stack_int(cat_orig_cols),
        cat_syn=[stack_int(cols) for cols in cat_syn_cols],
        cont_orig=stack_float(origdata, "origdata"),
        cont_syn=[
            stack_float(f, f"synthetic dataset {j} (syndata[{j - 1}])")
            for j, f in enumerate(frames, start=1)
        ],
        cont_known=np.array([c in set(known_l) for c in continuous], dtype=bool),
        radii=radii,
        levels=levels,
    )
