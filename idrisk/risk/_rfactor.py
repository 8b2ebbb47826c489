"""synthpop's factors, tables and grouping: R's ``factor()`` of a column (level names by
:func:`idrisk._rtext.r_label`, sorted by code point as R's ``order()`` under ``LC_COLLATE=C``),
the ``Missing`` level, the quasi-identifier of several keys, ``table(target, q)`` on integer
level ids shared by the original and the synthetic datasets, and the numeric grouping of
``disclosure(..., ngroups_target=)`` (``classInt`` breaks, ``cut``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from .._rtext import cut_labels, r_label, r_labels
from .._schema import is_categorical, label

# ====================================================================== factors
MISSING = "Missing"


class _Factor:
    """An R factor: level labels and integer codes (-1 = NA)."""

    __slots__ = ("codes", "levels")

    def __init__(self, levels: list[str], codes: np.ndarray) -> None:
        self.levels = list(levels)
        self.codes = np.asarray(codes, dtype=np.intp)

    @property
    def has_na(self) -> bool:
        return bool((self.codes < 0).any())

    def labels(self) -> np.ndarray:
        """Level label of each value (``None`` for NA)."""
        lv = np.array(self.levels + [None], dtype=object)
        return lv[np.where(self.codes < 0, len(self.levels), self.codes)]


def _from_labels(labels: np.ndarray, levels: list[str]) -> _Factor:
    index = {lv: i for i, lv in enumerate(levels)}
    return _Factor(levels, np.array([-1 if v is None else index[v] for v in labels]))


def is_r_numeric(series: pd.Series) -> bool:
    """R's ``is.numeric``: integer and double columns (not logical, not factor) -- the
    package's rule (:func:`idrisk._schema.is_categorical`) read the other way round."""
    return not is_categorical(series)


def _numbers(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(values, missing) of a numeric column; integer columns stay integer."""
    missing = series.isna().to_numpy()
    if pd.api.types.is_integer_dtype(series.dtype):
        return series.fillna(0).to_numpy(dtype=np.int64), missing
    return series.to_numpy(dtype=float, na_value=np.nan), missing


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values and each value's index among them (``np.unique`` with
    ``return_inverse``; whole numbers in a short range counted instead of sorted)."""
    if values.size and np.issubdtype(values.dtype, np.integer):
        lo, hi = int(values.min()), int(values.max())
        if hi - lo <= 4 * values.size + 1024:
            shifted = values - lo
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            return (np.flatnonzero(present) + lo).astype(values.dtype), (
                np.cumsum(present) - 1)[shifted]
    distinct, codes = np.unique(values, return_inverse=True)
    return distinct, codes.reshape(-1)


def as_factor(series: pd.Series) -> _Factor:
    """R's ``factor()`` of a column as synthpop meets it (categoricals keep their levels)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        cat = series.array
        return _Factor([label(c) for c in cat.categories.tolist()], cat.codes)
    missing = series.isna().to_numpy()
    if is_r_numeric(series):
        values, _ = _numbers(series)
        distinct, present_codes = _distinct(values[~missing])
        codes = np.full(len(series), -1, dtype=np.intp)
        codes[~missing] = present_codes
        return _Factor(r_labels(distinct), codes)
    if pd.api.types.is_bool_dtype(series.dtype) or series.dtype == object and all(
        isinstance(v, (bool, np.bool_)) for v in series[~missing]
    ) and (~missing).any():
        text = np.array(
            [None if na else ("TRUE" if v else "FALSE") for v, na in zip(series, missing,
                                                                         strict=True)],
            dtype=object,
        )
    else:
        present = series.to_numpy(dtype=object)[~missing]
        if all(type(v) is str for v in present):  # text already: number it by hashing
            first_seen, uniques = pd.factorize(present)
            codes = np.full(len(series), -1, dtype=np.intp)
            codes[~missing] = _rank(list(uniques))[first_seen]
            return _Factor(sorted(uniques), codes)
        text = np.array([None if na else str(v) for v, na in zip(series, missing, strict=True)],
                        dtype=object)
    return _from_labels(text, sorted({v for v in text if v is not None}))


def recode_missing(f: _Factor) -> _Factor:
    """synthpop's NA recoding: ``factor(as.character(x))`` with NA as level ``"Missing"`` --
    levels re-sorted by name and unused ones dropped (only when there is an NA)."""
    if not f.has_na:
        return f
    used = np.zeros(len(f.levels) + 1, dtype=bool)
    used[f.codes] = True  # code -1 (NA) marks the last slot
    labels = [lv for lv, u in zip(f.levels, used[:-1], strict=True) if u] + [MISSING]
    levels = sorted(set(labels))
    index = {lv: i for i, lv in enumerate(levels)}
    lookup = np.array([index.get(lv, -1) for lv in f.levels] + [index[MISSING]],
                      dtype=np.intp)
    return _Factor(levels, lookup[f.codes])


# ====================================================================== table dimensions
SEP = " | "


def _rank(names: list[str]) -> np.ndarray:
    """Each name's position when the names are sorted by code point."""
    rank = np.empty(len(names), dtype=np.intp)
    rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    return rank


class _Axis:
    """The level names of one table dimension over the original and the synthetic datasets.

    A table's rows or columns are ids into ``names``; ``rank`` orders the ids by name (code
    point, R's ``order()`` under ``LC_COLLATE=C``). The names of a quasi-identifier's
    combinations are pasted from ``parts`` (one label array per key) only when asked for;
    ``plain``: no label holds a ``"|"``, so splitting a name at ``" | "`` gives its parts.
    """

    __slots__ = ("_fields", "_names", "_order", "parts", "plain", "rank")

    def __init__(self, rank: np.ndarray, names: list[str] | None = None,
                 parts: list[np.ndarray] | None = None, plain: bool = False) -> None:
        self.rank = rank
        self._names = None if names is None else np.array(names, dtype=object)
        self.parts = parts
        self.plain = plain
        self._fields: dict[int, np.ndarray] = {}
        self._order: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.rank)

    @property
    def order(self) -> np.ndarray:
        """The ids sorted by name."""
        if self._order is None:
            self._order = np.argsort(self.rank)
        return self._order

    @property
    def names(self) -> np.ndarray:
        """The level names (an object array indexed by id)."""
        if self._names is None:
            parts = cast(list[np.ndarray], self.parts)
            self._names = np.array([SEP.join(p) for p in zip(*parts, strict=True)],
                                   dtype=object)
        return self._names

    def field(self, i: int, n_keys: int) -> np.ndarray:
        """Each name's ``i``-th field as synthpop splits it (``strsplit(name, " | ")``; the
        whole name with one key)."""
        if n_keys == 1:
            return self.names
        if i not in self._fields:
            if self.parts is not None and self.plain:
                self._fields[i] = self.parts[i]
            else:
                self._fields[i] = np.array([v.split(SEP)[i] for v in self.names],
                                           dtype=object)
        return self._fields[i]


