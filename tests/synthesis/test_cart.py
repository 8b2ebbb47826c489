"""rpart-compatible tree growing (idrisk.synthesis.rpart_tree)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.exceptions import NotFittedError
from idrisk.synthesis.rng import RStream
from idrisk.synthesis.rpart_tree import RpartTree, rpart_sort_order


def _brute_root_split(x, y, minbucket):
    """Exhaustive best numeric split by SS reduction (brute force reference)."""
    best, cut = -1.0, None
    xs = np.unique(x)
    for a, b in zip(xs[:-1], xs[1:]):
        c = (a + b) / 2
        left, right = y[x < c], y[x >= c]
        if left.size < minbucket or right.size < minbucket:
            continue
        gain = ((y - y.mean()) ** 2).sum() - ((left - left.mean()) ** 2).sum() \
            - ((right - right.mean()) ** 2).sum()
        if gain > best + 1e-9:
            best, cut = gain, c
    return cut


@pytest.mark.parametrize("seed", range(6))
def test_root_split_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 60
    x = rng.integers(0, 25, n).astype(float)
    y = rng.normal(size=n) + (x > 12) * rng.uniform(0, 2)
    tree = RpartTree(minbucket=5, maxdepth=1).fit(pd.DataFrame({"x": x}), pd.Series(y))
    assert tree.nodes_[1].cut == pytest.approx(_brute_root_split(x, y, 5))


def test_structure_rules_and_predict():
    rng = np.random.default_rng(1)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "g": pd.Categorical(rng.choice(list("pqrs"), n))})
    y = pd.Series(X["a"] * 3 + X["g"].cat.codes + rng.normal(size=n))
    tree = RpartTree(minbucket=7).fit(X, y)
    sizes = tree.where_.value_counts()
    assert sizes.min() >= 7
    for k, nd in tree.nodes_.items():
        if not nd.is_leaf:
            assert nd.n >= tree.minsplit
            assert {nd.left.number, nd.right.number} == {2 * k, 2 * k + 1}
            assert nd.left.yval <= nd.right.yval  # smaller mean on the left
    pd.testing.assert_series_equal(tree.apply(X), tree.where_, check_names=False)
    means = y.groupby(tree.where_.to_numpy()).mean()
    np.testing.assert_allclose(tree.predict(X).to_numpy(), means.loc[tree.where_].to_numpy())
    assert tree.n_leaves_ == tree.where_.nunique()
    assert "RpartTree" in repr(tree) and len(tree.to_frame()) == len(tree.nodes_)


def test_factor_levels_ordered_by_mean():
    g = np.repeat(list("abcd"), 10)
    y = np.repeat([5.0, 1.0, 3.0, 9.0], 10)
    X = pd.DataFrame({"g": pd.Categorical(g, categories=list("abcde"))})
    tree = RpartTree(minbucket=5, maxdepth=1).fit(X, pd.Series(y))
    cs = tree.nodes_[1].csplit
    # levels in mean order b(1) < c(3) < a(5) < d(9); between-SS of the cuts along that
    # order: {b}|{c,a,d} 187.5, {b,c}|{a,d} 250, {b,c,a}|{d} 270 -> the last; e is absent
    assert cs.tolist() == [-1, -1, -1, 1, 0]


def test_missing_and_unseen_levels_follow_majority():
    g = pd.Categorical(["a"] * 30 + ["b"] * 10, categories=["a", "b", "c"])
    X = pd.DataFrame({"g": g})
    y = pd.Series([0.0] * 30 + [10.0] * 10)
    tree = RpartTree(minbucket=5).fit(X, y)
    new = pd.DataFrame({"g": pd.Categorical(["c", None, "b"], categories=["a", "b", "c"])})
    assert tree.apply(new).tolist() == [2, 2, 3]  # 30 rows went left: majority
    with pytest.raises(ValueError, match="new levels"):
        tree.apply(pd.DataFrame({"g": ["zzz"]}))


def test_class_tree_probabilities():
    X = pd.DataFrame({"x": np.arange(40.0)})
    y = pd.Series(["u"] * 15 + ["v"] * 25)
    tree = RpartTree("class", minbucket=5).fit(X, y)
    probs = tree.predict(X)
    assert list(probs.columns) == ["u", "v"]
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert tree.n_leaves_ == 2 and probs.iloc[0, 0] == pytest.approx(1.0)


def test_xval_draws_consumed():
    X = pd.DataFrame({"x": np.arange(50.0)})
    y = pd.Series(np.arange(50.0))
    s = RStream(1)
    RpartTree(xval=10).fit(X, y, rng=s)
    t = RStream(1)
    t.skip_permutation(50)
    assert s.n_used == t.n_used > 0
    u = RStream(1)
    RpartTree(xval=0).fit(X, y, rng=u)
    assert u.n_used == 0


def test_rpart_sort_order_sorts():
    x = np.random.default_rng(2).integers(0, 5, 200).astype(float)
    order = rpart_sort_order(x)
    assert sorted(order.tolist()) == list(range(200))
    assert np.all(np.diff(x[order]) >= 0)


def test_argument_errors():
    with pytest.raises(ValueError, match="method"):
        RpartTree("poisson")
    with pytest.raises(TypeError, match="numeric y"):
        RpartTree().fit(pd.DataFrame({"x": [1.0, 2.0]}), pd.Series(["a", "b"]))
    with pytest.raises(NotFittedError, match="not fitted"):
        RpartTree().apply(pd.DataFrame({"x": [1.0]}))


@pytest.mark.parametrize(
    ("xs", "y", "leaves"),
    [(["Expenditure"], "Income", 661), (["Tenure", "Expenditure"], "Income", 656),
     (["Tenure"], "Income", 5), (["Tenure"], "Expenditure", 5)],
)
def test_ce_tree_sizes(ce, xs, y, leaves):
    d = ce
    assert RpartTree(minbucket=5, cp=1e-8).fit(d[xs], d[y]).n_leaves_ == leaves


def _brute_numeric_surrogate(x, primary):
    """Best agreement of a cut on x with the primary directions (>= 2 directed rows a side)."""
    ok = ~np.isnan(x)
    xs, ps = x[ok], primary[ok]
    best = max((primary == -1).sum(), (primary == 1).sum())  # the "go with majority" rule
    vals = np.unique(xs)
    for a, b in zip(vals[:-1], vals[1:]):
        c = (a + b) / 2
        lo = xs < c
        if (ps[lo] != 0).sum() < 2 or (ps[~lo] != 0).sum() < 2:
            continue
        for d in (-1, 1):  # side taken by x < c
            agree = (ps[lo] == d).sum() + (ps[~lo] == -d).sum()
            best = max(best, agree)
    return best


@pytest.mark.parametrize("seed", range(5))
def test_surrogate_agreement_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 80
    x1 = rng.normal(size=n)
    X = pd.DataFrame({"x1": x1, "x2": np.round(x1 + rng.normal(size=n), 1),
                      "x3": rng.integers(0, 6, n).astype(float)})
    X.loc[rng.random(n) < 0.2, "x2"] = np.nan
    y = pd.Series((x1 > 0.3) * 5.0 + rng.normal(size=n) * 0.1)
    tree = RpartTree(minbucket=5, maxdepth=1).fit(X, y)
    root = tree.nodes_[1]
    assert tree.feature_names_[root.var] == "x1"
    primary = np.where(X["x1"] < root.cut, root.direction, -root.direction)
    total = n  # no missing x1: every row has a primary direction
    majority = max((primary == -1).sum(), (primary == 1).sum()) / total
    by_var = {tree.feature_names_[s.var]: s for s in root.surrogates}
    for name in ("x2", "x3"):
        best = _brute_numeric_surrogate(X[name].to_numpy(), primary) / total
        if best - majority <= 1e-10:
            assert name not in by_var
        else:
            assert by_var[name].agreement == pytest.approx(best)
            assert by_var[name].adj == pytest.approx((best - majority) / (1 - majority))
    agreements = [s.agreement for s in root.surrogates]
    assert agreements == sorted(agreements, reverse=True)


def test_missing_primary_goes_by_surrogate():
    # x2 orders the rows like x1 except for two swapped pairs at the boundary;
    # x1 is missing for rows 0..5 (all small)
    x1 = np.arange(60.0)
    x2 = x1 * 10.0
    x2[[38, 39, 40, 41]] = x2[[40, 41, 38, 39]]
    X = pd.DataFrame({"x1": x1, "x2": x2})
    y = pd.Series(np.where(x1 < 40, 0.0, 10.0))
    X.loc[:5, "x1"] = np.nan
    tree = RpartTree(minbucket=5, maxdepth=1).fit(X, y)
    root = tree.nodes_[1]
    assert tree.feature_names_[root.var] == "x1"
    assert [tree.feature_names_[s.var] for s in root.surrogates] == ["x2"]
    # best x2 cut: 2 of the 54 directed rows disagree (34 left, 20 right)
    assert root.surrogates[0].agreement == pytest.approx(52 / 54)
    assert root.surrogates[0].adj == pytest.approx((52 / 54 - 34 / 54) / (1 - 34 / 54))
    # the six rows with x1 missing are sent by x2 (left, with the small values)
    assert (tree.where_.iloc[:6] == root.left.number).all()
    assert root.left.n == 40
    new = pd.DataFrame({"x1": [np.nan, np.nan, np.nan], "x2": [0.0, 1000.0, np.nan]})
    # x2 decides the first two; the last has nothing: larger child (40 rows, left)
    assert tree.apply(new).tolist() == [2, 3, 2]
