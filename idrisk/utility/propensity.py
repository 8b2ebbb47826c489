"""Propensity-score utility: pMSE, S_pMSE and SPECKS as synthpop's ``utility.gen``, and U_p.

* :func:`pmse` -- propensity-score mean squared error (pMSE), synthpop's ``utility.gen``
  variant with a logistic (``method="logit"``) or CART (``method="cart"``) propensity model,
  its standardised ratio ``S_pMSE`` and the ``SPECKS`` statistic.
* :func:`propensity_utility` -- the article's U_p (Hornby & Hu 2021, Eq. 6): the pMSE of a
  propensity model; synthpop's defaults (a CART model).

Resource budget (synthpop's rules): a logit model with more than ``max_params`` parameters
(default 400, as synthpop's ``max.params``) is refused before its design matrix is built, with
synthpop's advice (select variables, use ``method="cart"`` or raise ``max_params``); the dense
design matrix must also fit in ``LOGIT_MAX_BYTES``. The CART model (the default) needs
memory linear in the number of rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from .._progress import progress_bar
from .._result import Result
from .._schema import is_categorical, require_columns
from .._stack import user_stacklevel
from .._synthetic import synthetic_frames, synthetic_name
from ..exceptions import UtilityWarning
from ._common import _levels, _single_thread_blas
from ._glm import logit_irls

__all__ = ["LOGIT_MAX_BYTES", "PMSEResult", "logit_n_params", "pmse", "propensity_utility"]

#: Largest dense logit design matrix (bytes, rows x parameters x 8) :func:`pmse` builds.
LOGIT_MAX_BYTES = 1 << 30


# ----------------------------------------------------------------------------------------------
# design matrices
# ----------------------------------------------------------------------------------------------
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
    """R's ``model.matrix(~ (v1 + ... + vp)^(maxorder + 1))`` with treatment contrasts (in an
    interaction block the first variable's columns vary fastest, as R's)."""
    blocks = _blocks(frame, variables, levels)
    cols = [np.ones((len(frame), 1)), *blocks]
    for order in range(2, maxorder + 2):
        for combo in combinations(range(len(blocks)), order):
            prod = blocks[combo[0]]
            for k in combo[1:]:
                b = blocks[k]
                prod = (b[:, :, None] * prod[:, None, :]).reshape(len(frame), -1)
            cols.append(prod)
    return np.hstack(cols)


def _block_widths(variables: Sequence[str], levels: dict) -> list[int]:
    return [max(len(levels[v]) - 1, 0) if v in levels else 1 for v in variables]


def _n_columns(widths: Sequence[int], maxorder: int) -> int:
    """Columns of ``model.matrix(~ (v1 + ... + vp)^(maxorder + 1))`` from the block widths:
    1 + the elementary symmetric polynomials e_1..e_{maxorder+1} of the widths."""
    e = [1] + [0] * (maxorder + 1)
    for w in widths:
        for j in range(maxorder + 1, 0, -1):
            e[j] += e[j - 1] * w
    return int(sum(e))


def logit_n_params(
    confidential: pd.DataFrame,
    synthetic,
    *,
    maxorder: int = 1,
    variables: Sequence[str] | None = None,
) -> int:
    """Number of parameters of :func:`pmse`'s logit model (synthpop's count for ``max.params``).

    Main effects and interactions up to order ``maxorder + 1`` with treatment contrasts,
    before aliased columns are dropped, counted as synthpop counts them: a factor has the
    levels observed in the confidential data (missing values one more level when the
    confidential data have some; levels seen only in a synthetic dataset, and empty levels,
    are not counted), a numeric variable one parameter and its missing-value indicator one
    more when the confidential data have missing values. Computed from the levels alone: no
    design matrix is built (the fitted model itself has every level present in the datasets
    it compares).

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "c"]})
    >>> logit_n_params(d, d)  # 1 + (1 + 2) + 1 * 2
    6
    """
    syns = synthetic_frames(synthetic)
    variables = list(confidential.columns if variables is None else variables)
    _, _, _, levels = _with_missing(confidential, syns, variables)
    return _n_columns(_counted_widths(confidential, syns, variables, levels), maxorder)


def _counted_widths(confidential: pd.DataFrame, syns: Sequence[pd.DataFrame],
                    variables: Sequence[str], levels: dict) -> list[int]:
    """Block widths as synthpop counts them for ``max.params`` (see :func:`logit_n_params`):
    the data as given, ``levels`` from :func:`_with_missing`."""
    widths, indicators = [], []
    for v in variables:
        s = confidential[v]
        if v in levels:
            widths.append(max(s.nunique(dropna=False) - 1, 0))
        else:
            widths.append(1)
            if any(f[v].isna().any() for f in [confidential, *syns]):  # has an indicator
                indicators.append(int(s.isna().any()))
    return widths + indicators


def _check_logit_size(n_rows: int, n_params: int, counted: int, max_params: int | None) -> None:
    """Refuse a logit model above ``max_params`` parameters (``counted`` as synthpop counts
    them) or whose ``n_rows`` x ``n_params`` design exceeds ``LOGIT_MAX_BYTES``."""
    if max_params is not None and counted > max_params:
        raise ValueError(
            f"You will be fitting a large model with {counted} parameters (max_params="
            f"{max_params}, synthpop's max.params): it may take a long time and fail to "
            "converge. Select fewer variables (variables=...), lower maxorder, use "
            "method='cart', or raise max_params if you really want this model."
        )
    nbytes = 8 * n_rows * n_params
    if nbytes > LOGIT_MAX_BYTES:
        raise ValueError(
            f"the logit model's design matrix ({n_rows} rows x {n_params} parameters, "
            f"{nbytes / 2**30:.1f} GiB) exceeds idrisk's budget of "
            f"{LOGIT_MAX_BYTES / 2**30:.1f} GiB; use method='cart' (memory linear in the "
            "rows), fewer variables or a lower maxorder"
        )


def _logit_scores(X: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, int]:
    """Fitted propensity scores of a logistic regression of ``t`` on ``X`` and the number of
    non-aliased parameters, fitted as R's ``glm`` (synthpop's ``maxit = 200``): see
    :mod:`idrisk.utility._glm`."""
    fit = logit_irls(X, t, maxit=200)
    if not fit.converged:
        warnings.warn(
            "the logit propensity model did not converge in 200 iterations (the confidential "
            "and synthetic rows are (nearly) separated); its pMSE is where the fit stopped, as "
            "synthpop's glm stops; method='cart' or fewer variables/a lower maxorder give a "
            "stable number", UtilityWarning, stacklevel=user_stacklevel())
    return fit.fitted, fit.rank


def _cart_scores(frame: pd.DataFrame, t: np.ndarray, cp: float, minbucket: int) -> np.ndarray:
    from idrisk.synthesis.rpart_tree import RpartTree

    tree = RpartTree(method="class", minbucket=minbucket, cp=cp, xval=0)
    y = pd.Series(np.where(t == 1, "syn", "orig"), index=frame.index, dtype="category")
    tree.fit(frame, y)
    proba = tree.predict(frame)
    return np.asarray(proba["syn"], dtype=float)


# ----------------------------------------------------------------------------------------------
# pMSE
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class PMSEResult(Result):
    """pMSE utility of one or more synthetic datasets against the confidential.

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

    def summary(self) -> pd.DataFrame:
        """pMSE, S_pMSE and SPECKS per dataset (index 1..m)."""
        return pd.DataFrame({"pMSE": self.pMSE, "S_pMSE": self.S_pMSE, "SPECKS": self.SPECKS})

    def _header(self) -> str:
        return (
            f"PMSEResult(method={self.method!r}, resamp_method={self.resamp_method!r}, "
            f"m={len(self.pMSE)}, null_pMSE={self.null_pMSE:.6g})"
        )


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
    confidential: pd.DataFrame,
    synthetic,
    *,
    method: str = "cart",
    maxorder: int = 1,
    max_params: int | None = 400,
    variables: Sequence[str] | None = None,
    resamp_method: str | None = None,
    n_repeats: int = 50,
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
    confidential : DataFrame
        The confidential (confidential) data.
    synthetic : DataFrame, list of DataFrames, or a :class:`~idrisk.SyntheticData`
        One or more synthetic datasets with the columns in ``variables``.
    method : {"cart", "logit"}
        ``"cart"`` (synthpop's default): a classification tree as ``rpart`` grows it
        (idrisk.synthesis.rpart_tree.RpartTree, ``cp``, ``minbucket``), equal to
        ``synthpop::utility.gen(method = "cart")``. ``"logit"``: logistic regression on all
        main effects and interactions up to order ``maxorder + 1`` (synthpop's
        ``maxorder=1``: two-way), fitted as R's ``glm`` does it (IRLS, at most 200
        iterations, stopping at a relative deviance change below 1e-8;
        :mod:`idrisk.utility._glm`), so a separated model stops where synthpop's stops.
    maxorder : int
        Highest interaction order of the logit model minus one (0: main effects only). As
        synthpop requires, it must be less than the number of model variables (the
        missing-value indicators included) when there are two or more; a single variable
        has no interactions, so any ``maxorder`` gives its main-effect model (synthpop
        fails on one-variable data).
    max_params : int or None
        synthpop's ``max.params``: a logit model with more parameters
        (``logit_n_params``) is refused with a ``ValueError`` before it is built (None:
        no limit; the design matrix must still fit in ``LOGIT_MAX_BYTES``).
    variables : list of str, optional
        Columns entering the propensity model (default: all columns of ``confidential``).
        Non-numeric or categorical columns are factors (treatment contrasts).
    resamp_method : {"pairs", "theory", "perm", "none"}, optional
        How the null pMSE for ``S_pMSE`` is obtained. ``"pairs"``: half the mean pMSE over all
        pairs of synthetic datasets (synthpop's choice for incomplete synthesis; pair i < j
        with dataset i in the synthetic role, as synthpop);
        ``"theory"`` (logit only): ``(k - 1) (1 - c)^2 c / N`` with k non-aliased parameters;
        ``"perm"``: half the mean pMSE over ``n_repeats`` permutations of t (synthpop's
        ``nperms``, and its halving, the same as the pairs null's; seeded by ``seed``, so
        the number differs from R's draws by the permutation noise).
        Default: ``"pairs"`` when some column is identical in the confidential and every synthetic
        dataset and m > 1 (as synthpop), else ``"theory"`` for logit, ``"perm"`` for cart.
    progress : bool, optional
        Show a tqdm bar (default: only when more than 20 fits are needed).

    Returns
    -------
    PMSEResult

    Raises
    ------
    ValueError
        For ``method="logit"``, when the model has more than ``max_params`` parameters or its
        design matrix would exceed ``LOGIT_MAX_BYTES``, or ``maxorder`` is not less than the
        number of model variables (checked before anything is fitted).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> orig = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["a", "b"], 200)})
    >>> syn = orig.assign(x=rng.normal(size=200))
    >>> res = pmse(orig, syn, method="logit", resamp_method="theory")
    >>> bool(res.pMSE.iloc[0] < 0.01)
    True
    """
    if method not in ("logit", "cart"):
        raise ValueError(f"method must be 'logit' or 'cart', got {method!r}")
    if not isinstance(confidential, pd.DataFrame):
        raise TypeError(
            f"confidential must be a pandas DataFrame, got {type(confidential).__name__}"
        )
    syns = synthetic_frames(synthetic)
    variables = list(confidential.columns if variables is None else variables)
    for k, s in enumerate([confidential, *syns]):
        require_columns(s, variables, "variables",
                        "the confidential data" if k == 0 else synthetic_name(k))
    m = len(syns)
    if resamp_method is None:
        incomplete = any(
            all(s[v].reset_index(drop=True).equals(confidential[v].reset_index(drop=True))
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

    raw_confidential, raw_syns, raw_variables = confidential, syns, variables
    confidential, syns, variables, levels = _with_missing(confidential, syns, variables)
    if method == "logit":
        if 2 <= len(variables) <= maxorder:
            raise ValueError(
                f"maxorder={maxorder} must be less than the number of model variables "
                f"({len(variables)}: {variables}, missing-value indicators included), as "
                "synthpop's utility.gen requires; lower maxorder"
            )
        n_rows = len(confidential) + max(len(s) for s in syns)
        if resamp_method == "pairs":
            n_rows = max(n_rows, max(len(a) + len(b) for a, b in combinations(syns, 2)))
        _check_logit_size(n_rows, _n_columns(_block_widths(variables, levels), maxorder),
                          _n_columns(_counted_widths(raw_confidential, raw_syns,
                                                     raw_variables, levels), maxorder),
                          max_params)

    n_pairs = m * (m - 1) // 2 if resamp_method == "pairs" else 0
    n_perm = n_repeats * m if resamp_method == "perm" else 0
    total = m + n_pairs + n_perm
    show = (total > 20) if progress is None else progress

    with _single_thread_blas():
        return _pmse_loop(confidential, syns, variables, levels, method, maxorder, cp, minbucket,
                          resamp_method, n_repeats, seed, total, show)


NA_LEVEL = "<NA>"


def _with_missing(confidential: pd.DataFrame, syns: list[pd.DataFrame], variables: list[str]):
    """Missing values as synthpop's ``utility.gen`` treats them (Rosenbaum & Rubin 1984).

    A categorical variable's ``NA`` is one more level (after the others); a numeric variable
    with missing values in any dataset gets an indicator variable ``<name>_NA`` (a factor,
    entered into the model with the variables and their interactions) and its missing values
    are set to 0 -- the value does not matter to the logit model, whose column space with
    the indicator and its interactions is the same for any filler. The indicators come after
    all the variables, in the variables' order, as synthpop appends them: a CART model breaks
    ties between equally good splits by that order.

    Returns the frames restricted to the model's variables, the variables and the levels of
    the categorical ones.
    """
    frames = [confidential, *syns]
    cat_vars = [v for v in variables if is_categorical(confidential[v])]
    levels = {v: _levels([f[v] for f in frames]) for v in cat_vars}
    out_vars: list[str] = list(variables)
    extra: dict[str, str] = {}
    for v in variables:
        if v in levels:
            if any(f[v].isna().any() for f in frames):
                if NA_LEVEL in levels[v]:
                    raise ValueError(f"column {v!r} has a level {NA_LEVEL!r} and missing values")
                levels[v] = [*levels[v], NA_LEVEL]
        elif any(f[v].isna().any() for f in frames):
            name = f"{v}_NA"
            while name in confidential.columns or name in out_vars or name in extra.values():
                name += "_"
            extra[v] = name
            levels[name] = [0, 1]
    out_vars += list(extra.values())
    if len(out_vars) == len(variables) and not any(NA_LEVEL in lv for lv in levels.values()):
        return confidential, syns, variables, levels

    def fill(frame: pd.DataFrame) -> pd.DataFrame:
        cols = {}
        for v in variables:
            s = frame[v]
            if v in levels:
                if NA_LEVEL in levels[v]:
                    s = s.astype(object).where(s.notna(), NA_LEVEL)
                cols[v] = s
            elif v in extra:
                miss = s.isna()
                cols[v] = s.astype(float).fillna(0.0)
                cols[extra[v]] = miss.astype(np.int64)
            else:
                cols[v] = s
        return pd.DataFrame(cols, index=frame.index)[out_vars]

    return fill(confidential), [fill(s) for s in syns], out_vars, levels


def _pmse_loop(confidential, syns, variables, levels, method, maxorder, cp, minbucket,
               resamp_method, n_repeats, seed, total, show) -> PMSEResult:
    m = len(syns)
    bar = progress_bar(total=total, desc=f"pMSE ({method})", show=show)
    vals, specks, nparams, nulls = [], [], [], []
    rng = np.random.default_rng(seed)
    for s in syns:
        p, t, k = _pair_scores(confidential, s, variables, levels, method, maxorder, cp, minbucket)
        c = t.mean()
        vals.append(float(np.mean((p - c) ** 2)))
        specks.append(float(stats.ks_2samp(p[t == 0], p[t == 1]).statistic))
        nparams.append(k)
        bar.update()
        if resamp_method == "theory":
            nulls.append((k - 1) * (1 - c) ** 2 * c / len(t))
        elif resamp_method == "perm":
            frame = pd.concat([confidential[variables], s[variables]], ignore_index=True)
            perm_vals = []
            if method == "logit":
                X = _design(frame, variables, levels, maxorder)
            else:
                for v in levels:
                    frame[v] = pd.Categorical(frame[v], categories=levels[v])
            for _ in range(n_repeats):
                tp = rng.permutation(t)
                if method == "logit":
                    pp, _ = _logit_scores(X, tp)
                else:
                    pp = _cart_scores(frame, tp, cp, minbucket)
                perm_vals.append(np.mean((pp - c) ** 2))
                bar.update()
            # synthpop's permutation null: half the mean permuted pMSE (as the pairs null)
            nulls.append(float(np.mean(perm_vals)) / 2)
    if resamp_method == "pairs":
        pair_vals = []
        for i, j in combinations(range(m), 2):
            # synthpop compares pair (i, j) with dataset i in the synthetic role and j in the
            # confidential one (c = n_i / (n_i + n_j)); the CART tree and so the pMSE depend
            # on the roles when the sizes differ
            p, t, _ = _pair_scores(syns[j], syns[i], variables, levels, method, maxorder, cp,
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
    confidential: pd.DataFrame,
    synthetic,
    *,
    method: str = "cart",
    maxorder: int = 1,
    max_params: int | None = 400,
    variables: Sequence[str] | None = None,
) -> pd.Series:
    """The article's propensity-score utility U_p (Hornby & Hu 2021, Eq. 6), per dataset.

    ``U_p = 1/(2n) * sum_i (p_hat_i - 1/2)^2`` over the stacked confidential and synthetic rows:
    synthpop's pMSE (``utility.gen``) when the synthetic and confidential datasets have the
    same size. Smaller is better. The defaults are synthpop's: p_hat from a CART model
    (``method="cart"``); ``method="logit"`` is the article's logistic regression on main
    effects and interactions up to order ``maxorder + 1``, refused above ``max_params``
    parameters (see :func:`pmse`).

    Returns
    -------
    pandas.Series named ``"U_p"`` indexed by dataset (1..m).
        A tidy-frame function (glossary rule: an answer that is one table is returned as that
        table, tidy; an answer with several parts is a Result).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> orig = pd.DataFrame({"x": rng.normal(size=300)})
    >>> bad = pd.DataFrame({"x": rng.normal(loc=2, size=300)})
    >>> good = pd.DataFrame({"x": rng.normal(size=300)})
    >>> u = propensity_utility(orig, [good, bad], method="logit")
    >>> bool(u[1] < u[2])
    True
    """
    res = pmse(confidential, synthetic, method=method, maxorder=maxorder, max_params=max_params,
               variables=variables, resamp_method="none", progress=False)
    return res.pMSE.rename("U_p")
