"""Utility measures: pMSE against synthpop's utility.gen output, ECDF, CI overlap, combining."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _shared import fixtures_dir
from scipy import stats

from idrisk.datasets import read_ce
from idrisk.utility import (
    ci_overlap,
    coefficient_ci_overlap,
    combine_partial,
    ecdf_utility,
    pmse,
    propensity_utility,
)


def _syn(scenario: int, k: int) -> pd.DataFrame:
    return read_ce(fixtures_dir("synthpop") / f"scenario{scenario}" / f"syn_{k:02d}.csv")


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return pd.read_csv(fixtures_dir("synthpop") / "utility.csv")


@pytest.mark.parametrize(("scenario", "datasets"), [(2, [1]), (3, [1, 2, 3]), (4, [7])])
def test_logit_pmse_matches_synthpop(ce, reference, scenario, datasets):
    res = pmse(ce, [_syn(scenario, k) for k in datasets], method="logit", resamp_method="none")
    ref = reference.query("scenario == @scenario and method == 'logit'").set_index("dataset")
    np.testing.assert_allclose(res.pMSE.to_numpy(), ref.loc[datasets, "pMSE"], rtol=1e-6)
    np.testing.assert_allclose(res.SPECKS.to_numpy(), ref.loc[datasets, "SPECKS"], atol=1e-9)


def test_cart_pmse_matches_synthpop(ce, reference):
    res = pmse(ce, [_syn(1, 1), _syn(1, 2)], method="cart", resamp_method="none")
    ref = reference.query("scenario == 1 and method == 'cart'").set_index("dataset")
    np.testing.assert_allclose(res.pMSE.to_numpy(), ref.loc[[1, 2], "pMSE"], rtol=1e-9)
    np.testing.assert_allclose(res.SPECKS.to_numpy(), ref.loc[[1, 2], "SPECKS"], atol=1e-12)


@pytest.mark.slow
def test_logit_s_pmse_pairs_matches_synthpop(ce, reference):
    """All 190 pairs of scenario 3 (about a minute): S_pMSE = pMSE / (mean pair pMSE / 2)."""
    syns = [_syn(3, k) for k in range(1, 21)]
    res = pmse(ce, syns, method="logit", progress=False)
    assert res.resamp_method == "pairs"  # incomplete synthesis -> pairs, as synthpop
    ref = reference.query("scenario == 3 and method == 'logit'").set_index("dataset")
    np.testing.assert_allclose(res.pMSE.to_numpy(), ref["pMSE"], rtol=1e-6)
    np.testing.assert_allclose(res.S_pMSE.to_numpy(), ref["S_pMSE"], rtol=1e-5)


def test_theory_null_and_propensity_utility():
    rng = np.random.default_rng(5)
    n = 400
    orig = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(list("abc"), n)})
    syn = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(list("abc"), n)})
    res = pmse(orig, syn, method="logit", maxorder=1)
    assert res.resamp_method == "theory"
    k = 1 + 1 + 2 + 2  # intercept, x, g(b, c), x:g
    assert res.n_params.iloc[0] == k
    c = 0.5
    null = (k - 1) * (1 - c) ** 2 * c / (2 * n)
    assert res.S_pMSE.iloc[0] == pytest.approx(res.pMSE.iloc[0] / null)
    # U_p of the article equals the logit pMSE with equal sizes, and is brute-force checkable
    X = np.column_stack([np.ones(2 * n), np.r_[orig.x, syn.x]])
    import statsmodels.api as sm

    p = sm.Logit(np.r_[np.zeros(n), np.ones(n)], X).fit(disp=0).predict()
    up = propensity_utility(orig[["x"]], syn[["x"]], method="logit", maxorder=0)
    assert up.iloc[0] == pytest.approx(np.mean((p - 0.5) ** 2), rel=1e-6)


def test_pmse_detects_bad_synthesis():
    rng = np.random.default_rng(2)
    orig = pd.DataFrame({"x": rng.normal(size=300)})
    good = pd.DataFrame({"x": rng.normal(size=300)})
    bad = pd.DataFrame({"x": rng.normal(1.0, size=300)})
    res = pmse(orig, [good, bad], method="logit", resamp_method="theory")
    assert res.pMSE[2] > 5 * res.pMSE[1]


def test_pmse_errors():
    d = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="method"):
        pmse(d, d, method="forest")
    with pytest.raises(KeyError, match=r"variables: .*\['x'\] not found in synthetic dataset 1"):
        pmse(d, d.rename(columns={"x": "y"}))
    # missing values are modelled as synthpop does (was: ValueError "missing"; issue 18)
    res = pmse(d, d.assign(x=[1.0, np.nan, 2.0]), method="logit", resamp_method="none")
    assert np.isfinite(res.pMSE).all()
    with pytest.raises(ValueError, match="pairs"):
        pmse(d, d, resamp_method="pairs")


def test_ecdf_utility_brute_force():
    rng = np.random.default_rng(0)
    a = rng.poisson(5, 60).astype(float)
    b = rng.poisson(6, 45).astype(float)
    pooled = np.r_[a, b]
    fa = np.array([(a <= z).mean() for z in pooled])
    fb = np.array([(b <= z).mean() for z in pooled])
    u = ecdf_utility(a, b).loc[1]
    assert list(u.index) == ["U_m", "U_a"]
    assert u["U_m"] == pytest.approx(np.abs(fa - fb).max())
    assert u["U_a"] == pytest.approx(np.mean((fa - fb) ** 2))
    assert u["U_m"] == pytest.approx(stats.ks_2samp(a, b).statistic)
    df = ecdf_utility(a, [b, a])
    assert df.shape == (2, 2)
    assert df.loc[2].tolist() == [0.0, 0.0]
    # a missing value is one category after every value (was: ValueError "missing")
    with_na = ecdf_utility(a, [1.0, np.nan]).loc[1]
    pooled = np.r_[a, 1.0, np.inf]
    fa = np.array([(a <= z).mean() for z in pooled])
    fs = np.array([(np.array([1.0, np.inf]) <= z).mean() for z in pooled])
    assert with_na["U_m"] == pytest.approx(np.abs(fa - fs).max())
    assert with_na["U_a"] == pytest.approx(np.mean((fa - fs) ** 2))
    assert ecdf_utility(a, b).shape == (1, 2)   # one type whatever the input


def test_combine_partial_formulas():
    q = np.array([1.2, 0.8, 1.1, 0.9, 1.3])
    u = np.array([0.04, 0.05, 0.045, 0.05, 0.04])
    ce = combine_partial(q, u, level=0.9)
    m = 5
    b = q.var(ddof=1)
    T = u.mean() + b / m
    df = (m - 1) * (1 + u.mean() / (b / m)) ** 2
    assert (ce.q_bar, ce.b, ce.u_bar) == pytest.approx((q.mean(), b, u.mean()))
    assert (ce.T, ce.df) == pytest.approx((T, df))
    half = stats.t.ppf(0.95, df) * np.sqrt(T)
    assert (ce.ci_low, ce.ci_high) == pytest.approx((q.mean() - half, q.mean() + half))
    assert "CombinedEstimate(q_bar=" in repr(ce)
    assert ce.to_frame().shape == (1, 9)
    same = combine_partial([2.0, 2.0], [1.0, 1.0])
    assert np.isinf(same.df) and same.ci_high == pytest.approx(2 + stats.norm.ppf(0.975))
    with pytest.raises(ValueError, match="same length"):
        combine_partial([1.0], [1.0, 2.0])


def test_ci_overlap_and_regression():
    assert ci_overlap((0, 2), (0, 2)) == 1.0
    assert ci_overlap((0, 2), (1, 3)) == 0.5
    assert ci_overlap((0, 1), (2, 3)) == pytest.approx(-1.0)
    rng = np.random.default_rng(4)
    d = pd.DataFrame({"x": rng.normal(size=400)})
    d["y"] = 1.5 * d.x + rng.normal(size=400)
    s = d.assign(y=0.5 * d.x + rng.normal(size=400))
    out = coefficient_ci_overlap(d, s, "y ~ x", "x")
    assert out["overlap"] < 0  # coefficients 1.5 vs 0.5 with n = 400 cannot overlap
    many = coefficient_ci_overlap(d, [d, d.assign(y=d.y + 0.01 * rng.normal(size=400))],
                                  "y ~ x", "x")
    assert 0.8 < many["overlap"] <= 1.0


def test_perm_null_is_half_the_mean_permuted_pmse():
    """synthpop's permutation null is half the mean permuted pMSE (as its pairs null)."""
    rng = np.random.default_rng(8)
    orig = pd.DataFrame({"x": rng.normal(size=120), "g": rng.choice(list("ab"), 120)})
    syn = orig.assign(x=rng.normal(size=120))
    res = pmse(orig, syn, method="logit", maxorder=0, resamp_method="perm", n_repeats=5, seed=3)
    again = pmse(orig, syn, method="logit", maxorder=0, resamp_method="perm", n_repeats=5, seed=3)
    assert res.S_pMSE.iloc[0] == again.S_pMSE.iloc[0]  # seeded
    # brute force: the same permutations of t, refitted with statsmodels
    import statsmodels.api as sm

    X = np.column_stack([np.ones(240), np.r_[orig.x, syn.x], np.r_[orig.g, syn.g] == "b"])
    t = np.r_[np.zeros(120), np.ones(120)]
    perm_rng = np.random.default_rng(3)
    null = np.mean([np.mean((sm.Logit(perm_rng.permutation(t), X).fit(disp=0).predict() - 0.5)
                            ** 2) for _ in range(5)]) / 2
    assert res.null_pMSE == pytest.approx(null, rel=1e-6)
    assert res.S_pMSE.iloc[0] == pytest.approx(res.pMSE.iloc[0] / null, rel=1e-6)
    assert "resamp_method='perm'" in repr(res)
