"""Risk-weighted pseudo posterior synthesizers (finite normal mixture, negative binomial).

Fit a Bayesian synthesizer whose record log-likelihoods are multiplied by risk weights
``alpha_i`` (none / marginal / pairwise, with the c/g adjustment), then draw m partially
synthetic datasets from the posterior predictive at well-separated posterior draws.

Examples
--------
>>> import numpy as np, pandas as pd
>>> from idrisk.weighted.synthesizer import RiskWeightedSynthesizer
>>> rng = np.random.default_rng(1)
>>> df = pd.DataFrame({"y": rng.negative_binomial(20, 20 / 120, 300),
...                    "grp": rng.choice(["a", "b"], 300)})
>>> rws = RiskWeightedSynthesizer(syn="y", known=["grp"], model="negbin",
...                               weighting="marginal", r=0.2, seed=1,
...                               warmup=300, draws=300)               # doctest: +SKIP
>>> datasets = rws.fit(df).synthesize(m=5, seed=2)                  # doctest: +SKIP
>>> len(datasets), datasets[0].shape                                  # doctest: +SKIP
(5, (300, 2))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._align import align_series, check_align
from .._progress import progress_bar
from .._schema import as_names, is_categorical, require_columns, sorted_levels
from .._synthetic import Synthesizer, SyntheticData
from ..stan.backend import StanFit, StanProgram
from .weights import pattern_codes, risk_weights

__all__ = ["MODELS", "WEIGHTINGS", "RiskWeightedSynthesizer", "design_matrix"]

MODELS = {"mixture": "weighted_mixture_normal", "negbin": "weighted_negbin"}
WEIGHTINGS = ("none", "marginal", "pairwise")
SLOPES = ("component", "shared")


def design_matrix(
    data: pd.DataFrame,
    predictors: Sequence[str],
    categorical: Sequence[str] = (),
    scaling: dict[str, tuple[float, float]] | None = None,
) -> tuple[pd.DataFrame, dict[str, tuple[float, float]]]:
    """Intercept plus predictors: categoricals one-hot (first level dropped), numbers
    standardised.

    Parameters
    ----------
    data : DataFrame
    predictors : sequence of str
        Columns to use.
    categorical : sequence of str
        Numeric columns to treat as categorical (category, text and bool columns always are:
        the package's rule).
    scaling : dict, optional
        Centre and scale per numeric column (returned by a previous call).

    Returns
    -------
    (DataFrame with column ``"(Intercept)"`` first, scaling dict)

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"]})
    >>> design_matrix(df, ["a", "b"])[0].columns.tolist()
    ['(Intercept)', 'a', 'b[y]']
    """
    require_columns(data, predictors, "predictors", "data")
    scaling = dict(scaling or {})
    cols: dict[str, np.ndarray] = {"(Intercept)": np.ones(len(data))}
    for col in predictors:
        s = data[col]
        if s.isna().any():
            raise ValueError(f"predictor {col!r} has missing values")
        if col in categorical or is_categorical(s):
            levels = sorted_levels(s)
            for lev in levels[1:]:
                cols[f"{col}[{lev}]"] = (s == lev).to_numpy(dtype=float)
        else:
            x = s.to_numpy(dtype=float)
            if col not in scaling:
                sd = float(np.std(x)) or 1.0
                scaling[col] = (float(np.mean(x)), sd)
            centre, sd = scaling[col]
            cols[col] = (x - centre) / sd
    return pd.DataFrame(cols, index=data.index), scaling


class RiskWeightedSynthesizer(Synthesizer):
    """Risk-weighted pseudo posterior synthesizer of one sensitive variable.

    Parameters
    ----------
    syn : str
        The sensitive variable to synthesize (required by ``fit``).
    known : sequence of str
        Intruder-known pattern variables (not synthesized).
    predictors : sequence of str
        Regression predictors (kept as they are in the synthetic data).
    categorical : sequence of str
        Numeric predictors to treat as categorical.
    model : {"mixture", "negbin"}
        ``"mixture"``: finite mixture of normal regressions (truncated Dirichlet
        process) for a continuous variable, modelled on the log scale when
        ``log=True`` (values must be positive) and standardised internally;
        ``"negbin"``: negative binomial regression for counts.
    weighting : {"none", "marginal", "pairwise"}
        Risk weights of the pseudo likelihood (``"none"`` = unweighted synthesizer).
    r : float
        Radius of the identification risk balls, judged on the variable's original scale:
        with the defaults a fraction of ``|y|`` (0.2 = 20%).
    percentage, abs_radius, closed : bool
        The ball of the weights, as everywhere (``idrisk._radius``); the defaults are
        the papers' closed ball ``[y - r|y|, y + r|y|]``, ``percentage=False`` makes ``r``
        absolute (``[y - r, y + r]``).
    c, g : float
        Local weight adjustment ``min(c * alpha + g, 1)``.
    alpha : Series or array, optional
        Use these record weights (values in [0, 1]) instead of computing them.
    align : {None, "position", "index"}
        Row correspondence of a Series ``alpha`` and the data (see :mod:`idrisk._align`);
        None raises a ValueError when their indexes differ.
    K : int
        Mixture components (truncation level), ``model="mixture"`` only.
    slopes : {"component", "shared"}
        Mixture only. ``"component"``: one slope vector per component (the papers' mixture of
        regressions); ``"shared"``: one slope vector for all components, i.e. a regression
        whose error is a mixture of normals (component intercepts and sds still differ).
        The shared form mixes far better on real data (CE income, n = 1,500: ``lp__`` R-hat
        1.15-1.17 with component slopes; see the CE income example in the documentation).
    log : bool
        Model log values (mixture only).
    priors : dict, optional
        Override prior settings. Mixture (on standardised log values): ``a_pi`` (Dirichlet
        concentration of each component weight, default 1), ``scale_mu`` (sd of the normal
        prior on the ordered component intercepts, 2), ``scale_beta`` (half-normal scale of
        the slope sds with component slopes, sd of the normal prior on the slopes with
        shared slopes; 1), ``scale_sigma`` and ``nu_sigma`` (component sds: a zero-avoiding
        prior, sigma times the half-t(nu, 0, scale) density, so that no component can collapse
        onto one record; defaults 1 and 0 = sigma times the half-normal(0, 1) density).
        Negbin: ``scale_beta``, ``scale_phi`` (10, 10). The papers' Dirichlet process
        hyperprior is replaced by this finite mixture (the comments of the Stan program
        ``weighted_mixture_normal``, :func:`idrisk.stan.program_path`, say why).
    backend : {"auto", "cmdstanpy", "pystan"}
    chains, warmup, draws : int
        MCMC settings.
    adapt_delta : float
    seed : int, optional
        Seed of the Stan fit (None: fresh entropy; ``fit`` stores the seed it used in
        ``seed_``). The synthetic draws have their own ``synthesize(seed=...)``.
    progress : bool
        Show sampling progress and a progress bar while synthesizing.

    Attributes
    ----------
    syn_ : str
        The synthesized column.
    predictors_, categorical_ : list of str
    X_ : DataFrame
        The design matrix of the fit.
    alpha_ : pandas.Series
        Record weights used in the fit.
    fit_ : StanFit
        Posterior draws and diagnostics.
    seed_ : int
        The seed used (``seed``, or the one drawn when it is None).
    """

    _method = "risk-weighted"

    PRIOR_DEFAULTS = {
        "mixture": {"a_pi": 1.0, "scale_mu": 2.0, "scale_beta": 1.0, "scale_sigma": 1.0,
                    "nu_sigma": 0.0},
        "negbin": {"scale_beta": 10.0, "scale_phi": 10.0},
    }

    def __init__(
        self,
        *,
        syn: str | None = None,
        known: Sequence[str] = (),
        predictors: Sequence[str] = (),
        categorical: Sequence[str] = (),
        model: str = "mixture",
        weighting: str = "none",
        r: float = 0.2,
        percentage: bool = True,
        abs_radius: bool = True,
        closed: bool = True,
        c: float = 1.0,
        g: float = 0.0,
        alpha: pd.Series | Sequence[float] | None = None,
        align: str | None = None,
        K: int = 10,
        slopes: str = "component",
        log: bool = True,
        priors: dict[str, float] | None = None,
        backend: str = "auto",
        chains: int = 4,
        warmup: int = 1000,
        draws: int = 1000,
        adapt_delta: float = 0.9,
        seed: int | None = None,
        progress: bool = True,
    ) -> None:
        self.syn = syn
        self.known = known
        self.predictors = predictors
        self.categorical = categorical
        self.model = model
        self.weighting = weighting
        self.r = r
        self.percentage = percentage
        self.abs_radius = abs_radius
        self.closed = closed
        self.c = c
        self.g = g
        self.alpha = alpha
        self.align = align
        self.K = K
        self.slopes = slopes
        self.log = log
        self.priors = priors
        self.backend = backend
        self.chains = chains
        self.warmup = warmup
        self.draws = draws
        self.adapt_delta = adapt_delta
        self.seed = seed
        self.progress = progress

    def _validate_params(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {self.model!r}")
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {self.weighting!r}")
        if int(self.K) < 1:
            raise ValueError(f"K must be a positive integer, got {self.K!r}")
        if self.slopes not in SLOPES:
            raise ValueError(f"slopes must be one of {SLOPES}, got {self.slopes!r}")
        unknown = sorted(set(self.priors or {}) - set(self.PRIOR_DEFAULTS[self.model]))
        if unknown:
            raise ValueError(
                f"priors has unknown keys {unknown} for model={self.model!r}; "
                f"known: {sorted(self.PRIOR_DEFAULTS[self.model])}"
            )

    # ------------------------------------------------------------------ fit
    def _syn_column(self, data: pd.DataFrame) -> str:
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        syn = self.syn
        if not isinstance(syn, str):
            raise ValueError(f"syn must name the column to synthesize, got {syn!r}")
        require_columns(data, [syn], "syn", "data")
        return syn

    def compute_weights(self, data: pd.DataFrame) -> pd.Series:
        """The record weights ``alpha`` this synthesizer computes for ``data``.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [10.0, 11.0, 12.0, 50.0], "k": ["a"] * 4})
        >>> rws = RiskWeightedSynthesizer(syn="y", known=["k"], weighting="marginal", r=0.1)
        >>> rws.compute_weights(df).tolist()
        [0.5, 0.75, 0.5, 0.25]
        """
        self._validate_params()
        syn = self._syn_column(data)
        y = data[syn]
        if self.weighting == "none":
            return pd.Series(1.0, index=data.index, name="alpha")
        known = as_names(self.known, "known")
        require_columns(data, known, "known", "data")
        pattern = data[known] if known else np.zeros(len(data))
        return risk_weights(
            y, pattern, float(self.r), weighting=self.weighting, c=float(self.c),
            g=float(self.g), percentage=bool(self.percentage),
            abs_radius=bool(self.abs_radius), closed=bool(self.closed),
        ).set_axis(data.index)

    def fit(self, data: pd.DataFrame) -> RiskWeightedSynthesizer:
        """Compute the weights (or take ``alpha``) and sample the (pseudo) posterior.

        Parameters
        ----------
        data : DataFrame
            Confidential data holding ``syn``, ``known`` and ``predictors``.

        Returns
        -------
        self
        """
        self._validate_params()
        target = self._syn_column(data)
        predictors = as_names(self.predictors, "predictors")
        categorical = as_names(self.categorical, "categorical")
        if target in predictors:
            raise ValueError(f"syn {target!r} cannot also be a predictor")
        y = data[target].to_numpy(dtype=float)
        if not np.all(np.isfinite(y)):
            raise ValueError(f"syn {target!r} has missing or non-finite values")
        weights = self.alpha
        if weights is None:
            alpha = self.compute_weights(data)
        else:
            if len(weights) != len(data):
                raise ValueError(
                    f"alpha has {len(weights)} values but data has {len(data)} records"
                )
            if not isinstance(weights, pd.Series):
                weights = pd.Series(np.asarray(weights, dtype=float), index=data.index)
            w = align_series({"data": data, "alpha": weights}, check_align(self.align),
                             reference="data")
            alpha = pd.Series(w["alpha"].astype(float), index=data.index, name="alpha")
            if not np.all(np.isfinite(alpha)) or alpha.lt(0).any() or alpha.gt(1).any():
                raise ValueError("alpha must have one value in [0, 1] per record")
        X, scaling = design_matrix(data, predictors, categorical)
        seed = self._fit_seed()
        priors = dict(self.priors or {})
        if self.model == "mixture":
            if self.log and np.any(y <= 0):
                raise ValueError(
                    f"syn {target!r} has values <= 0; the log-scale mixture needs positive "
                    "values (drop them or set log=False)"
                )
            z = np.log(y) if self.log else y
            y_centre, y_scale = float(np.mean(z)), float(np.std(z)) or 1.0
            zs = (z - y_centre) / y_scale
            pri = {**self.PRIOR_DEFAULTS["mixture"], **priors}
            Z = X.drop(columns="(Intercept)").to_numpy()
            data_stan = {
                "N": len(y), "K": int(self.K), "P": Z.shape[1], "Z": Z, "y": zs,
                "w": alpha.to_numpy(), **pri, "shared_slopes": int(self.slopes == "shared"),
            }
            # label-invariant quantities (component labels are ordered by intercept, but
            # these are meaningful whatever the labelling)
            check = ["lp__", "mean_y", "sd_y"]
            self.y_centre_, self.y_scale_ = y_centre, y_scale
        else:
            if np.any(y < 0) or np.any(y != np.round(y)):
                raise ValueError(f"syn {target!r} must hold non-negative integer counts")
            data_stan = {
                "N": len(y), "R": X.shape[1], "X": X.to_numpy(), "y": y.astype(int),
                "w": alpha.to_numpy(), **{**self.PRIOR_DEFAULTS["negbin"], **priors},
            }
            check = None
        program = StanProgram(MODELS[self.model], backend=self.backend)
        fit = program.sample(
            data_stan, seed=seed, chains=int(self.chains), warmup=int(self.warmup),
            draws=int(self.draws), adapt_delta=float(self.adapt_delta),
            progress=bool(self.progress), check=check,
        )
        self.seed_ = seed
        self.scaling_ = scaling
        self.data_, self.syn_, self.X_ = data, target, X
        self.predictors_, self.categorical_ = predictors, categorical
        self.alpha_ = alpha
        self.fit_ = fit
        return self

    # ------------------------------------------------------------------ synthesize
    def draw_indices(self, m: int) -> np.ndarray:
        """Indices (into the stacked draws) of m posterior draws spread evenly apart."""
        self._check_fitted()
        total = self.fit_.n_draws
        if not 1 <= m <= total:
            raise ValueError(f"m must be between 1 and the number of draws ({total}), got {m}")
        return np.unique(np.round(np.linspace(0, total - 1, m)).astype(int))

    def synthesize(self, m: int = 5, seed: int | None = None) -> SyntheticData:
        """Draw m partially synthetic datasets (``syn`` replaced, all else kept).

        Parameters
        ----------
        m : int
            Number of datasets, each from a different, well-separated posterior draw.
        seed : int, optional
            Seed of the predictive draws (None: fresh entropy).

        Returns
        -------
        SyntheticData
            ``diagnostics``: the posterior draw (``draw``, 0-based into the stacked draws)
            behind each dataset.
        """
        self._check_fitted()
        m = self._check_m(m)
        seed = self._check_seed(seed)
        fit = self.fit_
        rng = np.random.default_rng(seed)
        idx = self.draw_indices(m)
        X = self.X_.to_numpy()
        out = []
        for d in progress_bar(idx, desc="synthesizing", show=self.progress, leave=False):
            if self.model == "mixture":
                ystar = self._draw_mixture(fit, d, X, rng)
            else:
                beta = fit.stacked("beta")[d]
                phi = float(fit.stacked("phi")[d])
                mu = np.exp(X @ beta)
                ystar = rng.poisson(rng.gamma(shape=phi, scale=mu / phi))
            frame = self.data_.copy()
            dtype = self.data_[self.syn_].dtype
            frame[self.syn_] = ystar.astype(dtype) if self.model == "negbin" else ystar
            out.append(frame)
        diagnostics = pd.DataFrame(
            {"draw": idx}, index=pd.RangeIndex(1, len(idx) + 1, name="dataset")
        )
        return self._result(out, seed, diagnostics)

    def _draw_mixture(self, fit: StanFit, d: int, X: np.ndarray, rng) -> np.ndarray:
        mu0 = fit.stacked("mu0")[d]  # (K,)
        beta = fit.stacked("beta")[d]  # (P, K)
        sigma = fit.stacked("sigma")[d]  # (K,)
        pi = fit.stacked("pi")[d]
        z_obs = self.data_[self.syn_].to_numpy(dtype=float)
        z_obs = np.log(z_obs) if self.log else z_obs
        zs = (z_obs - self.y_centre_) / self.y_scale_
        mu = mu0[None, :] + X[:, 1:] @ beta  # (N, K); X's first column is the intercept
        with np.errstate(divide="ignore"):
            logp = np.log(pi) - np.log(sigma) - 0.5 * ((zs[:, None] - mu) / sigma) ** 2
        logp -= logp.max(axis=1, keepdims=True)
        prob = np.exp(logp)
        prob /= prob.sum(axis=1, keepdims=True)
        # z_i from its full conditional given y_i (preprint eq. 7), by inverse CDF
        u = rng.random(len(zs))[:, None]
        comp = np.minimum((prob.cumsum(axis=1) < u).sum(axis=1), prob.shape[1] - 1)
        rows = np.arange(len(zs))
        draw = rng.normal(mu[rows, comp], sigma[comp])
        value = draw * self.y_scale_ + self.y_centre_
        return np.exp(value) if self.log else value

    def pattern(self) -> np.ndarray:
        """Integer known-pattern code of each record of the fitted data."""
        self._check_fitted()
        known = as_names(self.known, "known")
        if not known:
            return np.zeros(len(self.data_), dtype=np.int64)
        return pattern_codes(self.data_[known])
