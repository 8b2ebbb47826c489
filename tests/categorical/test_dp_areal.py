"""DP-areal: tabulation, the sampler's pieces, synthesis, and the Gibbs sampler against the
corrected Stan program on small data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from idrisk.categorical import DPAreal, areal_data
from idrisk.categorical.dp_areal import _cpc_to_chol, _sigma_logp
from idrisk.exceptions import NotFittedError


def small_data() -> pd.DataFrame:
    """4 patterns (a x b) x 5 labels = 20 combinations, 160 records."""
    rng = np.random.default_rng(11)
    n = 160
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 2, n)
    p = np.array([0.4, 0.25, 0.15, 0.12, 0.08])
    lab = np.array([rng.choice(5, p=np.roll(p, ai + 2 * bi)) for ai, bi in zip(a, b)])
    return pd.DataFrame({"a": a, "b": b, "lab": lab})


def test_areal_data_counts_every_combination_with_zeros():
    d = small_data()
    d = d[~((d["a"] == 0) & (d["b"] == 1) & (d["lab"] == 4))]   # force a zero
    ad = areal_data(d, "lab", ["a", "b"])
    assert ad.N == 20 and ad.R == 4
    tab = pd.crosstab([d["a"], d["b"]], d["lab"])
    np.testing.assert_array_equal(ad.counts, tab.to_numpy().ravel())
    assert ad.counts[1 * 5 + 4] == 0
    # X: one-hot of the pattern's a and b values, the same for every label of a pattern
    for i in range(ad.N):
        pa, pb = ad.patterns.iloc[ad.pattern[i]]
        np.testing.assert_array_equal(ad.X[i], [pa == 0, pa == 1, pb == 0, pb == 1])
    assert ad.counts.sum() == len(d)
    sd = ad.stan_data(K=3)
    assert sd["c"].dtype.kind == "i" and sd["X"].shape == (20, 4)


def test_correlation_transform_and_sigma_target_match_scipy():
    rng = np.random.default_rng(0)
    R = 4
    dev = rng.normal(size=(3, R))
    diffs = []
    for v in rng.normal(0, 0.7, (5, R + 6)):
        L, logj = _cpc_to_chol(v[R:], R)
        np.testing.assert_allclose((L ** 2).sum(axis=1), 1.0)
        sigma = np.exp(v[:R])
        S = (sigma[:, None] * L) @ (sigma[:, None] * L).T
        k = np.arange(2, R + 1)
        ref = (stats.multivariate_normal(np.zeros(R), S).logpdf(dev).sum()
               + np.sum(stats.t(3).logpdf(sigma) + v[:R]) + logj
               + np.sum((R - k + 2 * 4.0 - 2) * np.log(np.diag(L)[1:])))
        diffs.append(_sigma_logp(v, dev, R, 4.0) - ref)
    np.testing.assert_allclose(diffs, diffs[0])          # equal up to the constant


def test_large_counts_posterior_rates_follow_the_counts():
    rng = np.random.default_rng(3)
    d = pd.DataFrame({"a": np.repeat([0, 1], 3000),
                      "lab": np.r_[rng.choice(4, 3000, p=[.5, .3, .15, .05]),
                                   rng.choice(4, 3000, p=[.1, .2, .3, .4])]})
    f = DPAreal(K=4, n_iter=600, burn=200, keep=4, seed=2, progress=False).fit(d, "lab", "a")
    np.testing.assert_allclose(np.exp(f.eta_mean_), f.areal_.counts, rtol=0.1)
    assert f.sampler_diagnostics_["eta_accept"] > 0.8
    p = f.probabilities()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    out = f.synthesize(4, seed=1)
    assert out.m == 4 and out.method == "dp_areal"
    for s in out:
        pd.testing.assert_series_equal(s["a"], d["a"])
        share = s.loc[s["a"] == 0, "lab"].value_counts(normalize=True).sort_index()
        emp = d.loc[d["a"] == 0, "lab"].value_counts(normalize=True).sort_index()
        # multinomial SE of a share over 3,000 draws is at most 0.009
        np.testing.assert_allclose(share, emp, atol=0.035)


def test_errors_name_the_argument():
    d = small_data()
    with pytest.raises(ValueError, match="sampler"):
        DPAreal(sampler="nuts").fit(d, "lab", ["a"])
    with pytest.raises(KeyError, match="zz"):
        DPAreal(progress=False).fit(d, "zz", ["a"])
    with pytest.raises(ValueError, match="also in kept"):
        areal_data(d, "lab", ["lab"])
    with pytest.raises(NotFittedError, match="fit"):
        DPAreal().synthesize(1)


def _ess(x: np.ndarray) -> np.ndarray:
    from idrisk.stan import ess_bulk

    return np.array([ess_bulk(x[..., j]) for j in range(x.shape[-1])])


def test_both_stan_programs_pass_stanc():
    """The corrected published program and its non-centred variant translate with this
    httpstan's stanc (no C++ compilation)."""
    httpstan_compile = pytest.importorskip("httpstan.compile")
    from idrisk.stan import program_path

    for name in ("dp_areal", "dp_areal_nc"):
        code = program_path(name).read_text()
        cpp, _warnings = httpstan_compile.compile(code, f"model_{name}")
        assert "class model_" in cpp


@pytest.mark.stan
@pytest.mark.slow
@pytest.mark.parametrize("backend", ["pystan", "cmdstanpy"])
def test_gibbs_sampler_targets_the_stan_programs_posterior(backend):
    """Posterior means and sds of the 20 log-rates, and of log tau_lambda, agree between
    NUTS on stan/dp_areal_nc.stan (the corrected program, non-centred) and the Gibbs sampler
    within Monte-Carlo error. Seen on this machine: |z| <= 2.2, sd ratios 0.95-1.05."""
    d = small_data()
    stan = DPAreal(K=3, sampler="stan", seed=5, progress=False, stan_program="dp_areal_nc",
                   n_iter=1500, burn=500, keep=4, chains=4, adapt_delta=0.95,
                   backend=backend).fit(
        d, "lab", ["a", "b"])
    gibbs = DPAreal(K=3, sampler="gibbs", seed=6, progress=False, n_iter=7000, burn=1000,
                    keep=4).fit(d, "lab", ["a", "b"])
    es = stan.eta_draws_.reshape(4, 1000, -1)
    eg = gibbs.eta_draws_[None]
    se = np.sqrt(es.reshape(-1, 20).var(0) / _ess(es) + eg[0].var(0) / _ess(eg))
    z = (stan.eta_mean_ - gibbs.eta_mean_) / se
    assert np.abs(z).max() < 4.5, z
    np.testing.assert_allclose(gibbs.eta_sd_, stan.eta_sd_, rtol=0.12)
    lt_s = np.log(stan.trace_["tau_lambda"].to_numpy())
    lt_g = np.log(gibbs.trace_["tau_lambda"].to_numpy()[1000:])
    se_t = np.sqrt(lt_s.var() / _ess(lt_s.reshape(4, -1, 1))[0]
                   + lt_g.var() / _ess(lt_g.reshape(1, -1, 1))[0])
    assert abs(lt_s.mean() - lt_g.mean()) < 4.5 * se_t
