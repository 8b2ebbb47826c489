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
from typing import Literal, cast

import numpy as np
import pandas as pd

from .._schema import is_categorical, sorted_levels
from ..exceptions import NotFittedError
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
    nodes_ : dict[int, TreeNode]
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
            self.classes_ = list(fac.categories)
            self.y_ = fac.codes.astype(np.int64)
            self._class_init()
        if rng is not None and self.xval > 1:
            rng.skip_permutation(n)
        where = self._grow(xm)
        self.where_ = pd.Series(where, index=self.fit_index_, name="node")
        self.n_leaves_ = sum(1 for nd in self.nodes_.values() if nd.is_leaf)
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
        into ``nodes_``; returns each row's node (a leaf, or the internal node where a row
        with no direction stopped)."""
        n, p = xm.shape
        sorts = np.empty((p, n), dtype=np.int64)
        for v in range(p):
            if self.ncat_[v] == 0:
                sorts[v] = rpart_sort_order(np.where(np.isnan(xm[:, v]), 0.0, xm[:, v]))
            else:  # rpart puts 0 for a missing value when sorting
                sorts[v] = np.arange(n, dtype=np.int64)
        if self.method == "anova":
            rule: tuple = (0, np.zeros((1, 1)), np.zeros(1), None)
        else:
            rule = (len(self.classes_ or ()), self._loss, self._prior, self._aprior)
        (count, number, nobs, risk, yval, complexity, var, split, cut, direction, csplit,
         improve, majority, nsur, svar, scut, sdir, scs, sagree, sadj, left, right, counts,
         where) = _rpart_grow.grow(
            np.ascontiguousarray(xm.T), self.y_, sorts, self.ncat_, self.minbucket,
            self.minsplit, self.cp, 2**self.maxdepth - 1, self.maxsurrogate, self.usesurrogate,
            *rule)
        anova = self.method == "anova"
        nodes = [TreeNode(int(number[s]), int(nobs[s]), float(risk[s]), float(yval[s]),
                          None if anova else counts[s].copy(), float(complexity[s]))
                 for s in range(count)]
        for s in np.flatnonzero(split[:count]).tolist():  # the fields of a split found
            nd = nodes[s]
            v = int(var[s])
            kept = left[s] >= 0  # else collapsed: a leaf that keeps its split's fields
            nd.var = v if kept else None
            nd.improve = float(improve[s])
            nd.majority = int(majority[s])
            nc = int(self.ncat_[v])
            nd.cut, nd.direction = float(cut[s]), int(direction[s])
            nd.csplit = csplit[s, :nc].copy() if nc else None
            nd.surrogates = [
                Surrogate(int(svar[s, i]), float(scut[s, i]), int(sdir[s, i]),
                          scs[s, i, :k].copy() if (k := int(self.ncat_[svar[s, i]])) else None,
                          float(sagree[s, i]), float(sadj[s, i]))
                for i in range(int(nsur[s]))]
            if kept:
                nd.left, nd.right = nodes[int(left[s])], nodes[int(right[s])]
        self.nodes_: dict[int, TreeNode] = {nd.number: nd for nd in nodes}
        return where

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
        """The fitted tree as arrays for the compiled routing (built once per fit)."""
        flat = getattr(self, "_flat", None)
        if flat is not None and flat[0] is self.nodes_:
            return flat[1]
        nodes = [self.nodes_[1]]
        slot = {id(nodes[0]): 0}
        for nd in nodes:  # breadth first; children get slots as they are met
            for kid in (nd.left, nd.right):
                if kid is not None and id(kid) not in slot:
                    slot[id(kid)] = len(nodes)
                    nodes.append(kid)
        k = len(nodes)
        primary = np.full(k, -1, dtype=np.int64)
        sur_start = np.zeros(k, dtype=np.int64)
        sur_count = np.zeros(k, dtype=np.int64)
        child = np.zeros((k, 2), dtype=np.int64)
        left_n = np.zeros(k, dtype=np.int64)
        right_n = np.zeros(k, dtype=np.int64)
        number = np.array([nd.number for nd in nodes], dtype=np.int64)
        var: list[int] = []
        cut: list[float] = []
        direction: list[int] = []
        cat: list[int] = []
        dirs: list[int] = []

        def add(split) -> int:
            var.append(int(split.var))
            cut.append(float(split.cut) if split.csplit is None else np.nan)
            direction.append(int(split.direction) if split.csplit is None else 0)
            if split.csplit is None:
                cat.append(-1)
            else:
                cat.append(len(dirs))
                dirs.extend(int(v) for v in split.csplit)
            return len(var) - 1

        for i, nd in enumerate(nodes):
            if nd.is_leaf:
                continue
            primary[i] = add(nd)
            assert nd.left is not None and nd.right is not None  # not a leaf
            child[i] = slot[id(nd.left)], slot[id(nd.right)]
            left_n[i], right_n[i] = nd.left.n, nd.right.n
        for i, nd in enumerate(nodes):  # surrogates of a node are contiguous
            if nd.is_leaf:
                continue
            sur_start[i] = len(var)
            sur_count[i] = len(nd.surrogates)
            for sp in nd.surrogates:
                add(sp)
        var_a = np.array(var, dtype=np.int64)
        cut_a = np.array(cut, dtype=np.float64)
        dir_a = np.array(direction, dtype=np.int64)
        cat_a = np.array(cat, dtype=np.int64)
        split = primary >= 0  # the primary split's fields per node (leaf: var -1)
        node_var = np.full(k, -1, dtype=np.int64)
        node_cut = np.zeros(k)
        node_lt = np.zeros(k, dtype=np.bool_)  # x < cut goes left
        node_cat = np.full(k, -1, dtype=np.int64)
        node_var[split] = var_a[primary[split]]
        node_cut[split] = cut_a[primary[split]]
        node_lt[split] = dir_a[primary[split]] == LEFT
        node_cat[split] = cat_a[primary[split]]
        arrays = (
            node_var, node_cut, node_lt, node_cat, child, sur_start, sur_count, left_n,
            right_n, number, var_a, cut_a, dir_a, cat_a,
            np.array(dirs if dirs else [0], dtype=np.int64),
        )  # fmt: skip
        self._flat = (self.nodes_, arrays)
        return arrays

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
        numbers = sorted(self.nodes_)
        cnt = np.vstack([cast(np.ndarray, self.nodes_[k].counts) for k in numbers])
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
        return sorted(k for k, nd in self.nodes_.items() if nd.is_leaf)

    def _check_fitted(self) -> None:
        if not hasattr(self, "nodes_"):
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
