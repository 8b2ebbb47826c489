"""DPMPM: truncated Dirichlet process mixture of products of multinomials.

Every record belongs to a latent class ``z_i in 1..K``; given the class, each categorical
variable is an independent multinomial with class-specific probabilities
``theta_k^(j) ~ Dirichlet(a_theta, ..., a_theta)``. Class weights follow the truncated
stick-breaking prior ``pi_k = V_k prod_{l<k}(1 - V_l)``, ``V_k ~ Beta(1, alpha)``,
``V_K = 1``, ``alpha ~ Gamma(a_alpha, b_alpha)`` (rate ``b_alpha``). The blocked Gibbs
sampler (Ishwaran & James 2001; Si & Reiter 2013) updates, in this order,
``z | rest``, ``theta | z``, ``V | z, alpha`` and ``alpha | V``.

Partial synthesis draws the chosen variables at ``m`` well-separated iterations after
burn-in, with one of three ways to draw each record's latent class:

``z="kept"`` (default)
    from its full conditional given the record's *kept* (not synthesized) variables,
    ``p(z_i = k) ∝ pi_k prod_{j kept} theta_k^(j)[x_ij]``. This preserves the relation of
    the synthesized variables with the kept ones without looking at the true values of the
    synthesized variables.
``z="prior"``
    from the mixture weights ``pi`` alone -- the paper's text (Hu & Savitsky, §2.1). The
    synthetic values are then independent of the kept variables.
``z="gibbs"``
    the sampler's current class, which was drawn given *all* the record's variables,
    including the true value of the synthesized ones -- what NPBayesImputeCat's
    ``DPMPM_nozeros_syn`` does. The synthetic value is then pulled towards the true value,
    and its attribute risk can exceed the inherent Max bound
    (:func:`idrisk.risk.inherent_bounds`).

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"a": rng.integers(0, 2, 300), "b": rng.integers(0, 3, 300)})
>>> df["c"] = (df["a"] + df["b"] + rng.integers(0, 2, 300)).astype(str)
>>> model = DPMPM(syn="c", K=10, n_iter=400, burn=200, keep=3, seed=1, progress=False)
>>> out = model.fit(df).synthesize(3, seed=2)
>>> len(out), out[0].shape
(3, (300, 3))
>>> bool((out[0]["a"] == df["a"]).all())      # kept variables are unchanged
True
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._progress import progress_bar
from .._schema import as_names, require_columns
from .._synthetic import Synthesizer, SyntheticData
from ..exceptions import KStarWarning
from . import _kernels

__all__ = ["DPMPM", "KStarWarning", "dpmpm_synthesize"]

Z_MODES = ("kept", "prior", "gibbs")


def encode_categorical(data: pd.DataFrame, columns: Sequence[str] | None = None,
                       argument: str = "data") -> tuple[np.ndarray, list[pd.Index]]:
    """Integer codes (n x p) and the levels of each column.

    A ``category`` column keeps all its categories (unobserved ones included, as factor
    levels in R); any other column uses its sorted distinct values.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{argument} must be a pandas DataFrame, got {type(data).__name__}")
    columns = list(data.columns) if columns is None else list(columns)
    require_columns(data, columns, "columns", argument)
    if len(data) == 0:
        raise ValueError(f"{argument} has no rows")
    codes = np.empty((len(data), len(columns)), dtype=np.int64)
    levels: list[pd.Index] = []
    for j, c in enumerate(columns):
        s = data[c]
        if s.isna().any():
            raise ValueError(f"{argument}: column {c!r} has {int(s.isna().sum())} missing "
                             "values; DPMPM needs complete categorical data")
        if isinstance(s.dtype, pd.CategoricalDtype):
            cat = pd.Categorical(s)
        else:
            cat = pd.Categorical(s, categories=np.sort(s.unique()))
        codes[:, j] = cat.codes
        levels.append(pd.Index(cat.categories))
    return codes, levels


