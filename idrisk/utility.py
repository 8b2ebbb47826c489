"""Utility measures for synthetic data, usable on any synthetic data (not only idrisk's).

* :func:`pmse` -- propensity-score mean squared error (pMSE), synthpop's ``utility.gen``
  variant with a logistic (``method="logit"``) or CART (``method="cart"``) propensity model,
  its standardised ratio ``S_pMSE`` and the ``SPECKS`` statistic.
* :func:`propensity_utility` -- the article's U_p (Hornby & Hu 2021, Eq. 6): the pMSE of a
  logistic-regression propensity model fitted with statsmodels.
* :func:`ecdf_utility` -- ECDF utility (Woo et al. 2009): U_m (max) and U_a (mean squared).
* :func:`ci_overlap` / :func:`coefficient_ci_overlap` -- confidence-interval overlap for a
  regression coefficient (Karr et al. 2006).
* :func:`combine_partial` -- partial-synthesis combining rules (Reiter & Raghunathan 2007).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
import scipy.linalg
import statsmodels.api as sm
from scipy import stats

__all__ = [
    "CombinedEstimate",
    "PMSEResult",
    "ci_overlap",
    "coefficient_ci_overlap",
    "combine_partial",
    "ecdf_utility",
    "pmse",
    "propensity_utility",
]


def _single_thread_blas():
    """Run BLAS single-threaded: the many small fits here are slower with threads on a busy
    machine (threadpoolctl, when installed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


# ----------------------------------------------------------------------------------------------
# design matrices
# ----------------------------------------------------------------------------------------------
def _is_categorical(s: pd.Series) -> bool:
    """Factor in R's sense: category, string/object or bool dtype."""
    if isinstance(s.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(s):
        return True
    return not pd.api.types.is_numeric_dtype(s)


def _levels(columns: Sequence[pd.Series]) -> list:
    """Union of the levels of ``columns``, ordered as R's ``factor`` would order them."""
    cats: list = []
    for s in columns:
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats.extend(s.cat.categories.tolist())
        else:
            cats.extend(pd.unique(s.dropna()).tolist())
    uniq = list(dict.fromkeys(cats))
    try:
        return sorted(uniq)
    except TypeError:
        return sorted(uniq, key=str)


def _blocks(frame: pd.DataFrame, variables: Sequence[str], levels: dict) -> list[np.ndarray]:
    """One block of model-matrix columns per variable (treatment contrasts for factors)."""
    blocks = []
    for v in variables:
        s = frame[v]
        if v in levels:
            codes = pd.Categorical(s, categories=levels[v]).codes
            lv = levels[v]
            block = np.zeros((len(s), max(len(lv) - 1, 0)))
            for j in range(1, len(lv)):
                block[:, j - 1] = codes == j
            blocks.append(block)
        else:
            blocks.append(s.to_numpy(dtype=float)[:, None])
    return blocks


def _design(
    frame: pd.DataFrame, variables: Sequence[str], levels: dict, maxorder: int
) -> np.ndarray:
    """R's ``model.matrix(~ (v1 + ... + vp)^(maxorder + 1))`` with treatment contrasts."""
    blocks = _blocks(frame, variables, levels)
    cols = [np.ones((len(frame), 1)), *blocks]
    for order in range(2, maxorder + 2):
        for combo in combinations(range(len(blocks)), order):
            prod = blocks[combo[0]]
            for k in combo[1:]:
                b = blocks[k]
                prod = (prod[:, :, None] * b[:, None, :]).reshape(len(frame), -1)
            cols.append(prod)
    return np.hstack(cols)


def _drop_aliased(X: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Drop aliased columns (R's glm reports them as NA): pivoted QR on unit-norm columns."""
    norms = np.sqrt((X**2).sum(axis=0))
    keep = norms > 0
    Xs = X[:, keep] / norms[keep]
    r, piv = scipy.linalg.qr(Xs, mode="r", pivoting=True)
    d = np.abs(np.diag(r))
    rank = int((d > d[0] * tol).sum())
    return Xs[:, np.sort(piv[:rank])]


def _logit_scores(X: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, int]:
    """Fitted propensity scores of a logistic regression of ``t`` on ``X`` (statsmodels)."""
    Xr = _drop_aliased(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = sm.Logit(t, Xr).fit(method="newton", disp=0, tol=1e-10, maxiter=100)
            p = fit.predict()
        except (np.linalg.LinAlgError, ValueError):
            fit = sm.GLM(t, Xr, family=sm.families.Binomial()).fit(tol=1e-10)
            p = np.asarray(fit.fittedvalues)
    return np.asarray(p), Xr.shape[1]


def _cart_scores(frame: pd.DataFrame, t: np.ndarray, cp: float, minbucket: int) -> np.ndarray:
    from idrisk.cart import RpartTree

    tree = RpartTree(method="class", minbucket=minbucket, cp=cp, xval=0)
    y = pd.Series(np.where(t == 1, "syn", "orig"), index=frame.index, dtype="category")
    tree.fit(frame, y)
    proba = tree.predict(frame)
    return np.asarray(proba["syn"], dtype=float)


# ----------------------------------------------------------------------------------------------
# pMSE
# ----------------------------------------------------------------------------------------------
@dataclass
class PMSEResult:
    """pMSE utility of one or more synthetic datasets against the original.

    Attributes
    ----------
    pMSE, S_pMSE, SPECKS : pandas.Series indexed by dataset (1..m).
    method : "logit" or "cart"; resamp_method : "pairs", "theory", "perm" or "none".
    null_pMSE : the null expectation S_pMSE divides by.
    """

    pMSE: pd.Series
    S_pMSE: pd.Series
    SPECKS: pd.Series
    method: str
    resamp_method: str
    null_pMSE: float
    n_params: pd.Series = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """Tidy frame: dataset, method, resamp_method, pMSE, S_pMSE, SPECKS."""
        df = pd.DataFrame(
            {
                "dataset": self.pMSE.index,
                "method": self.method,
                "resamp_method": self.resamp_method,
                "pMSE": self.pMSE.to_numpy(),
                "S_pMSE": self.S_pMSE.to_numpy(),
                "SPECKS": self.SPECKS.to_numpy(),
            }
        )
        return df

    def __repr__(self) -> str:
        m = len(self.pMSE)
        return (
            f"PMSEResult(method={self.method!r}, resamp_method={self.resamp_method!r}, m={m}, "
            f"mean pMSE={self.pMSE.mean():.6g}, mean S_pMSE={self.S_pMSE.mean():.6g}, "
            f"mean SPECKS={self.SPECKS.mean():.6g})"
        )


def _as_list(synthetic) -> list[pd.DataFrame]:
    if isinstance(synthetic, pd.DataFrame):
        return [synthetic]
    if hasattr(synthetic, "synthetic"):  # idrisk.synthesis.SynthResult
        return list(synthetic.synthetic)
    out = list(synthetic)
    for k, s in enumerate(out):
        if not isinstance(s, pd.DataFrame):
            raise TypeError(f"synthetic[{k}] must be a pandas DataFrame, got {type(s).__name__}")
    if not out:
        raise ValueError("synthetic must contain at least one DataFrame")
    return out


def _pair_scores(
    a: pd.DataFrame,
    b: pd.DataFrame,
    variables: Sequence[str],
    levels: dict,
    method: str,
    maxorder: int,
    cp: float,
    minbucket: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Propensity scores for 'b vs a' (t = 1 for rows of b)."""
    t = np.r_[np.zeros(len(a)), np.ones(len(b))]
    if method == "logit":
        X = np.vstack(
            [_design(a, variables, levels, maxorder), _design(b, variables, levels, maxorder)]
        )
        p, k = _logit_scores(X, t)
    else:
        frame = pd.concat([a[list(variables)], b[list(variables)]], ignore_index=True)
        for v in levels:
            frame[v] = pd.Categorical(frame[v], categories=levels[v])
        p, k = _cart_scores(frame, t, cp, minbucket), 0
    return p, t, k


def pmse(
    original: pd.DataFrame,
    synthetic,
    *,
    method: str = "logit",
    maxorder: int = 1,
    variables: Sequence[str] | None = None,
    resamp_method: str | None = None,
    nperms: int = 50,
    cp: float = 1e-3,
    minbucket: int = 5,
    seed: int | None = None,
    progress: bool | None = None,
) -> PMSEResult:
    """Propensity-score MSE utility, following synthpop's ``utility.gen``.

    Original and synthetic rows are stacked with an indicator t (1 = synthetic); a
    propensity model predicts t and ``pMSE = mean((p_hat - c)^2)``, ``c = n_syn / N``.

    Parameters
    ----------
    original : DataFrame
        The original (confidential) data.
    synthetic : DataFrame, list of DataFrames, or a ``SynthResult``
        One or more synthetic datasets with the columns in ``variables``.
    method : {"logit", "cart"}
        ``"logit"``: logistic regression (statsmodels) on all main effects and interactions
        up to order ``maxorder + 1`` (synthpop's ``maxorder=1``: two-way). ``"cart"``: a
        classification tree (idrisk.cart.RpartTree, ``cp``, ``minbucket``).
    variables : list of str, optional
        Columns entering the propensity model (default: all columns of ``original``).
        Non-numeric or categorical columns are factors (treatment contrasts).
    resamp_method : {"pairs", "theory", "perm", "none"}, optional
        How the null pMSE for ``S_pMSE`` is obtained. ``"pairs"``: half the mean pMSE over all
        pairs of synthetic datasets (synthpop's choice for incomplete synthesis);
        ``"theory"`` (logit only): ``(k - 1) (1 - c)^2 c / N`` with k non-aliased parameters;
        ``"perm"``: mean pMSE over ``nperms`` permutations of t (seeded by ``seed``).
        Default: ``"pairs"`` when some column is identical in the original and every synthetic
        dataset and m > 1 (as synthpop), else ``"theory"`` for logit, ``"perm"`` for cart.
    progress : bool, optional
        Show a tqdm bar (default: only when more than 20 fits are needed).

    Returns
    -------
    PMSEResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> orig = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["a", "b"], 200)})
    >>> syn = orig.assign(x=rng.normal(size=200))
    >>> res = pmse(orig, syn, resamp_method="theory")
    >>> bool(res.pMSE.iloc[0] < 0.01)
    True
    """
    if method not in ("logit", "cart"):
        raise ValueError(f"method must be 'logit' or 'cart', got {method!r}")
    if not isinstance(original, pd.DataFrame):
        raise TypeError(f"original must be a pandas DataFrame, got {type(original).__name__}")
    syns = _as_list(synthetic)
    variables = list(original.columns if variables is None else variables)
    for k, s in enumerate([original, *syns]):
        name = "original" if k == 0 else f"synthetic[{k - 1}]"
        missing = [v for v in variables if v not in s.columns]
        if missing:
            raise KeyError(f"{name} lacks the variables {missing}")
        if s[variables].isna().any().any():
            bad = s[variables].columns[s[variables].isna().any()].tolist()
            raise ValueError(f"{name} has missing values in {bad}; pmse needs complete data")
    m = len(syns)
    if resamp_method is None:
        incomplete = any(
            all(s[v].reset_index(drop=True).equals(original[v].reset_index(drop=True))
                for s in syns)
            for v in variables
        )
        if incomplete and m > 1:
            resamp_method = "pairs"
        else:
            resamp_method = "theory" if method == "logit" else "perm"
    if resamp_method not in ("pairs", "theory", "perm", "none"):
        raise ValueError(
            f"resamp_method must be 'pairs', 'theory', 'perm' or 'none', got {resamp_method!r}"
        )
    if resamp_method == "pairs" and m < 2:
        raise ValueError("resamp_method='pairs' needs at least 2 synthetic datasets")
    if resamp_method == "theory" and method != "logit":
        raise ValueError("resamp_method='theory' is only defined for method='logit'")

    cat_vars = [v for v in variables if _is_categorical(original[v])]
    levels = {v: _levels([original[v], *[s[v] for s in syns]]) for v in cat_vars}

    n_pairs = m * (m - 1) // 2 if resamp_method == "pairs" else 0
    n_perm = nperms * m if resamp_method == "perm" else 0
    total = m + n_pairs + n_perm
    show = (total > 20) if progress is None else progress

    with _single_thread_blas():
        return _pmse_loop(original, syns, variables, levels, method, maxorder, cp, minbucket,
                          resamp_method, nperms, seed, total, show)


def _pmse_loop(original, syns, variables, levels, method, maxorder, cp, minbucket,
               resamp_method, nperms, seed, total, show) -> PMSEResult:
    from tqdm.auto import tqdm

    m = len(syns)
    bar = tqdm(total=total, desc=f"pMSE ({method})", disable=not show)
    vals, specks, nparams, nulls = [], [], [], []
    rng = np.random.default_rng(seed)
    for s in syns:
        p, t, k = _pair_scores(original, s, variables, levels, method, maxorder, cp, minbucket)
        c = t.mean()
        vals.append(float(np.mean((p - c) ** 2)))
        specks.append(float(stats.ks_2samp(p[t == 0], p[t == 1]).statistic))
        nparams.append(k)
        bar.update()
        if resamp_method == "theory":
            nulls.append((k - 1) * (1 - c) ** 2 * c / len(t))
        elif resamp_method == "perm":
            frame = pd.concat([original[variables], s[variables]], ignore_index=True)
            perm_vals = []
            for _ in range(nperms):
                tp = rng.permutation(t)
                if method == "logit":
                    X = _design(frame, variables, levels, maxorder)
                    pp, _ = _logit_scores(X, tp)
                else:
                    f2 = frame.copy()
                    for v in levels:
                        f2[v] = pd.Categorical(f2[v], categories=levels[v])
                    pp = _cart_scores(f2, tp, cp, minbucket)
                perm_vals.append(np.mean((pp - c) ** 2))
                bar.update()
            nulls.append(float(np.mean(perm_vals)))
    if resamp_method == "pairs":
        pair_vals = []
        for i, j in combinations(range(m), 2):
            p, t, _ = _pair_scores(syns[i], syns[j], variables, levels, method, maxorder, cp,
                                   minbucket)
            pair_vals.append(np.mean((p - t.mean()) ** 2))
            bar.update()
        nulls = [float(np.mean(pair_vals)) / 2] * m
    bar.close()
    idx = pd.RangeIndex(1, m + 1, name="dataset")
    pm = pd.Series(vals, index=idx, name="pMSE")
    if resamp_method == "none":
        s_pm = pd.Series(np.nan, index=idx, name="S_pMSE")
        null = float("nan")
    else:
        s_pm = pd.Series(np.asarray(vals) / np.asarray(nulls), index=idx, name="S_pMSE")
        null = float(np.mean(nulls))
    return PMSEResult(
        pMSE=pm,
        S_pMSE=s_pm,
        SPECKS=pd.Series(specks, index=idx, name="SPECKS"),
        method=method,
        resamp_method=resamp_method,
        null_pMSE=null,
        n_params=pd.Series(nparams, index=idx, name="n_params"),
    )


def propensity_utility(
    original: pd.DataFrame,
    synthetic,
    *,
    maxorder: int = 1,
    variables: Sequence[str] | None = None,
) -> pd.Series:
    """The article's propensity-score utility U_p (Hornby & Hu 2021, Eq. 6), per dataset.

    ``U_p = 1/(2n) * sum_i (p_hat_i - 1/2)^2`` over the stacked original and synthetic rows,
    with p_hat from a logistic regression (statsmodels) on main effects and interactions up
    to order ``maxorder + 1``. Smaller is better. Equals synthpop's logit pMSE when the
    synthetic and original datasets have the same size.

    Returns
    -------
    pandas.Series named ``"U_p"`` indexed by dataset (1..m).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> orig = pd.DataFrame({"x": rng.normal(size=300)})
    >>> bad = pd.DataFrame({"x": rng.normal(loc=2, size=300)})
    >>> good = pd.DataFrame({"x": rng.normal(size=300)})
    >>> u = propensity_utility(orig, [good, bad])
    >>> bool(u[1] < u[2])
    True
    """
    res = pmse(original, synthetic, method="logit", maxorder=maxorder, variables=variables,
               resamp_method="none", progress=False)
    return res.pMSE.rename("U_p")


# ----------------------------------------------------------------------------------------------
# ECDF utility
# ----------------------------------------------------------------------------------------------
def _ecdf_one(original: np.ndarray, synthetic: np.ndarray) -> tuple[float, float]:
    pooled = np.concatenate([original, synthetic])
    f_o = np.searchsorted(np.sort(original), pooled, side="right") / len(original)
    f_s = np.searchsorted(np.sort(synthetic), pooled, side="right") / len(synthetic)
    diff = f_o - f_s
    return float(np.max(np.abs(diff))), float(np.mean(diff**2))


def _as_1d(x, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains missing values")
    return arr


def ecdf_utility(original, synthetic) -> pd.Series | pd.DataFrame:
    """ECDF utility (Woo et al. 2009) of one variable.

    The original and synthetic values are pooled; at every pooled point the two empirical
    CDFs are compared: ``U_m = max |F_orig - F_syn|``, ``U_a = mean (F_orig - F_syn)^2``.
    Smaller is better.

    Parameters
    ----------
    original : 1-D array-like
    synthetic : 1-D array-like, or a list of them (one per synthetic dataset)

    Returns
    -------
    pandas.Series with index ``["U_m", "U_a"]``, or for a list a DataFrame with one row per
    synthetic dataset (index 1..m).

    Examples
    --------
    >>> ecdf_utility([1, 2, 3, 4], [1, 2, 3, 4]).tolist()
    [0.0, 0.0]
    >>> ecdf_utility([1, 2], [3, 4]).round(3).tolist()
    [1.0, 0.375]
    """
    orig = _as_1d(original, "original")
    is_list = isinstance(synthetic, list | tuple) and len(synthetic) > 0 and np.ndim(
        synthetic[0]
    ) == 1
    if is_list:
        rows = [
            _ecdf_one(orig, _as_1d(s, f"synthetic[{k}]")) for k, s in enumerate(synthetic)
        ]
        return pd.DataFrame(
            rows, columns=["U_m", "U_a"], index=pd.RangeIndex(1, len(rows) + 1, name="dataset")
        )
    u_m, u_a = _ecdf_one(orig, _as_1d(synthetic, "synthetic"))
    return pd.Series([u_m, u_a], index=["U_m", "U_a"], name="ecdf_utility")


# ----------------------------------------------------------------------------------------------
# combining rules and CI overlap
# ----------------------------------------------------------------------------------------------
@dataclass
class CombinedEstimate:
    """Partial-synthesis combined estimate (Reiter & Raghunathan 2007)."""

    q_bar: float
    b: float
    u_bar: float
    T: float
    df: float
    m: int
    level: float
    ci_low: float
    ci_high: float

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame with every field."""
        return pd.DataFrame([self.__dict__])

    def __repr__(self) -> str:
        return (
            f"CombinedEstimate(q_bar={self.q_bar:.6g}, T={self.T:.6g} (u_bar={self.u_bar:.6g}, "
            f"b={self.b:.6g}, m={self.m}), df={self.df:.4g}, "
            f"{100 * self.level:g}% CI=[{self.ci_low:.6g}, {self.ci_high:.6g}])"
        )


def combine_partial(estimates, variances, level: float = 0.95) -> CombinedEstimate:
    """Combine m point estimates from partially synthetic datasets.

    ``q_bar = mean(q_l)``, ``b = var(q_l)`` (ddof 1), ``u_bar = mean(u_l)``,
    ``T = u_bar + b/m``, ``df = (m - 1)(1 + u_bar / (b/m))^2``; the interval is
    ``q_bar +- t_{df, (1+level)/2} sqrt(T)``. With ``b = 0`` the degrees of freedom are
    infinite (normal quantile). With m = 1 there is no between variance: ``b = 0`` and
    ``T = u_bar`` (a warning says so).

    Examples
    --------
    >>> ce = combine_partial([1.0, 2.0, 3.0], [0.5, 0.5, 0.5])
    >>> round(ce.q_bar, 6), round(ce.b, 6), round(ce.T, 6), round(ce.df, 4)
    (2.0, 1.0, 0.833333, 12.5)
    """
    q = np.asarray(estimates, dtype=float).ravel()
    u = np.asarray(variances, dtype=float).ravel()
    if q.size == 0:
        raise ValueError("estimates is empty")
    if q.shape != u.shape:
        raise ValueError(
            f"estimates and variances must have the same length, got {q.size} and {u.size}"
        )
    if np.isnan(q).any() or np.isnan(u).any():
        raise ValueError("estimates/variances contain missing values")
    if (u < 0).any():
        raise ValueError("variances must be non-negative")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    m = q.size
    q_bar = float(q.mean())
    u_bar = float(u.mean())
    if m == 1:
        warnings.warn("combine_partial with m = 1: no between-dataset variance, T = u_bar",
                      stacklevel=2)
        b = 0.0
    else:
        b = float(q.var(ddof=1))
    T = u_bar + b / m
    df = float("inf") if b == 0 else (m - 1) * (1 + u_bar / (b / m)) ** 2
    crit = stats.norm.ppf((1 + level) / 2) if np.isinf(df) else stats.t.ppf((1 + level) / 2, df)
    half = float(crit * np.sqrt(T))
    return CombinedEstimate(q_bar, b, u_bar, T, df, m, level, q_bar - half, q_bar + half)


def ci_overlap(original_ci, synthetic_ci) -> float:
    """Confidence-interval overlap (Karr et al. 2006) of two intervals (low, high).

    ``IO = 0.5 * [(min(u_o, u_s) - max(l_o, l_s)) / (u_o - l_o)
    + (min(u_o, u_s) - max(l_o, l_s)) / (u_s - l_s)]``; 1 = identical intervals, values
    <= 0 mean no overlap (negative values measure the gap).

    Examples
    --------
    >>> ci_overlap((0, 2), (1, 3))
    0.5
    """
    lo, uo = map(float, original_ci)
    ls, us = map(float, synthetic_ci)
    if not (uo > lo and us > ls):
        raise ValueError("each interval must be (low, high) with low < high")
    inter = min(uo, us) - max(lo, ls)
    return 0.5 * (inter / (uo - lo) + inter / (us - ls))


def coefficient_ci_overlap(
    original: pd.DataFrame, synthetic, formula: str, term: str, level: float = 0.95
) -> pd.Series:
    """CI overlap of one OLS regression coefficient (statsmodels formula) original vs synthetic.

    For a list of synthetic datasets the synthetic interval comes from
    :func:`combine_partial`.

    Returns
    -------
    pandas.Series with ``estimate_orig, ci_low_orig, ci_high_orig, estimate_syn, ci_low_syn,
    ci_high_syn, overlap``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(3)
    >>> d = pd.DataFrame({"x": rng.normal(size=500)})
    >>> d["y"] = 2 * d.x + rng.normal(size=500)
    >>> float(coefficient_ci_overlap(d, d, "y ~ x", "x")["overlap"])
    1.0
    """
    import statsmodels.formula.api as smf

    fit = smf.ols(formula, data=original).fit()
    if term not in fit.params.index:
        raise KeyError(f"term {term!r} not among the coefficients {list(fit.params.index)}")
    lo, hi = fit.conf_int(alpha=1 - level).loc[term]
    syns = _as_list(synthetic)
    if len(syns) == 1:
        fs = smf.ols(formula, data=syns[0]).fit()
        est = float(fs.params[term])
        ls, hs = fs.conf_int(alpha=1 - level).loc[term]
    else:
        fits = [smf.ols(formula, data=s).fit() for s in syns]
        ce = combine_partial([f.params[term] for f in fits], [f.bse[term] ** 2 for f in fits],
                             level)
        est, ls, hs = ce.q_bar, ce.ci_low, ce.ci_high
    return pd.Series(
        {
            "estimate_orig": float(fit.params[term]),
            "ci_low_orig": float(lo),
            "ci_high_orig": float(hi),
            "estimate_syn": est,
            "ci_low_syn": float(ls),
            "ci_high_syn": float(hs),
            "overlap": ci_overlap((lo, hi), (ls, hs)),
        },
        name=term,
    )
