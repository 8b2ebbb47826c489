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