def _as_column(values: np.ndarray, template: pd.Series, levels: pd.Index) -> pd.Series:
    """Codes -> a column of the template's type (category stays category)."""
    if isinstance(template.dtype, pd.CategoricalDtype):
        return pd.Series(pd.Categorical.from_codes(values, dtype=template.dtype),
                         index=template.index, name=template.name)
    return pd.Series(np.asarray(levels)[values], index=template.index,
                     name=template.name).astype(template.dtype)


@dataclass
class _Snapshot:
    iteration: int
    z: np.ndarray
    pi: np.ndarray
    theta: list[np.ndarray]   # per variable, K x d_j


def _check_chain(K, n_iter, burn, keep) -> None:
    """The settings every sampler here shares: truncation K, iterations, burn-in, kept states."""
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"K must be a positive integer, got {K!r}")
    if n_iter < 1 or burn < 0 or burn >= n_iter:
        raise ValueError(f"need 0 <= burn < n_iter, got burn={burn}, n_iter={n_iter}")
    if keep < 1 or keep > n_iter - burn:
        raise ValueError(f"keep must be in 1..n_iter - burn ({n_iter - burn}), got {keep}")


def _kept_positions(keep: int, m: int) -> list[int]:
    """Positions (0-based) of m of the ``keep`` kept states, evenly spread, the last last."""
    return [int(round(j * keep / m)) - 1 for j in range(1, m + 1)]


def _draw_plan(keep: int, m, seed, what: str):
    """(m, seed, generator, kept positions) of a ``synthesize(m, seed)`` call (``seed=None``:
    fresh entropy)."""
    m = Synthesizer._check_m(m)
    if m > keep:
        raise ValueError(f"m={m} exceeds the {keep} kept {what}; fit with keep >= {m}")
    seed = Synthesizer._check_seed(seed)
    return m, seed, np.random.default_rng(seed), _kept_positions(keep, m)


