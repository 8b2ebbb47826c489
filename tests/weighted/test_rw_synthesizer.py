"""Risk-weighted synthesizer: posterior predictive logic, API errors, and real Stan runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from idrisk.stan.backend import StanFit
from idrisk.weighted.synthesizer import RiskWeightedSynthesizer, design_matrix

REPO = Path(__file__).resolve().parents[2]


def _fake_fit(draws: dict[str, np.ndarray]) -> StanFit:
    return StanFit(draws=draws, sampler={}, backend="fake", program="weighted_mixture_normal",
                   seed=0, chains=1, warmup=0, iter_sampling=next(iter(draws.values())).shape[1])


def test_mixture_predictive_draws_component_from_full_conditional():
    # Two far-apart components with equal weight: each record's z must follow its own
    # value (preprint eq. 7), so synthetic values stay on the record's side.
    n = 400
    y = np.exp(np.r_[np.full(n // 2, 9.0), np.full(n // 2, 12.0)])
    df = pd.DataFrame({"y": y})
    syn = RiskWeightedSynthesizer("mixture", seed=3, progress=False)
    syn.data_, syn.target_ = df, "y"
    syn.X_, _ = design_matrix(df, [])
    syn.y_centre_, syn.y_scale_ = 0.0, 1.0
    beta = np.array([[[9.0, 12.0]]])[None]  # (chains=1, draws=1, R=1, K=2)
    syn.fit_ = _fake_fit({"beta": beta, "sigma": np.array([[[0.1, 0.1]]]),
                          "pi": np.array([[[0.5, 0.5]]])})
    out = syn.synthesize(L=1)[0]["y"]
    logs = np.log(out.to_numpy())
    assert np.all(np.abs(logs[: n // 2] - 9.0) < 0.6)
    assert np.all(np.abs(logs[n // 2 :] - 12.0) < 0.6)


def test_negbin_predictive_mean_and_dispersion():
    n = 20000
    df = pd.DataFrame({"y": np.zeros(n, dtype=np.int64)})
    syn = RiskWeightedSynthesizer("negbin", seed=1, progress=False)
    syn.data_, syn.target_ = df, "y"
    syn.X_, _ = design_matrix(df, [])
    syn.fit_ = _fake_fit({"beta": np.full((1, 1, 1), np.log(100.0)),
                          "phi": np.full((1, 1), 5.0)})
    ys = syn.synthesize(L=1)[0]["y"].to_numpy()
    assert ys.dtype == np.int64
    assert ys.mean() == pytest.approx(100, rel=0.03)
    assert ys.var() == pytest.approx(100 + 100**2 / 5, rel=0.08)


def test_draw_indices_are_spread_and_errors():
    syn = RiskWeightedSynthesizer("negbin", seed=1, progress=False)
    with pytest.raises(RuntimeError, match="fit"):
        syn.synthesize(2)
    syn.fit_ = _fake_fit({"phi": np.ones((1, 100))})
    idx = syn.draw_indices(5)
    assert idx.tolist() == [0, 25, 50, 74, 99]
    with pytest.raises(ValueError, match="L must be"):
        syn.draw_indices(101)
    with pytest.raises(ValueError, match="model"):
        RiskWeightedSynthesizer("poisson")
    with pytest.raises(ValueError, match="weighting"):
        RiskWeightedSynthesizer("negbin", weighting="joint")
    df = pd.DataFrame({"y": [1.5, 2.0], "k": ["a", "b"]})
    with pytest.raises(ValueError, match="non-negative integer counts"):
        RiskWeightedSynthesizer("negbin", backend="pystan").fit(df, "y")
    with pytest.raises(KeyError, match="known pattern columns"):
        RiskWeightedSynthesizer("negbin", weighting="marginal", known=["zz"]).compute_weights(
            df, "y")
    with pytest.raises(ValueError, match="<= 0"):
        RiskWeightedSynthesizer("mixture", backend="pystan").fit(df.assign(y=[0.0, 1.0]), "y")


def test_weights_follow_weighting_choice():
    df = pd.DataFrame({"y": [10.0, 11.0, 30.0, 5.0], "k": ["x", "x", "x", "s"]})
    none = RiskWeightedSynthesizer(weighting="none", r=0.1, known=["k"]).compute_weights(df, "y")
    assert none.eq(1).all()
    pw = RiskWeightedSynthesizer(weighting="pairwise", r=0.1, known=["k"], c=1.5)
    np.testing.assert_allclose(pw.compute_weights(df, "y"), [1.0, 1.0, 1.0, 1.0])
    mg = RiskWeightedSynthesizer(weighting="marginal", r=0.1, known=["k"], g=0.1)
    np.testing.assert_allclose(mg.compute_weights(df, "y"), [2 / 3 + 0.1, 2 / 3 + 0.1,
                                                              1 / 3 + 0.1, 1.0])


# ----------------------------------------------------------------- real Stan runs


def _load_vignette():
    spec = importlib.util.spec_from_file_location("nb_simulation",
                                                  REPO / "vignettes" / "nb_simulation.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["nb_simulation"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.stan
@pytest.mark.slow
def test_nb_simulation_quick_reproduces_qualitative_findings():
    pytest.importorskip("stan", reason="PyStan 3 not installed")
    res = _load_vignette().run(quick=True, progress=False, write=False)
    for r, rr in res["by_r"].items():
        # the Marginal shifts the risk distribution down at every r
        assert rr["marginal_mean_shift"] < 0, r
        assert rr["risk_summary"]["Marginal"]["mean"] < rr["risk_summary"]["Data"]["mean"]
        assert rr["Marginal_divergent"] == 0
    # whack-a-mole records appear at r = 15%
    assert res["by_r"]["15%"]["whack_a_mole_Marginal"] > 0
    # Table 6: the CI of the mean from L = 5 datasets is clearly longer than from L = 1
    t6 = res["table6"]
    assert t6["S (L=5) | mean"]["length"] > 1.3 * t6["S (L=1) | mean"]["length"]


@pytest.mark.stan
@pytest.mark.slow
def test_mixture_synthesizer_end_to_end_small():
    pytest.importorskip("stan", reason="PyStan 3 not installed")
    rng = np.random.default_rng(4)
    n = 300
    x = rng.choice(["a", "b"], n)
    logy = np.where(rng.random(n) < 0.6, 10.0, 11.5) + 0.5 * (x == "b") + rng.normal(0, 0.3, n)
    df = pd.DataFrame({"y": np.exp(logy), "x": x, "k": rng.choice(["p", "q"], n)})
    syn = RiskWeightedSynthesizer("mixture", weighting="pairwise", r=0.2, known=["k", "x"],
                                  K=4, chains=2, warmup=200, draws=200, seed=2, progress=False)
    sets = syn.fit(df, "y", predictors=["x"]).synthesize(L=3)
    assert syn.alpha_.between(0, 1).all() and syn.alpha_.lt(1).any()
    assert len(sets) == 3
    for s in sets:
        assert s.shape == df.shape and (s["y"] > 0).all()
        pd.testing.assert_series_equal(s["x"], df["x"])
        assert np.log(s["y"]).mean() == pytest.approx(logy.mean(), abs=0.25)
        gap = np.log(s["y"])[s["x"] == "b"].mean() - np.log(s["y"])[s["x"] == "a"].mean()
        assert gap == pytest.approx(0.5, abs=0.3)
