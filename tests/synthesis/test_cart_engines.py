"""The compiled tree growing (numba) against the numpy/Python fallback, bit for bit.

Both engines must give the same nodes: same splits, surrogates and every floating-point
value (risk, improvement, complexity, agreement) to the last bit, and the same leaves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis import _kernels, rpart_tree
from idrisk.synthesis.rpart_tree import RpartTree, rpart_sort_order

pytestmark = pytest.mark.skipif(not _kernels.HAVE_NUMBA, reason="numba is not installed")


def _bits(v) -> str | None:
    return None if v is None else float(v).hex()


def _cs(a) -> list | None:
    return None if a is None else a.tolist()


def _signature(tree: RpartTree) -> list:
    """Every node field and surrogate of a fitted tree, floats as exact hex strings."""
    out = []
    for k in sorted(tree.nodes_):
        nd = tree.nodes_[k]
        sur = [(s.var, _bits(s.cut), s.direction, _cs(s.csplit), _bits(s.agreement),
                _bits(s.adj)) for s in nd.surrogates]
        out.append((k, nd.n, _bits(nd.risk), _bits(nd.yval), _cs(nd.counts),
                    _bits(nd.complexity), nd.var, _bits(nd.cut), nd.direction, _cs(nd.csplit),
                    _bits(nd.improve), nd.majority, sur))
    return out


def _random_problem(seed: int):
    """Numeric predictors with and without ties, factors (unused levels too), missing
    values in predictors and response; an anova or a class (2-4 classes) response."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([25, 60, 150, 400]))
    nl = int(rng.integers(2, 9))
    labels = [f"l{i}" for i in range(nl + 1)]
    X = pd.DataFrame({
        "a": np.round(rng.normal(size=n), int(rng.integers(0, 3))),
        "b": rng.normal(size=n),
        "g": pd.Categorical(rng.choice(labels[:nl], n), categories=labels),
        "h": rng.choice(["u", "v", "w"], n).astype(object),
        "c": rng.integers(0, 5, n).astype(float),
    })
    if seed % 3 == 0:
        for c in ["a", "g", "c"]:
            X.loc[rng.random(n) < 0.15, c] = np.nan
    if seed % 5 == 0:
        X.loc[rng.random(n) < 0.05, list(X.columns)] = np.nan
    signal = (X["b"].fillna(0) > 0) * 2 + X["c"].fillna(1) + rng.normal(size=n)
    if seed % 2 == 0:
        method = "anova"
        y = pd.Series(np.round(signal.to_numpy(), int(rng.integers(0, 2))))
    else:
        method = "class"
        k = int(rng.integers(2, 5))
        y = pd.Series(pd.cut(signal + rng.normal(size=n), k,
                             labels=[f"k{i}" for i in range(k)]).astype(str))
    if seed % 7 == 0:
        y[rng.random(n) < 0.05] = np.nan
    options = dict(minbucket=int(rng.choice([1, 2, 3, 5, 7])),
                   cp=float(rng.choice([1e-8, 1e-3, 0.01])),
                   maxdepth=int(rng.choice([3, 10, 30])),
                   maxsurrogate=int(rng.integers(0, 6)), usesurrogate=int(rng.integers(0, 3)))
    return method, X, y, options


def _fit_both(monkeypatch, method, X, y, options) -> tuple[RpartTree, RpartTree]:
    monkeypatch.setenv("IDRISK_ENGINE", "auto")
    fast = RpartTree(method, **options).fit(X, y)
    monkeypatch.setenv("IDRISK_ENGINE", "numpy")
    slow = RpartTree(method, **options).fit(X, y)
    monkeypatch.setenv("IDRISK_ENGINE", "auto")
    return fast, slow


def test_engine_switch(monkeypatch):
    monkeypatch.setenv("IDRISK_ENGINE", "auto")
    assert rpart_tree._use_kernels()
    monkeypatch.setenv("IDRISK_ENGINE", "numpy")
    assert not rpart_tree._use_kernels()


@pytest.mark.parametrize("seed", range(40))
def test_compiled_tree_equals_python_tree(monkeypatch, seed):
    method, X, y, options = _random_problem(seed)
    fast, slow = _fit_both(monkeypatch, method, X, y, options)
    assert _signature(fast) == _signature(slow)
    pd.testing.assert_series_equal(fast.where_, slow.where_)
    shuffled = X.sample(frac=1.0, random_state=seed)
    pd.testing.assert_series_equal(fast.apply(shuffled), slow.apply(shuffled))


@pytest.mark.parametrize(("xs", "y", "method"), [
    (["Tenure", "Expenditure"], "Income", "anova"),
    (["Age", "Educ", "Income"], "Marital", "class"),
    (["Age", "Urban", "Income", "Expenditure"], "Tenure", "class"),
])
def test_compiled_ce_trees_equal_python_trees(monkeypatch, ce, xs, y, method):
    fast, slow = _fit_both(monkeypatch, method, ce[xs], ce[y], {"minbucket": 5})
    assert _signature(fast) == _signature(slow)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_mysort_equals_python(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([5, 12, 50, 1000, 20000]))
    x = rng.integers(0, max(2, n // int(rng.choice([2, 10, 100]))), n).astype(float)
    monkeypatch.setenv("IDRISK_ENGINE", "numpy")
    slow = rpart_sort_order(x)
    monkeypatch.setenv("IDRISK_ENGINE", "auto")
    np.testing.assert_array_equal(rpart_sort_order(x), slow)


@pytest.mark.parametrize("nkeys", [0, 1, 2, 660])
def test_hash_lookup_equals_searchsorted(nkeys):
    rng = np.random.default_rng(nkeys)
    keys = np.unique(rng.integers(1, 2**40, nkeys)).astype(np.int64)
    values = np.concatenate([keys, rng.integers(0, 2**40, 500), [0, 1, 2**62]])
    rng.shuffle(values)
    pos = np.empty(values.size, dtype=np.int64)
    missing = _kernels.hash_lookup(*_kernels.hash_build(keys), values, pos)
    ref = np.searchsorted(keys, values)
    found = (ref < keys.size) & (keys[np.minimum(ref, max(keys.size - 1, 0))] == values) \
        if keys.size else np.zeros(values.size, dtype=bool)
    np.testing.assert_array_equal(pos, np.where(found, ref, -1))
    assert missing == int((~found).sum())
