"""FBS/FBP Stan programs: weighted log density against scipy, parameter recovery.

The log density is read from PyStan (``log_prob`` at fixed parameter values, no Jacobian)
and compared with an independent implementation from ``scipy.stats`` densities.  Stan's
``~`` statements drop constants, so differences between two parameter points are compared.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from idrisk.stan import program_path
from idrisk.survey import FBP, FBS, fbp_loglik, fbs_loglik

stan = pytest.importorskip("stan")

pytestmark = pytest.mark.stan


def _log_prob(code: str, data: dict, params: dict) -> float:
    def plain(v):
        return np.asarray(v).tolist() if isinstance(v, np.ndarray) else float(v)

    plain_data = {k: (np.asarray(v).tolist() if isinstance(v, (list, np.ndarray)) else v)
                  for k, v in data.items()}
    posterior = stan.build(code, data=plain_data, random_seed=1)
    pars = posterior.unconstrain_pars({k: plain(v) for k, v in params.items()})
    return posterior.log_prob(pars, adjust_transform=False)


# --------------------------------------------------------------------------- FBS


def fbs_case(seed):
    rng = np.random.default_rng(seed)
    n, k = 25, 3
    X = np.eye(k)[rng.integers(0, k, n)]
    data = {"N": n, "K": k, "X": X.tolist(), "ly": rng.normal(0, 1, n).tolist(),
            "lw": rng.normal(0, 1, n).tolist(), "alpha": rng.uniform(0, 1, n).tolist(),
            "prior_scale": 10.0, "coef_scale": 10.0, "eta_sigma": 6.0}
    return rng, data


def fbs_params(rng, k):
    rho = rng.uniform(-0.8, 0.8)
    return {
        "beta": rng.normal(0, 1, (k, 2)),
        "L_Omega": np.array([[1.0, 0.0], [rho, np.sqrt(1 - rho**2)]]),
        "sigma": rng.uniform(0.3, 2, 2),
    }


def fbs_numpy(data, p):
    """Log density up to a constant from scipy's densities."""
    X, ly, lw, alpha = (np.asarray(data[k]) for k in ("X", "ly", "lw", "alpha"))
    lp = stats.norm.logpdf(p["beta"], 0, data["coef_scale"]).sum()
    lp += (2 * data["eta_sigma"] - 2) * np.log(p["L_Omega"][1, 1])  # LKJ, K = 2
    lp += stats.t.logpdf(p["sigma"], 3, scale=data["prior_scale"]).sum()
    rho = p["L_Omega"][1, 0]
    s = p["sigma"]
    cov = np.array([[s[0] ** 2, rho * s[0] * s[1]], [rho * s[0] * s[1], s[1] ** 2]])
    mu = X @ p["beta"]
    rec = np.array([stats.multivariate_normal.logpdf([ly[i], lw[i]], mu[i], cov)
                    for i in range(len(ly))])
    return lp + np.dot(alpha, rec), rec


def test_fbs_weighted_log_density_equals_scipy():
    code = program_path("fbs").read_text()
    rng, data = fbs_case(1)
    p1, p2 = fbs_params(rng, data["K"]), fbs_params(rng, data["K"])
    stan_diff = _log_prob(code, data, p1) - _log_prob(code, data, p2)
    (np1, rec1), (np2, _) = fbs_numpy(data, p1), fbs_numpy(data, p2)
    assert stan_diff == pytest.approx(np1 - np2, rel=1e-9, abs=1e-9)
    # changing alpha moves the log density by sum (alpha' - alpha) log p_i
    data2 = dict(data, alpha=np.clip(np.asarray(data["alpha"]) + 0.1, 0, 1).tolist())
    moved = _log_prob(code, data2, p1) - _log_prob(code, data, p1)
    want = np.dot(np.asarray(data2["alpha"]) - np.asarray(data["alpha"]), rec1)
    assert moved == pytest.approx(want, rel=1e-9)
    # idrisk's per-record numpy log density (used for the Lipschitz bounds)
    draws = {"beta": p1["beta"][None], "sigma": p1["sigma"][None],
             "rho": np.array([p1["L_Omega"][1, 0]])}
    got = fbs_loglik(draws, np.asarray(data["X"]), np.asarray(data["ly"]),
                     np.asarray(data["lw"]))[0]
    np.testing.assert_allclose(got, rec1, rtol=1e-12)


# --------------------------------------------------------------------------- FBP


def fbp_case(seed):
    rng = np.random.default_rng(seed)
    n, k = 25, 3
    X = np.eye(k)[rng.integers(0, k, n)]
    data = {"N": n, "K": k, "X": X.tolist(), "ly": rng.normal(0, 0.5, n).tolist(),
            "lpi": rng.normal(-4, 0.5, n).tolist(), "alpha": rng.uniform(0, 1, n).tolist(),
            "coef_scale": 10.0, "scale_scale": 5.0}
    return rng, data


def fbp_params(rng, k):
    return {"beta": rng.normal(0, 1, k), "kappa_y": rng.normal(1, 0.3),
            "kappa_x": rng.normal(-4, 1, k), "sigma_y": rng.uniform(0.2, 1),
            "sigma_pi": rng.uniform(0.2, 1)}


