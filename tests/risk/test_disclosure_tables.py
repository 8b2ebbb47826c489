"""The integer machinery behind synthpop's disclosure tables against plain loops written the
way synthpop works on text: quasi-identifiers (labels pasted with " | ", sorted by name),
the NA recoding, R's factor of a numeric column, the completion of two tables by name,
R's column sums and mean, and the 2-way check's counts by level name. Random data with NA,
unused levels, labels that are prefixes of one another or hold the separator, and numbers
written as R writes them."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idrisk._rtext import r_labels
from idrisk.risk._rfactor import (
    MISSING,
    _complete,
    _crosstab,
    _Factor,
    _union,
    as_factor,
    level_axis,
    quasi_identifiers,
    recode_missing,
)
from idrisk.risk._rsums import _colsums, _rmean
from idrisk.risk._synthpop_tables import _TwoWay

#: labels that trip text sorting: prefixes of each other, the separator inside a label,
#: characters below " ", numbers that sort as text ("10" < "9"), "Missing" itself
LABELS = ["a", "a b", "a | b", "b", "a\t", "", "Missing", "1", "10", "9", "a |", "| a", "é"]


def _factor(draw, n: int) -> _Factor:
    levels = draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=6, unique=True))
    codes = draw(st.lists(st.integers(-1, len(levels) - 1), min_size=n, max_size=n))
    return _Factor(levels, np.array(codes))


@st.composite
def key_sets(draw):
    """keys[i][j]: key i in dataset j (1..4 datasets of 0..25 records), each factor with its
    own levels, some unused, NA anywhere."""
    sizes = draw(st.lists(st.integers(0, 25), min_size=1, max_size=4))
    n_keys = draw(st.integers(1, 3))
    return [[_factor(draw, n) for n in sizes] for _ in range(n_keys)]


def _labels(f: _Factor) -> list:
    return [None if c < 0 else f.levels[c] for c in f.codes]


# ------------------------------------------------------------------ factors
def _recode_reference(f: _Factor) -> tuple[list[str], list[str]]:
    """factor(as.character(x)) with NA as "Missing": (levels, label of each record)."""
    if all(c >= 0 for c in f.codes):
        return f.levels, _labels(f)
    labels = [MISSING if v is None else v for v in _labels(f)]
    return sorted(set(labels)), labels


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_recode_missing_equals_text_recoding(data):
    f = _factor(data.draw, data.draw(st.integers(0, 30)))
    levels, labels = _recode_reference(f)
    got = recode_missing(f)
    assert got.levels == levels
    assert _labels(got) == labels


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-3, 3), st.integers(-2**40, 2**40)),
                max_size=40),
       st.booleans())
def test_factor_of_a_numeric_column_equals_sorted_distinct_values(values, as_float):
    """Integer columns (short and wide ranges) and doubles with NaN and -0.0."""
    if as_float:
        series = pd.Series([np.nan if v is None else (v / 4 if v else -0.0) for v in values],
                           dtype=float)
    elif any(v is None for v in values):
        series = pd.Series(values, dtype="Int64")
    else:
        series = pd.Series(values, dtype=np.int64)
    missing = series.isna().to_numpy()
    present = series[~missing].to_numpy(dtype=float if as_float else np.int64)
    distinct = np.unique(present)
    got = as_factor(series)
    assert got.levels == r_labels(distinct)
    want = np.full(len(series), -1)
    want[~missing] = np.searchsorted(distinct, present)
    np.testing.assert_array_equal(got.codes, want)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(LABELS), st.integers(0, 3)), max_size=40),
       st.sampled_from(["object", "str"]))
def test_factor_of_a_text_column_equals_sorted_distinct_text(values, dtype):
    """Text columns (object or pandas' str), NA among them, numbers mixed into object ones."""
    if dtype == "str":
        values = [v if v is None else str(v) for v in values]
    series = pd.Series(values, dtype=dtype)
    missing = series.isna().to_numpy()
    text = [None if na else str(v) for v, na in zip(series, missing, strict=True)]
    levels = sorted({v for v in text if v is not None})
    got = as_factor(series)
    assert got.levels == levels
    assert _labels(got) == text


# ------------------------------------------------------------------ quasi-identifiers
def _q_reference(keys: list[_Factor]) -> tuple[list[str], list[str]]:
    """q of one dataset as synthpop makes it: (levels, each record's level name)."""
    if len(keys) == 1:
        return keys[0].levels, _labels(keys[0])
    pasted = [" | ".join(parts) for parts in zip(*[_labels(k) for k in keys], strict=True)]
    return sorted(set(pasted)), pasted


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key_sets())
def test_quasi_identifiers_equal_pasted_and_sorted_names(keys):
    keys = [[recode_missing(f) for f in per_key] for per_key in keys]
    axis, levels, codes = quasi_identifiers(keys)
    for j in range(len(keys[0])):
        want_levels, want_names = _q_reference([k[j] for k in keys])
        assert axis.names[levels[j]].tolist() == want_levels
        assert axis.names[levels[j][codes[j]]].tolist() == want_names
        for i in range(len(keys)):  # the fields the exclusions and the 2-way check read
            fields = [v if len(keys) == 1 else v.split(" | ")[i] for v in want_levels]
            assert axis.field(i, len(keys))[levels[j]].tolist() == fields
    # the axis order is the order by name
    assert [axis.names[i] for i in axis.order] == sorted(axis.names)