class DPMPM(Synthesizer):
    """Truncated DP mixture of products of multinomials, fitted by blocked Gibbs sampling.

    Parameters
    ----------
    syn : str or list of str
        The columns to synthesize (among ``variables``); the others are kept. Required by
        ``fit``.
    variables : list of str, optional
        Columns to model (default all).
    K : int
        Truncation level (maximum number of latent classes). The paper uses 40.
    a_alpha, b_alpha : float
        Gamma(shape, rate) prior of the DP concentration ``alpha``; the paper (and
        NPBayesImputeCat's examples) use 0.25, 0.25.
    a_theta : float
        Symmetric Dirichlet parameter of every class's multinomial (1 = uniform, as in
        NPBayesImputeCat).
    n_iter, burn : int
        Total Gibbs iterations and burn-in.
    keep : int
        Number of sampler states kept for synthesis, at iterations ``burn + round(j (n_iter
        - burn) / keep)``, ``j = 1..keep`` (the last one being ``n_iter``); ``synthesize(m)``
        uses m of them, evenly spread (all of them when ``m = keep``).
    z : {"kept", "prior", "gibbs"}
        How each record's latent class is drawn when synthesizing (see the module
        docstring); read at synthesis time, so ``set_params(z=...)`` needs no refit.
    seed : int or None
        Seed of the sampler (numpy ``Generator(PCG64)``); the same seed gives the same
        chain, None fresh entropy. The synthetic draws have their own
        ``synthesize(seed=...)``.
    progress : bool
        Show a tqdm progress bar.

    Attributes
    ----------
    variables_ : list of str
        The modelled columns.
    syn_ : list of str
        The columns synthesized.
    levels_ : list of pandas.Index
        The levels of each modelled column.
    trace_ : DataFrame
        ``iteration``, ``kstar`` (occupied classes after the class step) and ``alpha``
        at every iteration, burn-in included.
    iterations_ : list of int
        The iterations of the kept states.
    seed_ : int
        The seed of the sampler (``seed``, or the one drawn when it is None).
    """

    _method = "dpmpm"

    def __init__(
        self,
        *,
        syn: str | Sequence[str] | None = None,
        variables: Sequence[str] | None = None,
        K: int = 40,
        a_alpha: float = 0.25,
        b_alpha: float = 0.25,
        a_theta: float = 1.0,
        n_iter: int = 10_000,
        burn: int = 5_000,
        keep: int = 20,
        z: str = "kept",
        seed: int | None = None,
        progress: bool = True,
    ) -> None:
        self.syn = syn
        self.variables = variables
        self.K = K
        self.a_alpha = a_alpha
        self.b_alpha = b_alpha
        self.a_theta = a_theta
        self.n_iter = n_iter
        self.burn = burn
        self.keep = keep
        self.z = z
        self.seed = seed
        self.progress = progress

    def _validate_params(self) -> None:
        _check_chain(self.K, self.n_iter, self.burn, self.keep)
        for name in ("a_alpha", "b_alpha", "a_theta"):
            v = getattr(self, name)
            if not np.isfinite(v) or v <= 0:
                raise ValueError(f"{name} must be positive, got {v!r}")
        if self.z not in Z_MODES:
            raise ValueError(f"z must be one of {Z_MODES}, got {self.z!r}")

    # ------------------------------------------------------------------ fitting
    def fit(self, data: pd.DataFrame) -> DPMPM:
        """Run the Gibbs sampler and keep the state at ``keep`` well-separated iterations.

        Parameters
        ----------
        data : DataFrame
            Complete categorical data (category, string or integer columns).

        Returns
        -------
        self
        """
        self._validate_params()
        columns = (list(data.columns) if self.variables is None
                   else as_names(self.variables, "variables"))
        target = as_names(self.syn, "syn") if self.syn is not None else []
        if not target:
            raise ValueError("syn is empty: name the column(s) to synthesize")
        bad = [v for v in target if v not in columns]
        if bad:
            raise KeyError(f"syn: {bad} are not among the modelled columns {columns}")
        codes, levels = encode_categorical(data, columns)
        n_iter, burn, keep = int(self.n_iter), int(self.burn), int(self.keep)
        n, p = codes.shape
        K = int(self.K)
        d = np.array([len(lv) for lv in levels])
        offsets = np.concatenate([[0], np.cumsum(d)])
        L = int(offsets[-1])

        # prefix tree of the records, variables with few levels first
        order = np.argsort(d, kind="stable")
        parent, col, slices, leaf = _prefix_tree(codes[:, order], offsets[order])
        rec_cols = (codes + offsets[:-1]).astype(np.int64)

        keep_at = {burn + int(round(j * (n_iter - burn) / keep)) for j in range(1, keep + 1)}
        seed = self._fit_seed()
        rng = np.random.default_rng(seed)
        # initial state: equal class weights, uniform multinomials, alpha = 1 (so the first
        # class step spreads the records over all K classes)
        alpha = 1.0
        theta_flat = np.repeat(1.0 / d, d)[None, :].repeat(K, axis=0)
        pi = np.full(K, 1.0 / K)
        z = np.empty(n, dtype=np.int64)
        counts = np.zeros((K, L + 1), dtype=np.int64)
        kstar = np.empty(n_iter, dtype=np.int64)
        alphas = np.empty(n_iter)
        snaps: list[_Snapshot] = []
        a_alpha, b_alpha, a_theta = float(self.a_alpha), float(self.b_alpha), float(self.a_theta)
        bar = progress_bar(total=n_iter, desc="DPMPM", unit="it", mininterval=0.5,
                           show=self.progress)
        try:
            for it in range(1, n_iter + 1):
                u = rng.random(n)
                _kernels.z_step(pi, np.ascontiguousarray(theta_flat.T), parent, col, leaf, u,
                                z, counts, rec_cols)
                nk = counts[:, 0]
                kstar[it - 1] = np.count_nonzero(nk)
                theta_flat = _draw_theta(rng, a_theta + counts[:, 1:], offsets)
                pi, log1mv_sum = _draw_sticks(rng, nk, alpha)
                alpha = rng.gamma(a_alpha + K - 1, 1.0 / (b_alpha - log1mv_sum))
                alphas[it - 1] = alpha
                if it in keep_at:
                    snaps.append(_Snapshot(it, z.copy(), pi.copy(),
                                           [theta_flat[:, offsets[j]:offsets[j + 1]].copy()
                                            for j in range(p)]))
                if it % 100 == 0:
                    bar.update(100)
        finally:
            bar.close()
        self.data_ = data
        self.variables_ = columns
        self.syn_ = target
        self.seed_ = seed
        self.levels_ = levels
        self.trace_ = pd.DataFrame({"iteration": np.arange(1, n_iter + 1), "kstar": kstar,
                                    "alpha": alphas})
        self.iterations_ = [s.iteration for s in snaps]
        self._snapshots = snaps
        if kstar[burn:].max() >= K:
            warnings.warn(f"the number of occupied classes k* reached K = {K} after burn-in; "
                          "increase K", KStarWarning, stacklevel=2)
        return self

    def kstar_summary(self, level: float = 0.95) -> pd.Series:
        """Post-burn-in k*: median and central ``level`` interval, maximum; posterior mean of
        alpha, as a Series. A tidy-frame function (glossary rule: an answer that is one
        table is returned as that table, tidy; an answer with several parts is a Result)."""
        self._check_fitted()
        post = self.trace_.iloc[int(self.burn):]
        q = (1 - level) / 2
        return pd.Series({"median": float(post["kstar"].median()),
                          "lo": float(post["kstar"].quantile(q)),
                          "hi": float(post["kstar"].quantile(1 - q)),
                          "max": float(post["kstar"].max()),
                          "alpha_mean": float(post["alpha"].mean())}, name="kstar")

    # ---------------------------------------------------------------- synthesis
    def synthesize(self, m: int = 5, seed: int | None = None) -> SyntheticData:
        """Partially synthetic datasets: the ``syn`` columns redrawn at m kept iterations.

        Parameters
        ----------
        m : int
            Number of datasets (at most ``keep``).
        seed : int, optional
            Seed of the synthesis draws (None: fresh entropy). The chain itself is not
            affected.

        Returns
        -------
        SyntheticData
            ``diagnostics``: per dataset the sampler ``iteration`` it was drawn at and the
            ``kstar`` and ``alpha`` of that iteration.
        """
        self._check_fitted()
        if self.z not in Z_MODES:
            raise ValueError(f"z must be one of {Z_MODES}, got {self.z!r}")
        m, seed, rng, positions = _draw_plan(len(self._snapshots), m, seed, "sampler states")
        codes, _ = encode_categorical(self.data_, self.variables_)
        syn_idx = [self.variables_.index(v) for v in self.syn_]
        kept_idx = [j for j in range(len(self.variables_)) if j not in syn_idx]
        n = len(self.data_)
        snaps = [self._snapshots[k] for k in positions]
        out = []
        for snap in snaps:
            K = snap.pi.shape[0]
            if self.z == "gibbs":
                zz = snap.z
            elif self.z == "prior":
                zz = _categorical(rng, np.broadcast_to(snap.pi, (n, K)))
            else:
                logw = np.log(snap.pi)[None, :] + sum(
                    np.log(snap.theta[j][:, codes[:, j]]).T for j in kept_idx)
                zz = _categorical(rng, np.exp(logw - logw.max(axis=1, keepdims=True)))
            df = self.data_.copy()
            for j in syn_idx:
                new = _categorical(rng, snap.theta[j][zz])
                df[self.variables_[j]] = _as_column(new, self.data_[self.variables_[j]],
                                                  self.levels_[j])
            out.append(df)
        its = [s.iteration for s in snaps]
        trace = self.trace_.set_index("iteration")
        diagnostics = pd.DataFrame(
            {"iteration": its, "kstar": trace.loc[its, "kstar"].to_numpy(),
             "alpha": trace.loc[its, "alpha"].to_numpy()},
            index=pd.RangeIndex(1, m + 1, name="dataset"))
        return self._result(out, seed, diagnostics)


