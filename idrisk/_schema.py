"""One reading of the user's data for every part of idrisk.

The rules here are the only ones in the package (a test walks the source for second copies):

* **What is categorical** (:func:`is_categorical`): a column declared in ``categorical=`` is,
  one declared in ``continuous=`` is not; otherwise ``category``, ``object``, string and
  **boolean** columns are categorical and numeric columns continuous. Risk, utility,
  synthesis, bounds and the report all use this rule. (:mod:`idrisk.r` follows R instead,
  where ``data.matrix`` turns a logical column into 0/1 numbers.)
* **Column names** (:func:`as_names`): one name or a sequence of names, each a string.
* **Columns present** (:func:`require_columns`): a missing name is a ``KeyError`` naming the
  argument, the dataset and the closest existing names; a name that occurs twice in a frame
  is a ``ValueError`` naming the dataset.
* **Levels** (:func:`level_labels`): categorical values are compared by their label, never by
  a dtype's identity or the position of a category.
* **Level order** (:func:`sorted_levels`): declared categories keep their order; otherwise the
  distinct values are sorted by value -- numbers numerically, text by code point (R's
  ``factor()`` under ``LC_COLLATE=C``) -- and by label when they do not compare (numbers
  mixed with text). Every part that orders levels uses it.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ._interface import spell
from ._rtext import r_label
from .exceptions import ColumnTypeError

__all__ = [
    "CODES_MAX_DISTINCT",
    "NUMERIC_TEXT_SHARE",
    "as_float",
    "as_names",
    "column_levels",
    "column_kinds",
    "is_categorical",
    "is_factor",
    "label",
    "level_labels",
    "numeric_text_columns",
    "r_label",
    "require_columns",
    "sorted_levels",
]


def is_categorical(series: pd.Series) -> bool:
    """The package's rule: category, object, string and boolean columns are categorical.

    Examples
    --------
    >>> import pandas as pd
    >>> [is_categorical(pd.Series(v)) for v in ([1.0], [1], [True], ["a"])]
    [False, False, True, True]
    >>> is_categorical(pd.Series(["a"], dtype="category"))
    True
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return True
    return not pd.api.types.is_numeric_dtype(dtype)


