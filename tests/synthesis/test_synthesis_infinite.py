"""Inf and -Inf in numeric columns of the CART synthesis (idrisk.synthesis) as synthpop 1.9-3.

R's ``var`` of a vector holding ``Inf`` is NaN, and synthpop's ``syn`` counts a numeric column
whose variance is NaN as constant: it prints "Variable y has only one value so its method has
been changed to "constant"", copies the column unchanged into every synthetic dataset
(``syn.constant`` with ``k = nrow(data)``) and removes it from the predictors. idrisk does the
same, with an :class:`~idrisk.exceptions.InfiniteValuesWarning` (it used to grow a tree on the
infinite response).
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from idrisk.exceptions import InfiniteValuesWarning
from idrisk.synthesis import CARTSynthesizer, syn


def _data(n: int = 150, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = np.arange(1, n + 1)
    y = np.round(rng.normal(size=n), 3)
    y[[7, n - 1]] = [np.inf, -np.inf]
    y[[20, 21]] = np.nan
    z = np.round(x / 10 + rng.normal(size=n), 2)
    return pd.DataFrame({"x": x, "y": y, "z": z})


def test_infinite_column_is_constant_and_kept_as_it_is():
    d = _data()
    with pytest.warns(InfiniteValuesWarning, match="column 'y' holds Inf"):
        res = syn(d, m=2, seed=1)
    for out in res.frames:
        pd.testing.assert_series_equal(out["y"], d["y"])  # R: identical(s$syn$y, d$y)
        assert not out["z"].equals(d["z"])
    fitted = CARTSynthesizer()
    with pytest.warns(InfiniteValuesWarning):
        fitted.fit(d)
    assert fitted.methods_ == {"x": "sample", "y": "constant", "z": "cart"}
    assert fitted.predictor_matrix_["y"].sum() == 0  # no longer a predictor of z
    assert fitted.predictor_matrix_.loc["z", "x"] == 1


def test_infinite_predictor_outside_the_visit_sequence_is_dropped():
    # R (synthpop 1.9-3): d <- data.frame(x = 1:200, y = rnorm(200), z = ...); d$y[7] <- Inf
    # pm <- matrix(0, 3, 3); pm[3, 2] <- 1
    # syn(d, visit.sequence = c(1, 3), method = c("sample", "", "cart"), predictor.matrix = pm)
    # -> "Variable y removed as predictor because only one value."; z's method "sample"
    d = _data()
    pm = np.zeros((3, 3))
    pm[2, 1] = 1
    with pytest.warns(InfiniteValuesWarning, match="column 'y'"):
        fitted = CARTSynthesizer(syn=["x", "z"], method=["sample", "", "cart"],
                                 predictor_matrix=pm).fit(d)
    assert fitted.predictor_matrix_.to_numpy().sum() == 0
    assert fitted.methods_["z"] == "sample"


_R_INF = r"""
suppressMessages(library(synthpop))
d <- data.frame(x = %s, y = %s, z = %s)
d <- d[c(%s)]
s <- syn(d, m = 2, method = c(%s), seed = 1, print.flag = FALSE)
cat(sprintf("%%.17g", unlist(lapply(s$syn, function(o) unlist(o)))))
"""


def _r_vector(values: np.ndarray) -> str:
    text = ["NA" if np.isnan(v) else ("Inf" if v > 0 else "-Inf") if np.isinf(v) else repr(v)
            for v in values.astype(float).tolist()]
    return "c(" + ", ".join(text) + ")"


@pytest.mark.needs_r
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) not found")
@pytest.mark.parametrize(("columns", "method"), [
    (["x", "y", "z"], ["sample", "cart", "cart"]),
    (["y", "x", "z"], ["sample", "cart", "cart"]),  # R: y constant, so x is sampled
    (["x", "z", "y"], ["sample", "cart", "cart"]),
])
def test_against_live_synthpop(columns, method):
    d = _data()[columns]
    code = _R_INF % (_r_vector(d["x"].to_numpy()), _r_vector(d["y"].to_numpy()),
                     _r_vector(d["z"].to_numpy()), ", ".join(f'"{c}"' for c in columns),
                     ", ".join(f'"{m}"' for m in method))
    r = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    ref = np.array([np.nan if t == "NA" else float(t) for t in r.stdout.split()])
    ref = ref.reshape(2, len(columns), len(d))
    with pytest.warns(InfiniteValuesWarning):
        res = syn(d, m=2, method=method, seed=1)
    for i, out in enumerate(res.frames):
        np.testing.assert_array_equal(out.to_numpy(dtype=float).T, ref[i])
