"""Missing values in synthesised columns (idrisk.synthesis, spec section 5.6)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis import syn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthpop_live import match_rate, needs_synthpop, synthpop_syn  # noqa: E402


def needs_synthpop_marks(f):
    """The marks of a test that runs synthpop in R."""
    for mark in needs_synthpop:
        f = mark(f)
    return f


def _data(seed: int = 0, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    f = rng.choice(["a", "b", "c"], n)
    x = np.round(rng.normal(size=n) + (f == "b") * 2, 1)
    y = np.round(x * 3 + rng.normal(size=n), 0)
    d = pd.DataFrame({"f": pd.Categorical(f, categories=["a", "b", "c", "d"]), "x": x, "y": y,
                      "k": np.arange(n)})
    d.loc[rng.random(n) < 0.12, "f"] = None
    d.loc[rng.random(n) < 0.2, "x"] = np.nan
    d.loc[rng.random(n) < 0.1, "y"] = np.nan
    return d


def test_missing_values_are_synthesised_and_restored():
    d = _data()
    res = syn(d, m=3, syn=["f", "x", "y"], seed=11)
    for out in res.frames:
        assert list(out.columns) == list(d.columns)
        assert out.dtypes.equals(d.dtypes)
        assert list(out["f"].cat.categories) == ["a", "b", "c", "d"]
        pd.testing.assert_series_equal(out["k"], d["k"])
        for c in ("x", "y"):  # observed synthetic values are original observed values
            assert out[c].dropna().isin(d[c].dropna()).all()
        # NA shares: f is a bootstrap; x, y come from trees for their NA indicators
        share = out[["f", "x", "y"]].isna().mean()
        np.testing.assert_allclose(share, d[["f", "x", "y"]].isna().mean(), atol=0.06)
    # the helper columns are gone; as synthpop: x's values ~ f (not its indicator, fitted on
    # the rows where x is observed), and y ~ f, x, x_1 (the pair last, value first)
    trees = res.fitted["trees"]
    assert list(trees["x"].feature_names_) == ["f"] and list(trees["x_1"].feature_names_) == ["f"]
    assert len(trees["x"].where_) == d["x"].notna().sum()
    assert list(trees["y"].feature_names_) == ["f", "x", "x_1"]
    assert "NAtemp" in trees["x_1"].levels_["f"]


def test_complete_columns_unaffected_by_missing_elsewhere():
    d = _data()
    full = d.assign(x=d["x"].fillna(0.5))
    a = syn(full, m=1, syn=["x"], seed=3).frames[0]
    b = syn(full.assign(k=np.where(d.index % 7 == 0, np.nan, d["k"])), m=1,
            syn=["x"], seed=3).frames[0]
    pd.testing.assert_series_equal(a["x"], b["x"])  # kept, unused column with NAs: no effect



def _random_data(seed: int, n: int, na: float) -> pd.DataFrame:
    """Numeric and factor columns, NAs in both (share ``na`` in the numeric ones)."""
    rng = np.random.default_rng(seed)
    f = rng.choice(list("abc"), n)
    g = rng.choice(list("uvwxy"), n)
    x = np.round(rng.gamma(2, 5, n) + (f == "b") * 4, 1)
    w = np.round(x * 2 + rng.normal(0, 3, n), 0)
    z = np.round(rng.normal(50, 10, n) + (g == "u") * 5, 2)
    d = pd.DataFrame({"f": pd.Categorical(f, categories=list("abc")), "x": x, "w": w,
                      "g": pd.Categorical(g, categories=list("uvwxy")), "z": z})
    d.loc[rng.random(n) < na, "x"] = np.nan
    d.loc[rng.random(n) < na * 1.5, "w"] = np.nan
    d.loc[rng.random(n) < 0.05, "f"] = None
    d.loc[rng.random(n) < na / 2, "z"] = np.nan
    return d


@needs_synthpop_marks
@pytest.mark.parametrize(("seed", "n", "na", "m", "vs"), [
    (1, 300, 0.1, 1, ["f", "x", "g", "w", "z"]),
    (2, 250, 0.3, 3, ["f", "x", "g", "w", "z"]),
    (3, 400, 0.05, 2, ["x", "f", "w", "z"]),       # a numeric with NAs sampled first
    (4, 300, 0.2, 1, ["w", "g", "z"]),             # f, x kept, not used
    (5, 350, 0.15, 2, ["z", "x", "f", "w"]),
    (6, 200, 0.4, 1, ["g", "z", "w"]),
])
def test_missing_values_equal_synthpop(tmp_path, seed, n, na, m, vs):
    """synthpop::syn (live) on random data with NAs in synthesised numeric and factor columns
    and in predictors: the same values, NA for NA."""
    d = _random_data(seed, n, na)
    ref = synthpop_syn(tmp_path, d, m, 100 + seed, visit_sequence=vs)
    assert match_rate(syn(d, m=m, syn=vs, seed=100 + seed).frames, ref) == 1.0


@needs_synthpop_marks
@pytest.mark.parametrize("seed", [7, 8])
def test_missing_values_with_sample_methods_proper_and_kept_predictors_equal_synthpop(
        tmp_path, seed):
    """Numeric columns with NAs sampled (method "sample" after the first), proper = TRUE, and a
    kept (not synthesised) numeric predictor with NAs."""
    d = _random_data(seed, 300, 0.2)
    vs = ["f", "x", "g", "w"]
    method = ["sample", "sample", "cart", "cart", ""]
    pm = np.zeros((5, 5), dtype=int)
    pm[3, [0, 1, 4]] = 1  # w ~ f, x, z (z kept, with NAs)
    pm[2, [0, 1]] = 1
    for proper in (False, True):
        ref = synthpop_syn(tmp_path, d, 2, seed, visit_sequence=vs, method=method,
                           predictor_matrix=pm, proper=proper)
        ours = syn(d, m=2, syn=vs, seed=seed, method=method, predictor_matrix=pm,
                   proper=proper).frames
        assert match_rate(ours, ref) == 1.0, proper


@needs_synthpop_marks
@pytest.mark.parametrize(("seed", "m"), [(8, 2), (9, 1)])
def test_density_smoothing_of_columns_with_missing_values_equals_synthpop(tmp_path, seed, m):
    """Smoothing of padded columns: only the values drawn for the rows drawn as observed,
    against the observed values (live synthpop::syn)."""
    d = _random_data(seed, 300, 0.15)
    vs = ["f", "x", "g", "w", "z"]
    ref = synthpop_syn(tmp_path, d, m, seed, visit_sequence=vs, smoothing="density")
    ours = syn(d, m=m, syn=vs, seed=seed, smoothing="density").frames
    assert match_rate(ours, ref) == 1.0
