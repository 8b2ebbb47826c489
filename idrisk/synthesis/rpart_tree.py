"""An rpart-compatible CART tree (``method = "anova"`` and ``"class"``).

:class:`RpartTree` grows the same tree as R's ``rpart`` 4.1 with
``rpart.control(minsplit, minbucket, cp, maxdepth, ...)`` and no case weights:

* numeric predictors: every boundary between two different sorted values that
  leaves ``minbucket`` rows on each side; the cut is the midpoint; ties in the
  improvement go to the first boundary (strictly larger replaces);
* factor predictors: anova orders the levels present in the node by mean y and
  scans that order; class trees with two classes order by the proportion of the
  first class, with more classes every subset is tried (Gray code), as rpart;
* anova risk is the sum of squares, class risk the misclassification loss with
  priors equal to the observed class proportions (Gini splitting);
* a split is kept only if its improvement exceeds 1e-10 x the largest seen;
  nodes below ``minsplit`` rows, or whose complexity bound is <= cp x root risk,
  stay leaves; after both children are grown a node whose weakest-link
  complexity is <= cp x root risk is collapsed (rpart's ``partition``);
* the child with the smaller mean (anova) / class score (class) is numbered
  ``2 * node``, the other ``2 * node + 1``;
* surrogate splits (``maxsurrogate``, ``surrogatestyle = 0``): for every split,
  each other predictor's best agreement with the primary direction (numeric:
  a cut with at least two directed rows each side; factor: each level to its
  better side), kept when the adjusted agreement is above 1e-10, ranked by
  agreement. While fitting, rows with a missing primary value go by the first
  usable surrogate, else (``usesurrogate = 2``) to the side the primary sent
  more rows to; when routing new rows, missing values and levels without a
  direction try the surrogates, else go to the child with more training rows
  (rpart's ``predict``).

Sums are accumulated in the same order as rpart's C code so that near-ties are
resolved identically; the initial ordering of each numeric predictor uses a port
of rpart's own quicksort so that tied values sit in rpart's order. The growing (rpart's
``partition``: evaluation, split and surrogate search, dividing the rows, collapsing) is one
compiled call (numba: ``_rpart_grow`` on the node kernels of ``_rpart_kernels``); the
quicksort and the routing of new rows are compiled too (``_rpart_kernels``, ``_kernels``).

Examples
--------
>>> import pandas as pd
>>> X = pd.DataFrame({"x": [float(i) for i in range(40)]})
>>> y = pd.Series([0.0] * 20 + [10.0] * 20)
>>> tree = RpartTree(minbucket=5).fit(X, y)
>>> tree.n_leaves_
2
>>> sorted(set(tree.where_.tolist()))
[2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple, cast

import numpy as np
import pandas as pd

from .._rtext import r_label
from .._schema import is_categorical, sorted_levels
from ..exceptions import InputError, NotFittedError
from . import _kernels, _rpart_grow, _rpart_kernels

__all__ = ["RpartTree", "Surrogate", "TreeNode", "rpart_sort_order"]

LEFT, RIGHT = -1, 1


def rpart_sort_order(x: np.ndarray) -> np.ndarray:
    """Row order of rpart's ``mysort`` (quicksort with median-of-3) on ``x``.

    Equal values may come out in a different order than with a stable sort;
    rpart accumulates sums in this order, so we use it too.

    Examples
    --------
    >>> rpart_sort_order(np.array([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    xs = np.asarray(x, dtype=float)
    stable = np.argsort(xs, kind="stable")
    sx = xs[stable]
    if sx.size < 2 or not np.any(sx[1:] == sx[:-1]):
        return stable  # no ties: any correct sort gives this order
    cvec = np.arange(xs.size, dtype=np.int64)
    _rpart_kernels.mysort(xs.copy(), cvec)
    return cvec


def _seqsum(a: np.ndarray) -> float:
    """Left-to-right floating sum (as a C loop), not numpy's pairwise sum."""
    return float(np.cumsum(a)[-1]) if a.size else 0.0


@dataclass
class Surrogate:
    """A surrogate split of a node (rpart's ``splits`` rows of type surrogate).

    ``cut``/``direction`` for a numeric variable (``direction`` is the side of
    ``x < cut``), ``csplit`` (LEFT/RIGHT/0 per level) for a factor;
    ``agreement`` is the share of the node's rows (with a primary direction)
    sent the same way as the primary split, ``adj`` the adjusted agreement.
    """

    var: int
    cut: float
    direction: int
    csplit: np.ndarray | None
    agreement: float
    adj: float


@dataclass
class TreeNode:
    """One node of a fitted :class:`RpartTree` (rpart's node numbering)."""

    number: int
    n: int
    risk: float
    yval: float
    counts: np.ndarray | None = None
    complexity: float = 0.0
    var: int | None = None
    cut: float = np.nan
    direction: int = 0  # numeric: side taken by x < cut
    csplit: np.ndarray | None = None  # factor: LEFT/RIGHT/0 per level code-1
    improve: float = 0.0
    majority: int = 0  # lastsurrogate: LEFT, RIGHT or 0
    surrogates: list[Surrogate] = field(default_factory=list, repr=False)
    left: TreeNode | None = field(default=None, repr=False)
    right: TreeNode | None = field(default=None, repr=False)

    @property
    def is_leaf(self) -> bool:
        return self.left is None


class _Grown(NamedTuple):
    """The node arrays of a grown tree, one entry per node slot (pre-order, root 0): see
    :func:`idrisk.synthesis._rpart_grow.grow`."""

    number: np.ndarray
    nobs: np.ndarray
    risk: np.ndarray
    yval: np.ndarray
    complexity: np.ndarray
    var: np.ndarray
    split: np.ndarray
    cut: np.ndarray
    direction: np.ndarray
    csplit: np.ndarray
    improve: np.ndarray
    majority: np.ndarray
    nsur: np.ndarray
    svar: np.ndarray
    scut: np.ndarray
    sdir: np.ndarray
    scs: np.ndarray
    sagree: np.ndarray
    sadj: np.ndarray
    left: np.ndarray
    right: np.ndarray
    counts: np.ndarray


class RpartTree:
    """rpart-compatible regression (``"anova"``) or classification (``"class"``) tree.

    Parameters
    ----------
    method : {"anova", "class"}
        Splitting rule and response type.
    minbucket : int
        Minimum rows in a child.
    minsplit : int, optional
        Minimum rows in a node to try a split; ``None`` gives ``3 * minbucket``
        (rpart's rule when only ``minbucket`` is given).
    cp : float
        Complexity parameter (relative to the root risk).
    maxdepth : int
        Maximum depth (root = 0), at most 30 as in rpart.
    xval : int
        Number of cross-validation groups. The cross-validation itself is not
        run (its only output is rpart's cp table), but with an R stream its
        random draws are consumed exactly as rpart does.
    maxcompete, maxsurrogate, usesurrogate : int
        rpart controls. ``maxcompete`` has no effect on the tree (competitor
        splits are only reported by rpart). ``usesurrogate`` 0 stops rows with
        a missing split value at the node, 1 uses surrogates only, 2 also the
        majority direction.

    Attributes
    ----------
    where_ : pandas.Series
        Leaf node number of each training row (rows dropped for a missing y, or
        with every predictor missing, are not included), like ``fit$where``
        but holding node numbers instead of frame rows.
    nodes_ : dict
        The nodes by number (``TreeNode`` objects).
    n_leaves_ : int
    classes_ : list
        Class labels (``method="class"``), in ``factor(y)`` order.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g": pd.Categorical(list("ab") * 20)})
    >>> y = pd.Series(["u", "v"] * 20)
    >>> t = RpartTree("class", minbucket=5).fit(X, y)
    >>> t.predict(X).iloc[0].tolist()
    [1.0, 0.0]
    """

    def __init__(
        self,
        method: Literal["anova", "class"] = "anova",
        minbucket: int = 5,
        minsplit: int | None = None,
        cp: float = 1e-8,
        maxdepth: int = 30,
        xval: int = 10,
        maxcompete: int = 4,
        maxsurrogate: int = 5,
        usesurrogate: int = 2,
    ) -> None:
        if method not in ("anova", "class"):
            raise ValueError(f"method must be 'anova' or 'class', got {method!r}")
        if int(minbucket) < 1:
            raise ValueError(f"minbucket must be >= 1, got {minbucket}")
        if not 0 < int(maxdepth) <= 30:
            raise ValueError(f"maxdepth must be in 1..30, got {maxdepth}")
        if usesurrogate not in (0, 1, 2):
            raise ValueError(f"usesurrogate must be 0, 1 or 2, got {usesurrogate}")
        self.method = method
        self.minbucket = int(minbucket)
        self.minsplit = 3 * self.minbucket if minsplit is None else int(minsplit)
        self.cp = float(cp)
        self.maxdepth = int(maxdepth)
        self.xval = int(xval)
        self.maxcompete = int(maxcompete)
        self.maxsurrogate = int(maxsurrogate)
        self.usesurrogate = int(usesurrogate)

    def __repr__(self) -> str:
        fitted = f", n_leaves={self.n_leaves_}" if hasattr(self, "n_leaves_") else ""
        return (
            f"RpartTree(method={self.method!r}, minbucket={self.minbucket}, "
            f"minsplit={self.minsplit}, cp={self.cp:g}{fitted})"
        )

    # ------------------------------------------------------------------ encoding
    def _encode_X(self, X: pd.DataFrame, fitting: bool) -> np.ndarray:
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if fitting:
            self.feature_names_ = list(X.columns)
            self.levels_: dict[str, list | None] = {}
        else:
            missing = [c for c in self.feature_names_ if c not in X.columns]
            if missing:
                raise ValueError(f"X lacks the predictor column(s) {missing}")
        out = np.empty((len(X), len(self.feature_names_)), dtype=float)
        for j, name in enumerate(self.feature_names_):
            col = X[name]
            if fitting:
                self.levels_[name] = _factor_levels(col)
            out[:, j] = self.encode_column(name, col)
        return out

    def encode_column(self, name: str, col: pd.Series) -> np.ndarray:
        """Predictor ``name``'s values as the tree sees them.

        Parameters
        ----------
        name : str
            A predictor of the fitted tree.
        col : pandas.Series
            Its values (numeric, or labels of the levels seen when fitting).

        Returns
        -------
        numpy.ndarray
            Floats: the values of a numeric predictor, the level number (1..nc, in
            the order of ``levels_[name]``) of a factor; NaN where missing.
        """
        levels = self.levels_[name]
        if levels is None:
            if is_categorical(col):
                raise TypeError(f"column {name!r} was numeric when fitted, got {col.dtype}")
            return col.to_numpy(dtype=float, na_value=np.nan)
        if isinstance(col.dtype, pd.CategoricalDtype):  # look up categories, not rows
            cats = list(col.cat.categories)
            if cats == levels:  # the fitted levels in the same order
                lookup = np.arange(len(levels), dtype=float)
            else:
                lookup = pd.Index(levels).get_indexer(cats).astype(float)
            c = np.asarray(col.array.codes)
            codes = np.full(len(c), np.nan)
            if len(lookup):
                codes = np.where(c >= 0, lookup[np.maximum(c, 0)], np.nan)
            bad = (c >= 0) & ~(codes >= 0)
            if bad.any():
                new = sorted(set(map(str, _as_labels(col)[bad])))
                raise ValueError(f"factor {name!r} has new levels {new}")
            codes[codes < 0] = np.nan
            return codes + 1.0
        codes = pd.Index(levels).get_indexer(_as_labels(col)).astype(float)
        bad = (codes < 0) & col.notna().to_numpy()
        if bad.any():
            new = sorted(set(map(str, _as_labels(col)[bad])))
            raise ValueError(f"factor {name!r} has new levels {new}")
        codes[codes < 0] = np.nan
        return codes + 1.0

    # ----------------------------------------------------------------------- fit
    def fit(self, X: pd.DataFrame, y: pd.Series, rng=None) -> RpartTree:
        """Grow the tree.

        Parameters
        ----------
        X : pandas.DataFrame
            Predictors; categorical / object / string / bool columns are factors.
        y : pandas.Series
            Response, numeric for ``"anova"``; any labels for ``"class"``.
        rng : RStream or NumpyStream, optional
            Stream whose cross-validation draws are consumed (``xval > 1``).

        Returns
        -------
        RpartTree
            ``self``.
        """
        y = pd.Series(y)
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
        xm = self._encode_X(X, fitting=True)
        self.ncat_ = np.array(
            [0 if (lv := self.levels_[c]) is None else len(lv) for c in self.feature_names_],
            dtype=np.int64,
        )
        # na.rpart: drop missing y and rows with every predictor missing
        keep = y.notna().to_numpy().copy()
        if xm.shape[1] > 0:
            keep &= ~np.all(np.isnan(xm), axis=1)
        self.fit_index_ = y.index[keep]
        xm = xm[keep]
        yk = y[keep]
        n = int(keep.sum())
        if n == 0:
            raise ValueError("no rows with a non-missing response (and some predictor)")
        if self.method == "anova":
            if is_categorical(yk):
                raise TypeError(f"method='anova' needs a numeric y, got dtype {yk.dtype}")
            self.y_ = yk.to_numpy(dtype=float)
            self.classes_ = None
        else:
            if isinstance(yk.dtype, pd.CategoricalDtype):  # factor(y): keep level order
                fac = pd.Categorical(yk.astype(object), categories=yk.cat.categories)
            else:
                fac = pd.Categorical(_as_labels(yk))
            fac = fac.remove_unused_categories()
            if len(fac.categories) < 2:  # rpart: "number of rows of matrices must match"
                one = r_label(fac.categories[0])
                raise InputError(f"the response has one class ({one}): rpart cannot fit a "
                                 "classification tree to it (R's rpart stops with 'number of "
                                 "rows of matrices must match')")
            self.classes_ = list(fac.categories)
            self.y_ = fac.codes.astype(np.int64)
            self._class_init()
        if rng is not None and self.xval > 1:
            rng.skip_permutation(n)
        where = self._grow(xm)
        self.where_ = pd.Series(where, index=self.fit_index_, name="node")
        self.n_leaves_ = int(np.count_nonzero(self._grown.left < 0))
        return self

    # ----------------------------------------------------------- class helpers
    def _class_init(self) -> None:
        k = len(self.classes_ or ())
        counts = np.bincount(self.y_, minlength=k).astype(float)
        self.root_counts_ = counts
        total = _seqsum(counts)
        prior = counts / total  # rpart.class: counts / sum(counts)
        loss = 1.0 - np.eye(k)
        freq = counts / total
        temp = 0.0
        aprior = np.zeros(k)
        for i in range(k):
            for j in range(k):
                temp += loss[i, j] * prior[i]
                aprior[i] += loss[i, j] * prior[i]
        self._prior = prior / freq
        self._aprior = aprior / (temp * freq)
        self._loss = loss
        self._parms_prior = prior

    # --------------------------------------------------------------------- grow
    def _grow(self, xm: np.ndarray) -> np.ndarray:
        """Grow the tree on the encoded predictors ``xm`` (compiled: :func:`_rpart_grow.grow`)
        into the node arrays ``_grown``; returns each row's node (a leaf, or the internal node
        where a row with no direction stopped)."""
        n, p = xm.shape
        if self.method == "anova":
            rule: tuple[int, np.ndarray, np.ndarray, np.ndarray | None] = (
                0, np.zeros((1, 1)), np.zeros(1), None)
        else:
            rule = (len(self.classes_ or ()), self._loss, self._prior, self._aprior)
        xt = np.ascontiguousarray(xm.T)
        cap = _rpart_grow.node_capacity(n, self.minbucket)
        while True:
            sorts = np.empty((p, n), dtype=np.int64)  # reordered in place by grow
            for v in range(p):
                if self.ncat_[v] == 0:
                    sorts[v] = rpart_sort_order(np.where(np.isnan(xm[:, v]), 0.0, xm[:, v]))
                else:  # rpart puts 0 for a missing value when sorting
                    sorts[v] = np.arange(n, dtype=np.int64)
            try:
                grown = _rpart_grow.grow(
                    xt, self.y_, sorts, self.ncat_, self.minbucket, self.minsplit, self.cp,
                    2**self.maxdepth - 1, self.maxsurrogate, self.usesurrogate, *rule, cap)
                break
            except ValueError:
                if cap >= 2 * n + 1:
                    raise
                cap = 2 * n + 1
        count = grown[0]
        self._grown = _Grown(*(arr[:count].copy() for arr in grown[1:-1]))
        self._nodes: dict[int, TreeNode] | None = None
        self._flat: tuple | None = None
        return grown[-1]

    @property
    def nodes_(self) -> dict[int, TreeNode]:
        """The nodes by number (``TreeNode`` objects, made from the grown node arrays on
        first use)."""
        if getattr(self, "_nodes", None) is None:
            self._check_fitted()
            self._nodes = self._assemble()
        return cast(dict, self._nodes)

    def _assemble(self) -> dict[int, TreeNode]:
        g = self._grown
        anova = self.method == "anova"
        nodes = [TreeNode(int(g.number[s]), int(g.nobs[s]), float(g.risk[s]), float(g.yval[s]),
                          None if anova else g.counts[s].copy(), float(g.complexity[s]))
                 for s in range(g.number.size)]
        for s in np.flatnonzero(g.split).tolist():  # the fields of a split found
            nd = nodes[s]
            v = int(g.var[s])
            kept = g.left[s] >= 0  # else collapsed: a leaf that keeps its split's fields
            nd.var = v if kept else None
            nd.improve = float(g.improve[s])
            nd.majority = int(g.majority[s])
            nc = int(self.ncat_[v])
            nd.cut, nd.direction = float(g.cut[s]), int(g.direction[s])
            nd.csplit = g.csplit[s, :nc].astype(np.int64) if nc else None
            nd.surrogates = [
                Surrogate(int(g.svar[s, i]), float(g.scut[s, i]), int(g.sdir[s, i]),
                          g.scs[s, i, :k].astype(np.int64) if (k := int(self.ncat_[g.svar[s, i]]))
                          else None,
                          float(g.sagree[s, i]), float(g.sadj[s, i]))
                for i in range(int(g.nsur[s]))]
            if kept:
                nd.left, nd.right = nodes[int(g.left[s])], nodes[int(g.right[s])]
        return {nd.number: nd for nd in nodes}

    # ------------------------------------------------------------------ predict
    def apply(self, X: pd.DataFrame) -> pd.Series:
        """Node number where each row's routing stops (a leaf, normally).

        rpart's ``predict`` routing: a row whose split value is missing, or
        whose factor level has no direction at that split, tries the node's
        surrogate splits in order (``usesurrogate >= 1``); if none applies it
        goes to the child with more training rows (``usesurrogate = 2``), and
        with equal counts it stops at the internal node.
        """
        self._check_fitted()
        xm = self._encode_X(X, fitting=False)
        return pd.Series(self.apply_encoded(xm), index=X.index, name="node")

    def apply_encoded(self, xm: np.ndarray) -> np.ndarray:
        """:meth:`apply` for predictors already encoded with :meth:`encode_column`.

        Parameters
        ----------
        xm : numpy.ndarray
            Rows x predictors (in ``feature_names_`` order), floats.

        Returns
        -------
        numpy.ndarray
            The node number (int64) where each row stops.
        """
        self._check_fitted()
        xm = np.asarray(xm, dtype=np.float64)
        if xm.ndim != 2 or xm.shape[1] != len(self.feature_names_):
            raise ValueError(f"xm must be rows x {len(self.feature_names_)} predictors, "
                             f"got shape {xm.shape}")
        node_of = np.empty(xm.shape[0], dtype=np.int64)
        args = (np.ascontiguousarray(xm), *self._flat_tree(), int(self.usesurrogate), node_of)
        _kernels.route(*args)
        return node_of

    def _flat_tree(self) -> tuple:
        """The fitted tree as arrays for the compiled routing (built once per fit): per node
        slot (root 0) its primary split, children and sizes; the split entries (primaries,
        then each node's surrogates in rank order) and the factor directions they point to."""
        if self._flat is not None:
            return self._flat
        g = self._grown
        k = g.number.size
        internal = g.left >= 0
        prim = np.flatnonzero(internal)
        sur_count = np.where(internal, g.nsur, 0)
        sur_slot = np.repeat(np.arange(k), sur_count)
        sur_rank = np.arange(sur_slot.size) - np.repeat(np.cumsum(sur_count) - sur_count,
                                                        sur_count)
        var_a = np.concatenate([g.var[prim], g.svar[sur_slot, sur_rank]]).astype(np.int64)
        width = g.csplit.shape[1]
        levels = np.concatenate([g.csplit[prim], g.scs[sur_slot, sur_rank].reshape(-1, width)]
                                ).astype(np.int64)
        nc = self.ncat_[var_a] if var_a.size else np.zeros(0, dtype=np.int64)
        factor = nc > 0
        cut_a = np.where(factor, np.nan, np.concatenate([g.cut[prim],
                                                        g.scut[sur_slot, sur_rank]]))
        dir_a = np.where(factor, 0, np.concatenate([g.direction[prim],
                                                   g.sdir[sur_slot, sur_rank]])).astype(np.int64)
        cat_a = np.where(factor, np.cumsum(nc) - nc, -1).astype(np.int64)
        dirs = levels[np.arange(width)[None, :] < nc[:, None]]  # each factor's nc directions
        entry = np.full(k, -1, dtype=np.int64)  # a node's primary entry
        entry[prim] = np.arange(prim.size)
        node_var = np.where(internal, g.var, -1).astype(np.int64)
        # a leaf's entry -1 picks the appended placeholder
        node_cut = np.where(internal, np.append(cut_a, 0.0)[entry], 0.0)
        node_lt = internal & (np.append(dir_a, 0)[entry] == LEFT)  # x < cut goes left
        node_cat = np.where(internal, np.append(cat_a, -1)[entry], -1).astype(np.int64)
        child = np.stack([g.left, g.right], axis=1).astype(np.int64)
        left_n = np.where(internal, g.nobs[g.left], 0).astype(np.int64)
        right_n = np.where(internal, g.nobs[g.right], 0).astype(np.int64)
        sur_start = np.where(internal, prim.size + np.cumsum(sur_count) - sur_count, 0)
        self._flat = (
            node_var, node_cut, node_lt, node_cat, np.where(child < 0, 0, child), sur_start,
            sur_count.astype(np.int64), left_n, right_n, g.number, var_a, cut_a, dir_a, cat_a,
            dirs.astype(np.int64) if dirs.size else np.zeros(1, dtype=np.int64),
        )  # fmt: skip
        return self._flat

    def predict(self, X: pd.DataFrame) -> pd.Series | pd.DataFrame:
        """Leaf means (anova) or class probabilities (class; rpart's ``yprob``)."""
        nodes = self.apply(X)
        if self.method == "anova":
            vals = {k: nd.yval for k, nd in self.nodes_.items()}
            return pd.Series(nodes.map(vals).to_numpy(dtype=float), index=X.index, name="yval")
        probs = self.node_probabilities()
        return pd.DataFrame(probs.loc[nodes.to_numpy()].to_numpy(), index=X.index,
                            columns=self.classes_)

    def node_probabilities(self) -> pd.DataFrame:
        """rpart's ``yprob`` for every node: counts x prior / class total, normalised."""
        self._check_fitted()
        if self.method != "class":
            raise ValueError("node_probabilities needs method='class'")
        order = np.argsort(self._grown.number)
        numbers = self._grown.number[order].tolist()
        cnt = self._grown.counts[order]
        scale = self._parms_prior / np.maximum(1.0, self.root_counts_)
        temp = cnt * scale
        # R's rowSums accumulates in long double
        rs = np.sum(temp.astype(np.longdouble), axis=1).astype(float)
        return pd.DataFrame(temp / rs[:, None], index=numbers, columns=self.classes_)

    def is_leaf(self, node: int) -> bool:
        """Whether ``node`` is a leaf of the fitted tree."""
        return self.nodes_[int(node)].is_leaf

    @property
    def leaves_(self) -> list[int]:
        return sorted(self._grown.number[self._grown.left < 0].tolist())

    def _check_fitted(self) -> None:
        if not hasattr(self, "_grown"):
            raise NotFittedError("RpartTree is not fitted yet; call fit(X, y) first")

    def to_frame(self) -> pd.DataFrame:
        """One row per node: n, risk (deviance), yval, split variable and cut."""
        self._check_fitted()
        rows = []
        for k in sorted(self.nodes_):
            nd = self.nodes_[k]
            var = None if nd.is_leaf or nd.var is None else self.feature_names_[nd.var]
            rows.append({"node": k, "var": var or "<leaf>", "n": nd.n, "dev": nd.risk,
                         "yval": nd.yval, "complexity": nd.complexity,
                         "cut": np.nan if nd.is_leaf else nd.cut})
        return pd.DataFrame(rows).set_index("node")


# ---------------------------------------------------------------------------- helpers
def _factor_levels(col: pd.Series) -> list | None:
    """The levels of a factor (None for a numeric column: :func:`idrisk._schema.is_categorical`
    decides which is which)."""
    if not is_categorical(col):
        return None
    if isinstance(col.dtype, pd.CategoricalDtype):
        return list(col.cat.categories)
    if pd.api.types.is_bool_dtype(col):
        return [False, True]
    return sorted_levels(col)


def _as_labels(col: pd.Series) -> np.ndarray:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.astype(object))
    return col.to_numpy(dtype=object)