def as_names(
    value: str | Iterable[str] | None, argument: str, *, unique: bool = True
) -> list[str]:
    """A list of column names from ``None``, one name or a sequence of names.

    Raises
    ------
    TypeError
        An entry is not a string (the message names ``argument``).
    ValueError
        A name is listed twice and ``unique`` is true.

    Examples
    --------
    >>> as_names("Age", "known"), as_names(["Age", "Sex"], "known"), as_names(None, "known")
    (['Age'], ['Age', 'Sex'], [])
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, pd.DataFrame)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{argument}: expected a column name or a list of column names, "
            f"got {type(value).__name__}"
        )
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{argument}: column names must be strings, got {name!r}")
    if unique:
        duplicated = sorted({x for x in names if names.count(x) > 1})
        if duplicated:
            raise ValueError(f"{argument}: column(s) {duplicated} listed more than once")
    return names


def require_columns(
    frame: pd.DataFrame, names: Sequence[str], argument: str, where: str
) -> None:
    """Check that ``frame`` (called ``where`` in messages) has every column of ``names``.

    Raises
    ------
    KeyError
        A name is missing; the message names ``argument``, ``where`` and close matches.
    ValueError
        A name occurs more than once among ``frame``'s columns.
    """
    missing = [c for c in names if c not in frame.columns]
    if missing:
        hints = []
        for c in missing:
            close = difflib.get_close_matches(c, [str(x) for x in frame.columns], n=2)
            if close:
                hints.append(f"{c!r}: did you mean {' or '.join(map(repr, close))}?")
        hint = f" ({'; '.join(hints)})" if hints else ""
        raise KeyError(f"{spell(argument)}: column(s) {missing} not found in {where}{hint}")
    if not frame.columns.is_unique:
        duplicated = frame.columns[frame.columns.duplicated()]
        clash = sorted({str(c) for c in duplicated} & set(names))
        if clash:
            raise ValueError(f"{where} has more than one column named {clash}")


def column_kinds(
    frame: pd.DataFrame,
    columns: Sequence[str],
    categorical: str | Iterable[str] | None = None,
    continuous: str | Iterable[str] | None = None,
    *,
    where: str = "the data",
) -> dict[str, str]:
    """``{column: "categorical" | "continuous"}`` for ``columns``: declared types win, the rest
    follow :func:`is_categorical`.

    Raises
    ------
    KeyError
        A declared column is not in ``frame``.
    ValueError
        A column is declared both categorical and continuous.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"Age": [30, 41], "Sex": ["F", "M"], "Urban": [1, 2]})
    >>> column_kinds(df, ["Age", "Sex", "Urban"], categorical="Urban")
    {'Age': 'continuous', 'Sex': 'categorical', 'Urban': 'categorical'}
    """
    cat = as_names(categorical, "categorical")
    cont = as_names(continuous, "continuous")
    both = sorted(set(cat) & set(cont))
    if both:
        raise ValueError(f"column(s) {both} declared both categorical and continuous")
    for argument, names in (("categorical", cat), ("continuous", cont)):
        require_columns(frame, names, argument, where)
    kinds = {}
    for c in columns:
        if c in cat:
            kinds[c] = "categorical"
        elif c in cont:
            kinds[c] = "continuous"
        else:
            kinds[c] = "categorical" if is_categorical(frame[c]) else "continuous"
    return kinds


def label(value: object) -> str:
    """The label of a categorical value: whole floats without ``.0``, booleans as in R.

    Examples
    --------
    >>> label(2.0), label(2), label(True), label("a")
    ('2', '2', 'TRUE', 'a')
    """
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(
        value
    ).is_integer():
        return str(int(value))
    return str(value)


def sorted_levels(values: Iterable[object]) -> list:
    """The package's one level order: the distinct non-missing ``values`` sorted by value
    (numbers numerically, text by code point, as R's ``factor()`` under ``LC_COLLATE=C``), by
    :func:`label` when they do not compare with each other.

    Examples
    --------
    >>> sorted_levels([10, 2, None, 2]), sorted_levels(["b", "B", "a"])
    ([2, 10], ['B', 'a', 'b'])
    >>> sorted_levels([1, "a", 2.5])
    [1, 2.5, 'a']
    """
    distinct = list(dict.fromkeys(v for v in values if not _missing(v)))
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=label)


def _missing(value: object) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # an array-like value
        return False


def level_labels(series: pd.Series, to_label: Callable[[object], str] = label) -> list[str]:
    """Levels of a categorical column as labels: declared categories first (in their order),
    otherwise the sorted labels of the values present.

    Examples
    --------
    >>> import pandas as pd
    >>> level_labels(pd.Series(["b", "a", None]))
    ['a', 'b']
    >>> level_labels(pd.Series(["b", "a"], dtype=pd.CategoricalDtype(["b", "a"])))
    ['b', 'a']
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        values = list(series.cat.categories)
    else:
        values = sorted_levels(pd.unique(series.dropna()))
    return [to_label(v) for v in values]


# --------------------------------------------------------------------------- dtype readers
# (of the identification risk's inputs; moved here from idrisk.risk._prepare)

#: an integer-valued numeric column with at most this many distinct values looks like codes
CODES_MAX_DISTINCT = 20
#: an object/string column is "numbers stored as text" when this share of its values parse
NUMERIC_TEXT_SHARE = 0.95


def _labeller(rules: str) -> Callable[[object], str]:
    """How values become factor labels: Python's (:func:`idrisk._schema.label`) or R's
    ``as.character`` (:func:`idrisk._schema.r_label`)."""
    return r_label if rules == "r" else label


def is_factor(series: pd.Series, rules: str = "python") -> bool:
    """A factor for the matching: the package's rule (:func:`idrisk._schema.is_categorical`);
    under R's rules a logical column is a number (``data.matrix`` makes it 0/1)."""
    if rules == "r" and pd.api.types.is_bool_dtype(series.dtype):
        return False
    return is_categorical(series)


def column_levels(series: pd.Series, rules: str = "python") -> list[str]:
    """Levels of a factor-like column as labels (declared categories first, as R keeps them)."""
    return level_labels(series, _labeller(rules))


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


def as_float(series: pd.Series, column: str, where: str, parse: bool = False) -> np.ndarray:
    """A continuous column as float64 (NaN for NA), or a TypeError naming it.

    ``parse``: the column was declared continuous, so text/categories holding numbers are
    converted (anything that is not a number is an error naming the values).
    """
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "fiu":  # numbers without an NA mask
        return series.to_numpy(dtype=np.float64, copy=False)
    if is_categorical(series) and not pd.api.types.is_bool_dtype(series.dtype):
        if parse:
            values, parsed = _parse_numbers(series)
            bad = _offending(values, parsed)
            if bad:
                raise ColumnTypeError(
                    f"column {column!r} is declared continuous but holds values that are not "
                    f"numbers in {where}: {bad}; fix or blank them (NA) first"
                )
            return parsed.to_numpy(dtype=np.float64, na_value=np.nan)
        values, parsed = _parse_numbers(series)
        bad = _offending(values, parsed)
        raise ColumnTypeError(
            f"column {column!r} is continuous (numeric in the confidential data) but holds "
            f"text or categories in {where} (dtype {series.dtype}"
            + (f"; values that are not numbers: {bad}" if bad else "")
            + f"); convert it to numbers, or declare it {spell('categorical', [column])}"
        )
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def numeric_text_columns(
    frame: pd.DataFrame | Mapping[str, pd.Series],
    columns: Sequence[str],
    numeric_elsewhere: Sequence[str] = (),
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
        if isinstance(dtype, pd.CategoricalDtype) or not is_categorical(series):
            continue
        if pd.api.types.is_bool_dtype(dtype):
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
    head = x[:4096]  # (its verdict, when it has one, is the whole column's: no sort of it)
    head = head[~np.isnan(head)]
    if np.unique(head).size > CODES_MAX_DISTINCT or not np.all(head == np.round(head)):
        return None
    x = x[~np.isnan(x)]
    if x.size == 0 or not np.all(np.isfinite(x)) or not np.all(x == np.round(x)):
        return None
    k = int(np.unique(x).size)
    return k if k <= CODES_MAX_DISTINCT and 2 * k <= x.size else None