def _universe(factors: list[_Factor]) -> tuple[list[str], list[np.ndarray]]:
    """The union of the factors' level names and each factor's level -> id lookup."""
    ids: dict[str, int] = {}
    lookups = [np.array([ids.setdefault(lv, len(ids)) for lv in f.levels], dtype=np.intp)
               for f in factors]
    return list(ids), lookups


def level_axis(factors: list[_Factor]) -> tuple[_Axis, list[np.ndarray]]:
    """One variable's axis over the datasets (``factors``, one per dataset) and each
    factor's levels as ids."""
    names, lookups = _universe(factors)
    return _Axis(_rank(names), names), lookups


def _prefix_free(texts: list[str]) -> bool:
    """No text is a proper prefix of another (a prefix sorts right before its extensions)."""
    ordered = sorted(texts)
    return not any(b.startswith(a) for a, b in zip(ordered, ordered[1:], strict=False))


def quasi_identifiers(
    keys: list[list[_Factor]],
) -> tuple[_Axis, list[np.ndarray], list[np.ndarray]]:
    """synthpop's quasi-identifier q of every dataset: ``keys[i][j]`` is key i's factor in
    dataset j, without NA (after :func:`recode_missing`).

    One key: q is the key factor (its levels, used or not, in factor order). Several keys:
    q's levels are the observed combinations named by pasting the labels with ``" | "``,
    sorted by that name. Returns the axis and, per dataset, q's levels as ids and each
    record's code into them.

    The combinations are numbered on integer codes: with ``rank_i`` the order of key i's
    labels followed by ``" | "`` (plain labels for the last key), the pasted names sort as
    the tuples of ranks whenever no label followed by ``" | "`` is a prefix of another one;
    otherwise the pasted names are sorted as text.
    """
    if len(keys) == 1:
        axis, lookups = level_axis(keys[0])
        return axis, lookups, [f.codes for f in keys[0]]
    sizes = [len(f.codes) for f in keys[0]]
    code = np.zeros(sum(sizes), dtype=np.int64)
    bound, ordered, plain = 1, True, True
    label_ids, label_names = [], []
    for i, factors in enumerate(keys):
        names, lookups = _universe(factors)
        sort_keys = names if i == len(keys) - 1 else [v + SEP for v in names]
        ordered = ordered and _prefix_free(sort_keys)
        plain = plain and not any("|" in v for v in names)
        ids = np.concatenate([lk[f.codes] for lk, f in zip(lookups, factors, strict=True)])
        if bound * max(len(names), 1) >= 2**62:  # renumber the combinations seen so far
            seen, code = _distinct(code)
            bound = max(len(seen), 1)
        code = code * max(len(names), 1) + _rank(sort_keys)[ids]
        bound *= max(len(names), 1)
        label_ids.append(ids)
        label_names.append(np.array(names, dtype=object))
    seen, combo = _distinct(code)
    first = np.empty(len(seen), dtype=np.intp)  # a record of each combination
    first[combo] = np.arange(len(combo))
    parts = [nm[ids[first]] for nm, ids in zip(label_names, label_ids, strict=True)]
    if ordered:
        axis = _Axis(np.arange(len(first)), parts=parts, plain=plain)
    else:  # sort (and merge) the pasted names as text
        pasted = [SEP.join(p) for p in zip(*parts, strict=True)]
        names = sorted(set(pasted))
        index = {v: i for i, v in enumerate(names)}
        combo = np.array([index[v] for v in pasted], dtype=np.intp)[combo]
        axis = _Axis(np.arange(len(names)), names)
    levels, codes = [], []
    for part in np.split(combo, np.cumsum(sizes)[:-1]):
        lv, cd = _distinct(part)
        levels.append(lv)
        codes.append(cd)
    return axis, levels, codes


