"""R's rpart (through rpy2) as an independent check of idrisk.synthesis.rpart_tree."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk.rcompat.rpart import r_available, rpart_fit
from idrisk.synthesis.rpart_tree import RpartTree

pytestmark = [
    pytest.mark.needs_r,
    pytest.mark.skipif(not r_available(),
                       reason="needs rpy2==3.5.17, R and the R package rpart"),
]


def _fit(X, y, method="anova", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rpart_fit(X, y, method, **kw)


@pytest.mark.parametrize(("xs", "y", "leaves"), [
    (["Expenditure"], "Income", 661),
    (["Tenure", "Expenditure"], "Income", 656),
])
def test_ce_trees_same_leaves(ce, xs, y, leaves):
    shuffled = ce[xs].sample(frac=1.0, random_state=3)
    r = _fit(ce[xs], ce[y], newdata=shuffled)
    ours = RpartTree(minbucket=5, cp=1e-8).fit(ce[xs], ce[y])
    assert r.n_leaves == ours.n_leaves_ == leaves
    pd.testing.assert_series_equal(ours.where_, r.where, check_names=False)
    pd.testing.assert_series_equal(ours.apply(shuffled), r.predicted_nodes, check_names=False)


@pytest.mark.parametrize(("xs", "y", "method", "cp"), [
    (["Age", "Educ", "Marital", "Urban"], "Income", "anova", 1e-3),
    (["Age", "Tenure", "Expenditure"], "Marital", "class", 1e-3),
    (["Age", "Urban", "Income"], "Tenure", "class", 1e-8),
])
def test_other_ce_trees(ce, xs, y, method, cp):
    r = _fit(ce[xs], ce[y], method, cp=cp)
    ours = RpartTree(method, minbucket=5, cp=cp).fit(ce[xs], ce[y])
    np.testing.assert_array_equal(ours.where_.to_numpy(), r.where.to_numpy())


@pytest.mark.parametrize("seed", range(4))
def test_random_data_with_ties_factors_and_missing_y(seed):
    rng = np.random.default_rng(seed)
    n = 400
    X = pd.DataFrame({
        "a": rng.integers(0, 12, n).astype(float),
        "b": np.round(rng.normal(size=n), 1),
        "g": pd.Categorical(rng.choice(list("pqrstu"), n), categories=list("pqrstuv")),
    })
    y = pd.Series(X["a"] + (X["g"] == "q") * 3 + rng.normal(size=n))
    y[rng.random(n) < 0.05] = np.nan
    mb = int(rng.integers(3, 8))
    r = _fit(X, y, minbucket=mb, cp=1e-4)
    ours = RpartTree(minbucket=mb, cp=1e-4).fit(X, y)
    pd.testing.assert_series_equal(ours.where_, r.where, check_names=False)
    yc = pd.Series(np.where(X["a"] > 6, "hi", np.where(X["b"] > 0, "mid", "lo")))
    yc[rng.random(n) < 0.3] = "lo"
    rc = _fit(X, yc, "class", minbucket=5, cp=1e-4)
    oc = RpartTree("class", minbucket=5, cp=1e-4).fit(X, yc)
    pd.testing.assert_series_equal(oc.where_, rc.where, check_names=False)


def test_missing_dependency_message(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("rpy2"):
            raise ImportError("No module named 'rpy2'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match="rpy2"):
        rpart_fit(pd.DataFrame({"x": [1.0]}), pd.Series([1.0]))


def _surrogate_table(tree: RpartTree) -> pd.DataFrame:
    rows = [(k, tree.feature_names_[sp.var], sp.agreement, sp.adj)
            for k in sorted(tree.nodes_) if not tree.nodes_[k].is_leaf
            for sp in tree.nodes_[k].surrogates]
    return pd.DataFrame(rows, columns=["node", "var", "agree", "adj"])


def _data_with_missing(seed: int, n: int):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 15, n).astype(float)
    b = np.round(a / 3 + rng.normal(size=n), 1)
    X = pd.DataFrame({
        "a": a, "b": b, "c": np.round(rng.normal(size=n), 2),
        "g": pd.Categorical(rng.choice(list("pqrstu"), n), categories=list("pqrstuv")),
        "h": pd.Categorical(np.where(a > 7, rng.choice(list("xy"), n), rng.choice(list("yz"), n))),
    })
    for col, share in [("a", 0.15), ("b", 0.1), ("c", 0.1), ("g", 0.15), ("h", 0.1)]:
        X.loc[rng.random(n) < share, col] = np.nan if col in "abc" else None
    ya = pd.Series(np.where(np.isnan(X["a"]), rng.normal(size=n) * 3 + 7,
                            a + (X["g"] == "q") * 3 + rng.normal(size=n)))
    yc = pd.Series(np.where(a > 6, "hi", np.where(b > 1, "mid", "lo")))
    yc[rng.random(n) < 0.2] = "lo"
    new = X.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    new.loc[:20, "a"] = np.nan  # force routing by surrogates / majority
    return X, ya, yc, new


@pytest.mark.parametrize(("seed", "method", "n", "cp"), [
    (0, "anova", 300, 1e-3), (1, "class", 300, 1e-3),
    (2, "anova", 700, 1e-8), (3, "class", 700, 1e-8),
])
def test_surrogates_with_missing_predictors(seed, method, n, cp):
    """Node membership, predict routing and the surrogate lists equal R's rpart."""
    X, ya, yc, new = _data_with_missing(seed, n)
    y = ya if method == "anova" else yc
    r = _fit(X, y, method, cp=cp, newdata=new)
    ours = RpartTree(method, minbucket=5, cp=cp).fit(X, y)
    pd.testing.assert_series_equal(ours.where_, r.where, check_names=False)
    pd.testing.assert_series_equal(ours.apply(new), r.predicted_nodes, check_names=False)
    rs = r.surrogates.sort_values("node", kind="stable").reset_index(drop=True)
    os_ = _surrogate_table(ours)
    assert len(rs) >= 3
    assert os_["node"].tolist() == rs["node"].tolist()
    assert os_["var"].tolist() == rs["var"].tolist()
    np.testing.assert_allclose(os_[["agree", "adj"]].to_numpy(), rs[["agree", "adj"]].to_numpy(),
                               rtol=1e-12)
    # without surrogates the memberships differ: the comparison above can fail
    bare = RpartTree(method, minbucket=5, cp=cp, maxsurrogate=0).fit(X, y)
    assert not bare.where_.equals(ours.where_)
