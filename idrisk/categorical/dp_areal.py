"""DP-areal: a Poisson-lognormal count model with a truncated DP mixture on the log-rates.

Hu & Savitsky (§2.2 and supplement §4). Records are tabulated by *combination* -- a pattern
b of the kept variables crossed with a label i -- with zeros filled in for absent
combinations: ``c_i^(b) ~ Poisson(lambda_i^(b))``,
``log lambda_i^(b) ~ Normal(mu + theta_z + phi_z . X^(b), 1/tau_lambda)``,
``z ~ Categorical(pi)``, where ``X^(b)`` one-hot encodes the pattern's attribute values. A
synthetic label for a record of pattern b is drawn with probabilities
``lambda_i^(b) / sum_i lambda_i^(b)``.

Two engines target the same posterior -- that of the corrected Stan program
``dp_areal`` (priors as in the supplement's listing: ``pi ~ Dirichlet(alpha/K)``,
``alpha ~ Gamma(1, 1)``, ``theta ~ N(0, 1/tau_theta)``, ``phi_k ~ MVN(mu_phi, diag(sigma)
Omega diag(sigma))``, ``mu_phi ~ N(0, 1/tau_phi)``, ``Omega ~ LKJ(4)``, ``sigma ~ half-t(3, 0,
1)``, ``mu ~ N(0, 1/tau_mu)``, all precisions ``Gamma(1, 1)``):

``sampler="gibbs"`` (default)
    a Metropolis-within-Gibbs sampler in numpy that adds the component labels z: z | rest
    (categorical); each log-rate by an independence Metropolis step with a t proposal at its
    Laplace approximation; (theta_k, phi_k) per component and mu, mu_phi by their Gaussian
    full conditionals; the precisions by their Gamma full conditionals; sigma and the
    correlation (Stan's unconstrained parameterisation) by adaptive random-walk Metropolis,
    coordinate by coordinate; pi | z by its Dirichlet; alpha by random-walk Metropolis on
    log alpha. Each sweep costs O(N K), so the CE scale (5,320 combinations, K = 50) runs
    in minutes where NUTS on the published program needs days.
``sampler="stan"``
    the corrected program through :class:`idrisk.stan.StanProgram` (for small problems and
    for checking the sampler).

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> d = pd.DataFrame({"g": rng.integers(0, 2, 300), "lab": rng.integers(0, 6, 300)})
>>> model = DPAreal(syn="lab", known=["g"], K=5, n_iter=300, burn=100, keep=2, seed=1,
...                 progress=False)
>>> out = model.fit(d).synthesize(2, seed=3)
>>> out.m, sorted(out[0]["lab"].unique()) == list(range(6))
(2, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from .._numba import jit
from .._progress import progress_bar
from .._result import Result
from .._schema import as_names, require_columns
from .._synthetic import Synthesizer, SyntheticData
from .dpmpm import _as_column, _categorical, _check_chain, _draw_plan

__all__ = ["ArealData", "DPAreal", "areal_data", "dp_areal_synthesize"]


@dataclass(frozen=True, repr=False)
class ArealData(Result):
    """Counts of every (pattern, label) combination, pattern-major (``i = b * G + g``).

    Attributes
    ----------
    counts : (N,) int array
    X : (N, R) one-hot design (the pattern's attribute values)
    pattern, label_code : (N,) pattern and label index of each combination
    patterns : DataFrame of the B patterns' kept values
    labels : Index of the G labels
    record_pattern : (n,) pattern index of every record
    dj : levels of each kept variable
    """

    counts: np.ndarray
    X: np.ndarray
    pattern: np.ndarray
    label_code: np.ndarray
    patterns: pd.DataFrame
    labels: pd.Index
    record_pattern: np.ndarray
    dj: list[int]

    @property
    def N(self) -> int:
        return len(self.counts)

    def summary(self) -> pd.DataFrame:
        """One row: combinations, patterns, labels, records and design columns."""
        return pd.DataFrame([{"combinations": self.N, "patterns": len(self.patterns),
                              "labels": len(self.labels), "records": len(self.record_pattern),
                              "design_columns": self.R,
                              "empty_combinations": int((self.counts == 0).sum())}])

    def to_frame(self) -> pd.DataFrame:
        """One row per combination: the pattern's kept values, ``label`` and ``count``."""
        out = self.patterns.iloc[self.pattern].reset_index(drop=True)
        out["label"] = np.asarray(self.labels)[self.label_code]
        out["count"] = self.counts
        return out

    def _header(self) -> str:
        return f"ArealData(N={self.N}, patterns={len(self.patterns)}, labels={len(self.labels)})"

    @property
    def R(self) -> int:
        return self.X.shape[1]

    def stan_data(self, K: int, lkj_eta: float = 4.0) -> dict:
        """The data block of the Stan program ``dp_areal``."""
        return {"N": self.N, "K": int(K), "p": len(self.dj), "dj": np.asarray(self.dj, float),
                "R": self.R, "X": self.X, "c": self.counts.astype(int),
                "lkj_eta": float(lkj_eta)}


def areal_data(data: pd.DataFrame, syn: str, known: str | Sequence[str]) -> ArealData:
    """Tabulate ``data`` into the DP-areal combinations (zeros included): the label ``syn``
    within each pattern of the ``known`` columns.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"g": [1, 1, 2], "lab": ["a", "b", "a"]})
    >>> a = areal_data(d, "lab", "g")
    >>> a.counts.tolist(), a.X.tolist()
    ([1, 1, 1, 0], [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    """
    label = syn
    kept = [known] if isinstance(known, str) else list(known)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a DataFrame, got {type(data).__name__}")
    require_columns(data, [label], "label", "data")
    require_columns(data, kept, "kept", "data")
    if not kept:
        raise ValueError("known is empty: DP-areal needs at least one known variable")
    if label in kept:
        raise ValueError(f"syn {label!r} is also in known")
    if data[[label, *kept]].isna().any().any():
        raise ValueError("data: missing values in syn or the known variables")
    lab = pd.Categorical(data[label])
    labels = pd.Index(lab.categories)
    G = len(labels)
    grp = data.groupby(kept, observed=True, sort=True)
    rec_pat = grp.ngroup().to_numpy()
    patterns = grp.size().reset_index()[kept]
    B = len(patterns)
    counts = np.bincount(rec_pat * G + lab.codes, minlength=B * G)
    blocks, dj = [], []
    for c in kept:
        levels = pd.Categorical(data[c]).categories
        dj.append(len(levels))
        codes = pd.Categorical(patterns[c], categories=levels).codes
        blocks.append(np.eye(len(levels))[codes])
    Xb = np.hstack(blocks)
    pattern = np.repeat(np.arange(B), G)
    return ArealData(counts=counts.astype(np.int64), X=Xb[pattern], pattern=pattern,
                     label_code=np.tile(np.arange(G), B), patterns=patterns, labels=labels,
                     record_pattern=rec_pat, dj=dj)


# ------------------------------------------------------------------ Gibbs helpers
def _cpc_to_chol(y: np.ndarray, R: int) -> tuple[np.ndarray, float]:
    """Stan's cholesky_factor_corr transform: unconstrained y -> L and log |Jacobian|."""
    z = np.tanh(y)
    logj = float(np.sum(np.log1p(-z ** 2)))
    L = np.zeros((R, R))
    L[0, 0] = 1.0
    pos = 0
    for i in range(1, R):
        ss = 0.0
        for j in range(i):
            if j == 0:
                L[i, 0] = z[pos]
            else:
                logj += 0.5 * np.log1p(-ss)
                L[i, j] = z[pos] * np.sqrt(1.0 - ss)
            ss += L[i, j] ** 2
            pos += 1
        L[i, i] = np.sqrt(max(1.0 - ss, 1e-300))
    return L, logj


def _log_dirichlet(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    """log of a Dirichlet(a) draw, stable for small shapes: log G(a) = log G(a+1) + log U / a."""
    lg = np.log(rng.standard_gamma(a + 1.0)) + np.log(rng.random(a.shape)) / a
    top = lg.max()
    return lg - (top + np.log(np.sum(np.exp(lg - top))))


@jit
def _sigma_logp(v, dev, R, eta):
    """Log target of (log sigma, CPC coordinates) given dev = phi_k - mu_phi (K x R):
    sum_k log MVN(dev_k | 0, diag(sigma) Omega diag(sigma)) + half-t(3) priors + LKJ
    Cholesky density + Jacobians (Stan's transforms)."""
    K = dev.shape[0]
    sigma = np.exp(v[:R])
    L = np.zeros((R, R))
    L[0, 0] = 1.0
    lp = 0.0
    pos = R
    for i in range(1, R):
        ss = 0.0
        for j in range(i):
            zz = np.tanh(v[pos])
            lp += np.log1p(-zz * zz)
            if j == 0:
                L[i, 0] = zz
            else:
                lp += 0.5 * np.log1p(-ss)
                L[i, j] = zz * np.sqrt(1.0 - ss)
            ss += L[i, j] * L[i, j]
            pos += 1
        L[i, i] = np.sqrt(max(1.0 - ss, 1e-300))
    for r in range(R):
        lp += -2.0 * np.log1p(sigma[r] * sigma[r] / 3.0) + v[r]
        if r >= 1:
            lp += (R - (r + 1) + 2.0 * eta - 2.0) * np.log(L[r, r])
    # Cholesky of the covariance: rows of L scaled by sigma
    logdet = 0.0
    for r in range(R):
        logdet += np.log(sigma[r] * L[r, r])
    quad = 0.0
    w = np.empty(R)
    for k in range(K):
        for r in range(R):
            acc = dev[k, r]
            for j in range(r):
                acc -= sigma[r] * L[r, j] * w[j]
            w[r] = acc / (sigma[r] * L[r, r])
            quad += w[r] * w[r]
    return -K * logdet - 0.5 * quad + lp


class _SigmaBlock:
    """Adaptive coordinate-wise random-walk Metropolis for (sigma_phi, L_phi)."""

    def __init__(self, R: int, lkj_eta: float):
        self.R = R
        self.eta = lkj_eta
        self.v = np.zeros(R + R * (R - 1) // 2)       # log sigma, then Stan's CPC coordinates
        self.step = np.full(self.v.size, 0.3)
        self.acc = np.zeros(self.v.size)
        self.tries = 0

    def parts(self, v):
        R = self.R
        sigma = np.exp(v[:R])
        L, logj = _cpc_to_chol(v[R:], R) if R > 1 else (np.ones((1, 1)), 0.0)
        return sigma, L, logj

    def logp(self, v, dev: np.ndarray) -> float:
        return float(_sigma_logp(v, np.ascontiguousarray(dev), self.R, float(self.eta)))

    def update(self, rng, dev: np.ndarray, adapt: bool) -> None:
        cur = self.logp(self.v, dev)
        self.tries += 1
        for j in range(self.v.size):
            prop = self.v.copy()
            prop[j] += self.step[j] * rng.standard_normal()
            new = self.logp(prop, dev)
            if np.log(rng.random()) < new - cur:
                self.v, cur = prop, new
                self.acc[j] += 1
                if adapt:
                    self.step[j] *= np.exp(0.56 / np.sqrt(self.tries))
            elif adapt:
                self.step[j] *= np.exp(-0.44 / np.sqrt(self.tries))

    def cov_chol(self) -> np.ndarray:
        sigma, L, _ = self.parts(self.v)
        return sigma[:, None] * L


def _eta_logf(x, c, tau, m):
    """Full conditional of a log-rate, up to a constant: Poisson(c | e^x) N(x | m, 1/tau)."""
    return c * x - np.exp(x) - 0.5 * tau * (x - m) ** 2


def _t5_logq(x, mode, scale):
    """t(5) proposal log density up to a constant."""
    return -3.0 * np.log1p(((x - mode) / scale) ** 2 / 5.0)


def _log_alpha_post(a, K, sum_log_pi):
    """log p(log alpha | pi): Gamma(1, 1) prior, Dirichlet(alpha / K) weights, Jacobian."""
    return (-a + np.log(a) + special.gammaln(a) - K * special.gammaln(a / K)
            + (a / K - 1.0) * sum_log_pi)


def _gibbs(ad: ArealData, K: int, n_iter: int, burn: int, keep: set[int], lkj_eta: float,
           seed, progress: bool, store_eta: bool):
    rng = np.random.default_rng(seed)
    c = ad.counts.astype(float)
    N, R = ad.N, ad.R
    B = ad.patterns.shape[0]
    Xb = ad.X[np.arange(B) * len(ad.labels)]          # one row per pattern
    Db = np.hstack([np.ones((B, 1)), Xb])             # [1, X_b]
    pat = ad.pattern
    # state
    eta = np.log(c + 0.5)
    z = rng.integers(0, K, N)
    mu = float(eta.mean())
    theta = np.zeros(K)
    phi = np.zeros((K, R))
    mu_phi = np.zeros(R)
    tau_theta = tau_phi = tau_mu = tau_lam = 1.0
    alpha = 1.0
    log_pi = np.full(K, -np.log(K))
    sig = _SigmaBlock(R, lkj_eta)
    alpha_step = 0.5
    trace = {k: np.empty(n_iter) for k in ("tau_lambda", "alpha", "mu", "kstar", "tau_theta")}
    eta_sum = np.zeros(N)
    eta_sq = np.zeros(N)
    eta_draws: list[np.ndarray] | None = [] if store_eta else None
    kept_eta: list[tuple[int, np.ndarray]] = []
    acc_eta = 0.0
    bar = progress_bar(total=n_iter, desc="DP-areal (Gibbs)", unit="it", mininterval=0.5,
                       show=progress)
    try:
        for it in range(1, n_iter + 1):
            adapt = it <= burn
            # 1. component labels
            Mb = mu + theta[None, :] + Xb @ phi.T           # B x K
            Mi = Mb[pat]                                    # N x K
            logw = log_pi[None, :] - 0.5 * tau_lam * (eta[:, None] - Mi) ** 2
            z = _categorical(rng, np.exp(logw - logw.max(axis=1, keepdims=True)))
            m_i = Mi[np.arange(N), z]
            # 2. log-rates: independence Metropolis, t(5) proposal at the Laplace approximation
            mode = eta.copy()
            for _ in range(8):
                g = c - np.exp(mode) - tau_lam * (mode - m_i)
                h = -np.exp(mode) - tau_lam
                mode = mode - np.clip(g / h, -3.0, 3.0)
            scale = 1.0 / np.sqrt(np.exp(mode) + tau_lam)
            prop = mode + scale * rng.standard_t(5, N)

            la = (_eta_logf(prop, c, tau_lam, m_i) - _eta_logf(eta, c, tau_lam, m_i)
                  + _t5_logq(eta, mode, scale) - _t5_logq(prop, mode, scale))
            ok = np.log(rng.random(N)) < la
            eta = np.where(ok, prop, eta)
            acc_eta += ok.mean()
            # 3. global intercept
            r = eta - theta[z] - np.einsum("ij,ij->i", ad.X, phi[z])
            prec = tau_mu + N * tau_lam
            mu = float(tau_lam * r.sum() / prec + rng.standard_normal() / np.sqrt(prec))
            # 4. (theta_k, phi_k) per component
            Lsig = sig.cov_chol()
            Sinv = np.linalg.inv(Lsig @ Lsig.T)
            P0 = np.zeros((R + 1, R + 1))
            P0[0, 0] = tau_theta
            P0[1:, 1:] = Sinv
            b0 = np.concatenate([[0.0], Sinv @ mu_phi])
            y = eta - mu
            nkb = np.zeros((K, B))
            np.add.at(nkb, (z, pat), 1.0)
            skb = np.zeros((K, B))
            np.add.at(skb, (z, pat), y)
            Q = P0[None] + tau_lam * np.einsum("kb,bi,bj->kij", nkb, Db, Db)
            rhs = b0[None] + tau_lam * skb @ Db
            Lq = np.linalg.cholesky(Q)
            mean = np.linalg.solve(Q, rhs[..., None])[..., 0]
            noise = np.linalg.solve(np.transpose(Lq, (0, 2, 1)),
                                    rng.standard_normal((K, R + 1))[..., None])[..., 0]
            beta = mean + noise
            theta, phi = beta[:, 0], beta[:, 1:]
            # 5. precisions
            m_i = mu + theta[z] + np.einsum("ij,ij->i", ad.X, phi[z])
            tau_lam = rng.gamma(1.0 + N / 2, 1.0 / (1.0 + 0.5 * np.sum((eta - m_i) ** 2)))
            tau_theta = rng.gamma(1.0 + K / 2, 1.0 / (1.0 + 0.5 * np.sum(theta ** 2)))
            tau_mu = rng.gamma(1.5, 1.0 / (1.0 + 0.5 * mu ** 2))
            # 6. mu_phi and its precision
            Pm = tau_phi * np.eye(R) + K * Sinv
            Lm = np.linalg.cholesky(Pm)
            mm = np.linalg.solve(Pm, Sinv @ phi.sum(axis=0))
            mu_phi = mm + np.linalg.solve(Lm.T, rng.standard_normal(R))
            tau_phi = rng.gamma(1.0 + R / 2, 1.0 / (1.0 + 0.5 * np.sum(mu_phi ** 2)))
            # 7. sigma_phi and the correlation
            sig.update(rng, phi - mu_phi[None, :], adapt)
            # 8. mixture weights and alpha
            nk = np.bincount(z, minlength=K)
            log_pi = _log_dirichlet(rng, alpha / K + nk)
            slp = float(log_pi.sum())

            for _ in range(3):
                a_new = alpha * np.exp(alpha_step * rng.standard_normal())
                if np.log(rng.random()) < (_log_alpha_post(a_new, K, slp)
                                           - _log_alpha_post(alpha, K, slp)):
                    alpha = a_new
                    if adapt:
                        alpha_step *= 1.02
                elif adapt:
                    alpha_step *= 0.99
            trace["tau_lambda"][it - 1] = tau_lam
            trace["alpha"][it - 1] = alpha
            trace["mu"][it - 1] = mu
            trace["kstar"][it - 1] = np.count_nonzero(nk)
            trace["tau_theta"][it - 1] = tau_theta
            if it > burn:
                eta_sum += eta
                eta_sq += eta ** 2
                if eta_draws is not None:  # store_eta
                    eta_draws.append(eta.copy())
            if it in keep:
                kept_eta.append((it, eta.copy()))
            if it % 50 == 0:
                bar.update(50)
    finally:
        bar.close()
    n_post = n_iter - burn
    out = {"trace": pd.DataFrame({"iteration": np.arange(1, n_iter + 1), **trace}),
           "eta_mean": eta_sum / n_post,
           "eta_sd": np.sqrt(np.maximum(eta_sq / n_post - (eta_sum / n_post) ** 2, 0.0)),
           "kept": kept_eta, "eta_accept": acc_eta / n_iter,
           "sigma_accept": sig.acc / max(sig.tries, 1)}
    if store_eta:
        out["eta_draws"] = np.array(eta_draws)
    return out


class DPAreal(Synthesizer):
    """The DP-areal synthesizer.

    Parameters
    ----------
    syn : str
        The categorical column to synthesize (required by ``fit``).
    known : str or list of str
        The known (kept) columns whose combinations (patterns) the label is drawn within.
    K : int
        Mixture components (the paper: 50).
    sampler : {"gibbs", "stan"}
        Metropolis-within-Gibbs in numpy, or the corrected Stan program (NUTS).
    lkj_eta : float
        LKJ shape of the correlation of phi (the published listing: 4; the text: 2).
    n_iter, burn : int
        Gibbs: ``n_iter`` sweeps of which ``burn`` adapt and are discarded. Stan: each
        chain has ``burn`` warm-up and ``n_iter - burn`` draws.
    keep : int
        Posterior draws of the log-rates kept for synthesis (Gibbs: sweeps
        ``burn + round(j (n_iter - burn) / keep)``; Stan: evenly spaced over all draws);
        ``synthesize(m)`` uses m of them, evenly spread.
    chains, adapt_delta : int, float
        With ``sampler="stan"``.
    store_eta : bool, optional
        Keep every post-burn-in draw of the log-rates in ``eta_draws_`` (default when
        N x draws <= 2 million).
    stan_program : {"dp_areal", "dp_areal_nc"}
        With ``sampler="stan"``: the corrected published program, or the same posterior in
        a non-centred parameterisation (NUTS mixes much better on it).
    backend : {"auto", "cmdstanpy", "pystan"}
        With ``sampler="stan"``: the Stan backend (as for every Stan synthesizer; see
        :class:`idrisk.StanProgram`).
    seed : int, optional
        Seed of the sampler (None: fresh entropy; the Stan sampler's seed is kept in
        ``seed_``). The synthetic draws have their own ``synthesize(seed=...)``.
    progress : bool

    Attributes
    ----------
    syn_ : str
    known_ : list of str
    seed_ : int
        The seed of the sampler (``seed``, or the one drawn when it is None).
    areal_ : ArealData
        The tabulated combinations.
    trace_ : DataFrame
        Per sweep (Gibbs) or draw (Stan): ``tau_lambda``, ``alpha``, ``mu``, ...
    eta_mean_, eta_sd_ : ndarray
        Posterior mean and sd of each combination's log-rate.
    eta_draws_ : ndarray or None
    sampler_diagnostics_ : pandas.Series
        Gibbs: ``eta_accept`` and the sigma block's acceptance rates; Stan: ``divergent``.
    stan_fit_ : StanFit or None
    iterations_ : list of int
        The sweeps (Gibbs) or draws (Stan, 1-based) of the kept log-rates.
    """

    _method = "dp_areal"

    def __init__(
        self,
        *,
        syn: str | None = None,
        known: str | Sequence[str] = (),
        K: int = 50,
        sampler: str = "gibbs",
        lkj_eta: float = 4.0,
        n_iter: int = 4000,
        burn: int = 2000,
        keep: int = 20,
        chains: int = 4,
        adapt_delta: float = 0.9,
        store_eta: bool | None = None,
        stan_program: str = "dp_areal",
        backend: str = "auto",
        seed: int | None = None,
        progress: bool = True,
    ) -> None:
        self.syn = syn
        self.known = known
        self.K = K
        self.sampler = sampler
        self.lkj_eta = lkj_eta
        self.n_iter = n_iter
        self.burn = burn
        self.keep = keep
        self.chains = chains
        self.adapt_delta = adapt_delta
        self.store_eta = store_eta
        self.stan_program = stan_program
        self.backend = backend
        self.seed = seed
        self.progress = progress

    def _validate_params(self) -> None:
        if self.stan_program not in ("dp_areal", "dp_areal_nc"):
            raise ValueError(f"stan_program must be 'dp_areal' or 'dp_areal_nc', "
                             f"got {self.stan_program!r}")
        _check_chain(self.K, self.n_iter, self.burn, self.keep)
        if self.sampler not in ("gibbs", "stan"):
            raise ValueError(f"sampler must be 'gibbs' or 'stan', got {self.sampler!r}")
        if self.lkj_eta <= 0:
            raise ValueError(f"lkj_eta must be positive, got {self.lkj_eta!r}")

    def fit(self, data: pd.DataFrame) -> DPAreal:
        """Sample the posterior and keep ``keep`` well-separated draws of the log-rates.

        Parameters
        ----------
        data : DataFrame
            Confidential data holding ``syn`` and ``known``.

        Returns
        -------
        self
        """
        self._validate_params()
        label = self.syn
        if not isinstance(label, str):
            raise ValueError(f"syn must name the column to synthesize, got {label!r}")
        kept = as_names(self.known, "known")
        ad = areal_data(data, label, kept)
        seed = self._fit_seed()
        n_iter, burn, keep, K = int(self.n_iter), int(self.burn), int(self.keep), int(self.K)
        store_eta = self.store_eta
        if store_eta is None:
            store_eta = ad.N * (n_iter - burn) <= 2_000_000
        stan_fit = None
        if self.sampler == "gibbs":
            keep_at = {burn + int(round(j * (n_iter - burn) / keep)) for j in range(1, keep + 1)}
            res = _gibbs(ad, K, n_iter, burn, keep_at, float(self.lkj_eta), seed,
                         self.progress, store_eta)
            trace = res["trace"]
            eta_mean, eta_sd = res["eta_mean"], res["eta_sd"]
            eta_draws = res.get("eta_draws")
            kept_eta = res["kept"]
            sigma_accept = np.atleast_1d(res["sigma_accept"])
            diagnostics = pd.Series(
                {"eta_accept": float(res["eta_accept"]),
                 **{f"sigma_accept_{j + 1}": float(a) for j, a in enumerate(sigma_accept)}},
                name="sampler_diagnostics")
        else:
            from ..stan import StanProgram

            prog = StanProgram(self.stan_program, backend=self.backend)
            stan_fit = prog.sample(ad.stan_data(K, float(self.lkj_eta)),
                                   seed=seed,
                                   chains=int(self.chains), warmup=burn, draws=n_iter - burn,
                                   adapt_delta=float(self.adapt_delta),
                                   progress=self.progress,
                                   check=["log_lambda", "tau_lambda"])
            eta = stan_fit.draws["log_lambda"].reshape(-1, ad.N)
            eta_draws = eta if store_eta else None
            eta_mean, eta_sd = eta.mean(axis=0), eta.std(axis=0)
            idx = np.linspace(0, eta.shape[0] - 1, keep).round().astype(int)
            kept_eta = [(int(i) + 1, eta[i].copy()) for i in idx]
            trace = pd.DataFrame({
                "draw": np.arange(1, eta.shape[0] + 1),
                "tau_lambda": stan_fit.draws["tau_lambda"].reshape(-1),
                "alpha": stan_fit.draws["alpha"].reshape(-1),
                "mu": stan_fit.draws["mu"].reshape(-1)})
            diagnostics = pd.Series(
                {"divergent": int(stan_fit.sampler["divergent__"].sum())},
                name="sampler_diagnostics")
        self.data_, self.syn_, self.known_, self.areal_ = data, label, kept, ad
        self.seed_ = seed
        self.trace_ = trace
        self.eta_mean_, self.eta_sd_, self.eta_draws_ = eta_mean, eta_sd, eta_draws
        self.sampler_diagnostics_ = diagnostics
        self.stan_fit_ = stan_fit
        self.iterations_ = [i for i, _ in kept_eta]
        self._kept = kept_eta
        return self

    def probabilities(self, draw: int = -1) -> pd.DataFrame:
        """Label probabilities within each pattern, ``lambda / sum lambda``, at kept draw
        ``draw`` (patterns x labels)."""
        self._check_fitted()
        ad = self.areal_
        eta = self._kept[draw][1].reshape(len(ad.patterns), len(ad.labels))
        p = np.exp(eta - eta.max(axis=1, keepdims=True))
        return pd.DataFrame(p / p.sum(axis=1, keepdims=True), columns=ad.labels)

    def synthesize(self, m: int = 5, seed: int | None = None) -> SyntheticData:
        """m partially synthetic datasets: each record's label drawn within its pattern.

        Parameters
        ----------
        m : int
            Number of datasets (at most ``keep``).
        seed : int, optional
            Seed of the label draws (None: fresh entropy).

        Returns
        -------
        SyntheticData
            ``diagnostics``: the sweep or draw (``iteration``) behind each dataset.
        """
        self._check_fitted()
        m, seed, rng, positions = _draw_plan(len(self._kept), m, seed, "posterior draws")
        ad = self.areal_
        B, G = len(ad.patterns), len(ad.labels)
        chosen = [self._kept[k] for k in positions]
        out = []
        for _, eta in chosen:
            e = eta.reshape(B, G)
            w = np.exp(e - e.max(axis=1, keepdims=True))[ad.record_pattern]
            codes = _categorical(rng, w)
            d = self.data_.copy()
            d[self.syn_] = _as_column(codes, self.data_[self.syn_], ad.labels)
            out.append(d)
        diagnostics = pd.DataFrame({"iteration": [i for i, _ in chosen]},
                                   index=pd.RangeIndex(1, m + 1, name="dataset"))
        return self._result(out, seed, diagnostics)


def dp_areal_synthesize(data: pd.DataFrame, syn: str, known: str | Sequence[str], m: int = 5,
                        *, K: int = 50, n_iter: int = 4000, burn: int = 2000,
                        sampler: str = "gibbs", seed: int | None = None,
                        progress: bool = True) -> SyntheticData:
    """Fit :class:`DPAreal` and synthesize ``syn`` (one call); ``seed`` seeds the sampler
    and the draws (None: fresh entropy)."""
    model = DPAreal(syn=syn, known=known, K=K, sampler=sampler, n_iter=n_iter, burn=burn,
                    keep=m, seed=seed, progress=progress)
    return model.fit(data).synthesize(m, seed=seed)