# ====================================================================== tables
class _Table:
    """A target x quasi-identifier count table: rows and columns are level ids of the
    target's and q's axes."""

    __slots__ = ("col_axis", "col_ids", "counts", "row_axis", "row_ids")

    def __init__(self, counts: np.ndarray, row_ids: np.ndarray, col_ids: np.ndarray,
                 row_axis: _Axis, col_axis: _Axis) -> None:
        self.counts = counts
        self.row_ids = row_ids
        self.col_ids = col_ids
        self.row_axis = row_axis
        self.col_axis = col_axis

    @property
    def rows(self) -> list[str]:
        """The target's level names."""
        return self.row_axis.names[self.row_ids].tolist()

    @property
    def cols(self) -> list[str]:
        """q's level names."""
        return self.col_axis.names[self.col_ids].tolist()

    def row_names(self) -> np.ndarray:
        return self.row_axis.names[self.row_ids]

    def col_field(self, i: int, n_keys: int, cols: np.ndarray | None = None) -> np.ndarray:
        """Key ``i``'s label in the name of each column (or of columns ``cols``), as synthpop
        splits the name."""
        ids = self.col_ids if cols is None else self.col_ids[cols]
        return self.col_axis.field(i, n_keys)[ids]


def _crosstab(t_codes: np.ndarray, t_ids: np.ndarray, q_codes: np.ndarray, q_ids: np.ndarray,
              t_axis: _Axis, q_axis: _Axis) -> _Table:
    """``table(target, q)``: records by target level (rows) and q level (columns)."""
    nt, nq = len(t_ids), len(q_ids)
    ok = (t_codes >= 0) & (q_codes >= 0)
    flat = np.bincount(t_codes[ok] * nq + q_codes[ok], minlength=nt * nq)
    return _Table(flat.astype(np.int32).reshape(nt, nq), t_ids, q_ids, t_axis, q_axis)


def _marked(ids: np.ndarray, axis: _Axis) -> np.ndarray:
    """A mask over the axis's ids: True at ``ids``."""
    mask = np.zeros(len(axis), dtype=bool)
    mask[ids] = True
    return mask


def _union(a: np.ndarray, b: np.ndarray, axis: _Axis, fix: bool) -> np.ndarray:
    """The levels of both tables: sorted by name (synthpop), or ``a``'s then ``b``'s new ones
    (corrected)."""
    in_a = _marked(a, axis)
    if fix:
        return np.concatenate([a, b[~in_a[b]]])
    in_a[b] = True
    return axis.order[in_a[axis.order]]


def _complete(t: _Table, rows: np.ndarray, cols: np.ndarray, by_name: bool) -> _Table:
    """Add the missing rows and columns as zeros.

    synthpop (``by_name=False``) re-sorts a dimension by name only when something was added
    to it; ``by_name=True`` puts both tables in the order of ``rows``/``cols``.
    """
    r, counts = _complete_axis(t.row_ids, rows, t.counts, 0, by_name, t.row_axis)
    c, counts = _complete_axis(t.col_ids, cols, counts, 1, by_name, t.col_axis)
    return _Table(counts, r, c, t.row_axis, t.col_axis)


