"""Numeric columns with one distinct value, against live synthpop 1.9-3.

synthpop's ``syn`` (``minnumlevels = 1``) turns a numeric column with at most one distinct
non-NA value (``length(table(x)) <= 1``; ``Inf`` counts as a value) into a factor when it has
predictors or is a predictor, before its constant check. With NAs the factor gets the level
``"NAtemp"``, so it is not constant: it is synthesised (by ``"sample"`` or ``"cart"``) and used
as a factor predictor, then turned back into numbers (``as.numeric(as.character(.))``, 15
significant digits) at the end. These tests compare idrisk's output with R's, value for value.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.synthesis import CARTSynthesizer, syn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthpop_live import as_codes, needs_synthpop, synthpop_syn  # noqa: E402


def _live(f):
    """The marks of a test that runs synthpop in R."""
    for mark in needs_synthpop:
        f = mark(f)
    return f


def _data(seed: int, value: float, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(10, 3, n), 1)
    c = np.where(rng.random(n) < 0.3, np.nan, value)  # one value or NA
    y = np.round(x + 4 * np.isnan(c) + rng.normal(0, 1, n), 2)
    return pd.DataFrame({"x": x, "c": c, "y": y})


_CASES = {  # name -> (value of c, visit sequence)
    "synthesised": (3.5, ["x", "c"]),
    "synthesised_predictor": (3.5, ["x", "c", "y"]),
    "sampled_predictor": (2.0, ["c", "x", "y"]),
    "inf": (np.inf, ["x", "c", "y"]),
    "third": (1 / 3, ["x", "c", "y"]),
}


def _same(ours: list[pd.DataFrame], ref: np.ndarray) -> None:
    assert len(ours) == len(ref)
    for frame, r in zip(ours, ref):
        np.testing.assert_array_equal(as_codes(frame), r)


@_live
@pytest.mark.parametrize("case", sorted(_CASES))
@pytest.mark.parametrize(("seed", "m"), [(5, 1), (6, 2)])
def test_one_value_columns_match_synthpop(tmp_path, case, seed, m):
    value, vs = _CASES[case]
    d = _data(seed, value)
    ref = synthpop_syn(tmp_path, d, m, seed, visit_sequence=vs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no constant-column (Inf) warning: c is synthesised
        res = syn(d, m=m, syn=vs, seed=seed)
    _same(res.frames, ref)
    assert all(out["c"].dtype == d["c"].dtype for out in res.frames)


@_live
@pytest.mark.parametrize("seed", [7, 8])
def test_one_value_predictor_outside_the_visit_sequence(tmp_path, seed):
    d = _data(seed, 3.5)
    pm = np.zeros((3, 3), dtype=int)
    pm[2, :2] = 1  # y from x and c; c is not synthesised
    ref = synthpop_syn(tmp_path, d, 2, seed, visit_sequence=["x", "y"],
                       method=["sample", "", "cart"], predictor_matrix=pm)
    res = syn(d, m=2, syn=["x", "y"], seed=seed, method=["sample", "", "cart"],
              predictor_matrix=pm)
    _same(res.frames, ref)
    for out in res.frames:
        pd.testing.assert_series_equal(out["c"], d["c"])


@_live
@pytest.mark.parametrize("seed", [9, 10])
def test_one_value_without_missing_values_is_constant(tmp_path, seed):
    # R: a factor of one level is constant; the column comes back as as.numeric of its label
    d = _data(seed, 1 / 3).assign(c=1 / 3)
    ref = synthpop_syn(tmp_path, d, 2, seed, visit_sequence=["x", "c", "y"])
    res = syn(d, m=2, syn=["x", "c", "y"], seed=seed)
    _same(res.frames, ref)


def test_one_value_column_is_synthesised_as_a_factor():
    d = _data(3, 3.5)
    fitted = CARTSynthesizer(syn=["x", "c"]).fit(d)
    assert fitted.methods_ == {"x": "sample", "c": "cart", "y": ""}
    out = syn(d, m=1, syn=["x", "c"], seed=3).frames[0]
    assert out["c"].dtype == np.float64
    assert set(out["c"].dropna()) == {3.5}
    assert not out["c"].isna().equals(d["c"].isna())

