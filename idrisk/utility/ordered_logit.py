"""Analysis-specific utility: ordered logistic regression on synthetic data (Hu & Savitsky §3.2).

The proportional-odds model ``logit P(Y <= k | x) = zeta_k - x'beta`` (R's ``MASS::polr``
parameterisation) is fitted with statsmodels' ``OrderedModel(distr="logit")`` on the
confidential data and on each synthetic dataset. Categorical predictors use treatment
contrasts with the confidential data's first level as reference (R's default), so the
coefficient names follow R (``"Tenure2"``). The m synthetic fits are combined with the
partial-synthesis rules (:func:`idrisk.utility.combine_partial`); the confidential fit's
Wald interval is R's ``confint.default``. Out-of-sample: the expected outcome category
``sum_k k P(Y = k | x)`` (categories numbered 1..J) on a hold-out.

Hu & Savitsky, *Bayesian data synthesis and disclosure risk quantification: an application to
the Consumer Expenditure Surveys*.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._result import Result
from .._schema import is_categorical, require_columns
from .._stack import user_stacklevel
from .._synthetic import synthetic_frames, synthetic_name
from ..exceptions import UtilityWarning
from ._common import _kept_columns
from .combining import combine_partial

__all__ = ["OrderedLogitFit", "OrderedLogitUtility", "fit_ordered_logit",
           "ordered_logit_utility"]


def _design(data: pd.DataFrame, predictors: list[str],
            levels: dict[str, pd.Index]) -> pd.DataFrame:
    cols = {}
    for p in predictors:
        s = data[p]
        if p in levels:
            vals = s.astype(object).to_numpy()
            for lv in levels[p][1:]:
                cols[f"{p}{lv}"] = (vals == lv).astype(float)
        else:
            cols[p] = s.astype(float).to_numpy()
    return pd.DataFrame(cols, index=data.index)


def _levels(data: pd.DataFrame, predictors: list[str]) -> dict[str, pd.Index]:
    out = {}
    for p in predictors:
        s = data[p]
        if isinstance(s.dtype, pd.CategoricalDtype):
            out[p] = pd.Index(s.cat.categories)
        elif is_categorical(s):
            out[p] = pd.Index(np.sort(s.dropna().unique()))
    return out


_MODEL_CLASS = None


def _analytic_ordered_logit():
    """statsmodels' ``OrderedModel`` with the logit score in closed form.

    statsmodels differentiates the log-likelihood numerically (slow for tens of parameters
    and thousands of rows); the likelihood, the parameterisation (beta, first cut point, log
    increments) and the fitting code are statsmodels' own.
    """
    global _MODEL_CLASS
    if _MODEL_CLASS is not None:
        return _MODEL_CLASS
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    class AnalyticOrderedLogit(OrderedModel):
        def score_obs_(self, params):
            params = np.asarray(params, dtype=float)
            k = self.exog.shape[1]
            beta, th = params[:k], params[k:]
            cuts = np.concatenate([[-np.inf], np.cumsum(np.concatenate(
                [[th[0]], np.exp(th[1:])])), [np.inf]])
            y = np.asarray(self.endog, dtype=np.int64)
            eta = self.exog @ beta
            hi, lo = cuts[y + 1] - eta, cuts[y] - eta
            Fh, Fl = stats.logistic.cdf(hi), stats.logistic.cdf(lo)
            fh = np.where(np.isfinite(hi), Fh * (1 - Fh), 0.0)
            fl = np.where(np.isfinite(lo), Fl * (1 - Fl), 0.0)
            P = np.maximum(Fh - Fl, 1e-300)
            g_eta = (fl - fh) / P
            n_cut = len(th)
            # d loglik / d cut_j for the finite cut points j = 0..J-2
            g_cut = np.zeros((len(y), n_cut))
            rows = np.arange(len(y))
            up = y < n_cut                 # upper cut is finite: cut index y
            g_cut[rows[up], y[up]] += fh[up] / P[up]
            dn = y > 0                     # lower cut is finite: cut index y - 1
            g_cut[rows[dn], y[dn] - 1] -= fl[dn] / P[dn]
            # chain rule: cut_j = th_0 + sum_{1 <= i <= j} exp(th_i)
            g_th = np.empty_like(g_cut)
            tail = np.cumsum(g_cut[:, ::-1], axis=1)[:, ::-1]   # sum_{j >= i} g_cut_j
            g_th[:, 0] = tail[:, 0]
            g_th[:, 1:] = tail[:, 1:] * np.exp(th[1:])[None, :]
            return np.column_stack([self.exog * g_eta[:, None], g_th])

        def score_obs(self, params):
            return self.score_obs_(params)

        def score(self, params):
            return self.score_obs_(params).sum(axis=0)

        def hessian(self, params):
            """Closed-form Hessian of the log-likelihood (second derivatives of
            log(F(a) - F(b)) with a = cut_y - eta, b = cut_{y-1} - eta, then the chain rule
            to statsmodels' (first cut, log increments) parameters)."""
            params = np.asarray(params, dtype=float)
            k = self.exog.shape[1]
            beta, th = params[:k], params[k:]
            nc = len(th)
            cuts = np.concatenate([[-np.inf], np.cumsum(np.concatenate(
                [[th[0]], np.exp(th[1:])])), [np.inf]])
            y = np.asarray(self.endog, dtype=np.int64)
            X = np.asarray(self.exog, dtype=float)
            eta = X @ beta
            a, b = cuts[y + 1] - eta, cuts[y] - eta
            Fa, Fb = stats.logistic.cdf(a), stats.logistic.cdf(b)
            fa = np.where(np.isfinite(a), Fa * (1 - Fa), 0.0)
            fb = np.where(np.isfinite(b), Fb * (1 - Fb), 0.0)
            dfa, dfb = fa * (1 - 2 * Fa), fb * (1 - 2 * Fb)
            P = np.maximum(Fa - Fb, 1e-300)
            laa = dfa / P - (fa / P) ** 2
            lbb = -dfb / P - (fb / P) ** 2
            lab = fa * fb / P ** 2
            # (beta, cuts) Hessian
            H = np.zeros((k + nc, k + nc))
            H[:k, :k] = X.T @ (X * (laa + lbb + 2 * lab)[:, None])
            up = y < nc                         # a finite: cut index y
            dn = y > 0                          # b finite: cut index y - 1
            Ca = np.zeros((len(y), nc))
            Ca[np.flatnonzero(up), y[up]] = 1.0
            Cb = np.zeros((len(y), nc))
            Cb[np.flatnonzero(dn), y[dn] - 1] = 1.0
            H[:k, k:] = -(X.T @ (Ca * (laa + lab)[:, None] + Cb * (lbb + lab)[:, None]))
            H[k:, :k] = H[:k, k:].T
            H[k:, k:] = (Ca.T @ (Ca * laa[:, None]) + Cb.T @ (Cb * lbb[:, None])
                         + Ca.T @ (Cb * lab[:, None]) + Cb.T @ (Ca * lab[:, None]))
            # chain rule to (th_0, log increments)
            J = np.zeros((nc, nc))
            J[:, 0] = 1.0
            for i in range(1, nc):
                J[i:, i] = np.exp(th[i])
            T = np.eye(k + nc)
            T[k:, k:] = J
            Hth = T.T @ H @ T
            g_cut = (Ca * (fa / P)[:, None] - Cb * (fb / P)[:, None]).sum(axis=0)
            tail = np.cumsum(g_cut[::-1])[::-1]
            for i in range(1, nc):
                Hth[k + i, k + i] += np.exp(th[i]) * tail[i]
            return Hth

    _MODEL_CLASS = AnalyticOrderedLogit
    return _MODEL_CLASS


@dataclass(frozen=True, repr=False)
class OrderedLogitFit(Result):
    """One proportional-odds fit in R's ``polr`` parameterisation.

    Attributes
    ----------
    coef, coef_se : Series
        beta and its standard errors (names as R's).
    zeta, zeta_se : Series
        Cut points ``"1|2"``, ``"2|3"``, ... (category labels) and standard errors
        (delta method from statsmodels' increments parameterisation).
    outcome_levels : Index
        Ordered outcome categories.
    loglik : float
    result : statsmodels results
        The underlying ``OrderedModel`` fit.
    predictor_levels : dict
        Levels each categorical predictor was encoded with (first = reference).
    predictors : list of str
    """

    coef: pd.Series
    coef_se: pd.Series
    zeta: pd.Series
    zeta_se: pd.Series
    outcome_levels: pd.Index
    loglik: float
    result: object = field(repr=False, default=None)
    predictor_levels: dict = field(repr=False, default_factory=dict)
    predictors: list = field(repr=False, default_factory=list)

    def confint(self, level: float = 0.95) -> pd.DataFrame:
        """Wald intervals of beta (R's ``confint.default``)."""
        z = stats.norm.ppf((1 + level) / 2)
        return pd.DataFrame({"low": self.coef - z * self.coef_se,
                             "high": self.coef + z * self.coef_se})

    def predict_proba(self, data: pd.DataFrame) -> pd.DataFrame:
        """P(Y = k | x) for each row of ``data`` (columns: outcome levels)."""
        X = _design(data, self.predictors, self.predictor_levels)
        X = X.reindex(columns=self.coef.index, fill_value=0.0)
        # a level absent from the training data has no coefficient: treated as the reference
        eta = X.to_numpy() @ np.nan_to_num(self.coef.to_numpy())
        cdf = stats.logistic.cdf(self.zeta.to_numpy()[None, :] - eta[:, None])
        cdf = np.column_stack([np.zeros(len(eta)), cdf, np.ones(len(eta))])
        return pd.DataFrame(np.diff(cdf, axis=1), index=data.index,
                            columns=self.outcome_levels)

    def predict_expected(self, data: pd.DataFrame) -> pd.Series:
        """Expected category number ``sum_k k P(Y = k | x)``, categories numbered 1..J."""
        p = self.predict_proba(data)
        return pd.Series(p.to_numpy() @ np.arange(1, p.shape[1] + 1), index=data.index,
                         name="expected_category")

    def summary(self) -> pd.DataFrame:
        """Estimate and standard error of every coefficient and cut point."""
        return pd.DataFrame({"estimate": pd.concat([self.coef, self.zeta]),
                             "se": pd.concat([self.coef_se, self.zeta_se])})

    def to_frame(self) -> pd.DataFrame:
        """One row per parameter: ``term``, ``kind`` (coefficient / cut point),
        ``estimate``, ``se``."""
        out = self.summary().rename_axis("term").reset_index()
        out.insert(1, "kind", ["coefficient"] * len(self.coef) + ["cut point"] * len(self.zeta))
        return out

    def _header(self) -> str:
        return (f"OrderedLogitFit(J={len(self.outcome_levels)}, p={len(self.coef)}, "
                f"loglik={self.loglik:.6g})")


def fit_ordered_logit(data: pd.DataFrame, outcome: str, predictors: str | Sequence[str],
                      levels: dict[str, pd.Index] | None = None,
                      outcome_levels: Sequence | None = None) -> OrderedLogitFit:
    """Fit ``outcome ~ predictors`` by proportional odds (statsmodels ``OrderedModel``).

    Parameters
    ----------
    data : DataFrame
    outcome : str
        Ordered outcome (an ordered category, or values whose sorted order is the order).
    predictors : list of str
        Categorical (category/string) predictors get treatment dummies; numbers enter as is.
    levels : dict, optional
        Predictor levels to encode with (default: the data's); the first is the reference.
    outcome_levels : sequence, optional
        Outcome categories in order (default: the ordered categories, or sorted values).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> d = pd.DataFrame({"x": rng.choice(["a", "b"], 400)})
    >>> d["y"] = pd.cut(rng.logistic(size=400) + (d["x"] == "b"), [-np.inf, -1, 0, 1, np.inf],
    ...                 labels=[1, 2, 3, 4])
    >>> f = fit_ordered_logit(d, "y", ["x"])
    >>> f.coef.round(3).to_dict()
    {'xb': 1.068}
    >>> list(f.zeta.index)
    ['1|2', '2|3', '3|4']
    """
    predictors = [predictors] if isinstance(predictors, str) else list(predictors)
    require_columns(data, [outcome], "outcome", "data")
    require_columns(data, predictors, "predictors", "data")
    if data[[outcome, *predictors]].isna().any().any():
        raise ValueError("data: missing values in the outcome or the predictors")
    y = data[outcome]
    if outcome_levels is None:
        if isinstance(y.dtype, pd.CategoricalDtype):
            outcome_levels = list(y.cat.categories)
        else:
            outcome_levels = list(np.sort(y.unique()))
    outcome_levels = pd.Index(outcome_levels)
    if len(outcome_levels) < 3:
        raise ValueError(f"outcome {outcome!r} needs at least 3 ordered categories")
    codes = pd.Categorical(y.astype(object), categories=list(outcome_levels), ordered=True)
    if (codes.codes < 0).any():
        raise ValueError(f"outcome {outcome!r} has values outside outcome_levels")
    levels = _levels(data, predictors) if levels is None else levels
    X = _design(data, predictors, levels)
    # as polr: a column in the span of the intercept and the earlier columns (a level absent
    # here, a constant, the last dummy of a factor whose reference level is absent) is dropped
    kept = _kept_columns(np.column_stack([np.ones(len(X)), X.to_numpy(dtype=float)]))
    const = [c for j, c in enumerate(X.columns, start=1) if j not in kept]
    if const:
        warnings.warn(f"predictor columns {const} are constant or linear combinations of the "
                      "earlier ones in this dataset and are dropped, as MASS::polr drops "
                      "them (their coefficients are NaN)",
                      UtilityWarning, stacklevel=user_stacklevel())
        X = X.drop(columns=const)
    endog = pd.Series(codes, index=data.index)
    model = _analytic_ordered_logit()(endog, X, distr="logit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = None
        try:   # Newton with the closed-form score and Hessian: a few iterations
            res = model.fit(method="newton", maxiter=100, disp=False, tol=1e-12,
                            skip_hessian=True)
            if not res.mle_retvals.get("converged", False) or \
                    not np.isfinite(res.params).all():
                res = None
        except np.linalg.LinAlgError:
            res = None
        if res is None:   # separation or a flat direction: quasi-Newton, then polish
            res = model.fit(method="bfgs", maxiter=300, disp=False, gtol=1e-6,
                            skip_hessian=True)
            try:
                res = model.fit(start_params=res.params, method="newton", maxiter=20,
                                disp=False, tol=1e-12, skip_hessian=True)
            except np.linalg.LinAlgError:
                warnings.warn("singular Hessian (a level with too few records, or "
                              "separation): kept the quasi-Newton solution; its standard "
                              "errors are huge", UtilityWarning, stacklevel=2)
    k = X.shape[1]
    params = np.asarray(res.params)
    H = model.hessian(params)
    cov = np.linalg.pinv(-H)
    bad = np.diag(cov) <= 0
    cov[bad, bad] = np.inf
    beta = pd.Series(params[:k], index=X.columns)
    beta_se = pd.Series(np.sqrt(np.diag(cov)[:k]), index=X.columns)
    th = params[k:]
    cuts = np.cumsum(np.concatenate([[th[0]], np.exp(th[1:])]))
    J = np.zeros((len(th), len(th)))
    J[:, 0] = 1.0
    for i in range(1, len(th)):
        J[i:, i] = np.exp(th[i])
    cov_cut = J @ cov[k:, k:] @ J.T
    names = [f"{a}|{b}" for a, b in zip(outcome_levels[:-1], outcome_levels[1:])]
    full_cols = _design(data.iloc[:0], predictors, levels).columns
    return OrderedLogitFit(
        coef=beta.reindex(full_cols), coef_se=beta_se.reindex(full_cols),
        zeta=pd.Series(cuts, index=names), zeta_se=pd.Series(np.sqrt(np.diag(cov_cut)),
                                                             index=names),
        outcome_levels=outcome_levels, loglik=float(res.llf), result=res,
        predictor_levels=levels, predictors=predictors)


@dataclass(frozen=True, repr=False)
class OrderedLogitUtility(Result):
    """Confidential vs combined-synthetic ordered logit, and hold-out predictions.

    Attributes
    ----------
    coefficients : DataFrame
        Per coefficient: ``orig``, ``orig_low``, ``orig_high`` (Wald), ``syn`` (q_bar),
        ``syn_T`` (total variance), ``syn_low``, ``syn_high`` (combining rules), ``m_used``
        and ``overlap`` (CI overlap, Karr et al.).
    predictions : DataFrame
        Expected outcome category of each hold-out record: column ``confidential`` and one
        column per synthetic dataset.
    orig_fit : OrderedLogitFit
    syn_fits : list of OrderedLogitFit
    """

    coefficients: pd.DataFrame
    predictions: pd.DataFrame
    orig_fit: OrderedLogitFit
    syn_fits: list
    level: float = 0.95

    def summary(self) -> pd.DataFrame:
        """Per coefficient: confidential and combined synthetic estimates and intervals,
        CI overlap."""
        return self.coefficients[["orig", "orig_low", "orig_high", "syn", "syn_low",
                                  "syn_high", "overlap"]]

    def to_frame(self) -> pd.DataFrame:
        """One row per coefficient (``term`` column) with every statistic."""
        return self.coefficients.rename_axis("term").reset_index()

    def _header(self) -> str:
        c = self.coefficients
        return (f"OrderedLogitUtility(terms={len(c)}, m={len(self.syn_fits)}, "
                f"holdout={len(self.predictions)}, mean CI overlap="
                f"{c['overlap'].mean():.4f})")


def ordered_logit_utility(confidential: pd.DataFrame,
                          synthetic: pd.DataFrame | Sequence[pd.DataFrame],
                          outcome: str, predictors: str | Sequence[str],
                          train: int | float | Sequence[bool] | None = None,
                          seed: int | None = None, level: float = 0.95,
                          predict_with: str = "synthetic") -> OrderedLogitUtility:
    """Ordered logit on confidential and synthetic data, combined; hold-out predictions.

    Parameters
    ----------
    confidential : DataFrame
    synthetic : DataFrame or list of DataFrame
        Synthetic datasets, row i the synthetic version of record i.
    outcome, predictors : see :func:`fit_ordered_logit`.
    train : int, float, boolean mask or None
        Training rows: a number of rows (the paper: 5000 of 6208) or a share drawn at random
        with ``seed``, or a boolean mask; ``None`` = all rows, no hold-out.
    level : float
        Interval level.
    predict_with : {"synthetic", "confidential"}
        Predictors of the hold-out rows for a synthetic fit: the synthetic dataset's own
        (what an analyst of the release would do) or the confidential ones.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(2)
    >>> d = pd.DataFrame({"x": rng.choice(["a", "b", "c"], 500)})
    >>> d["y"] = pd.cut(rng.logistic(size=500) + (d["x"] == "b"), [-np.inf, -1, 0, 1, np.inf],
    ...                 labels=[1, 2, 3, 4])
    >>> syns = [d.assign(x=rng.permutation(d["x"].to_numpy())) for _ in range(3)]
    >>> u = ordered_logit_utility(d, syns, "y", ["x"], train=400, seed=1)
    >>> u.coefficients.index.tolist(), u.predictions.shape
    (['xb', 'xc'], (100, 4))
    """
    predictors = [predictors] if isinstance(predictors, str) else list(predictors)
    datasets = synthetic_frames(synthetic)
    if predict_with not in ("synthetic", "confidential"):
        raise ValueError(f"predict_with must be 'synthetic' or 'confidential', "
                         f"got {predict_with!r}")
    n = len(confidential)
    for i, d in enumerate(datasets):
        if len(d) != n:
            raise ValueError(f"{synthetic_name(i + 1)} has {len(d)} rows, confidential has {n}")
    if train is None:
        mask = np.ones(n, dtype=bool)
    elif isinstance(train, (int, np.integer, float)) and not isinstance(train, bool):
        size = int(round(train * n)) if isinstance(train, float) and train < 1 else int(train)
        if not 0 < size <= n:
            raise ValueError(f"train must select 1..{n} rows, got {train!r}")
        mask = np.zeros(n, dtype=bool)
        mask[np.random.default_rng(seed).choice(n, size, replace=False)] = True
    else:
        mask = np.asarray(train, dtype=bool)
        if mask.shape != (n,):
            raise ValueError(f"train mask must have length {n}")
    y = confidential[outcome]
    out_levels = (list(y.cat.categories) if isinstance(y.dtype, pd.CategoricalDtype)
                  else list(np.sort(y.unique())))
    levels = _levels(confidential, predictors)
    orig_fit = fit_ordered_logit(confidential[mask], outcome, predictors, levels, out_levels)
    syn_fits = []
    for d in datasets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            syn_fits.append(fit_ordered_logit(d[mask], outcome, predictors, levels, out_levels))
    ci = orig_fit.confint(level)
    rows = []
    for term in orig_fit.coef.index:
        q = np.array([f.coef[term] for f in syn_fits])
        u = np.array([f.coef_se[term] ** 2 for f in syn_fits])
        ok = ~(np.isnan(q) | np.isnan(u))
        row = {"term": term, "orig": orig_fit.coef[term], "orig_low": ci.loc[term, "low"],
               "orig_high": ci.loc[term, "high"], "m_used": int(ok.sum())}
        if ok.sum() >= 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = combine_partial(q[ok], u[ok], level=level)
            row.update(syn=c.q_bar, syn_T=c.T, syn_low=c.ci_low, syn_high=c.ci_high)
            lo, hi = row["orig_low"], row["orig_high"]
            if np.isfinite([lo, hi, c.ci_low, c.ci_high]).all() and hi > lo and \
                    c.ci_high > c.ci_low:
                inter = min(hi, c.ci_high) - max(lo, c.ci_low)
                row["overlap"] = 0.5 * (inter / (hi - lo) + inter / (c.ci_high - c.ci_low))
        rows.append(row)
    coefs = pd.DataFrame(rows).set_index("term")
    for col in ("syn", "syn_T", "syn_low", "syn_high", "overlap"):
        if col not in coefs:
            coefs[col] = np.nan
    coefs = coefs[["orig", "orig_low", "orig_high", "syn", "syn_T", "syn_low", "syn_high",
                   "m_used", "overlap"]]
    hold = ~mask
    preds = pd.DataFrame(index=confidential.index[hold])
    if hold.any():
        preds["confidential"] = orig_fit.predict_expected(confidential[hold]).to_numpy()
        for i, (f, d) in enumerate(zip(syn_fits, datasets), start=1):
            src = d if predict_with == "synthetic" else confidential
            preds[f"syn_{i}"] = f.predict_expected(src[hold]).to_numpy()
    return OrderedLogitUtility(coefficients=coefs, predictions=preds, orig_fit=orig_fit,
                               syn_fits=syn_fits, level=level)
