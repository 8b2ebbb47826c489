"""The compiled tree growing and routing against R's rpart, and the compiled kernels of the
CART synthesizer against small Python references.

The tree kernels (split search, surrogates, division of the rows, rpart's quicksort, routing
of new rows) are checked against R's own ``rpart`` on random problems with ties, factors
(unused levels too), missing predictors and responses and every surrogate setting: the nodes,
their split variables, sizes and deviances, every row's leaf, the routing of new rows and the
surrogate lists must be R's. rpart's quicksort is checked against a Python transcription of
``mysort.c`` kept here as the oracle.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk.rcompat.rpart import r_available
from idrisk.synthesis import _kernels
from idrisk.synthesis.rpart_tree import RpartTree, rpart_sort_order

needs_r = pytest.mark.skipif(not r_available(),
                             reason="needs rpy2==3.5.17, R and the R package rpart")


def _r_fit_code() -> str:
    """idrisk.rcompat.rpart's R function, with rpart's surrogate controls as two more
    arguments (rpart_fit keeps R's defaults, 5 and 2)."""
    from idrisk.rcompat.rpart import _R_CODE

    head = "function(df, method, minbucket, minsplit, cp, maxdepth, xval, seed, newdata)"
    ctrl = "maxdepth = maxdepth, xval = xval)"
    assert _R_CODE.count(head) == 1 and _R_CODE.count(ctrl) == 1
    return (_R_CODE.replace(head, head[:-1] + ", maxsurrogate, usesurrogate)")
            .replace(ctrl, ctrl[:-1] + ", maxsurrogate = maxsurrogate, "
                                       "usesurrogate = usesurrogate)"))


def _r_tree(method, X, y, options, new) -> dict:
    """R's rpart with these controls: node table, leaves, routing of ``new``, surrogates."""
    from idrisk.rcompat.rpart import _require_r, _to_r_frame

    ro, pandas2ri, localconverter = _require_r()
    df = X.reset_index(drop=True).copy()
    yy = y.reset_index(drop=True)
    df.insert(0, ".y", pd.Categorical(yy.astype(object)) if method == "class" else yy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ro.r(_r_fit_code())(
            _to_r_frame(df, ro, pandas2ri, localconverter), method, options["minbucket"],
            3 * options["minbucket"], options["cp"], options["maxdepth"], 0, ro.NULL,
            _to_r_frame(new, ro, pandas2ri, localconverter), options["maxsurrogate"],
            options["usesurrogate"])
    return {k: list(out.rx2(k)) for k in ("where", "nodes", "var", "n", "dev", "pred",
                                          "s_node", "s_var", "s_agree", "s_adj")}


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
        "h": pd.Categorical(rng.choice(["u", "v", "w"], n)),
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


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.needs_r
@needs_r
def test_compiled_tree_equals_r_rpart(seed):
    method, X, y, options = _random_problem(seed)
    new = X.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    new.loc[: len(new) // 10, "b"] = np.nan  # routed by surrogates / majority
    ours = RpartTree(method, **options).fit(X, y)
    # rows exactly at every numeric cut (primary and surrogate): x < cut goes one way
    cuts = [(sp.var, sp.cut) for nd in ours.nodes_.values() if not nd.is_leaf
            for sp in [nd, *nd.surrogates] if sp.csplit is None]
    for i, (var, cut) in enumerate(cuts[: len(new) - len(new) // 10 - 1]):
        new.loc[len(new) - 1 - i, ours.feature_names_[var]] = cut
    r = _r_tree(method, X, y, options, new)
    numbers = sorted(ours.nodes_)
    assert numbers == sorted(int(v) for v in r["nodes"])
    by_number = dict(zip((int(v) for v in r["nodes"]), zip(r["var"], r["n"], r["dev"])))
    for k in numbers:
        nd = ours.nodes_[k]
        var = "<leaf>" if nd.is_leaf else ours.feature_names_[nd.var]
        assert (var, nd.n) == (by_number[k][0], int(by_number[k][1])), k
        assert nd.risk == pytest.approx(by_number[k][2], rel=1e-12, abs=1e-12), k
    assert ours.where_.tolist() == [int(v) for v in r["where"]]
    assert ours.apply(new).tolist() == [int(v) for v in r["pred"]]
    sur = [(k, ours.feature_names_[sp.var], sp.agreement, sp.adj)
           for k in numbers if not ours.nodes_[k].is_leaf for sp in ours.nodes_[k].surrogates]
    r_sur = sorted(zip((int(v) for v in r["s_node"]), r["s_var"], r["s_agree"], r["s_adj"]),
                   key=lambda t: t[0])  # stable: R's order within a node
    assert [s[:2] for s in sur] == [s[:2] for s in r_sur]
    np.testing.assert_allclose([s[2:] for s in sur], [s[2:] for s in r_sur], rtol=1e-12)


@pytest.mark.parametrize(("xs", "y", "method"), [
    (["Tenure", "Expenditure"], "Income", "anova"),
    (["Age", "Educ", "Income"], "Marital", "class"),
    (["Age", "Urban", "Income", "Expenditure"], "Tenure", "class"),
])
@pytest.mark.needs_r
@needs_r
def test_compiled_ce_trees_equal_r_rpart(ce, xs, y, method):
    options = dict(minbucket=5, cp=1e-8, maxdepth=30, maxsurrogate=5, usesurrogate=2)
    ours = RpartTree(method, **options).fit(ce[xs], ce[y])
    r = _r_tree(method, ce[xs], ce[y], options, ce[xs])
    assert ours.where_.tolist() == [int(v) for v in r["where"]]
    assert [ours.nodes_[k].n for k in sorted(ours.nodes_)] == \
        [int(n) for _, n in sorted(zip(r["nodes"], r["n"]))]


def _mysort(start: int, stop: int, x: list, cvec: list) -> None:
    """rpart's ``mysort.c`` (quicksort, median of three, insertion sort below 11), in Python:
    the oracle of the compiled :func:`idrisk.synthesis._rpart_kernels.mysort`."""
    while start < stop:
        if stop - start < 11:
            for i in range(start + 1, stop + 1):
                temp, tempd = x[i], cvec[i]
                j = i - 1
                while j >= start and x[j] > temp:
                    x[j + 1], cvec[j + 1] = x[j], cvec[j]
                    j -= 1
                x[j + 1], cvec[j + 1] = temp, tempd
            return
        i, j, k = start, stop, (start + stop) // 2
        median = x[k]
        if x[i] >= x[k]:
            if x[j] > x[k]:
                median = x[j] if x[i] > x[j] else x[i]
        elif x[j] < x[k]:
            median = x[i] if x[i] > x[j] else x[j]
        while i < j:
            while x[i] < median:
                i += 1
            while x[j] > median:
                j -= 1
            if i < j:
                if x[i] > x[j]:
                    x[i], x[j] = x[j], x[i]
                    cvec[i], cvec[j] = cvec[j], cvec[i]
                i += 1
                j -= 1
        while x[i] >= median and i > start:
            i -= 1
        while x[j] <= median and j < stop:
            j += 1
        if (i - start) < (stop - j):
            if (i - start) > 0:
                _mysort(start, i, x, cvec)
            start = j
        else:
            if (stop - j) > 0:
                _mysort(j, stop, x, cvec)
            stop = i


@pytest.mark.parametrize("seed", range(6))
def test_compiled_mysort_equals_python_mysort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([5, 12, 50, 1000, 20000]))
    x = rng.integers(0, max(2, n // int(rng.choice([2, 10, 100]))), n).astype(float)
    cvec = list(range(n))
    _mysort(0, n - 1, x.tolist(), cvec)
    np.testing.assert_array_equal(rpart_sort_order(x), cvec)


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