def fbp_numpy(data, p):
    X, ly, lpi, alpha = (np.asarray(data[k]) for k in ("X", "ly", "lpi", "alpha"))
    cs, ss = data["coef_scale"], data["scale_scale"]
    lp = stats.norm.logpdf(p["beta"], 0, cs).sum() + stats.norm.logpdf(p["kappa_y"], 0, cs)
    lp += stats.norm.logpdf(p["kappa_x"], 0, cs).sum()
    lp += stats.cauchy.logpdf(p["sigma_y"], 0, ss) + stats.cauchy.logpdf(p["sigma_pi"], 0, ss)
    mu = X @ p["beta"]
    xk = X @ p["kappa_x"]
    ky, sy, sp = p["kappa_y"], p["sigma_y"], p["sigma_pi"]
    pi = np.exp(lpi)
    # exact sample density pi p(pi | y) p(y) / E[pi | x]: lognormal of pi times pi
    rec = (stats.norm.logpdf(ly, mu, sy)
           + stats.lognorm.logpdf(pi, s=sp, scale=np.exp(ky * ly + xk)) + np.log(pi)
           - (xk + ky * mu + (ky**2 * sy**2 + sp**2) / 2))
    return lp + np.dot(alpha, rec), rec


def test_fbp_weighted_log_density_equals_scipy():
    code = program_path("fbp").read_text()
    rng, data = fbp_case(2)
    p1, p2 = fbp_params(rng, data["K"]), fbp_params(rng, data["K"])
    stan_diff = _log_prob(code, data, p1) - _log_prob(code, data, p2)
    (np1, rec1), (np2, _) = fbp_numpy(data, p1), fbp_numpy(data, p2)
    assert stan_diff == pytest.approx(np1 - np2, rel=1e-9, abs=1e-9)
    data2 = dict(data, alpha=(0.5 * np.asarray(data["alpha"])).tolist())
    moved = _log_prob(code, data2, p1) - _log_prob(code, data, p1)
    want = np.dot(np.asarray(data2["alpha"]) - np.asarray(data["alpha"]), rec1)
    assert moved == pytest.approx(want, rel=1e-9)
    draws = {k: np.atleast_1d(np.asarray(v))[None] if np.ndim(v) else np.array([v])
             for k, v in p1.items()}
    got = fbp_loglik(draws, np.asarray(data["X"]), np.asarray(data["ly"]),
                     np.asarray(data["lpi"]))[0]
    np.testing.assert_allclose(got, rec1, rtol=1e-12)


# --------------------------------------------------------------------------- recovery

FIT = {"chains": 2, "warmup": 200, "draws": 250}
BACKENDS = ["pystan", "cmdstanpy"]


def _within(draws: np.ndarray, truth: float, k: float = 4.0) -> bool:
    """Posterior mean within k posterior sds of the truth (data noise dominates MC error)."""
    return abs(draws.mean() - truth) < k * draws.std()


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_fbs_recovers_known_parameters(backend):
    rng = np.random.default_rng(21)
    n = 400
    cell = rng.choice(["a", "b"], n)
    mu_y = np.where(cell == "a", 11.0, 11.5)
    mu_w = np.where(cell == "a", 4.0, 3.2)
    s_y, s_w, rho = 0.4, 0.6, -0.6
    z1, z2 = rng.standard_normal(n), rng.standard_normal(n)
    ly = mu_y + s_y * z1
    lw = mu_w + s_w * (rho * z1 + np.sqrt(1 - rho**2) * z2)
    df = pd.DataFrame({"cell": cell, "y": np.exp(ly), "w": np.exp(lw)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fbs = FBS(syn="y", weight="w", known=["cell"], alpha=np.ones(n), seed=5, refits=0,
                  backend=backend, **FIT).fit(df)
    d = fbs.weighted_draws_  # additive coding: intercept (cell a) and the b - a contrast
    assert _within(d["beta"][:, 0, 0] + fbs.c_y_, 11.0)
    assert _within(d["beta"][:, 1, 0], 0.5)
    assert _within(d["beta"][:, 0, 1] + fbs.c_w_, 4.0)
    assert _within(d["beta"][:, 1, 1], -0.8)
    assert _within(d["sigma"][:, 0], s_y) and _within(d["sigma"][:, 1], s_w)
    assert _within(d["rho"], rho)
    assert fbs.records_["alpha"].eq(1).all()
    assert fbs.delta_alpha_ == pytest.approx(fbs.records_["delta_alpha"].max())


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_fbp_recovers_population_parameters_under_informative_sampling(backend):
    rng = np.random.default_rng(22)
    N = 40000
    cell = rng.choice(["a", "b"], N)
    beta = {"a": 11.0, "b": 11.4}
    ly = np.array([beta[c] for c in cell]) + 0.4 * rng.standard_normal(N)
    size = np.exp(ly + 0.4 * rng.standard_normal(N))
    pi = 500 * size / size.sum()
    keep = rng.random(N) < pi  # Poisson sampling: log pi = log y + noise + const
    df = pd.DataFrame({"cell": cell[keep], "y": np.exp(ly[keep]), "w": 1 / pi[keep]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fbp = FBP(syn="y", weight="w", known=["cell"], alpha=np.ones(keep.sum()), seed=6,
                  refits=0, coding="cells", backend=backend, **FIT).fit(df)
    d = fbp.weighted_draws_
    for k, c in enumerate(["a", "b"]):  # cells are coded in sorted order
        post = d["beta"][:, k] + fbp.c_y_
        assert _within(post, beta[c])
        # the naive sample mean is biased upward by the informative design: a noise baseline
        naive = np.log(df.loc[df.cell == c, "y"]).mean()
        assert abs(naive - beta[c]) > 4 * post.std()
    assert _within(d["kappa_y"], 1.0)
    assert _within(d["sigma_y"], 0.4) and _within(d["sigma_pi"], 0.4)
