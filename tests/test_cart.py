"""rpart-compatible tree growing (idrisk.cart)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.cart import RpartTree, rpart_sort_order
from idrisk.rng import RStream


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
    with pytest.raises(RuntimeError, match="not fitted"):
        RpartTree().apply(pd.DataFrame({"x": [1.0]}))


@pytest.mark.parametrize(
    ("xs", "y", "leaves"),
    [(["Expenditure"], "Income", 661), (["Tenure", "Expenditure"], "Income", 656),
     (["Tenure"], "Income", 5), (["Tenure"], "Expenditure", 5)],
)
def test_ce_tree_sizes(ce, xs, y, leaves):
    d = ce
    assert RpartTree(minbucket=5, cp=1e-8).fit(d[xs], d[y]).n_leaves_ == leaves
