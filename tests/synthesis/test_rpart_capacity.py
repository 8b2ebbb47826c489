"""The compiled tree's node slots (``_rpart_grow.node_capacity``): the bound from
``minbucket`` is never exceeded, and a tree grown again after an overflow (``2 n + 1`` slots)
is the same tree."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis import _rpart_grow
from idrisk.synthesis.rng import RStream
from idrisk.synthesis.rpart_tree import RpartTree


def _data(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    X = pd.DataFrame({
        "f": pd.Categorical(rng.integers(0, 7, n).astype(str)),
        "x": x,
        "z": rng.integers(0, 5, n).astype(float),
    })
    y = pd.Series(rng.normal(size=n) + (X["f"].cat.codes.to_numpy() % 3))
    return X, y


def _fit(X, y, mb, monkeypatch=None, cap=None):
    if monkeypatch is not None:
        monkeypatch.setattr(_rpart_grow, "node_capacity", lambda n, minbucket: cap)
    return RpartTree("anova", minbucket=mb, cp=1e-8, maxsurrogate=3).fit(X, y, rng=RStream(1))


@pytest.mark.parametrize("mb", [1, 2, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_bound_holds(monkeypatch, mb, seed):
    X, y = _data(seed)
    calls = []
    real = _rpart_grow.grow

    def counted(*args):
        calls.append(args[-1])
        return real(*args)

    monkeypatch.setattr(_rpart_grow, "grow", counted)
    tree = _fit(X, y, mb)
    assert calls == [_rpart_grow.node_capacity(len(y), mb)]  # grown once: the bound held
    assert len(tree.nodes_) <= calls[0]


@pytest.mark.parametrize("mb", [1, 5])
def test_overflow_grows_the_same_tree_again(monkeypatch, mb):
    X, y = _data(3)
    expected = _fit(X, y, mb)
    again = _fit(X, y, mb, monkeypatch, cap=3)  # too few slots: grown again with 2 n + 1
    assert sorted(again.nodes_) == sorted(expected.nodes_)
    pd.testing.assert_series_equal(again.where_, expected.where_)
    for k, node in expected.nodes_.items():
        other = again.nodes_[k]
        assert (other.var, other.n, other.yval) == (node.var, node.n, node.yval)
        np.testing.assert_array_equal(other.cut, node.cut)  # NaN for a factor split
        if node.csplit is not None:
            assert other.csplit.dtype == np.int64
            np.testing.assert_array_equal(other.csplit, node.csplit)