def dpmpm_synthesize(data: pd.DataFrame, syn: str | Sequence[str], m: int = 5, *,
                     K: int = 40, n_iter: int = 10_000, burn: int = 5_000, z: str = "kept",
                     a_alpha: float = 0.25, b_alpha: float = 0.25,
                     seed: int | None = None, progress: bool = True) -> SyntheticData:
    """Fit :class:`DPMPM` on all columns of ``data`` and synthesize ``syn`` (one call).

    ``seed`` seeds the sampler and the synthesis draws (None: fresh entropy).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"g": rng.integers(0, 2, 200), "lab": rng.integers(0, 5, 200)})
    >>> out = dpmpm_synthesize(df, "lab", m=2, K=5, n_iter=200, burn=100, seed=3,
    ...                        progress=False)
    >>> out.method, out.m, out.diagnostics["iteration"].tolist()
    ('dpmpm', 2, [150, 200])
    """
    model = DPMPM(syn=syn, K=K, a_alpha=a_alpha, b_alpha=b_alpha, n_iter=n_iter, burn=burn,
                  keep=m, z=z, seed=seed, progress=progress)
    return model.fit(data).synthesize(m, seed=seed)


# ---------------------------------------------------------------------- helpers
def _prefix_tree(codes: np.ndarray, offsets: np.ndarray):
    """Nodes of the prefix tree of the rows of ``codes`` (n x p), level by level.

    Returns ``parent`` (node -> parent node, root = 0), ``col`` (node -> global column of its
    level's value), ``slices`` (node range of each level) and ``leaf`` (record -> leaf node).
    """
    n, p = codes.shape
    parent = [np.array([0])]
    col = [np.array([0])]
    slices: list[tuple[int, int]] = []
    prev_ids = np.zeros(n, dtype=np.int64)
    prev_start = 0                       # the root
    start = 1
    for j in range(p):
        key = prev_ids * (int(codes[:, j].max()) + 1) + codes[:, j]
        uniq, first, ids = np.unique(key, return_index=True, return_inverse=True)
        parent.append(prev_start + prev_ids[first])
        col.append(codes[first, j] + offsets[j])
        slices.append((start, start + uniq.size))
        prev_ids = ids.astype(np.int64).ravel()
        prev_start = start
        start += uniq.size
    leaf = prev_ids + prev_start
    return (np.concatenate(parent).astype(np.int64), np.concatenate(col).astype(np.int64),
            slices, np.ascontiguousarray(leaf, dtype=np.int64))


