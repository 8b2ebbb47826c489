"""Exact checks of the production Stan programs' weighting, through each backend's log_prob.

For fixed parameter values, Stan's ``target`` (the model's log density, no Jacobian) must
equal an independent numpy/scipy implementation of

    sum_i alpha_i * loglik_i(theta) + log prior(theta)

for random record weights alpha. Both programs add every density with ``target +=
..._lpdf`` (constants kept), so the comparison is exact up to rounding. Deleting the
weights from a program, or weighting only part of a record's likelihood, changes
``target`` by sum_i (1 - alpha_i) * loglik_i, hundreds of log units here.

Parametrised over the backend: PyStan runs here and in CI; the cmdstanpy variants run
where CmdStan is installed (CMDSTAN or ~/.cmdstan) and skip with a reason elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from idrisk.stan import backend as sb
from idrisk.stan.backend import StanProgram

pytestmark = pytest.mark.stan

_PROGRAMS: dict[tuple[str, str], StanProgram] = {}


@pytest.fixture(params=["pystan", "cmdstanpy"])
def backend(request):
    if request.param == "pystan":
        pytest.importorskip("stan", reason="PyStan 3 (package 'stan') not installed")
    else:
        pytest.importorskip("cmdstanpy", reason="cmdstanpy not installed")
        if sb.cmdstan_path() is None:
            pytest.skip("CmdStan not installed (set CMDSTAN or install to ~/.cmdstan)")
    return request.param


def _program(name: str, backend: str) -> StanProgram:
    key = (name, backend)
    if key not in _PROGRAMS:
        _PROGRAMS[key] = StanProgram(name, backend=backend).compile()
    return _PROGRAMS[key]


# ----------------------------------------------------------------- mixture of normals


def _mixture_case(seed: int, P: int, K: int = 3, N: int = 60, shared: bool = False):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(N, P)) + rng.normal(0, 2, P)  # columns not centred
    y = np.where(rng.random(N) < 0.6, -1.0, 1.2) + rng.normal(0, 0.4, N)
    data = {"N": N, "K": K, "P": P, "Z": Z, "y": y, "w": rng.uniform(0.02, 1.0, N),
            "a_pi": 1.7, "scale_mu": 2.0, "scale_beta": 0.8, "scale_sigma": 1.3,
            "nu_sigma": 3.0, "shared_slopes": int(shared)}
    PK, PS = (0, P) if shared else (P, 0)
    params = {"pi": rng.dirichlet(np.ones(K)), "mu0_ord": np.sort(rng.normal(0, 1, K)),
              "beta_raw": rng.normal(size=(PK, K)), "tau": rng.uniform(0.2, 1.5, PK),
              "theta": rng.normal(size=PS), "sigma": rng.uniform(0.3, 1.2, K)}
    return data, params


def _qr_scale_inverse(Zc: np.ndarray) -> np.ndarray:
    """R*^-1 of the scaled thin QR Zc = Q* R*, R* = R / sqrt(N - 1) with R's diagonal made
    positive (the unique thin QR of a full-rank matrix; Stan normalises it the same way)."""
    r = np.linalg.qr(Zc, mode="r")
    r = r * np.sign(np.diag(r))[:, None]
    return np.linalg.inv(r / np.sqrt(len(Zc) - 1.0))


def mixture_reference(data, params) -> float:
    """Independent log density of weighted_mixture_normal.stan (no Jacobian): both slope forms,
    written on the original (uncentred) scale: mu_ik = mu0_k + Z_i beta_k."""
    Z, y, w = np.asarray(data["Z"]).reshape(data["N"], data["P"]), data["y"], data["w"]
    pi, mu0_ord, sigma = params["pi"], params["mu0_ord"], params["sigma"]
    z_bar = Z.mean(axis=0)
    if data["shared_slopes"]:
        b = _qr_scale_inverse(Z - z_bar) @ params["theta"] if data["P"] else np.zeros(0)
        beta = np.repeat(b[:, None], data["K"], axis=1)
        slope_prior = stats.norm.logpdf(b, 0, data["scale_beta"]).sum()
    else:
        beta = params["tau"][:, None] * params["beta_raw"]      # (P, K)
        slope_prior = (stats.norm.logpdf(params["beta_raw"]).sum()
                       + stats.norm.logpdf(params["tau"], 0, data["scale_beta"]).sum())
    # intercepts at Z = 0: the ordered ones are at the mean predictors for shared slopes
    mu0 = mu0_ord - z_bar @ beta if data["shared_slopes"] else mu0_ord
    mu = mu0[None, :] + Z @ beta                                # (N, K)
    comp = np.log(pi)[None, :] + stats.norm.logpdf(y[:, None], mu, sigma[None, :])
    loglik = logsumexp(comp, axis=1)                            # per record
    if data["nu_sigma"] > 0:
        lp_sigma = stats.t.logpdf(sigma, data["nu_sigma"], 0, data["scale_sigma"]).sum()
    else:
        lp_sigma = stats.norm.logpdf(sigma, 0, data["scale_sigma"]).sum()
    lp_sigma += np.log(sigma).sum()  # the zero-avoiding factor sigma_k (unnormalised)
    prior = (
        stats.dirichlet.logpdf(pi, np.full(data["K"], data["a_pi"]))
        + stats.norm.logpdf(mu0_ord, 0, data["scale_mu"]).sum()
        + slope_prior
        + lp_sigma
    )
    return float(np.dot(w, loglik) + prior), loglik


@pytest.mark.parametrize("shared", [False, True], ids=["component_slopes", "shared_slopes"])
def test_mixture_log_density_matches_weighted_reference(backend, shared):
    prog = _program("weighted_mixture_normal", backend)
    for seed, P, nu in ((1, 2, 3.0), (2, 0, 0.0), (4, 3, 0.0)):
        data, params = _mixture_case(seed, P, shared=shared)
        data["nu_sigma"] = nu
        expected, loglik = mixture_reference(data, params)
        got = prog.log_prob(data, params)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-7), (seed, P)
        # the weights matter: the unweighted density differs by sum (1 - alpha) * loglik
        gap = float(np.dot(1 - data["w"], loglik))
        assert abs(gap) > 10
        got1 = prog.log_prob({**data, "w": np.ones(data["N"])}, params)
        assert got1 - got == pytest.approx(gap, rel=1e-8)


def test_mixture_log_density_zero_weight_record_drops_out(backend):
    # a record with alpha = 0 does not enter the pseudo likelihood at all: moving its
    # value anywhere leaves target unchanged; with alpha = 1 it does not
    prog = _program("weighted_mixture_normal", backend)
    data, params = _mixture_case(3, 1)
    data["w"] = np.r_[0.0, data["w"][1:]]
    moved = {**data, "y": np.r_[data["y"][0] + 5.0, data["y"][1:]]}
    assert prog.log_prob(moved, params) == pytest.approx(prog.log_prob(data, params), rel=1e-10)
    one = {**data, "w": np.r_[1.0, data["w"][1:]]}
    assert abs(prog.log_prob({**one, "y": moved["y"]}, params) - prog.log_prob(one, params)) > 1


# ----------------------------------------------------------------- negative binomial


def negbin_reference(data, params):
    """Independent log density of weighted_negbin.stan (no Jacobian)."""
    X = np.asarray(data["X"]).reshape(data["N"], data["R"])
    beta, phi = params["beta"], params["phi"]
    mu = np.exp(X @ beta)
    loglik = stats.nbinom.logpmf(data["y"], phi, phi / (phi + mu))   # NB2: var mu + mu^2/phi
    prior = (stats.norm.logpdf(beta, 0, data["scale_beta"]).sum()
             + stats.t.logpdf(phi, 3, 0, data["scale_phi"]))
    return float(np.dot(data["w"], loglik) + prior), loglik


def test_negbin_log_density_matches_weighted_reference(backend):
    prog = _program("weighted_negbin", backend)
    rng = np.random.default_rng(5)
    for R in (1, 3):
        N = 80
        X = np.column_stack([np.ones(N), rng.normal(size=(N, R - 1))])
        y = rng.negative_binomial(8, 8 / (8 + 60), N)
        data = {"N": N, "R": R, "X": X, "y": y, "w": rng.uniform(0.0, 1.0, N),
                "scale_beta": 7.0, "scale_phi": 4.0}
        params = {"beta": np.r_[np.log(55.0), rng.normal(0, 0.2, R - 1)], "phi": 6.5}
        expected, loglik = negbin_reference(data, params)
        # the program samples beta and phi on the prior's standard scale
        std = {"beta_std": params["beta"] / data["scale_beta"],
               "phi_std": params["phi"] / data["scale_phi"]}
        assert prog.log_prob(data, std) == pytest.approx(expected, rel=1e-9), R
        gap = float(np.dot(1 - data["w"], loglik))
        assert abs(gap) > 10
        got1 = prog.log_prob({**data, "w": np.ones(N)}, std)
        assert got1 - prog.log_prob(data, std) == pytest.approx(gap, rel=1e-8)
