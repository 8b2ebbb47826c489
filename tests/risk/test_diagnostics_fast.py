"""The input diagnostics decide on counts of codes, not on every value written as text (issue
30): the same warnings, word for word, as the string path they replace, on mixed inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idrisk.risk._diagnostics import (
    LABEL_MIN_SHARE,
    _equal_rows,
    _warn_disjoint,
    check_label_overlap,
)


def _string_path(confidential, frames, names, columns, orig_name):
    """The check's decision as it was (issue 29): every value written with ``astype(str)``;
    the message is the one the check composes (moved unchanged; its words are checked in
    test_diagnostics)."""
    named = []
    for c in dict.fromkeys(columns):
        conf_counts = confidential[c].dropna().astype(str).value_counts()
        if conf_counts.empty:
            continue
        conf_labels = set(conf_counts.index)
        for frame, where in zip(frames, names):
            syn_counts = frame[c].dropna().astype(str).value_counts()
            total = int(syn_counts.sum())
            if total == 0:
                continue
            inside = int(syn_counts[syn_counts.index.isin(conf_labels)].sum())
            if inside >= LABEL_MIN_SHARE * total:
                continue
            _warn_disjoint(confidential[c], frame[c], c, where, orig_name, UserWarning)
            named.append(c)
            break
    return named


def _run(check, conf, frames):
    names = [f"synthetic dataset {j}" for j in range(1, len(frames) + 1)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        named = check(conf, frames, names, ["x"], "the confidential data")
    return named, [str(w.message) for w in caught]


# values whose labels collide or nearly collide: 1 / 1.0 / "1" / True, case and spaces
POOL = [1, 2, 3, 1.0, 2.5, -0.0, 0.0, "1", "2", "a", "A", " a", "b", True, False, None, np.nan]


def _column(draw, n: int) -> pd.Series:
    kind = draw(st.sampled_from(["category", "object", "str", "int", "bool", "float",
                                 "category-int", "category-float", "category-unused"]))
    if kind in ("int", "category-int"):
        values = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
        s = pd.Series(values, dtype=np.int64)
        return s.astype("category") if kind == "category-int" else s
    if kind == "category-float":
        values = draw(st.lists(st.sampled_from([1.0, 2.0, 2.5, np.nan]), min_size=n, max_size=n))
        return pd.Series(values, dtype=np.float64).astype("category")
    if kind == "float":
        values = draw(st.lists(st.sampled_from([1.0, -0.0, 0.0, 2.5, np.nan]),
                               min_size=n, max_size=n))
        return pd.Series(values, dtype=np.float64)
    if kind == "bool":
        return pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    text = [v for v in POOL if isinstance(v, str)] + [None]
    if kind == "str":
        return pd.Series(draw(st.lists(st.sampled_from(text), min_size=n, max_size=n)),
                         dtype="str")
    values = draw(st.lists(st.sampled_from(POOL), min_size=n, max_size=n))
    s = pd.Series(values, dtype=object)
    if kind == "object":
        return s
    labels = [v for v in dict.fromkeys(text) if v is not None]
    if kind == "category-unused":  # declared categories that no record holds
        return pd.Series(pd.Categorical(
            draw(st.lists(st.sampled_from(labels[:3] + [None]), min_size=n, max_size=n)),
            categories=labels))
    return pd.Series(pd.Categorical(draw(st.lists(st.sampled_from(text), min_size=n,
                                                  max_size=n))))


@st.composite
def _inputs(draw):
    n = draw(st.integers(1, 40))
    conf = pd.DataFrame({"x": _column(draw, n)})
    m = draw(st.integers(1, 3))
    frames = []
    for _ in range(m):
        if draw(st.booleans()):  # a copy of the confidential column, possibly recoded
            x = conf["x"].copy()
            if draw(st.booleans()) and isinstance(x.dtype, pd.CategoricalDtype):
                x = x.cat.rename_categories(lambda v: f" {v}")
            frames.append(pd.DataFrame({"x": x}))
        else:
            frames.append(pd.DataFrame({"x": _column(draw, n)}))
    return conf, frames


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_inputs())
def test_label_overlap_decides_and_words_as_the_string_path(inputs):
    conf, frames = inputs
    assert _run(check_label_overlap, conf, frames) == _run(_string_path, conf, frames)


def test_label_overlap_on_codes_vs_labels_and_unused_categories():
    conf = pd.DataFrame({"x": pd.Categorical(["1", "2", "2"] * 4, categories=["1", "2", "3"])})
    codes = pd.DataFrame({"x": pd.Categorical([1, 3, 3] * 4)})  # "1" is a label of both
    floats = pd.DataFrame({"x": pd.Categorical([1.0, 2.0, 2.0] * 4)})  # "1.0" is not "1"
    unused = pd.DataFrame({"x": pd.Categorical(["3", "3", "1"] * 4, categories=["1", "3"])})
    for frames in ([codes], [floats], [unused], [codes, floats, unused]):
        assert _run(check_label_overlap, conf, frames) == _run(_string_path, conf, frames)
    assert _run(check_label_overlap, conf, [floats])[0] == ["x"]
    assert _run(check_label_overlap, conf, [unused])[0] == ["x"]  # "3": declared, never held


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_row_equality_on_categoricals_is_elementwise_equality(data):
    n = data.draw(st.integers(1, 30))
    cats = data.draw(st.sampled_from([["a", "b", "c"], [1, 2, 3], [1.0, 2.0, 3.5]]))
    order = data.draw(st.permutations(cats))
    pick = st.lists(st.sampled_from([*cats, None]), min_size=n, max_size=n)
    x = pd.Series(pd.Categorical(data.draw(pick), categories=cats))
    y = pd.Series(pd.Categorical(data.draw(pick), categories=list(order)))
    want = np.array([(pd.isna(u) and pd.isna(v)) or (not pd.isna(u) and not pd.isna(v) and u == v)
                     for u, v in zip(x.astype(object), y.astype(object))])
    np.testing.assert_array_equal(_equal_rows(x, y), want)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_row_equality_on_numbers_is_equality_as_floats(data):
    """Numbers compare as float64 (NaN equal to NaN), also when all rows are equal in their
    own dtype and when large integers round to one float."""
    n = data.draw(st.integers(1, 20))
    dtype = data.draw(st.sampled_from(["int64", "float64", "bool"]))
    big = 2**53
    pool = {"int64": [0, 1, -3, big, big + 1], "float64": [0.0, -0.0, 1.5, np.nan],
            "bool": [True, False]}[dtype]
    x = np.array(data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=dtype)
    y = x.copy() if data.draw(st.booleans()) else np.array(
        data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=dtype)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    want = (xf == yf) | (np.isnan(xf) & np.isnan(yf))
    np.testing.assert_array_equal(_equal_rows(pd.Series(x), pd.Series(y)), want)