def _complete_axis(
    have: np.ndarray, want: np.ndarray, counts: np.ndarray, axis: int, by_name: bool,
    levels: _Axis,
) -> tuple[np.ndarray, np.ndarray]:
    """One dimension of :func:`_complete`."""
    extra = want[~_marked(have, levels)[want]]
    if not (extra.size or by_name):
        return have, counts
    shape = list(counts.shape)
    shape[axis] = len(extra)
    counts = np.concatenate([counts, np.zeros(shape, counts.dtype)], axis=axis)
    names = np.concatenate([have, extra])
    place = np.full(len(levels), -1, dtype=np.intp)
    place[names] = np.arange(len(names))
    if (place >= 0).sum() < len(names):  # a level named twice (e.g. 1 and "1")
        if by_name:  # the last place of each wanted level
            backwards, first = np.unique(names[::-1], return_index=True)
            order = (len(names) - 1 - first)[np.searchsorted(backwards, want)]
        else:
            order = np.argsort(levels.rank[names], kind="stable")
    elif by_name:
        order = place[want]
    else:  # the levels in name order
        order = place[levels.order[place[levels.order] >= 0]]
    return names[order], np.take(counts, order, axis=axis)


# ====================================================================== grouping
def _r_quantile7(x: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """R's ``quantile(type = 7)``: ``(1 - h) * x[lo] + h * x[hi]`` where needed."""
    xs = np.sort(x)
    n = len(xs)
    index = 1 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(int)
    hi = np.ceil(index).astype(int)
    qs = xs[lo - 1].copy()
    xhi = xs[hi - 1]
    interp = (index > lo) & (xhi != qs)
    h = (index - lo)[interp]
    qs[interp] = (1 - h) * qs[interp] + h * xhi[interp]
    return qs


def class_breaks(x: np.ndarray, n: int, style: str) -> np.ndarray:
    """``classInt::classIntervals(x, n, style)$brks`` for the quantile and equal styles.

    When ``n`` is at least the number of distinct values, every value is its own class with
    breaks half-way between them (classInt's "unique" breaks), as classInt does.

    Examples
    --------
    >>> import numpy as np
    >>> class_breaks(np.array([1.0, 2, 3, 4, 10]), 7, "quantile").tolist()
    [-0.125, 1.5, 2.5, 3.5, 7.0, 11.125]
    >>> class_breaks(np.array([0.0, 1, 2, 3, 4, 6, 8]), 2, "equal").tolist()
    [0.0, 4.0, 8.0]
    """
    distinct = np.unique(x)
    if len(distinct) < 2:
        raise ValueError("grouping a numeric column needs at least two distinct values")
    if n >= len(distinct):
        gaps = np.diff(distinct)
        half = gaps.mean() / 2
        return np.concatenate(
            [[distinct[0] - half], distinct[:-1] + gaps / 2, [distinct[-1] + half]]
        )
    if style == "quantile":
        probs = np.minimum(np.arange(n + 1) * (1.0 / n), 1.0)
        return _r_quantile7(x, probs)
    lo, hi = float(x.min()), float(x.max())
    out = lo + np.arange(n + 1) * ((hi - lo) / n)
    out[-1] = hi
    return out


def _cut(values: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Codes of ``cut(right = FALSE, include.lowest = TRUE)`` (-1 outside the breaks)."""
    codes = np.searchsorted(breaks, values, side="right") - 1
    codes[values == breaks[-1]] = len(breaks) - 2
    codes[(values < breaks[0]) | (values > breaks[-1])] = -1
    return codes


def group_numeric(
    columns: list[pd.Series], n: int, codes: Sequence[float]
) -> list[_Factor]:
    """synthpop's grouping of one numeric column into ``n`` classes, original first.

    Breaks come from the quantiles of the original and all synthetic values together
    (missing values and ``cont.na`` codes left out); if the grouped original has fewer than
    three levels -- the intervals, used or not, and the codes, each a level -- equal-width
    breaks are used instead. Codes become levels after the intervals.
    """
    parts = [_numbers(c) for c in columns]
    code_arr = np.array([float(c) for c in codes], dtype=float)

    def usable(values: np.ndarray, missing: np.ndarray) -> np.ndarray:
        return ~missing & ~np.isin(values.astype(float), code_arr)

    pooled = np.concatenate([v[usable(v, m)].astype(float) for v, m in parts])
    breaks = np.unique(class_breaks(pooled, n, "quantile"))
    if len(breaks) - 1 + len(code_arr) < 3:
        breaks = np.unique(class_breaks(pooled, n, "equal"))
    interval_labels = cut_labels(list(breaks))
    code_labels = [r_label(c) for c in code_arr]
    levels = interval_labels + code_labels
    out = []
    for values, missing in parts:
        fvals = values.astype(float)
        cut_codes = np.full(len(values), -1)
        ok = usable(values, missing)
        cut_codes[ok] = _cut(fvals[ok], breaks)
        for k, c in enumerate(code_arr):
            cut_codes[~missing & (fvals == c)] = len(interval_labels) + k
        out.append(_Factor(levels, cut_codes))
    return out
