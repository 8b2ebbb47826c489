"""FBS and FBP: alpha-weighted Bayesian synthesizers of a survey outcome and its weight.

Both follow the pseudo posterior mechanism (:mod:`idrisk.survey.mechanism`): an unweighted
Stan fit gives record-level Lipschitz bounds ``Delta_i``, privacy weights ``alpha`` scale
each record's log-likelihood, and m synthetic datasets drawn from the alpha-weighted fit
carry ``epsilon = 2 Delta_alpha m``.

* **FBS** (sample model, Stan program ``fbs``): ``(log y, log w) | x ~ MVN2``.  Synthetic
  ``y*`` and the *smoothed* weight ``w* = exp(x'beta_w + rho sigma_w / sigma_y (log y* -
  x'beta_y))``; tables are design-based estimates from ``(y*, w*)``.
* **FBP** (population model with informative-sampling correction, Stan program ``fbp``):
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._schema import as_names, sorted_levels
from .._synthetic import Synthesizer, SyntheticData
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


@dataclass(frozen=True, repr=False, eq=False)
class SurveySynthesis(SyntheticData):
    """m synthetic survey samples with their privacy accounting (a :class:`SyntheticData`).

    Each dataset has the fitted columns: the kept design (``known``, and strata) columns,
    the synthetic outcome ``syn`` and the smoothed synthetic weight ``weight`` used for
    tables.

    Attributes
    ----------
    records : pandas.DataFrame
        Per confidential record: ``delta`` (unweighted Lipschitz bound), ``alpha``,
        ``delta_alpha`` (bound under the alpha-weighted fit). For the data holder only.
    delta_alpha : float
        ``max_i delta_alpha_i``.
    epsilon : float
        ``2 * delta_alpha * m``.
    syn, weight : str
        The outcome and weight columns.
    known : tuple of str
        The design columns.
    strata : str
    c, g : float
        The alpha scaling used (NaN with given weights).
    """

    records: pd.DataFrame = field(default_factory=pd.DataFrame)
    delta_alpha: float = float("nan")
    epsilon: float = float("nan")
    syn: str = "y"
    weight: str = "w"
    known: tuple[str, ...] = ()
    strata: str = ""
    c: float = float("nan")
    g: float = float("nan")

    def _header(self) -> str:
        n = self.frames[0].shape[0] if self.frames else 0
        return (
            f"SurveySynthesis(method={self.method!r}, m={self.m}, n={n}, "
            f"delta_alpha={self.delta_alpha:.4g}, epsilon={self.epsilon:.4g})"
        )

    def tables(self, by: Sequence[str] | str | None = None, *, margins: bool = True,
               level: float = 0.95, sample_counts: bool = False) -> SurveyTable:
        """Tables from each synthetic dataset, combined over the m datasets.

        ``by`` defaults to the design columns and must be among the design/strata
        columns.  FBS: :func:`design_table` on ``(y, weight)``.  FBP: counts from the
        weights; cell means unweighted within each design cell; margins of means weight each
        design cell's mean by its weighted count (the table weight ``N*_cell / n_cell``).

        The released columns are those the mechanism protects (counts, means, their standard
        errors and intervals). The design variables are kept unchanged, so the number of
        sample records per row is the *confidential* sample count: it is left out unless
        ``sample_counts=True``, which adds it as ``n_not_private``.
        """
        design = list(self.known)
        by = design if by is None else as_names(by, "by")
        allowed = set(design) | {self.strata}
        for b in by:
            if b not in allowed:
                raise ValueError(f"by column {b!r} is not a design column ({sorted(allowed)})")
        y, w = self.syn, self.weight
        per = []
        for d in self.frames:
            if self.method == "fbs":
                per.append(design_table(d, y, w, self.strata, by, margins=margins))
            else:
                counts = design_table(d, y, w, self.strata, by, margins=margins)
                cell_total = d.groupby(design, observed=True)[w].transform("sum")
                cell_n = d.groupby(design, observed=True)[w].transform("size")
                means = design_table(d.assign(_w_cell=cell_total / cell_n), y, "_w_cell",
                                     self.strata, by, margins=margins)
                t = counts.table.copy()
                t["mean"] = means.table["mean"].to_numpy()
                t["mean_se"] = means.table["mean_se"].to_numpy()
                per.append(SurveyTable(t, by=counts.by, method="fbp"))
        out = combine_tables(per, level=level, method=self.method)
        table = out.table
        if "n" in table:
            if sample_counts:
                table = table.rename(columns={"n": "n_not_private"})
            else:
                table = table.drop(columns="n")
        return SurveyTable(table, by=out.by, method=out.method, variance=out.variance,
                           m=out.m, level=out.level, epsilon=self.epsilon,
                           delta_alpha=self.delta_alpha)


# --------------------------------------------------------------------------- synthesizers


def _design_matrix(data: pd.DataFrame, design: list[str],
                   coding: str = "additive") -> tuple[np.ndarray, list[str]]:
    """Model matrix of the design variables: ``"additive"`` (intercept and main effects,
    first level of each variable as reference) or ``"cells"`` (one indicator per observed
    combination)."""
    for d in design:
        col = _column(data, d, "known")
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
        levels = sorted_levels(values)
        for lev in levels[1:]:
            cols.append((values == lev).astype(float))
            names.append(f"{d}={lev}")
    return np.column_stack(cols), names


class _PseudoPosterior(Synthesizer):
    """Shared fitting and synthesis of :class:`FBS` and :class:`FBP` (parameters: theirs)."""

    program = ""
    # the subclasses' parameters (set in their __init__)
    syn: str | None
    weight: str | None
    known: Sequence[str] | str
    strata: str | None
    target_delta: float | None
    c: float
    g: float
    alpha: Sequence[float] | None
    refits: int
    tolerance: float
    chains: int
    warmup: int
    draws: int
    seed: int | None
    backend: str
    progress: bool
    adapt_delta: float
    coding: str

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
            self._stan_data(alpha), seed=seed, chains=int(self.chains),
            warmup=int(self.warmup), draws=int(self.draws),
            adapt_delta=float(self.adapt_delta), progress=bool(self.progress),
            check=["lp__"],
        )

    def _prepare(self, data):
        if self.coding not in ("additive", "cells"):
            raise ValueError(f"coding must be 'additive' or 'cells', got {self.coding!r}")
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        y, weight, strata = self.syn, self.weight, self.strata
        for name, value in (("syn", y), ("weight", weight)):
            if not isinstance(value, str):
                raise ValueError(f"{name} must name a column of data, got {value!r}")
        design = as_names(self.known, "known")
        if not design:
            raise ValueError("known must name at least one design column")
        self.syn_, self.weight_ = y, weight
        self.known_ = design
        for d in design:
            _column(data, d, "known")
        self.strata_ = design[0] if strata is None else strata
        _column(data, self.strata_, "strata")
        target = self.target_delta
        if target is not None and not (isinstance(target, (int, float, np.number))
                                       and np.isfinite(target) and target > 0):
            raise ValueError(f"target_delta must be a positive number, got {target!r}")
        self._yv = _numeric(data, y, "syn", positive=True)
        self._wv = _numeric(data, weight, "weight", positive=True)
        self._X, self._columns = _design_matrix(data, design, self.coding)
        keep = {*design, self.strata_, y, weight}
        self.columns_ = [c for c in data.columns if c in keep]
        self._template = data[self.columns_]
        self.c_y_ = round(float(np.mean(np.log(self._yv))), 1)
        self._ly = np.log(self._yv) - self.c_y_

    def fit(self, data: pd.DataFrame):
        """Fit the unweighted model, set the privacy weights alpha, fit the weighted model.

        Parameters
        ----------
        data : DataFrame
            The confidential sample, holding ``syn``, ``weight``, ``known`` and ``strata``.

        Returns
        -------
        self
        """
        self._prepare(data)
        n = len(self._yv)
        seed = self._fit_seed()
        fit0 = self._sample(np.ones(n), seed)
        delta = lipschitz_bounds(self._loglik(self._draws(fit0)))
        history = []
        if self.alpha is not None:
            given = np.asarray(self.alpha, dtype=float)
            if given.shape != (n,):
                raise ValueError(f"alpha must have one value per record ({n})")
            alpha = np.clip(given, 0, 1)
            c, g = float("nan"), float("nan")
        elif self.target_delta is not None:
            c, g = find_alpha_scaling(delta, self.target_delta, g=float(self.g))
            alpha = alpha_weights(delta, c, g)
        else:
            c, g = float(self.c), float(self.g)
            alpha = alpha_weights(delta, c, g)
        refits, tol = int(self.refits), float(self.tolerance)
        for k in range(refits + 1):
            fit = self._sample(alpha, seed + 1 + k)
            draws = self._draws(fit)
            dal = weighted_lipschitz_bounds(self._loglik(draws), alpha)
            history.append({"refit": k, "c": c, "g": g, "delta_alpha": float(dal.max())})
            if (self.target_delta is None or self.alpha is not None
                    or abs(dal.max() - self.target_delta) <= tol * self.target_delta
                    or k == refits):
                break
            # the weighted posterior is wider than the unweighted one: solve again with each
            # record's bound max_s |log p_i| under the current weighted fit
            c, g = find_alpha_scaling(delta, self.target_delta, g=float(self.g),
                                      at=lipschitz_bounds(self._loglik(draws)))
            alpha = alpha_weights(delta, c, g)
        self.seed_ = seed
        self.fit_unweighted_ = fit0
        self.fit_weighted_ = fit
        self.weighted_draws_ = draws
        self.delta_ = delta
        self.alpha_ = alpha
        self.c_used_, self.g_used_ = c, g
        self.delta_alpha_ = float(dal.max())
        self.history_ = pd.DataFrame(history)
        self.records_ = pd.DataFrame({"delta": delta, "alpha": alpha, "delta_alpha": dal})
        return self

    def epsilon(self, m: int) -> float:
        """``2 * delta_alpha * m`` for releasing m synthetic datasets."""
        self._check_fitted()
        return epsilon(self.delta_alpha_, m)

    def synthesize(self, m: int = 5, seed: int | None = None) -> SurveySynthesis:
        """m synthetic samples, each from a different posterior draw of the weighted fit.

        Each dataset has the fitted columns (design, strata, outcome, weight) in the data's
        order, with its dtypes and index: the synthetic outcome and the smoothed synthetic
        weight replace the confidential ones; the design columns are kept. Other columns of
        the data are not released.
        """
        self._check_fitted()
        m = self._check_m(m)
        seed = self._check_seed(seed)
        rng = np.random.default_rng(seed)
        n_draws = len(next(iter(self.weighted_draws_.values())))
        if m > n_draws:
            raise ValueError(f"m={m} exceeds the number of posterior draws ({n_draws})")
        idx = np.sort(rng.choice(n_draws, size=m, replace=False))
        frames = []
        for s in idx:
            y, w = self._synthesize_one(self.weighted_draws_, int(s), rng)
            out = self._template.copy()
            out[self.syn_] = np.asarray(y).astype(self._template[self.syn_].dtype)
            out[self.weight_] = np.asarray(w).astype(self._template[self.weight_].dtype)
            frames.append(out)
        diagnostics = pd.DataFrame(
            {"draw": idx}, index=pd.RangeIndex(1, m + 1, name="dataset")
        )
        return SurveySynthesis(
            tuple(frames), method=self._method, seed=seed, settings=self.get_params(),
            diagnostics=diagnostics, records=self.records_.copy(),
            delta_alpha=self.delta_alpha_, epsilon=epsilon(self.delta_alpha_, m),
            syn=self.syn_, weight=self.weight_, known=tuple(self.known_),
            strata=self.strata_, c=self.c_used_, g=self.g_used_,
        )


class FBS(_PseudoPosterior):
    """Fully Bayes sample model: bivariate normal of log outcome and log weight.

    Parameters
    ----------
    syn : str
        The outcome column (positive), synthesized. Required by ``fit``.
    weight : str
        The survey weight column (positive), replaced by a smoothed synthetic weight.
    known : sequence of str
        Public design variables (strata first), not synthesized.
    strata : str, optional
        Stratum column (default: the first ``known`` column).
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
    refits, tolerance : int, float
        See ``target_delta``.
    chains, warmup, draws, seed, backend, progress, adapt_delta
        Stan settings (:class:`idrisk.stan.StanProgram`); ``seed`` seeds the unweighted
        fit, the weighted fits use ``seed + 1``, ``seed + 2``, ... (None: fresh entropy,
        the seed used is kept in ``seed_``).
    coding : {"additive", "cells"}
        Design variables as main effects (default) or one coefficient per design cell.
    prior_scale, eta_sigma : float
        Prior of Sigma as the paper's appendix C: t(3, 0, 10) scales, LKJ(6) correlation.
    coef_scale : float
        Coefficients ~ normal(0, coef_scale) (default 10).  The appendix's hierarchical
        MVN prior (a t(3, 0, 10) scale per coefficient, LKJ(6) correlation) is not used:
        with one coefficient per design cell it makes a funnel NUTS cannot sample well
        (see the Stan program ``fbs``, :func:`idrisk.stan.program_path`).

    Attributes
    ----------
    syn_, weight_, strata_ : str
        The resolved column roles.
    known_ : list of str
    seed_ : int
        The seed of the unweighted fit.
    delta_ : ndarray
        Record-level Lipschitz bounds under the unweighted fit.
    alpha_ : ndarray
        The privacy weights.
    delta_alpha_ : float
        ``max_i`` of the bounds under the alpha-weighted fit.
    records_ : DataFrame
        Per confidential record: ``delta``, ``alpha``, ``delta_alpha``.
    history_ : DataFrame
        One row per weighted fit: ``refit``, ``c``, ``g``, ``delta_alpha``.
    c_used_, g_used_ : float
        The alpha scaling of the last weighted fit (NaN with given ``alpha``).
    fit_unweighted_, fit_weighted_ : StanFit
    weighted_draws_ : dict
        Posterior draws of the weighted fit.
    c_y_ : float
        The centring constant of the log outcome.
    c_w_ : float
        The centring constant of the log weight.

    Examples
    --------
    >>> fbs = FBS(syn="salary", weight="w", known=["field", "gender"],
    ...           target_delta=1.8, seed=1)                                  # doctest: +SKIP
    >>> fbs.fit(sample)                                                      # doctest: +SKIP
    >>> syn = fbs.synthesize(m=3, seed=2)                                    # doctest: +SKIP
    >>> syn.epsilon, syn.tables(by=["field", "gender"])                      # doctest: +SKIP
    """

    program = "fbs"
    _method = "fbs"

    def __init__(
        self,
        *,
        syn: str | None = None,
        weight: str | None = None,
        known: Sequence[str] | str = (),
        strata: str | None = None,
        target_delta: float | None = None,
        c: float = 1.0,
        g: float = 0.0,
        alpha: Sequence[float] | None = None,
        refits: int = 2,
        tolerance: float = 0.05,
        chains: int = 2,
        warmup: int = 500,
        draws: int = 500,
        seed: int | None = None,
        backend: str = "auto",
        progress: bool = False,
        adapt_delta: float = 0.9,
        coding: str = "additive",
        prior_scale: float = 10.0,
        coef_scale: float = 10.0,
        eta_sigma: float = 6.0,
    ) -> None:
        self.syn = syn
        self.weight = weight
        self.known = known
        self.strata = strata
        self.target_delta = target_delta
        self.c = c
        self.g = g
        self.alpha = alpha
        self.refits = refits
        self.tolerance = tolerance
        self.chains = chains
        self.warmup = warmup
        self.draws = draws
        self.seed = seed
        self.backend = backend
        self.progress = progress
        self.adapt_delta = adapt_delta
        self.coding = coding
        self.prior_scale = prior_scale
        self.coef_scale = coef_scale
        self.eta_sigma = eta_sigma

    def _prepare(self, data):
        super()._prepare(data)
        self.c_w_ = round(float(np.mean(np.log(self._wv))), 1)
        self._lw = np.log(self._wv) - self.c_w_

    def _stan_data(self, alpha):
        return {
            "N": len(self._ly), "K": self._X.shape[1], "X": self._X, "ly": self._ly,
            "lw": self._lw, "alpha": np.asarray(alpha, float),
            "prior_scale": float(self.prior_scale), "coef_scale": float(self.coef_scale),
            "eta_sigma": float(self.eta_sigma),
        }

    def _draws(self, fit):
        return {"beta": fit.stacked("beta"), "sigma": fit.stacked("sigma"),
                "rho": fit.stacked("rho")}

    def _loglik(self, draws):
        return fbs_loglik(draws, self._X, self._ly, self._lw)

    def _synthesize_one(self, draws, s, rng):
        """Synthetic outcome and smoothed weight ``exp(x'beta_w + rho sigma_w / sigma_y
        (log y* - x'beta_y))`` (the weight drawn jointly with y* is not released)."""
        beta, sigma, rho = draws["beta"][s], draws["sigma"][s], float(draws["rho"][s])
        mu_y = self._X @ beta[:, 0]
        mu_w = self._X @ beta[:, 1]
        n = len(mu_y)
        z1, _z2 = rng.standard_normal(n), rng.standard_normal(n)
        ly = mu_y + sigma[0] * z1
        lw_smooth = mu_w + rho * sigma[1] / sigma[0] * (ly - mu_y)
        return np.exp(ly + self.c_y_), np.exp(lw_smooth + self.c_w_)


class FBP(_PseudoPosterior):
    """Fully Bayes population model with the informative-sampling correction.

    Parameters
    ----------
    syn : str
        The outcome column (positive), synthesized. Required by ``fit``.
    weight : str
        The survey weight column (positive), replaced by a smoothed synthetic weight.
    known : sequence of str
        Public design variables (strata first), not synthesized.
    strata : str, optional
        Stratum column (default: the first ``known`` column).
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
    refits, tolerance : int, float
        See ``target_delta``.
    chains, warmup, draws, seed, backend, progress, adapt_delta
        Stan settings (:class:`idrisk.stan.StanProgram`); ``seed`` seeds the unweighted
        fit, the weighted fits use ``seed + 1``, ``seed + 2``, ... (None: fresh entropy,
        the seed used is kept in ``seed_``).
    coding : {"additive", "cells"}
        Design variables as main effects (default) or one coefficient per design cell.
    coef_scale : float
        sd of the normal priors on beta, kappa (default 10).
    scale_scale : float
        Half-Cauchy scale of sigma_y, sigma_pi (default 5).
    stratum_totals : mapping, optional
        stratum -> total: replaces the default scaling target of the synthetic weights, the
        confidential stratum weight totals ``sum_{i in h} w_i`` (e.g. by known frame
        counts ``N_h``).

    Attributes
    ----------
    syn_, weight_, strata_, known_, seed_
        As :class:`FBS`.
    delta_ : ndarray
        Record-level Lipschitz bounds under the unweighted fit.
    alpha_ : ndarray
        The privacy weights.
    delta_alpha_ : float
        ``max_i`` of the bounds under the alpha-weighted fit.
    records_ : DataFrame
        Per confidential record: ``delta``, ``alpha``, ``delta_alpha``.
    history_ : DataFrame
        One row per weighted fit: ``refit``, ``c``, ``g``, ``delta_alpha``.
    c_used_, g_used_ : float
        The alpha scaling of the last weighted fit (NaN with given ``alpha``).
    fit_unweighted_, fit_weighted_ : StanFit
    weighted_draws_ : dict
        Posterior draws of the weighted fit.
    c_y_ : float
        The centring constant of the log outcome.
    """

    program = "fbp"
    _method = "fbp"

    def __init__(
        self,
        *,
        syn: str | None = None,
        weight: str | None = None,
        known: Sequence[str] | str = (),
        strata: str | None = None,
        target_delta: float | None = None,
        c: float = 1.0,
        g: float = 0.0,
        alpha: Sequence[float] | None = None,
        refits: int = 2,
        tolerance: float = 0.05,
        chains: int = 2,
        warmup: int = 500,
        draws: int = 500,
        seed: int | None = None,
        backend: str = "auto",
        progress: bool = False,
        adapt_delta: float = 0.9,
        coding: str = "additive",
        coef_scale: float = 10.0,
        scale_scale: float = 5.0,
        stratum_totals: Mapping[Any, float] | None = None,
    ) -> None:
        self.syn = syn
        self.weight = weight
        self.known = known
        self.strata = strata
        self.target_delta = target_delta
        self.c = c
        self.g = g
        self.alpha = alpha
        self.refits = refits
        self.tolerance = tolerance
        self.chains = chains
        self.warmup = warmup
        self.draws = draws
        self.seed = seed
        self.backend = backend
        self.progress = progress
        self.adapt_delta = adapt_delta
        self.coding = coding
        self.coef_scale = coef_scale
        self.scale_scale = scale_scale
        self.stratum_totals = stratum_totals

    def _prepare(self, data):
        super()._prepare(data)
        self._lpi = -np.log(self._wv)
        h = self._template[self.strata_]
        totals = pd.Series(self._wv).groupby(h.to_numpy()).sum()
        if self.stratum_totals is not None:
            totals = pd.Series(dict(self.stratum_totals)).reindex(totals.index)
            if totals.isna().any():
                raise ValueError("stratum_totals lacks strata: "
                                 f"{list(totals.index[totals.isna()])}")
        self._h_codes, h_levels = pd.factorize(h, sort=True)
        self._h_totals = totals.reindex(h_levels).to_numpy(float)

    def _stan_data(self, alpha):
        return {
            "N": len(self._ly), "K": self._X.shape[1], "X": self._X, "ly": self._ly,
            "lpi": self._lpi, "alpha": np.asarray(alpha, float),
            "coef_scale": float(self.coef_scale), "scale_scale": float(self.scale_scale),
        }

    def _draws(self, fit):
        return {k: fit.stacked(k) for k in ("beta", "kappa_y", "kappa_x", "sigma_y",
                                            "sigma_pi")}

    def _loglik(self, draws):
        return fbp_loglik(draws, self._X, self._ly, self._lpi)

    def _synthesize_one(self, draws, s, rng):
        mu = self._X @ draws["beta"][s]
        ly = mu + draws["sigma_y"][s] * rng.standard_normal(len(mu))
        ky = float(draws["kappa_y"][s])
        # pi* ∝ exp(kappa_y log y*) within a stratum; w* = 1/pi* scaled to the stratum total
        raw = np.exp(-ky * (ly - ly.mean()))
        sums = np.bincount(self._h_codes, weights=raw)
        return np.exp(ly + self.c_y_), raw * (self._h_totals / sums)[self._h_codes]