def _draw_theta(rng: np.random.Generator, shape: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Dirichlet draws for every class and variable, as one K x L array."""
    g = rng.standard_gamma(shape)
    tot = np.add.reduceat(g, offsets[:-1], axis=1)
    widths = np.diff(offsets)
    theta = g / np.repeat(tot, widths, axis=1)
    return np.maximum(theta, np.finfo(float).tiny)


def _draw_sticks(rng: np.random.Generator, nk: np.ndarray, alpha: float):
    """Stick-breaking weights given class sizes; returns (pi, sum_k<K log(1 - V_k))."""
    K = nk.shape[0]
    if K == 1:
        return np.ones(1), 0.0
    tail = np.cumsum(nk[::-1])[::-1]            # n_k + n_{k+1} + ...
    a = 1.0 + nk[:-1]
    b = alpha + tail[1:]
    g1 = rng.standard_gamma(a)
    g2 = np.maximum(rng.standard_gamma(b), np.finfo(float).tiny)
    lt = np.log(g1 + g2)
    logv = np.log(g1) - lt
    log1mv = np.log(g2) - lt
    cum = np.concatenate([[0.0], np.cumsum(log1mv)])
    logpi = np.concatenate([logv, [0.0]]) + cum
    pi = np.maximum(np.exp(logpi), np.finfo(float).tiny)
    return pi, float(cum[-1])


def _categorical(rng: np.random.Generator, w: np.ndarray) -> np.ndarray:
    """One draw per row of the (unnormalised) weights ``w`` (n x k)."""
    cdf = np.cumsum(w, axis=1)
    t = rng.random(w.shape[0]) * cdf[:, -1]
    out = (cdf <= t[:, None]).sum(axis=1)
    return np.minimum(out, w.shape[1] - 1)


