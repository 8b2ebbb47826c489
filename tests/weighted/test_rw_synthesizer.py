"""Risk-weighted synthesizer: posterior predictive logic, API errors, and real Stan runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _shared import require_stan_backend

from idrisk.exceptions import NotFittedError
from idrisk.stan.backend import StanFit
from idrisk.weighted.synthesizer import RiskWeightedSynthesizer, design_matrix


def _fake_fit(draws: dict[str, np.ndarray]) -> StanFit:
    return StanFit(draws=draws, sampler={}, backend="fake", program="weighted_mixture_normal",
                   seed=0, chains=1, warmup=0, iter_sampling=next(iter(draws.values())).shape[1])


def test_mixture_predictive_draws_component_from_full_conditional():
    # Two far-apart components with equal weight: each record's z must follow its own
    # value (preprint eq. 7), so synthetic values stay on the record's side.
    n = 400
    y = np.exp(np.r_[np.full(n // 2, 9.0), np.full(n // 2, 12.0)])
    df = pd.DataFrame({"y": y})
    syn = RiskWeightedSynthesizer(syn="y", model="mixture", seed=3, progress=False)
    syn.data_, syn.syn_, syn.seed_ = df, "y", 3
    syn.X_, _ = design_matrix(df, [])
    syn.y_centre_, syn.y_scale_ = 0.0, 1.0
    mu0 = np.array([[[9.0, 12.0]]])  # (chains=1, draws=1, K=2)
    beta = np.zeros((1, 1, 0, 2))  # no predictors: (chains, draws, P=0, K)
    syn.fit_ = _fake_fit({"mu0": mu0, "beta": beta, "sigma": np.array([[[0.1, 0.1]]]),
                          "pi": np.array([[[0.5, 0.5]]])})
    out = syn.synthesize(m=1, seed=3)[0]["y"]
    logs = np.log(out.to_numpy())
    assert np.all(np.abs(logs[: n // 2] - 9.0) < 0.6)
    assert np.all(np.abs(logs[n // 2 :] - 12.0) < 0.6)


def test_negbin_predictive_mean_and_dispersion():
    n = 20000
    df = pd.DataFrame({"y": np.zeros(n, dtype=np.int64)})
    syn = RiskWeightedSynthesizer(syn="y", model="negbin", seed=1, progress=False)
    syn.data_, syn.syn_, syn.seed_ = df, "y", 1
    syn.X_, _ = design_matrix(df, [])
    syn.fit_ = _fake_fit({"beta": np.full((1, 1, 1), np.log(100.0)),
                          "phi": np.full((1, 1), 5.0)})
    ys = syn.synthesize(m=1, seed=1)[0]["y"].to_numpy()
    assert ys.dtype == np.int64
    assert ys.mean() == pytest.approx(100, rel=0.03)
    assert ys.var() == pytest.approx(100 + 100**2 / 5, rel=0.08)


def test_draw_indices_are_spread_and_errors():
    syn = RiskWeightedSynthesizer(model="negbin", seed=1, progress=False)
    with pytest.raises(NotFittedError, match="fit"):
        syn.synthesize(2)
    syn.fit_ = _fake_fit({"phi": np.ones((1, 100))})
    idx = syn.draw_indices(5)
    assert idx.tolist() == [0, 25, 50, 74, 99]
    with pytest.raises(ValueError, match="m must be"):
        syn.draw_indices(101)
    df = pd.DataFrame({"y": [1.5, 2.0], "k": ["a", "b"]})
    with pytest.raises(ValueError, match="model"):
        RiskWeightedSynthesizer(syn="y", model="poisson").fit(df)
    with pytest.raises(ValueError, match="weighting"):
        RiskWeightedSynthesizer(syn="y", model="negbin", weighting="joint").fit(df)
    with pytest.raises(ValueError, match="slopes must be one of"):
        RiskWeightedSynthesizer(syn="y", model="mixture", slopes="pooled").fit(df)
    with pytest.raises(ValueError, match="non-negative integer counts"):
        RiskWeightedSynthesizer(syn="y", model="negbin", backend="pystan").fit(df)
    with pytest.raises(KeyError, match=r"known: column\(s\) \[.zz.\] not found in data"):
        RiskWeightedSynthesizer(syn="y", model="negbin", weighting="marginal",
                                known=["zz"]).compute_weights(df)
    with pytest.raises(ValueError, match="syn must name the column"):
        RiskWeightedSynthesizer(model="negbin").fit(df)
    with pytest.raises(ValueError, match="<= 0"):
        RiskWeightedSynthesizer(syn="y", model="mixture", backend="pystan").fit(
            df.assign(y=[0.0, 1.0]))


def test_given_weights_align_on_index_or_raise():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0], "k": ["a", "b", "a"]}, index=[10, 11, 12])
    w = pd.Series([0.2, 0.5, 0.9], index=[12, 11, 10])
    syn = RiskWeightedSynthesizer(syn="y", model="negbin", backend="pystan", alpha=w)
    with pytest.raises(ValueError, match="alpha: its index differs from data's"):
        syn.fit(df)
    with pytest.raises(ValueError, match="alpha has 2 values but data has 3"):
        syn.set_params(alpha=w.iloc[:2]).fit(df)
    with pytest.raises(ValueError, match="unknown keys"):
        RiskWeightedSynthesizer(syn="y", model="mixture", priors={"a_gamma": 1.0}).fit(df)


def test_weights_follow_weighting_choice():
    df = pd.DataFrame({"y": [10.0, 11.0, 30.0, 5.0], "k": ["x", "x", "x", "s"]})
    none = RiskWeightedSynthesizer(syn="y", weighting="none", r=0.1,
                                   known=["k"]).compute_weights(df)
    assert none.eq(1).all()
    pw = RiskWeightedSynthesizer(syn="y", weighting="pairwise", r=0.1, known=["k"], c=1.5)
    np.testing.assert_allclose(pw.compute_weights(df), [1.0, 1.0, 1.0, 1.0])
    mg = RiskWeightedSynthesizer(syn="y", weighting="marginal", r=0.1, known=["k"], g=0.1)
    np.testing.assert_allclose(mg.compute_weights(df), [2 / 3 + 0.1, 2 / 3 + 0.1,
                                                              1 / 3 + 0.1, 1.0])


# ----------------------------------------------------------------- real Stan runs
# Statistical claims are asserted only where the effect exceeds the spread between
# unweighted fits of the same data with different seeds by a stated factor. Baselines
# measured while writing these tests (2 chains x 250 + 250, L = 20, NB data below,
# unweighted seeds 11, 12, 13; see vignettes/nb_simulation.md for the full run):
#   mean record risk at r = 30%: unweighted 0.2166, 0.2194, 0.2177 (spread 0.0028);
#     Marginal 0.1718 -> shift -0.045 = 16 x the spread (asserted: > 5 x);
#   ECDF U_m: unweighted 0.0491, 0.0390, 0.0450 (spread 0.0101); Marginal r = 30% 0.1162 ->
#     loss 0.067-0.077 = 7 x the spread (asserted: > 3 x);
#   NOT asserted (within the noise): Marginal mean-risk shift at r = 15% (0.1878 against
#     unweighted 0.1865-0.1882); whack-a-mole counts (records whose risk rises by > 0.25:
#     two unweighted runs already give 3-12 at r = 15%, the Marginal 4-5; 0-2 and 0-1 at
#     r = 30%); Pairwise against unweighted at r = 30% (0.2153 against 0.2166-0.2194).

SEEDS = (11, 12, 13)
MCMC = dict(chains=2, warmup=250, draws=250, progress=False)
L = 20


def _nb_data(n: int = 1000, seed: int = 2021) -> pd.DataFrame:
    # the published section 2.4 simulation: 0.7 NB(100, phi = 20) + 0.3 NB(100, phi = 5)
    rng = np.random.default_rng(seed)
    phi = np.where(rng.random(n) < 0.7, 20.0, 5.0)
    return pd.DataFrame({"y": rng.negative_binomial(phi, phi / (phi + 100.0)).astype(np.int64)})




BACKENDS = ["pystan", "cmdstanpy"]  # the cmdstanpy variants run where CmdStan is installed


@pytest.fixture(scope="module", params=BACKENDS)
def nb_runs(request):
    backend = request.param
    require_stan_backend(backend)
    from idrisk.weighted.diagnostics import ecdf_table
    from idrisk.weighted.weights import confidential_marginal_risk, synthetic_marginal_risk

    df = _nb_data()
    pattern = np.zeros(len(df))
    r = 0.30
    sets = {}
    for seed in SEEDS:
        s = RiskWeightedSynthesizer(syn="y", model="negbin", weighting="none", seed=seed,
                                    backend=backend, **MCMC).fit(df)
        sets[f"S{seed}"] = [d["y"].to_numpy() for d in s.synthesize(L, seed=seed)]
    m = RiskWeightedSynthesizer(syn="y", model="negbin", weighting="marginal", r=r,
                                seed=SEEDS[0], backend=backend, **MCMC)
    m.fit(df)
    assert m.fit_.n_divergent == 0 and m.fit_.diagnostics["rhat"].max() < 1.05
    sets["M"] = [d["y"].to_numpy() for d in m.synthesize(L, seed=SEEDS[0])]
    risk = {k: synthetic_marginal_risk(df["y"], pattern, v, r).record_risk
            for k, v in sets.items()}
    return {"df": df, "sets": sets, "risk": risk, "alpha": m.alpha_,
            "data_risk": confidential_marginal_risk(df["y"], pattern, r),
            "ecdf": ecdf_table(df["y"], sets)}


def _spread(values) -> float:
    values = list(values)
    return max(values) - min(values)


@pytest.mark.stan
def test_marginal_weights_lower_the_risk_beyond_run_to_run_noise(nb_runs):
    risk = nb_runs["risk"]
    unw = [risk[f"S{s}"].mean() for s in SEEDS]
    baseline = _spread(unw)
    shift = risk["M"].mean() - unw[0]
    assert 0 < baseline < 0.01  # the noise is real but small
    assert shift < -5 * baseline, (shift, baseline)
    # and the weights are the ones the paper defines: low for isolated counts (tails)
    alpha, y = nb_runs["alpha"], nb_runs["df"]["y"]
    mid = y.between(y.quantile(0.4), y.quantile(0.6))
    assert alpha[mid].mean() > 0.6 > alpha[y > y.quantile(0.99)].mean()
    # synthesis alone already lowers the risk far below the data's
    assert nb_runs["data_risk"].mean() > 2 * max(unw)


@pytest.mark.stan
def test_marginal_costs_utility_beyond_run_to_run_noise(nb_runs):
    um = nb_runs["ecdf"]["U_m"]
    baseline = _spread(um[f"S{s}"] for s in SEEDS)
    loss = um["M"] - um[f"S{SEEDS[0]}"]
    assert baseline > 0
    assert loss > 3 * baseline, (loss, baseline)


@pytest.mark.stan
def test_pooled_ci_from_many_datasets_is_longer_than_from_one(nb_runs):
    from idrisk.weighted.diagnostics import bootstrap_ci

    # published Table 6: the interval from L = 20 datasets (7.41) is much longer than from
    # one (4.07). Run-to-run noise of the L = 20 length is large (5.1-8.2 over the three
    # unweighted fits), so the claim checked is "every L = 20 interval is longer than every
    # L = 1 interval", by more than twice the spread of the L = 1 lengths.
    sets = nb_runs["sets"]
    long = [bootstrap_ci(sets[f"S{s}"], "mean", B=400, seed=1)["length"] for s in SEEDS]
    one = [bootstrap_ci(sets[f"S{s}"][:1], "mean", B=400, seed=1)["length"] for s in SEEDS]
    print("L = 20 lengths", np.round(long, 2), "L = 1 lengths", np.round(one, 2))
    assert min(long) - max(one) > 2 * _spread(one), (long, one)


@pytest.mark.stan
@pytest.mark.parametrize("slopes", ["component", "shared"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_mixture_synthesizer_converges_and_recovers_the_regression(backend, slopes):
    require_stan_backend(backend)
    # K = 3 for a two-cluster truth: one component is nearly empty or shares a cluster. Two
    # kinds of divergence were found there (issue 24), on CmdStan 2.35 and PyStan:
    # * where a nearly empty component collapsed onto one record (sigma_k -> 0; the mixture
    #   likelihood is unbounded there): shared slopes on CmdStan, 5 divergences at
    #   adapt_delta 0.95 and 1 at 0.99. No step size removes a spike; the program's
    #   zero-avoiding sigma prior (stan/weighted_mixture_normal.stan) does: 0 after it;
    # * in the funnel of a nearly empty component (pi_k ~ 0.05) with small slope scales
    #   (tau ~ 0.2): component slopes, 2 (PyStan) and 1 (CmdStan) divergences at 0.95 once
    #   the spikes were gone. Its curvature is finite, so a smaller step removes it:
    #   adapt_delta 0.99. With 500 warm-up iterations CmdStan's component-slope fit then had
    #   lp__ R-hat 1.011; 1,000 warm-up iterations (a longer adaptation of that step): 0
    #   divergences, R-hat 1.003, bulk ESS 1242.
    rng = np.random.default_rng(4)
    n = 200
    x = rng.choice(["a", "b"], n)
    logy = np.where(rng.random(n) < 0.6, 10.0, 11.5) + 0.5 * (x == "b") + rng.normal(0, 0.3, n)
    df = pd.DataFrame({"y": np.exp(logy), "x": x, "k": rng.choice(["p", "q"], n)})
    syn = RiskWeightedSynthesizer(syn="y", predictors=["x"], model="mixture",
                                  weighting="pairwise", r=0.2, known=["k", "x"], K=3,
                                  chains=4, warmup=1000, draws=1000, seed=2,
                                  progress=False, backend=backend, slopes=slopes,
                                  adapt_delta=0.99)
    sets = syn.fit(df).synthesize(m=3, seed=2)
    fit = syn.fit_
    # convergence on label-invariant quantities (issue 11 item 6)
    assert fit.n_divergent == 0
    assert fit.diagnostics["rhat"].max() <= 1.01, fit.diagnostics
    assert fit.diagnostics["ess_bulk"].min() >= 400, fit.diagnostics
    assert syn.alpha_.between(0, 1).all() and syn.alpha_.lt(1).any()
    assert len(sets) == 3
    for s in sets:
        assert s.shape == df.shape and (s["y"] > 0).all()
        pd.testing.assert_series_equal(s["x"], df["x"])
        assert np.log(s["y"]).mean() == pytest.approx(logy.mean(), abs=0.25)
        gap = np.log(s["y"])[s["x"] == "b"].mean() - np.log(s["y"])[s["x"] == "a"].mean()
        assert gap == pytest.approx(0.5, abs=0.3)