# ------------------------------------------------------------------ tables
def _complete_reference(table: dict, rows: list[str], cols: list[str], want_rows: list[str],
                        want_cols: list[str], by_name: bool):
    """synthpop's completion on names: add missing levels as zeros; re-sort a dimension by
    name when something was added (or put it in the wanted order, ``by_name``)."""
    def axis(have: list[str], want: list[str]) -> list[str]:
        extra = [x for x in want if x not in set(have)]
        if not (extra or by_name):
            return have
        return list(want) if by_name else sorted(have + extra)

    r, c = axis(rows, want_rows), axis(cols, want_cols)
    return r, c, [[table.get((x, y), 0) for y in c] for x in r]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_union_and_completion_equal_the_text_version(data):
    """Two datasets' tables of target x one key, combined as synthpop (by name where
    something is added) and corrected (the original's order, then the new levels)."""
    t = [_factor(data.draw, data.draw(st.integers(0, 20))) for _ in range(2)]
    k = [_factor(data.draw, len(f.codes)) for f in t]
    t, k = [recode_missing(f) for f in t], [recode_missing(f) for f in k]
    t_axis, t_ids = level_axis(t)
    q_axis, q_ids, q_codes = quasi_identifiers([k])
    d0, s0 = [_crosstab(t[j].codes, t_ids[j], q_codes[j], q_ids[j], t_axis, q_axis)
              for j in range(2)]
    for fix in (False, True):
        rows = _union(d0.row_ids, s0.row_ids, t_axis, fix)
        cols = _union(d0.col_ids, s0.col_ids, q_axis, fix)
        want_rows = (sorted(set(d0.rows) | set(s0.rows)) if not fix
                     else d0.rows + [r for r in s0.rows if r not in set(d0.rows)])
        want_cols = (sorted(set(d0.cols) | set(s0.cols)) if not fix
                     else d0.cols + [c for c in s0.cols if c not in set(d0.cols)])
        assert t_axis.names[rows].tolist() == want_rows
        assert q_axis.names[cols].tolist() == want_cols
        for table, f, g in ((d0, t[0], k[0]), (s0, t[1], k[1])):
            got = _complete(table, rows, cols, by_name=fix)
            plain = Counter(zip(_labels(f), _labels(g), strict=True))
            r, c, counts = _complete_reference(plain, f.levels, g.levels, want_rows,
                                               want_cols, fix)
            assert got.rows == r and got.cols == c
            assert got.counts.tolist() == counts


# ------------------------------------------------------------------ R's sums
def _colsums_reference(x: np.ndarray) -> np.ndarray:
    """colSums(): a long-double accumulator per column, rows in order."""
    out = np.zeros(x.shape[1])
    for j in range(x.shape[1]):
        acc = np.longdouble(0)
        for v in x[:, j]:
            acc += np.longdouble(v)
        out[j] = float(acc)
    return out


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 6), st.integers(0, 8), st.randoms(use_true_random=False))
def test_colsums_equal_a_long_double_loop(nrow, ncol, rnd):
    """Proportions, their squares and exact zeros: sums that round differently in double."""
    x = np.array([[0.0 if rnd.random() < 0.5 else rnd.choice(
        [1 / 3, 0.1, 2 / 7, 1e-17, 0.7, rnd.random()]) for _ in range(ncol)]
        for _ in range(nrow)]).reshape(nrow, ncol)
    np.testing.assert_array_equal(_colsums(x), _colsums_reference(x))
    np.testing.assert_array_equal(_colsums(x**2), _colsums_reference(x**2))


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="long double is double here")
def test_colsums_keep_long_double_where_double_rounds_differently():
    x = np.array([[1.0, 0.0], [2.0**-53, 0.5], [2.0**-53, 0.0]])
    assert x[:, 0].sum() != _colsums_reference(x)[0]  # plain double loses the tail
    np.testing.assert_array_equal(_colsums(x), _colsums_reference(x))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 50), max_size=60))
def test_mean_of_whole_numbers_equals_r_mean(values):
    v = np.array(values, dtype=float)
    want = float("nan")
    if v.size:
        s = np.longdouble(0)
        for x in v:
            s += np.longdouble(x)
        s /= v.size
        t = np.longdouble(0)
        for x in v:
            t += np.longdouble(x) - s
        want = float(s + t / v.size)
    got = _rmean(v, whole=True)
    assert got == want or (np.isnan(got) and np.isnan(want))
    assert got == _rmean(v) or not v.size


# ------------------------------------------------------------------ 2-way check counts
@settings(max_examples=200, deadline=None)
@given(st.data())
def test_two_way_counts_equal_label_comparisons(data):
    """Records with a key label (and a target label), levels sharing a name included."""
    n = data.draw(st.integers(0, 30))
    target, key = _factor(data.draw, n), _factor(data.draw, n)
    key.levels = data.draw(st.lists(st.sampled_from(["x", "y", "Missing"]),
                                    min_size=len(key.levels), max_size=len(key.levels)))
    counts = _TwoWay(target, [key])
    t_labels, k_labels = np.array(_labels(target), object), np.array(_labels(key), object)
    for kl in ["x", "y", "Missing", "z"]:
        in_key = k_labels == kl
        assert counts.total(0, kl) == in_key.sum()
        for tl in LABELS:
            assert counts.with_target(0, tl, kl) == (in_key & (t_labels == tl)).sum()
