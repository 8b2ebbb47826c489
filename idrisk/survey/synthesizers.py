"""FBS and FBP: alpha-weighted Bayesian synthesizers of a survey outcome and its weight.

Both follow the pseudo posterior mechanism (:mod:`idrisk.survey.mechanism`): an unweighted
Stan fit gives record-level Lipschitz bounds ``Delta_i``, privacy weights ``alpha`` scale
each record's log-likelihood, and m synthetic datasets drawn from the alpha-weighted fit
carry ``epsilon = 2 Delta_alpha m``.

* **FBS** (sample model, ``stan/fbs.stan``): ``(log y, log w) | x ~ MVN2``.  Synthetic
  ``y*`` and the *smoothed* weight ``w* = exp(x'beta_w + rho sigma_w / sigma_y (log y* -
  x'beta_y))``; tables are design-based estimates from ``(y*, w*)``.
* **FBP** (population model with informative-sampling correction, ``stan/fbp.stan``):
  ``log y* ~ N(x'beta, sigma_y)`` (bias already corrected); smoothed ``pi* ∝ exp(kappa_y
  log y*)`` scaled so that the weights ``w* = 1/pi*`` of stratum h add up to the stratum's
  weighted total ``sum_{i in h} w_i``.  Counts use ``w*``; cell means are unweighted; means
  of margins weight each design cell's mean by its ``w*`` count.

The design variables enter as main effects (``coding="additive"``: intercept and
indicators of all but the first level of each variable, the paper's ``x_i``); ``coding=
"cells"`` gives one coefficient per design cell instead.  Outcome and weight logs are
centred by fixed constants (their sample means rounded to one decimal) before fitting --
an exact reparametrization that helps NUTS.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .design import SurveyTable, _column, _numeric, combine_tables, design_table
from .mechanism import (
    alpha_weights,
    epsilon,
    find_alpha_scaling,
    lipschitz_bounds,
    weighted_lipschitz_bounds,
)

__all__ = ["FBP", "FBS", "SurveySynthesis", "fbp_loglik", "fbs_loglik"]

LOG_2PI = float(np.log(2 * np.pi))


# --------------------------------------------------------------------------- log densities


def fbs_loglik(draws: dict[str, np.ndarray], X: np.ndarray, ly: np.ndarray,
               lw: np.ndarray) -> np.ndarray:
    """Per-record log density of FBS's bivariate normal, shape (draws, records).

    ``draws`` holds ``beta`` (S, K, 2), ``sigma`` (S, 2) and ``rho`` (S,), ``ly``/``lw`` the
    centred log outcome and log weight.
    """
    beta = np.asarray(draws["beta"], float)
    sigma = np.asarray(draws["sigma"], float)
    rho = np.asarray(draws["rho"], float)
    mu_y = beta[:, :, 0] @ X.T
    mu_w = beta[:, :, 1] @ X.T
    u = (ly[None, :] - mu_y) / sigma[:, [0]]
    v = (lw[None, :] - mu_w) / sigma[:, [1]]
    r = rho[:, None]
    q = (u * u - 2 * r * u * v + v * v) / (1 - r * r)
    return (-LOG_2PI - np.log(sigma[:, [0]]) - np.log(sigma[:, [1]])
            - 0.5 * np.log1p(-r * r) - 0.5 * q)


def fbp_loglik(draws: dict[str, np.ndarray], X: np.ndarray, ly: np.ndarray,
               lpi: np.ndarray) -> np.ndarray:
    """Per-record log density of FBP's sample likelihood, shape (draws, records).

    ``log N(log y | x'beta, sigma_y) + log N(log pi | kappa_y log y + x'kappa_x, sigma_pi)
    - log E[pi | x]``, with ``log E[pi | x] = x'kappa_x + kappa_y x'beta + (kappa_y^2
    sigma_y^2 + sigma_pi^2) / 2``.  This is the exact sample density of Leon-Novelo &
    Savitsky, ``pi p(pi | y) p(y) / E[pi | x]``: its factor ``pi`` turns the spec's
    lognormal density of ``pi`` into the normal density of ``log pi``.  The posterior is the
    same either way (``log pi`` is data), but the Lipschitz bounds are not: with the
    lognormal density every record carries ``-log pi`` (about +4.6 here), which ties alpha
    to the weight and hence to y, and the alpha-weighted fit then overstates the cell means
    by 15-30% (seen in the simulation).
    """
    beta = np.asarray(draws["beta"], float)
    kx = np.asarray(draws["kappa_x"], float)
    ky = np.asarray(draws["kappa_y"], float)[:, None]
    sy = np.asarray(draws["sigma_y"], float)[:, None]
    sp = np.asarray(draws["sigma_pi"], float)[:, None]
    mu = beta @ X.T
    xk = kx @ X.T
    zy = (ly[None, :] - mu) / sy
    zp = (lpi[None, :] - ky * ly[None, :] - xk) / sp
    log_ny = -0.5 * LOG_2PI - np.log(sy) - 0.5 * zy * zy
    log_npi = -0.5 * LOG_2PI - np.log(sp) - 0.5 * zp * zp
    log_e = xk + ky * mu + 0.5 * (ky * ky * sy * sy + sp * sp)
    return log_ny + log_npi - log_e


# --------------------------------------------------------------------------- result


@dataclass
class SurveySynthesis:
    """m synthetic survey samples with their privacy accounting.

    Attributes
    ----------
    synthetic : list of pandas.DataFrame
        The design columns, ``y`` (synthetic outcome), ``w`` (smoothed weight used for
        tables) and ``w_draw`` (FBS: the weight drawn jointly with ``y``).
    records : pandas.DataFrame
        Per confidential record: ``delta`` (unweighted Lipschitz bound), ``alpha``,
        ``delta_alpha`` (bound under the alpha-weighted fit).
    delta_alpha : float
        ``max_i delta_alpha_i``.
    epsilon : float
        ``2 * delta_alpha * m``.
    method : str
    """

    synthetic: list[pd.DataFrame]
    records: pd.DataFrame
    delta_alpha: float
    epsilon: float
    method: str
    design: list[str]
    strata: str
    draw_index: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def m(self) -> int:
        return len(self.synthetic)

    def __repr__(self) -> str:
        a = self.records["alpha"]
        return (
            f"SurveySynthesis(method={self.method!r}, m={self.m}, n={len(self.records)}, "
            f"delta_alpha={self.delta_alpha:.4g}, epsilon={self.epsilon:.4g}, "
            f"alpha: mean {a.mean():.3f}, min {a.min():.3f}, max {a.max():.3f})"
        )

    def _repr_html_(self) -> str:
        return f"<p><code>{html.escape(repr(self))}</code></p>"

    def to_frame(self) -> pd.DataFrame:
        """All synthetic datasets stacked, with a ``dataset`` column (1..m)."""
        return pd.concat(
            [d.assign(dataset=k + 1) for k, d in enumerate(self.synthetic)], ignore_index=True
        )

    def tables(self, by: Sequence[str] | str | None = None, *, margins: bool = True,
               level: float = 0.95) -> SurveyTable:
        """Tables from each synthetic dataset, combined over the m datasets.

        ``by`` defaults to the design columns and must be among the design/strata
        columns.  FBS: :func:`design_table` on ``(y, w)``.  FBP: counts from ``w``; cell
        means unweighted within each design cell; margins of means weight each design
        cell's mean by its ``w`` count (the table weight ``N*_cell / n_cell``).
        """
        by = list(self.design) if by is None else ([by] if isinstance(by, str) else list(by))
        allowed = set(self.design) | {self.strata}
        for b in by:
            if b not in allowed:
                raise ValueError(f"by column {b!r} is not a design column ({sorted(allowed)})")
        per = []
        for d in self.synthetic:
            if self.method == "fbs":
                per.append(design_table(d, "y", "w", self.strata, by, margins=margins))
            else:
                counts = design_table(d, "y", "w", self.strata, by, margins=margins)
                cell_total = d.groupby(self.design, observed=True)["w"].transform("sum")
                cell_n = d.groupby(self.design, observed=True)["w"].transform("size")
                means = design_table(d.assign(w_cell=cell_total / cell_n), "y", "w_cell",
                                     self.strata, by, margins=margins)
                t = counts.table.copy()
                t["mean"] = means.table["mean"].to_numpy()
                t["mean_se"] = means.table["mean_se"].to_numpy()
                per.append(SurveyTable(t, by=counts.by, method="fbp"))
        out = combine_tables(per, level=level, method=self.method)
        out.info.update({"epsilon": self.epsilon, "delta_alpha": self.delta_alpha})
        return out


# --------------------------------------------------------------------------- synthesizers


def _design_matrix(data: pd.DataFrame, design: list[str],
                   coding: str = "additive") -> tuple[np.ndarray, list[str]]:
    """Model matrix of the design variables: ``"additive"`` (intercept and main effects,
    first level of each variable as reference) or ``"cells"`` (one indicator per observed
    combination)."""
    for d in design:
        col = _column(data, d, "design")
        if col.isna().any():
            raise ValueError(f"design column {d!r} has missing values")
    n = len(data)
    if coding == "cells":
        keys = data[design].astype(str).agg("\x1f".join, axis=1)
        cells = sorted(keys.unique())
        lookup = {k: j for j, k in enumerate(cells)}
        X = np.zeros((n, len(cells)))
        X[np.arange(n), keys.map(lookup).to_numpy()] = 1.0
        return X, [c.replace("\x1f", ":") for c in cells]
    if coding != "additive":
        raise ValueError(f"coding must be 'additive' or 'cells', got {coding!r}")
    cols, names = [np.ones(n)], ["(Intercept)"]
    for d in design:
        values = data[d].to_numpy()
        levels = sorted(pd.unique(values).tolist(), key=str)
        for lev in levels[1:]:
            cols.append((values == lev).astype(float))
            names.append(f"{d}={lev}")
    return np.column_stack(cols), names


class _PseudoPosterior:
    program = ""
    method = ""

    def __init__(
        self,
        *,
        target_delta: float | None = None,
        c: float = 1.0,
        g: float = 0.0,
        alpha: Sequence[float] | None = None,
        refits: int = 2,
        tolerance: float = 0.05,
        chains: int = 2,
        warmup: int = 500,
        draws: int = 500,
        seed: int = 1,
        backend: str = "auto",
        progress: bool = False,
        adapt_delta: float = 0.9,
        coding: str = "additive",
    ) -> None:
        if coding not in ("additive", "cells"):
            raise ValueError(f"coding must be 'additive' or 'cells', got {coding!r}")
        self.coding = coding
        self.target_delta = target_delta
        self.c, self.g = float(c), float(g)
        self.alpha_given = None if alpha is None else np.asarray(alpha, dtype=float)
        self.refits = int(refits)
        self.tolerance = float(tolerance)
        self.chains, self.warmup, self.draws = int(chains), int(warmup), int(draws)
        self.seed = int(seed)
        self.backend = backend
        self.progress = progress
        self.adapt_delta = adapt_delta
        self._fitted = False
        self.last_synthesis: SurveySynthesis | None = None

    def __repr__(self) -> str:
        state = (
            f"fitted, n={len(self.records)}, delta_alpha={self.delta_alpha:.4g}"
            if self._fitted else "not fitted"
        )
        return f"{type(self).__name__}(target_delta={self.target_delta}, {state})"

    # -- hooks
    def _stan_data(self, alpha: np.ndarray) -> dict:
        raise NotImplementedError

    def _loglik(self, draws: dict) -> np.ndarray:
        raise NotImplementedError

    def _draws(self, fit) -> dict:
        raise NotImplementedError

    def _synthesize_one(self, draws: dict, s: int, rng: np.random.Generator) -> pd.DataFrame:
        raise NotImplementedError

    # -- fitting
    def _sample(self, alpha: np.ndarray, seed: int):
        from idrisk.stan import StanProgram

        prog = StanProgram(self.program, backend=self.backend)
        return prog.sample(
            self._stan_data(alpha), seed=seed, chains=self.chains, warmup=self.warmup,
            draws=self.draws, adapt_delta=self.adapt_delta, progress=self.progress,
            check=["lp__"],
        )

    def _prepare(self, data, y, weight, design, strata):
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        design = [design] if isinstance(design, str) else list(design)
        if not design:
            raise ValueError("design must name at least one column")
        self.y_name, self.w_name = y, weight
        self.design = design
        self.strata = design[0] if strata is None else strata
        _column(data, self.strata, "strata")
        self.yv = _numeric(data, y, "y", positive=True)
        self.wv = _numeric(data, weight, "weight", positive=True)
        self.X, self.columns = _design_matrix(data, design, self.coding)
        self.frame = data[list(dict.fromkeys([*design, self.strata]))].reset_index(drop=True)
        self.c_y = round(float(np.mean(np.log(self.yv))), 1)
        self.ly = np.log(self.yv) - self.c_y

    def fit(
        self,
        data: pd.DataFrame,
        y: str,
        weight: str,
        design: Sequence[str] | str,
        strata: str | None = None,
    ):
        """Fit the unweighted model, set the privacy weights alpha, fit the weighted model.

        Parameters
        ----------
        data : DataFrame
            The confidential sample.
        y, weight : str
            Outcome (positive) and survey weight (positive) columns.
        design : sequence of str
            Public design variables (strata first), not synthesized.
        strata : str, optional
            Stratum column (default: the first design column).

        Returns
        -------
        self
        """
        self._prepare(data, y, weight, design, strata)
        n = len(self.yv)
        fit0 = self._sample(np.ones(n), self.seed)
        self.fit_unweighted = fit0
        self.delta = lipschitz_bounds(self._loglik(self._draws(fit0)))
        history = []
        if self.alpha_given is not None:
            if self.alpha_given.shape != (n,):
                raise ValueError(f"alpha must have one value per record ({n})")
            alpha = np.clip(self.alpha_given, 0, 1)
            c, g = float("nan"), float("nan")
        elif self.target_delta is not None:
            c, g = find_alpha_scaling(self.delta, self.target_delta, g=self.g)
            alpha = alpha_weights(self.delta, c, g)
        else:
            c, g = self.c, self.g
            alpha = alpha_weights(self.delta, c, g)
        for k in range(self.refits + 1):
            fit = self._sample(alpha, self.seed + 1 + k)
            draws = self._draws(fit)
            dal = weighted_lipschitz_bounds(self._loglik(draws), alpha)
            history.append({"refit": k, "c": c, "g": g, "delta_alpha": float(dal.max())})
            if (self.target_delta is None or self.alpha_given is not None
                    or abs(dal.max() - self.target_delta) <= self.tolerance * self.target_delta
                    or k == self.refits):
                break
            # the weighted posterior is wider than the unweighted one: solve again with each
            # record's bound max_s |log p_i| under the current weighted fit
            c, g = find_alpha_scaling(self.delta, self.target_delta, g=self.g,
                                      at=lipschitz_bounds(self._loglik(draws)))
            alpha = alpha_weights(self.delta, c, g)
        self.fit_weighted = fit
        self.weighted_draws = draws
        self.alpha = alpha
        self.c_used, self.g_used = c, g
        self.delta_alpha_i = dal
        self.delta_alpha = float(dal.max())
        self.history = pd.DataFrame(history)
        self.records = pd.DataFrame(
            {"delta": self.delta, "alpha": alpha, "delta_alpha": dal}
        )
        self._fitted = True
        return self

    def epsilon(self, m: int) -> float:
        """``2 * delta_alpha * m`` for releasing m synthetic datasets."""
        self._check_fitted()
        return epsilon(self.delta_alpha, m)

    def _check_fitted(self) -> None:
        if not self._fitted:
            raise RuntimeError(f"{type(self).__name__} is not fitted: call .fit(data, ...)")

    def synthesize(self, m: int = 3, seed: int | None = None) -> SurveySynthesis:
        """m synthetic samples, each from a different posterior draw of the weighted fit."""
        self._check_fitted()
        if not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(f"m must be a positive integer, got {m!r}")
        rng = np.random.default_rng(seed)
        n_draws = len(next(iter(self.weighted_draws.values())))
        if m > n_draws:
            raise ValueError(f"m={m} exceeds the number of posterior draws ({n_draws})")
        idx = np.sort(rng.choice(n_draws, size=m, replace=False))
        syn = [self._synthesize_one(self.weighted_draws, int(s), rng) for s in idx]
        out = SurveySynthesis(
            synthetic=syn, records=self.records.copy(), delta_alpha=self.delta_alpha,
            epsilon=epsilon(self.delta_alpha, m), method=self.method, design=self.design,
            strata=self.strata, draw_index=idx,
            info={"c": self.c_used, "g": self.g_used, "seed": seed},
        )
        self.last_synthesis = out
        return out

    def tables(self, by=None, **kwargs) -> SurveyTable:
        """Combined tables of the last :meth:`synthesize` call."""
        if self.last_synthesis is None:
            raise RuntimeError("call .synthesize(m, seed) before .tables()")
        return self.last_synthesis.tables(by, **kwargs)


class FBS(_PseudoPosterior):
    """Fully Bayes sample model: bivariate normal of log outcome and log weight.

    Parameters
    ----------
    target_delta : float, optional
        Target ``Delta_alpha``; (c, g) are searched on the unweighted bounds, then the
        weighted model is refit up to ``refits`` times (default 2), each time solving for
        (c, g) again with the records' bounds under the last weighted fit, until the
        achieved ``Delta_alpha`` is within ``tolerance`` (relative, default 5%) of the
        target.  The achieved value (not the target) is reported and used for epsilon.
    c, g : float
        Scale and shift of alpha when no target is given (with a target, ``g`` is kept
        and ``c`` searched).
    alpha : array, optional
        Use these privacy weights as they are.
    chains, warmup, draws, seed, backend, progress, adapt_delta
        Stan settings (:class:`idrisk.stan.StanProgram`).
    coding : {"additive", "cells"}
        Design variables as main effects (default) or one coefficient per design cell.
    prior_scale, eta_sigma : float
        Prior of Sigma as the paper's appendix C: t(3, 0, 10) scales, LKJ(6) correlation.
    coef_scale : float
        Coefficients ~ normal(0, coef_scale) (default 10).  The appendix's hierarchical
        MVN prior (a t(3, 0, 10) scale per coefficient, LKJ(6) correlation) is not used:
        with one coefficient per design cell it makes a funnel NUTS cannot sample well
        (see ``stan/fbs.stan``).

    Examples
    --------
    >>> fbs = FBS(target_delta=1.8, seed=1)                                 # doctest: +SKIP
    >>> fbs.fit(sample, y="salary", weight="w", design=["field", "gender"])  # doctest: +SKIP
    >>> syn = fbs.synthesize(m=3, seed=2)                                    # doctest: +SKIP
    >>> syn.epsilon, syn.tables(by=["field", "gender"])                      # doctest: +SKIP
    """

    program = "fbs"
    method = "fbs"

    def __init__(self, *, prior_scale: float = 10.0, coef_scale: float = 10.0,
                 eta_sigma: float = 6.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.prior_scale, self.coef_scale, self.eta_sigma = prior_scale, coef_scale, eta_sigma

    def _prepare(self, *args):
        super()._prepare(*args)
        self.c_w = round(float(np.mean(np.log(self.wv))), 1)
        self.lw = np.log(self.wv) - self.c_w

    def _stan_data(self, alpha):
        return {
            "N": len(self.ly), "K": self.X.shape[1], "X": self.X, "ly": self.ly, "lw": self.lw,
            "alpha": np.asarray(alpha, float), "prior_scale": self.prior_scale,
            "coef_scale": self.coef_scale, "eta_sigma": self.eta_sigma,
        }

    def _draws(self, fit):
        return {"beta": fit.stacked("beta"), "sigma": fit.stacked("sigma"),
                "rho": fit.stacked("rho")}

    def _loglik(self, draws):
        return fbs_loglik(draws, self.X, self.ly, self.lw)

    def _synthesize_one(self, draws, s, rng):
        beta, sigma, rho = draws["beta"][s], draws["sigma"][s], float(draws["rho"][s])
        mu_y = self.X @ beta[:, 0]
        mu_w = self.X @ beta[:, 1]
        n = len(mu_y)
        z1, z2 = rng.standard_normal(n), rng.standard_normal(n)
        ly = mu_y + sigma[0] * z1
        lw = mu_w + sigma[1] * (rho * z1 + np.sqrt(1 - rho * rho) * z2)
        lw_smooth = mu_w + rho * sigma[1] / sigma[0] * (ly - mu_y)
        out = self.frame.copy()
        out["y"] = np.exp(ly + self.c_y)
        out["w"] = np.exp(lw_smooth + self.c_w)
        out["w_draw"] = np.exp(lw + self.c_w)
        return out


class FBP(_PseudoPosterior):
    """Fully Bayes population model with the informative-sampling correction.

    Parameters are those of :class:`FBS` with the FBP priors: ``coef_scale`` (sd of the
    normal priors on beta, kappa; default 10) and ``scale_scale`` (half-Cauchy scale of
    sigma_y, sigma_pi; default 5).  ``stratum_totals`` (a mapping stratum -> total) can
    replace the default scaling target of the synthetic weights, the confidential
    stratum weight totals ``sum_{i in h} w_i`` (e.g. by known frame counts ``N_h``).
    """

    program = "fbp"
    method = "fbp"

    def __init__(self, *, coef_scale: float = 10.0, scale_scale: float = 5.0,
                 stratum_totals: dict | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.coef_scale, self.scale_scale = coef_scale, scale_scale
        self.stratum_totals = stratum_totals

    def _prepare(self, *args):
        super()._prepare(*args)
        self.lpi = -np.log(self.wv)
        h = self.frame[self.strata]
        totals = pd.Series(self.wv).groupby(h.to_numpy()).sum()
        if self.stratum_totals is not None:
            totals = pd.Series(self.stratum_totals).reindex(totals.index)
            if totals.isna().any():
                raise ValueError("stratum_totals lacks strata: "
                                 f"{list(totals.index[totals.isna()])}")
        self.h_codes, self.h_levels = pd.factorize(h, sort=True)
        self.h_totals = totals.reindex(self.h_levels).to_numpy(float)

    def _stan_data(self, alpha):
        return {
            "N": len(self.ly), "K": self.X.shape[1], "X": self.X, "ly": self.ly,
            "lpi": self.lpi, "alpha": np.asarray(alpha, float),
            "coef_scale": self.coef_scale, "scale_scale": self.scale_scale,
        }

    def _draws(self, fit):
        return {k: fit.stacked(k) for k in ("beta", "kappa_y", "kappa_x", "sigma_y", "sigma_pi")}

    def _loglik(self, draws):
        return fbp_loglik(draws, self.X, self.ly, self.lpi)

    def _synthesize_one(self, draws, s, rng):
        mu = self.X @ draws["beta"][s]
        ly = mu + draws["sigma_y"][s] * rng.standard_normal(len(mu))
        ky = float(draws["kappa_y"][s])
        # pi* ∝ exp(kappa_y log y*) within a stratum; w* = 1/pi* scaled to the stratum total
        raw = np.exp(-ky * (ly - ly.mean()))
        sums = np.bincount(self.h_codes, weights=raw)
        out = self.frame.copy()
        out["y"] = np.exp(ly + self.c_y)
        out["w"] = raw * (self.h_totals / sums)[self.h_codes]
        return out
