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
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ContinuousCodesWarning",
    "PreparedInputs",
    "RadiusWarning",
    "RiskInputWarning",
    "is_categorical_dtype_like",
    "numeric_text_columns",
    "prepare_inputs",
]

#: an integer-valued numeric column with at most this many distinct values looks like codes
CODES_MAX_DISTINCT = 20
#: dtype of the categorical level codes handed to the counting engine (memory: 1M x 20 x 2
#: columns are 160 MB as int32)
CODE_DTYPE = np.int32
#: an object/string column is "numbers stored as text" when this share of its values parse
NUMERIC_TEXT_SHARE = 0.95


class RadiusWarning(UserWarning):
    """A suspicious radius: more entries than continuous variables (R prints a warning), or a
    percentage radius above 1 (``r = 10`` means +-1000%)."""


class ContinuousCodesWarning(UserWarning):
    """Integer codes (few distinct whole numbers) are matched within a radius as continuous."""


class RiskInputWarning(UserWarning):
    """Something in the data changes the risk silently under R's rules (NA matching anything,
    values <= 0 that never match under a percentage radius, many records with c = 0)."""


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

    ``memo`` caches the label lookup of a categorical dtype (frames usually share one; the
    same dtype object is found by identity before the slower equality of dtypes is tried).
    """
    lookup = None
    if isinstance(series.dtype, pd.CategoricalDtype):  # codes are there already
        dtype = series.dtype
        codes = series.array.codes
        uniques = dtype.categories
        if memo is not None:
            same = memo.get(id(dtype))
            if same is not None and same[0] is dtype:  # the dtype is kept alive in the memo
                lookup = same[1]
            else:
                lookup = memo.get((id(levels), dtype))
    else:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        dtype = None
    if len(uniques) == 0:
        return np.full(len(series), -1, dtype=CODE_DTYPE)
    if lookup is None:
        # one extra entry, -1, so that code -1 (NA) maps to -1 in a single take
        lookup = np.append(levels.get_indexer([_r_label(u) for u in uniques]), -1)
        lookup = lookup.astype(CODE_DTYPE)
        if memo is not None and dtype is not None:
            memo[(id(levels), dtype)] = lookup
            memo[id(dtype)] = (dtype, lookup)
    return lookup[codes]


def _exact_codes(values: list[np.ndarray]) -> list[np.ndarray]:
    """Common codes for numeric columns matched by equality (``r = None``); NaN gets -1."""
    stacked = np.concatenate(values) + 0.0  # + 0.0 folds -0.0 into 0.0
    codes, uniques = pd.factorize(stacked, use_na_sentinel=True)
    dtype = CODE_DTYPE if len(uniques) < np.iinfo(CODE_DTYPE).max else np.int64
    out, start = [], 0
    for v in values:
        out.append(codes[start : start + len(v)].astype(dtype))
        start += len(v)
    return out


def _offending(values: pd.Series, parsed: pd.Series, k: int = 5) -> list:
    bad = pd.unique(values[values.notna() & parsed.isna()])
    return [str(v) for v in bad[:k]] + (["…"] if len(bad) > k else [])


def _parse_numbers(series: pd.Series) -> tuple[pd.Series, pd.Series]:
    """``(values as objects, parsed floats)`` of a text/categorical column (NaN where no number)."""
    values = series.astype(object).where(series.notna())
    parsed = pd.to_numeric(values.map(_strip), errors="coerce")
    return values, parsed


def _strip(v: object) -> object:
    return v.strip() if isinstance(v, str) else v


def _numeric(series: pd.Series, column: str, where: str, parse: bool = False) -> np.ndarray:
    """A continuous column as float64 (NaN for NA), or a TypeError naming it.

    ``parse``: the column was declared continuous, so text/categories holding numbers are
    converted (anything that is not a number is an error naming the values).
    """
    if is_categorical_dtype_like(series):
        if parse:
            values, parsed = _parse_numbers(series)
            bad = _offending(values, parsed)
            if bad:
                raise TypeError(
                    f"column {column!r} is declared continuous but holds values that are not "
                    f"numbers in {where}: {bad}; fix or blank them (NA) first"
                )
            return parsed.to_numpy(dtype=np.float64, na_value=np.nan)
        values, parsed = _parse_numbers(series)
        bad = _offending(values, parsed)
        raise TypeError(
            f"column {column!r} is continuous (numeric in origdata) but holds text or categories "
            f"in {where} (dtype {series.dtype}"
            + (f"; values that are not numbers: {bad}" if bad else "")
            + f"); convert it to numbers, or declare it categorical=[{column!r}]"
        )
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "fiu":  # no NA mask
        return series.to_numpy(dtype=np.float64, copy=False)
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def numeric_text_columns(
    frame: pd.DataFrame, columns: Sequence[str], numeric_elsewhere: Sequence[str] = ()
) -> dict[str, list[str]]:
    """Object/string columns among ``columns`` whose values are mostly numbers.

    Returns column -> the values that do not parse (e.g. ``{"Income": ["n/a"]}``): such a column
    is a factor under R's dtype rule although it is meant to be continuous (one stray text value
    turns a whole CSV column into text). A column that holds numbers in the synthetic data
    (``numeric_elsewhere``) needs only half of its values to parse.

    Examples
    --------
    >>> df = pd.DataFrame({"Income": ["10", "n/a"] + ["12.5"] * 40, "Sex": ["F", "M"] * 21})
    >>> numeric_text_columns(df, ["Income", "Sex"])
    {'Income': ['n/a']}
    """
    out: dict[str, list[str]] = {}
    for c in columns:
        series = frame[c]
        dtype = series.dtype
        if isinstance(dtype, pd.CategoricalDtype) or not is_categorical_dtype_like(series):
            continue
        counts = series.value_counts(dropna=True)  # parse each distinct value once
        if counts.empty:
            continue
        labels = pd.Series(counts.index.astype(object), dtype=object)
        parsed = pd.to_numeric(labels.map(_strip), errors="coerce")
        ok = parsed.notna().to_numpy()
        share = 0.5 if c in numeric_elsewhere else NUMERIC_TEXT_SHARE
        if counts.to_numpy()[ok].sum() >= share * counts.sum():
            out[c] = _offending(labels, parsed)
    return out


def _codes_like(series: pd.Series) -> int | None:
    """Number of distinct values when ``series`` holds few whole numbers (codes), else None."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return int(series.nunique(dropna=True)) or None
    x = series.to_numpy(dtype=np.float64, na_value=np.nan)
    x = x[~np.isnan(x)]
    if x.size == 0 or not np.all(np.isfinite(x)) or not np.all(x == np.round(x)):
        return None
    k = int(np.unique(x).size)
    return k if k <= CODES_MAX_DISTINCT and 2 * k <= x.size else None


