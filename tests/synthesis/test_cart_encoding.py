"""The synthesizer's encoding of categorical predictors by a code look-up against the tree's
own :meth:`RpartTree.encode_column`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis.cart_synthesis import _Synthesizer
from idrisk.synthesis.rng import RStream
from idrisk.synthesis.rpart_tree import RpartTree


def _setup(seed: int):
    rng = np.random.default_rng(seed)
    n = 300
    g = pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["a", "b", "c", "d"])
    X = pd.DataFrame({"g": g, "x": rng.normal(size=n)})
    y = pd.Series((np.asarray(g.codes) == 1) * 3.0 + X["x"] + rng.normal(size=n))
    tree = RpartTree(minbucket=5).fit(X, y)
    data = X.assign(y=y)
    pm = pd.DataFrame(0, index=data.columns, columns=data.columns)
    synth = _Synthesizer(data, ["g", "x", "y"], {"g": "sample", "x": "sample", "y": "cart"},
                         pm, 5, 1e-8, False, RStream(1))
    return synth, tree, rng


@pytest.mark.parametrize("seed", range(4))
def test_code_lookup_equals_encode_column(seed):
    synth, tree, rng = _setup(seed)
    cats = ["a", "b", "c", "d"]
    for order in (cats, cats[::-1], ["b", "a", "d", "c"]):
        for _ in range(2):  # the second call uses the cached look-up
            codes = rng.integers(-1, 4, 500)
            values = pd.Categorical.from_codes(codes, categories=order)
            got = synth._encode("y", tree, "g", values)
            want = tree.encode_column("g", pd.Series(values))
            np.testing.assert_array_equal(got, want)
    x = rng.normal(size=50)
    np.testing.assert_array_equal(synth._encode("y", tree, "x", x),
                                  tree.encode_column("x", pd.Series(x)))


def test_unknown_category_raises_only_when_used():
    synth, tree, rng = _setup(0)
    unused = pd.Categorical(["a", "b"], categories=["a", "b", "z"])
    np.testing.assert_array_equal(synth._encode("y", tree, "g", unused), [1.0, 2.0])
    with pytest.raises(ValueError, match="new levels"):
        synth._encode("y", tree, "g", pd.Categorical(["a", "z"], categories=["a", "b", "z"]))


def _reference_predictor_matrix(data, vs, methods, predictor_matrix):
    """The pandas version (label look-ups cell by cell) the synthesizer used before."""
    cols = list(data.columns)
    pm = pd.DataFrame(0, index=cols, columns=cols, dtype=np.int64)
    if predictor_matrix is None:
        for j, v in enumerate(vs):
            for u in vs[:j]:
                pm.loc[v, u] = 1
    else:
        given = pd.DataFrame(predictor_matrix)
        if list(given.index) != cols or list(given.columns) != cols:
            given = pd.DataFrame(np.asarray(given), index=cols, columns=cols)
        pm.loc[:, :] = (np.asarray(given) != 0).astype(np.int64)
        for j, v in enumerate(vs):
            for u in vs[j:]:
                if pm.loc[v, u]:
                    pm.loc[v, u] = 0
    for c in cols:
        if methods[c] in ("", "sample", "constant"):
            pm.loc[c, :] = 0
    for c in cols:
        if methods[c] == "constant":
            pm.loc[:, c] = 0
    return pm


def _reference_is_constant(col):
    vals = col.dropna()
    if vals.empty:
        return True
    if isinstance(col.dtype, pd.CategoricalDtype) or col.dtype == object:
        return vals.nunique() == 1 and not col.isna().any()
    return bool(np.var(vals.to_numpy(dtype=float), ddof=1) < 1000 * np.finfo(float).eps) \
        if len(vals) > 1 else True


@pytest.mark.parametrize("seed", range(30))
def test_settings_equal_the_pandas_reference(seed):
    from idrisk.synthesis.cart_synthesis import _is_constant, _predictor_matrix

    rng = np.random.default_rng(seed)
    cols = [f"c{i}" for i in range(int(rng.integers(1, 7)))]
    data = pd.DataFrame({c: rng.normal(size=4) for c in cols})
    vs = list(rng.permutation(cols)[: int(rng.integers(1, len(cols) + 1))])
    methods = {c: (str(rng.choice(["cart", "sample", "constant"])) if c in vs else "")
               for c in cols}
    given = None
    if seed % 2:
        given = rng.choice([0.0, 1.0, 2.0, np.nan], size=(len(cols), len(cols)))
        if seed % 4 == 1:
            given = pd.DataFrame(given, index=cols, columns=cols)
    pd.testing.assert_frame_equal(_predictor_matrix(data, vs, methods, given),
                                  _reference_predictor_matrix(data, vs, methods, given))
    n = int(rng.integers(0, 5))
    for col in (pd.Series(rng.choice([1.0, 2.0, np.nan], n)), pd.Series([3.0] * n),
                pd.Series(rng.integers(0, 2, n)), pd.Series([np.nan] * n),
                pd.Series(np.full(n, 1.0) + rng.normal(size=n) * 1e-9),
                pd.Series([1.0, 1.0 + 8e-7, np.nan])):  # constant only with ddof = 0
        assert _is_constant(col) == _reference_is_constant(col)


@pytest.mark.parametrize("seed", range(6))
def test_routing_by_row_codes_equals_the_tree(seed):
    """Predictors drawn from the data's rows are routed by the cell codes of those rows
    (computed once per tree); the nodes equal the tree's own routing of the values."""
    from idrisk.synthesis import CARTSynthesizer

    rng = np.random.default_rng(seed)
    n = 400
    g = pd.Categorical(rng.choice(["a", "b", "c"], n))
    x = np.round(rng.normal(size=n) + (np.asarray(g.codes) == 1), 1)
    y = np.round(2 * x + rng.normal(size=n), 1)
    data = pd.DataFrame({"g": g, "x": x, "y": y})
    pad = CARTSynthesizer(syn=["g", "x", "y"]).fit(data)._padded
    synth = _Synthesizer(pad.data, pad.vs, pad.methods, pad.pm, 3, 1e-8, False, RStream(seed),
                         {}, 5)
    synth.replicate()  # grows the trees
    for _ in range(3):
        rows = {c: rng.integers(0, n, n) for c in ("g", "x")}
        cols = {"g": data["g"].array[rows["g"]], "x": x[rows["x"]], "y": y}
        for v in ("x", "y"):
            tree = synth.trees[v]
            xm = np.column_stack([tree.encode_column(c, pd.Series(cols[c]))
                                  for c in tree.feature_names_])
            want = tree.apply_encoded(xm)
            np.testing.assert_array_equal(synth._route(v, tree, cols, rows), want)
            np.testing.assert_array_equal(synth._route(v, tree, cols, {}), want)
