"""Regression tests from the review of issue 30's engine work: a refilled synthetic buffer is
not mistaken for the last dataset's, a ``shared_preparation`` block counts with each
caller's own matching rules and still checks declared columns, and results do not share one
mutable checks header."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from idrisk import identification_risk
from idrisk.analysis import radius_sweep
from idrisk.datasets import load_demo
from idrisk.risk.matching import CountCache, MatchRule, count_matches
from idrisk.risk.prepared import shared_preparation

from .test_fewgrid import brute


def test_a_refilled_buffer_is_counted_as_a_new_dataset():
    rng = np.random.default_rng(0)
    n = 200
    tkey = rng.integers(0, 2, n)
    skey = tkey.copy()
    x = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 100, n)]).astype(float)
    d = np.full((n, 2), 0.5)
    rule = MatchRule()
    buf = np.empty((n, 2), order="F")  # one buffer, refilled per dataset (a view per column)
    cache = CountCache()
    for _ in range(3):
        buf[:, 0] = rng.integers(0, 5, n)  # few values: the few-values grid
        buf[:, 1] = rng.integers(0, 100, n)
        got, _ = count_matches(tkey, skey, x, d, buf, rule, 2, cache)
        np.testing.assert_array_equal(got, brute(tkey, skey, x, d, buf, rule))


@pytest.fixture(scope="module")
def demo():
    conf = load_demo(n=400, seed=1)
    syn = [conf.assign(Income=conf["Income"].sample(frac=1, random_state=k).to_numpy())
           for k in range(3)]
    return conf, syn


def test_a_shared_block_counts_with_each_callers_rules(demo):
    conf, syn = demo
    known, target = ["Age", "Urban"], ["Income"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outside = radius_sweep(conf, syn, known, target, radii=[0.05, 0.2], closed=False,
                               percentage=True, progress=False)
        alone = identification_risk(conf, syn, known, target, r=0.1, closed=True,
                                    percentage=False)
        with shared_preparation():
            first = identification_risk(conf, syn, known, target, r=0.1, closed=True,
                                        percentage=False)
            inside = radius_sweep(conf, syn, known, target, radii=[0.05, 0.2], closed=False,
                                  percentage=True, progress=False)
            again = identification_risk(conf, syn, known, target, r=0.1, closed=True,
                                        percentage=False)
    pd.testing.assert_frame_equal(inside, outside)
    for res in (first, again):
        np.testing.assert_array_equal(res.exp_risk.to_numpy(), alone.exp_risk.to_numpy())


def test_a_shared_block_still_names_a_missing_declared_column(demo):
    conf, syn = demo
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with shared_preparation():
            identification_risk(conf, syn, ["Age", "Urban"], ["Income"], r=0.1)
            with pytest.raises(KeyError, match="Nope"):
                identification_risk(conf, syn, ["Age", "Urban"], ["Income"], r=0.1,
                                    categorical=["Nope"])


def test_results_do_not_share_the_checks_header(demo):
    conf, syn = demo
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = identification_risk(conf, syn, ["Age", "Urban"], ["Income"], r=0.1)
        b = identification_risk(conf, syn, ["Age", "Urban"], ["Income"], r=0.1)
    assert a.checks is not None and b.checks is not None
    a.checks.columns.name = "check"
    assert b.checks.columns.name is None