# --------------------------------------------------------------------------- radius


def _radius_vector(
    r: None | float | Sequence[float] | Mapping[str, float],
    continuous: list[str],
    percentage: bool = True,
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
    big = {c: v for c, v in radii.items() if v > 1}
    if percentage and big:
        value = max(big.values())
        warnings.warn(
            f"r = {value:g} (column(s) {sorted(big)}) means ±{100 * value:g}% with "
            f"percentage=True; did you mean {value / 100:.2f}? (for an absolute radius pass "
            "percentage=False, CLI --absolute)",
            RadiusWarning,
            stacklevel=4,
        )
    return radii


# --------------------------------------------------------------------------- container


@dataclass
class PreparedInputs:
    """Arrays for the counting engine.

    Attributes
    ----------
    cat_orig, cat_syn
        ``(n, p_cat)`` integer level codes (:data:`CODE_DTYPE`; -1 = NA, never matches) of the
        confidential data and of each synthetic dataset; columns are the categorical known/syn
        variables. :meth:`release` sets a synthetic dataset's arrays to None once it has been
        counted.
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
    names: list[str] = field(default_factory=list)
    declared_continuous: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.index)

    @property
    def m(self) -> int:
        return len(self.cat_syn)

    def release(self, j: int) -> None:
        """Drop synthetic dataset j's arrays once it has been counted (keeps the peak memory of
        a large call near one dataset's arrays instead of m of them)."""
        self.cat_syn[j] = self.cont_syn[j] = None  # type: ignore[call-overload]

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
    if frame.columns.is_unique:
        return
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


def dataset_label(frame: pd.DataFrame, j: int | None) -> str:
    """How messages name a dataset: ``origdata`` / ``synthetic dataset j (syndata[j-1])``, with
    the file it came from when a reader stored one in ``frame.attrs["source"]``."""
    source = frame.attrs.get("source") if hasattr(frame, "attrs") else None
    if source:
        return f"{source} ({'origdata' if j is None else f'synthetic dataset {j}'})"
    return "origdata" if j is None else f"synthetic dataset {j} (syndata[{j - 1}])"


def _declared(
    value: str | Sequence[str] | None, argument: str, used: list[str], columns: pd.Index,
    orig_name: str,
) -> list[str]:
    """Declared column types: names must exist in origdata; those not matched on are ignored."""
    names = _as_name_list(value, argument)
    unknown = [c for c in names if c not in columns]
    if unknown:
        raise KeyError(f"{argument}: column(s) {unknown} not found in {orig_name}")
    return [c for c in names if c in set(used)]


def prepare_inputs(
    origdata: pd.DataFrame,
    syndata: pd.DataFrame | Sequence[pd.DataFrame],
    known: str | Sequence[str] | None,
    syn: str | Sequence[str] | None,
    r: None | float | Sequence[float] | Mapping[str, float],
    *,
    categorical: str | Sequence[str] | None = None,
    continuous: str | Sequence[str] | None = None,
    align: str | None = None,
    percentage: bool = True,
    value_checks: bool = True,
) -> PreparedInputs:
    """Validate the inputs and encode them as the R package sees them.

    * factor/character columns of ``origdata`` become factors whose levels are the union of the
      levels in ``origdata`` and in the *first* synthetic dataset; labels found in neither are NA;
    * with ``r`` None every known/syn variable is matched exactly (numbers too);
    * otherwise the remaining (numeric or logical) known/syn columns are continuous and receive
      the radius entries in data-frame order;
    * ``categorical``/``continuous`` override that dtype rule for the columns they name;
    * ``align``: row correspondence of indexed frames (:mod:`idrisk._align`);
    * ``value_checks`` (off for the Dask engine's two-row probes): numbers stored as text are an
      error, integer codes matched within a radius a :class:`ContinuousCodesWarning`.
    """
    from .._align import check_align, check_frame_alignment

    align = check_align(align)
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
    orig_name = dataset_label(origdata, None)
    for argument, names in (("known", known_l), ("syn", syn_l)):
        missing = [c for c in names if c not in origdata.columns]
        if missing:
            raise KeyError(f"{argument}: column(s) {missing} not found in {orig_name}")
    n = len(origdata)
    used = known_l + syn_l
    declared_cat = _declared(categorical, "categorical", used, origdata.columns, orig_name)
    declared_cont = _declared(continuous, "continuous", used, origdata.columns, orig_name)
    both = sorted(set(declared_cat) & set(declared_cont))
    if both:
        raise ValueError(f"column(s) {both} declared both categorical and continuous")
    if declared_cont and r is None:
        raise ValueError(
            f"continuous={declared_cont} needs a radius r (with r=None every variable is matched "
            "exactly)"
        )
    _check_unique_columns(origdata, used, orig_name)
    names = []
    for j, frame in enumerate(frames, start=1):
        where = dataset_label(frame, j)
        names.append(where)
        _check_unique_columns(frame, used, where)
        for argument, cols in (("known", known_l), ("syn", syn_l)):
            missing = [c for c in cols if c not in frame.columns]
            if missing:
                raise KeyError(f"{argument}: column(s) {missing} not found in {where}")
        if len(frame) != n:
            raise ValueError(
                f"{where} has {len(frame)} rows but {orig_name} has {n}: row i of every "
                "synthetic dataset must be the synthetic version of confidential record i"
            )
    if n == 0:
        raise ValueError(f"{orig_name} has no rows")
    if value_checks:
        frames = [
            check_frame_alignment(origdata, f, where, align, reference_name=orig_name)
            for f, where in zip(frames, names)
        ]

    # column order of the data frame decides the radius hand-out
    ordered = [c for c in origdata.columns if c in set(used)]
    is_factor = {c: is_categorical_dtype_like(origdata[c]) for c in ordered}
    is_factor.update({c: True for c in declared_cat})
    is_factor.update({c: False for c in declared_cont})
    if r is None:
        categorical_l, continuous_l = ordered, []
    else:
        categorical_l = [c for c in ordered if is_factor[c]]
        continuous_l = [c for c in ordered if not is_factor[c]]
        if value_checks:
            numeric_in_syn = [
                c for c in ordered if not is_categorical_dtype_like(frames[0][c])
            ]
            _check_types(
                origdata, ordered, declared_cat, declared_cont, continuous_l, orig_name,
                numeric_in_syn,
            )
    radii = _radius_vector(r, continuous_l, percentage)

    levels: dict[str, list[str]] = {}
    # one (n, p_cat) array per dataset, filled column by column (no list-then-stack copy)
    cat_orig = np.empty((n, len(categorical_l)), dtype=CODE_DTYPE)
    cat_syn = [np.empty((len(f), len(categorical_l)), dtype=CODE_DTYPE) for f in frames]
    for v, c in enumerate(categorical_l):
        if is_factor[c]:
            lv = _levels_of(origdata[c])
            extra = [x for x in _levels_of(frames[0][c]) if x not in set(lv)]
            lv = lv + extra
            levels[c] = lv
            index = pd.Index(lv)
            memo: dict = {}
            cat_orig[:, v] = _codes_for(origdata[c], index, memo)
            for j, frame in enumerate(frames):
                cat_syn[j][:, v] = _codes_for(frame[c], index, memo)
        else:  # numeric column matched exactly (r is None)
            values = [_numeric(origdata[c], c, orig_name)] + [
                _numeric(f[c], c, where) for f, where in zip(frames, names)
            ]
            codes = _exact_codes(values)
            if codes[0].dtype != CODE_DTYPE:  # more distinct values than int32 holds
                cat_orig = cat_orig.astype(codes[0].dtype)
                cat_syn = [a.astype(codes[0].dtype) for a in cat_syn]
            cat_orig[:, v] = codes[0]
            for j in range(len(frames)):
                cat_syn[j][:, v] = codes[j + 1]
            del codes, values

    parse = set(declared_cont)

    def stack_float(frame: pd.DataFrame, where: str) -> np.ndarray:
        out = np.empty((n, len(continuous_l)), dtype=np.float64)
        for v, c in enumerate(continuous_l):
            if c not in parse:
                out[:, v] = _numeric(frame[c], c, where)
            elif value_checks:
                out[:, v] = _numeric(frame[c], c, where, True)
            else:  # Dask probes: values parsed per partition
                out[:, v] = np.nan
        return out

    return PreparedInputs(
        index=origdata.index,
        known=known_l,
        syn=syn_l,
        categorical=categorical_l,
        continuous=continuous_l,
        cat_orig=cat_orig,
        cat_syn=cat_syn,
        cont_orig=stack_float(origdata, orig_name),
        cont_syn=[stack_float(f, where) for f, where in zip(frames, names)],
        cont_known=np.array([c in set(known_l) for c in continuous_l], dtype=bool),
        radii=radii,
        levels=levels,
        names=names,
        declared_continuous=declared_cont,
    )


def _check_types(
    origdata: pd.DataFrame,
    ordered: list[str],
    declared_cat: list[str],
    declared_cont: list[str],
    continuous: list[str],
    orig_name: str,
    numeric_in_syn: Sequence[str] = (),
) -> None:
    """Numbers stored as text are an error; integer codes given a radius warn."""
    undeclared = [c for c in ordered if c not in set(declared_cat) | set(declared_cont)]
    text = numeric_text_columns(origdata, undeclared, numeric_in_syn)
    if text:
        details = "; ".join(
            f"{c!r} (values that are not numbers: {bad})" for c, bad in text.items()
        )
        cols = list(text)
        raise TypeError(
            f"{orig_name}: column(s) {cols} hold numbers stored as text: {details}. Under R's "
            "rule they would be factors matched exactly, not within the radius. Convert them "
            f"to numbers (e.g. pd.to_numeric(..., errors='coerce')), declare continuous={cols} "
            f"(CLI --continuous) after fixing those values, or declare categorical={cols} "
            "(CLI --categorical) to keep R's factor behaviour"
        )
    codes = {
        c: k
        for c in continuous
        if c not in set(declared_cont) and (k := _codes_like(origdata[c])) is not None
    }
    if codes:
        cols = list(codes)
        shown = ", ".join(f"{c} ({k} values)" for c, k in codes.items())
        warnings.warn(
            f"{orig_name}: column(s) {shown} hold few distinct whole numbers, like category "
            "codes, but are matched within a radius as continuous variables (R's rule for "
            f"numeric columns). If they are codes, declare categorical={cols} (CLI "
            f"--categorical {' '.join(cols)}); if they are numbers, declare continuous={cols} "
            "to silence this warning",
            ContinuousCodesWarning,
            stacklevel=4,
        )


def input_checks(prep: PreparedInputs, d: np.ndarray | None, closed: bool) -> dict[str, Any]:
    """Counts of records whose risk R's rules change silently (see ``result.checks``).

    ``na_origdata``/``na_syndata``: records with NA in a continuous known/syn variable;
    ``never_match``: records whose radius interval is empty (a confidential value <= 0 under a
    percentage radius, or a zero radius with open intervals); ``*_by_column``: the same per
    column, for messages.
    """
    m = prep.m
    cols = prep.continuous if prep.radii is not None else []
    out: dict[str, Any] = {
        "na_origdata": 0,
        "na_syndata": np.zeros(m, dtype=np.int64),
        "never_match": 0,
        "na_origdata_by_column": {},
        "na_syndata_by_column": {},
        "never_match_by_column": {},
    }
    if not cols:
        return out
    x = prep.cont_orig
    na = np.isnan(x)
    out["na_origdata"] = int(na.any(axis=1).sum())
    out["na_origdata_by_column"] = {c: int(k) for c, k in zip(cols, na.sum(axis=0)) if k}
    by_col: dict[str, int] = {}
    for j, y in enumerate(prep.cont_syn):
        nay = np.isnan(y)
        if not nay.any():  # the usual case: nothing to count
            continue
        out["na_syndata"][j] = int(nay.any(axis=1).sum())
        for c, k in zip(cols, nay.sum(axis=0)):
            if k:
                by_col[c] = max(by_col.get(c, 0), int(k))
    out["na_syndata_by_column"] = by_col
    if d is not None and d.size:
        with np.errstate(invalid="ignore"):
            empty = ~na & ((d < 0) | ((d == 0) & (not closed)) | np.isnan(d))
        out["never_match"] = int(empty.any(axis=1).sum())
        out["never_match_by_column"] = {
            c: int(k) for c, k in zip(cols, empty.sum(axis=0)) if k
        }
    return out
