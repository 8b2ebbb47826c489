"""Routing by table look-up (idrisk.synthesis._route_table) against the tree's own routing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis._route_table import RouteTable
from idrisk.synthesis.rpart_tree import RpartTree


def _problem(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([40, 150, 600]))
    X = pd.DataFrame({
        "a": np.round(rng.normal(size=n), int(rng.integers(0, 3))),
        "g": pd.Categorical(rng.choice(["p", "q", "r"], n), categories=["p", "q", "r", "s"]),
        "b": rng.normal(size=n),
        "c": rng.integers(0, 5, n).astype(float),
    })
    for c in ["a", "g", "c"]:
        X.loc[rng.random(n) < 0.1 * (seed % 3), c] = np.nan  # surrogates in play
    y = (X["b"] > 0) * 2 + X["c"].fillna(1) + rng.normal(size=n)
    if seed % 2:
        return X, pd.Series(np.where(y > 2, "hi", "lo")), "class", rng
    return X, y, "anova", rng


def _rows(tree: RpartTree, X: pd.DataFrame, rng) -> np.ndarray:
    """New rows: the data's values shuffled per column, every split's cut exactly, values
    just beside the cuts, +-inf and NaN in every column."""
    xm = tree._encode_X(X, fitting=False)
    cuts = tree._flat_tree()[11]
    cuts = cuts[~np.isnan(cuts)]
    extra = np.concatenate([cuts, np.nextafter(cuts, -np.inf), np.nextafter(cuts, np.inf),
                            [np.inf, -np.inf, np.nan]])
    parts = [xm[rng.permutation(xm.shape[0])] for _ in range(3)]
    block = np.empty((extra.size, xm.shape[1]))
    for j, name in enumerate(tree.feature_names_):
        col = xm[rng.integers(0, xm.shape[0], extra.size), j]
        if tree.levels_[name] is None:
            col = extra[rng.permutation(extra.size)]
        else:
            col[rng.random(extra.size) < 0.2] = np.nan
        block[:, j] = col
    for part in parts:  # columns shuffled separately: new combinations
        for j in range(part.shape[1]):
            part[:, j] = part[rng.permutation(part.shape[0]), j]
    return np.vstack([*parts, block])


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("maxsurrogate", [0, 2, 5])
def test_table_routing_equals_tree_routing(seed, maxsurrogate):
    X, y, method, rng = _problem(seed)
    tree = RpartTree(method, minbucket=int(rng.choice([1, 3, 7])), cp=0.0,
                     maxsurrogate=maxsurrogate).fit(X, y)
    table = RouteTable.build(tree, max_cells=10**7)
    assert table is not None
    rows = _rows(tree, X, rng)
    np.testing.assert_array_equal(table.apply(rows), tree.apply_encoded(rows))


def test_too_many_cells_gives_no_table():
    X, y, method, rng = _problem(0)
    tree = RpartTree(method, minbucket=1, cp=0.0).fit(X, y)
    assert RouteTable.build(tree, max_cells=4) is None
