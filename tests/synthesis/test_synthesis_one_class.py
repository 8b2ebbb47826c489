"""A proper bootstrap that keeps one class of a factor or logical response, against synthpop.

synthpop's ``syn.cart`` with ``proper = TRUE`` bootstraps the rows, makes the response
``factor(y)`` (unused levels dropped) and calls ``rpart(method = "class")``, which stops with
"number of rows of matrices must match (see arg 2)" when one class is left. idrisk stops there
too, with an :class:`~idrisk.exceptions.InputError` naming the column.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.exceptions import InputError
from idrisk.synthesis import syn
from idrisk.synthesis.rpart_tree import RpartTree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthpop_live import needs_synthpop, synthpop_syn  # noqa: E402

R_MESSAGE = "number of rows of matrices must match"


def _live(f):
    """The marks of a test that runs synthpop in R."""
    for mark in needs_synthpop:
        f = mark(f)
    return f


def _data(n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(0, 1, n), 2)
    y = np.array(["a"] * n, dtype=object)
    y[4] = "b"  # one "b": a bootstrap often misses it
    return pd.DataFrame({"x": x, "y": pd.Categorical(y, categories=["a", "b"])})


def _ours(d: pd.DataFrame, m: int, seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (0/0 in the class priors) leaks
        return syn(d, m=m, syn=["x", "y"], seed=seed, proper=True)


@_live
@pytest.mark.parametrize(("seed", "m"), [(1, 1), (5, 1), (2, 2)])
def test_factor_with_one_class_left_stops_like_synthpop(tmp_path, seed, m):
    d = _data()
    with pytest.raises(RuntimeError, match=R_MESSAGE):
        synthpop_syn(tmp_path, d, m, seed, visit_sequence=["x", "y"], proper=True)
    with pytest.raises(InputError, match="column 'y'.*one class") as err:
        _ours(d, m, seed)
    assert err.value.column == "y"


@_live
@pytest.mark.parametrize("seed", [3, 4])
def test_factor_with_both_classes_kept_matches_synthpop(tmp_path, seed):
    d = _data()
    ref = synthpop_syn(tmp_path, d, 1, seed, visit_sequence=["x", "y"], proper=True)
    out = _ours(d, 1, seed).frames[0]
    np.testing.assert_array_equal(out["x"].to_numpy(), ref[0, 0])
    np.testing.assert_array_equal(out["y"].cat.codes.to_numpy() + 1, ref[0, 1])


@_live
@pytest.mark.parametrize("seed", [6, 8])
def test_missing_indicator_with_one_class_left_stops_like_synthpop(tmp_path, seed):
    # z has one NA: its missing-value indicator (synthpop's z.NA) is fitted by a class tree
    d = _data().drop(columns="y")
    noise = np.round(np.random.default_rng(1).normal(0, 1, len(d)), 2)
    d["z"] = np.where(np.arange(len(d)) == 7, np.nan, d["x"] * 2 + noise)
    with pytest.raises(RuntimeError, match=R_MESSAGE):
        synthpop_syn(tmp_path, d, 1, seed, visit_sequence=["x", "z"], proper=True)
    with pytest.raises(InputError, match="column 'z' \\(its missing-value indicator\\)") as err:
        syn(d, m=1, syn=["x", "z"], seed=seed, proper=True)
    assert err.value.column == "z"


_R_LOGICAL = r"""
suppressMessages(library(synthpop))
a <- commandArgs(TRUE)
d <- data.frame(x = as.numeric(strsplit(a[1], ",")[[1]]), y = as.logical(strsplit(a[2], ",")[[1]]))
r <- tryCatch({syn(d, m = 1, seed = as.integer(a[3]), proper = TRUE, print.flag = FALSE); "OK"},
              error = function(e) conditionMessage(e))
cat("\n@@", r, "\n")
"""


@_live
@pytest.mark.parametrize("seed", [1, 5])
def test_logical_with_one_class_left_stops_like_synthpop(seed):
    d = _data().assign(y=lambda f: f["y"] == "b")
    r = subprocess.run(["Rscript", "-e", _R_LOGICAL, ",".join(f"{v:.17g}" for v in d["x"]),
                        ",".join("TRUE" if v else "FALSE" for v in d["y"]), str(seed)],
                       capture_output=True, text=True, check=True)
    assert R_MESSAGE in r.stdout.rsplit("@@", 1)[-1]
    with pytest.raises(InputError, match="column 'y'.*one class"):
        _ours(d, 1, seed)


def test_rpart_tree_refuses_one_class():
    x = pd.DataFrame({"x": np.arange(10.0)})
    y = pd.Series(pd.Categorical(["a"] * 10, categories=["a", "b"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="one class"):
            RpartTree("class").fit(x, y)
