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
of rpart's own quicksort so that tied values sit in rpart's order. With numba
installed the node work (evaluation, split and surrogate search, dividing the rows, the
quicksort) runs compiled (``_rpart_kernels``), transcribed loop for loop so that the tree
is the same bit for bit; ``IDRISK_ENGINE=numpy`` runs the numpy/Python code instead.

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

import os
import sys
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from . import _kernels, _rpart_kernels

__all__ = ["RpartTree", "Surrogate", "TreeNode", "rpart_sort_order"]

LEFT, RIGHT = -1, 1


def _use_kernels() -> bool:
    """Compiled growing and routing (numba) unless ``IDRISK_ENGINE=numpy``.

    Both engines grow the same tree bit for bit and route rows to the same nodes.
    """
    engine = os.environ.get("IDRISK_ENGINE", "auto").strip().lower()
    return _kernels.HAVE_NUMBA and engine != "numpy"


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
    if _use_kernels():
        cvec = np.arange(xs.size, dtype=np.int64)
        _rpart_kernels.mysort(xs.copy(), cvec)
        return cvec
    xl = xs.tolist()
    cv = list(range(len(xl)))
    _mysort(0, len(xl) - 1, xl, cv)
    return np.asarray(cv, dtype=np.int64)


def _mysort(start: int, stop: int, x: list, cvec: list) -> None:
    while start < stop:
        if stop - start < 11:
            for i in range(start + 1, stop + 1):
                temp = x[i]
                tempd = cvec[i]
                j = i - 1
                while j >= start and x[j] > temp:
                    x[j + 1] = x[j]
                    cvec[j + 1] = cvec[j]
                    j -= 1
                x[j + 1] = temp
                cvec[j + 1] = tempd
            return
        i = start
        j = stop
        k = (start + stop) // 2
        median = x[k]
        if x[i] >= x[k]:
            if x[j] > x[k]:
                median = x[j] if x[i] > x[j] else x[i]
        elif x[j] < x[k]:
            median = x[i] if x[i] > x[j] else x[j]
        while i < j:
            while x[i] < median:
                i += 1
            while x[j] > median:
                j -= 1
            if i < j:
                if x[i] > x[j]:
                    x[i], x[j] = x[j], x[i]
                    cvec[i], cvec[j] = cvec[j], cvec[i]
                i += 1
                j -= 1
        while x[i] >= median and i > start:
            i -= 1
        while x[j] <= median and j < stop:
            j += 1
        if (i - start) < (stop - j):
            if (i - start) > 0:
                _mysort(start, i, x, cvec)
            start = j
        else:
            if (stop - j) > 0:
                _mysort(j, stop, x, cvec)
            stop = i


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
    rows: np.ndarray | None = field(default=None, repr=False)
    stuck: np.ndarray | None = field(default=None, repr=False)

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
            if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
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
            [0 if self.levels_[c] is None else len(self.levels_[c]) for c in self.feature_names_],
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
            if not pd.api.types.is_numeric_dtype(yk) or pd.api.types.is_bool_dtype(yk):
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
        self.x_ = xm
        self._grow()
        where = np.empty(n, dtype=np.int64)
        for node in self.nodes_.values():
            if node.is_leaf:
                where[node.rows] = node.number
        # rows left at an internal node (missing split value, no majority)
        for node in self.nodes_.values():
            if not node.is_leaf and node.stuck is not None and node.stuck.size:
                where[node.stuck] = node.number
        self.where_ = pd.Series(where, index=self.fit_index_, name="node")
        self.n_leaves_ = sum(1 for nd in self.nodes_.values() if nd.is_leaf)
        del self.x_
        return self

    # ----------------------------------------------------------- class helpers
    def _class_init(self) -> None:
        k = len(self.classes_)
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

    def _eval(self, rows: np.ndarray) -> tuple[float, float, np.ndarray | None]:
        if self._fast:
            if self.method == "anova":
                mean, risk = _rpart_kernels.eval_anova(self.y_, rows)
                return mean, risk, None
            return _rpart_kernels.eval_class(self.y_, rows, len(self.classes_), self._loss,
                                             self._prior)
        y = self.y_[rows]
        if self.method == "anova":
            mean = _seqsum(y) / y.size
            d = y - mean
            return mean, _seqsum(d * d), None
        k = len(self.classes_)
        freq = np.bincount(y, minlength=k).astype(float)
        dev = 0.0
        best = 0
        for i in range(k):
            temp = 0.0
            for j in range(k):
                temp += freq[j] * self._loss[j, i] * self._prior[j]
            if i == 0 or temp < dev:
                best, dev = i, temp
        return float(best + 1), dev, freq

    # --------------------------------------------------------------------- grow
    def _grow(self) -> None:
        n = self.y_.size
        p = self.x_.shape[1]
        self._fast = _use_kernels()
        sorts = []
        for v in range(p):
            x = self.x_[:, v]
            if self.ncat_[v] == 0:
                xx = np.where(np.isnan(x), 0.0, x)  # rpart puts 0 for sorting
                sorts.append(rpart_sort_order(xx))
            else:
                sorts.append(np.arange(n, dtype=np.int64))
        if self._fast:
            sorts = self._compiled_setup(sorts)
        self.nodes_: dict[int, TreeNode] = {}
        self._iscale = 0.0
        self._maxnode = 2**self.maxdepth - 1
        all_rows = np.arange(n, dtype=np.int64)
        yval, risk, counts = self._eval(sorts[0] if p else all_rows)
        root = TreeNode(1, n, risk, yval, counts, complexity=risk, rows=all_rows)
        root.stuck = None
        self._alpha = self.cp * risk
        self.nodes_[1] = root
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 10_000))
        try:
            self._partition(root, sorts, first=True)
        finally:
            sys.setrecursionlimit(old)
            for name in ("_xt", "_goes", "_csplit", "_sur"):
                self.__dict__.pop(name, None)

    def _compiled_setup(self, sorts: list[np.ndarray]) -> np.ndarray:
        """Arrays of the compiled engine; returns the sort orders as one (p, n) array."""
        n, p = self.x_.shape
        self._xt = np.ascontiguousarray(self.x_.T)
        self._goes = np.zeros(n, dtype=np.int64)
        width = max(1, int(self.ncat_.max()) if p else 1)
        self._csplit = np.zeros(width, dtype=np.int64)
        k = max(1, self.maxsurrogate)
        self._sur = (np.zeros(k, dtype=np.int64), np.zeros(k), np.zeros(k, dtype=np.int64),
                     np.zeros((k, width), dtype=np.int64), np.zeros(k), np.zeros(k))
        out = np.empty((p, n), dtype=np.int64)
        for v, order in enumerate(sorts):
            out[v] = order
        return out

    def _partition(self, me: TreeNode, sorts: list[np.ndarray], first: bool = False):
        """rpart's ``partition``: returns (number of splits, subtree risk)."""
        if not first:
            order0 = sorts[0] if len(sorts) else me.rows
            me.yval, me.risk, me.counts = self._eval(order0)
            tempcp = min(me.risk, me.complexity)
        else:
            tempcp = me.risk
        me.stuck = None
        if me.n < self.minsplit or tempcp <= self._alpha or me.number > self._maxnode:
            me.complexity = self._alpha
            return 0, me.risk
        if not self._bsplit(me, sorts):
            me.complexity = self._alpha
            return 0, me.risk
        lsorts, rsorts, lrows, rrows, me.stuck = self._divide(me, sorts)
        # rows order within node: keep by row number (rows is sorted)
        ln = TreeNode(2 * me.number, lrows.size, 0.0, 0.0, complexity=tempcp - self._alpha,
                      rows=lrows)
        self.nodes_[ln.number] = ln
        me.left = ln
        left_split, left_risk = self._partition(ln, lsorts)

        tempcp = (me.risk - left_risk) / (left_split + 1)
        tempcp2 = me.risk - ln.risk
        if tempcp < tempcp2:
            tempcp = tempcp2
        if tempcp > me.complexity:
            tempcp = me.complexity
        rn = TreeNode(2 * me.number + 1, rrows.size, 0.0, 0.0, complexity=tempcp - self._alpha,
                      rows=rrows)
        self.nodes_[rn.number] = rn
        me.right = rn
        right_split, right_risk = self._partition(rn, rsorts)

        tempcp = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
        if rn.complexity > ln.complexity:
            if tempcp > ln.complexity:
                left_risk = ln.risk
                left_split = 0
                tempcp = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
                if tempcp > rn.complexity:
                    right_risk = rn.risk
                    right_split = 0
        elif tempcp > rn.complexity:
            right_split = 0
            right_risk = rn.risk
            tempcp = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
            if tempcp > ln.complexity:
                left_risk = ln.risk
                left_split = 0
        me.complexity = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
        if me.complexity <= self._alpha:
            self._drop_subtree(me)
            return 0, me.risk
        return left_split + right_split + 1, left_risk + right_risk

    def _drop_subtree(self, me: TreeNode) -> None:
        stack = [me.left, me.right]
        while stack:
            nd = stack.pop()
            if nd is None:
                continue
            self.nodes_.pop(nd.number, None)
            stack.extend([nd.left, nd.right])
        me.left = me.right = None
        me.var = None
        me.stuck = None

    # ------------------------------------------------------------------- bsplit
    def _bsplit(self, me: TreeNode, sorts: list[np.ndarray] | np.ndarray) -> bool:
        """rpart's ``bsplit``: the best primary split of ``me`` into its fields; found?"""
        if self._fast:
            return self._bsplit_compiled(me, sorts)
        best = None  # (improve, var, cut, direction, csplit)
        for v, order in enumerate(sorts):
            x = self.x_[order, v]
            ok = ~np.isnan(x)
            if not ok.all():
                order = order[ok]
                x = x[ok]
            k = x.size
            nc = int(self.ncat_[v])
            if k == 0 or (nc == 0 and x[0] == x[k - 1]):
                continue
            y = self.y_[order]
            if self.method == "anova":
                res = _anova_split(y, x, nc, self.minbucket, me.risk)
            else:
                res = _gini_split(y, x, nc, self.minbucket, len(self.classes_), self._aprior)
            improve = res[0]
            if improve > self._iscale:
                self._iscale = improve
            if improve > self._iscale * 1e-10:
                if best is None or improve > best[0]:
                    best = (improve, v, res[1], res[2], res[3])
        if best is None:
            return False
        me.improve, me.var, me.cut, me.direction, me.csplit = best
        return True

    def _bsplit_compiled(self, me: TreeNode, sorts: np.ndarray) -> bool:
        if self.method == "anova":
            res = _rpart_kernels.best_split_anova(self._xt, self.y_, sorts, self.ncat_,
                                                  self.minbucket, me.risk, self._iscale,
                                                  self._csplit)
        else:
            res = _rpart_kernels.best_split_gini(self._xt, self.y_, sorts, self.ncat_,
                                                 self.minbucket, len(self.classes_),
                                                 self._aprior, self._iscale, self._csplit)
        found, improve, var, cut, direction, self._iscale = res
        if not found:
            return False
        nc = int(self.ncat_[var])
        me.improve, me.var = improve, int(var)
        if nc:
            me.cut, me.direction, me.csplit = np.nan, 0, self._csplit[:nc].copy()
        else:
            me.cut, me.direction, me.csplit = cut, int(direction), None
        return True

    def _divide(self, me: TreeNode, sorts: list[np.ndarray] | np.ndarray) -> tuple:
        """Send the rows of ``me`` down its split (with surrogates).

        Returns the children's sort orders, the left and right rows and the rows
        stuck at ``me``; sets ``me.majority`` and ``me.surrogates``.
        """
        if self._fast:
            return self._divide_compiled(me, sorts)
        goes = self._nodesplit(me, sorts)  # -1 left, 1 right, 0 stuck
        lsorts = [s[goes[s] == LEFT] for s in sorts]
        rsorts = [s[goes[s] == RIGHT] for s in sorts]
        rows = me.rows
        return lsorts, rsorts, rows[goes[rows] == LEFT], rows[goes[rows] == RIGHT], \
            rows[goes[rows] == 0]

    def _divide_compiled(self, me: TreeNode, sorts: np.ndarray) -> tuple:
        svar, scut, sdir, scs, sagree, sadj = self._sur
        csplit = self._csplit if me.csplit is None else me.csplit
        majority, nsur, lsorts, rsorts, lrows, rrows, stuck = _rpart_kernels.divide_node(
            self._xt, sorts, me.rows, self.ncat_, me.var, float(me.cut), me.direction, csplit,
            self.maxsurrogate, self.usesurrogate, self._goes, svar, scut, sdir, scs, sagree,
            sadj)
        me.majority = int(majority)
        me.surrogates = []
        for i in range(nsur):
            nc = int(self.ncat_[svar[i]])
            me.surrogates.append(Surrogate(
                int(svar[i]), float(scut[i]), int(sdir[i]), scs[i, :nc].copy() if nc else None,
                float(sagree[i]), float(sadj[i])))
        return lsorts, rsorts, lrows, rrows, stuck

    def _nodesplit(self, me: TreeNode, sorts: list[np.ndarray]) -> np.ndarray:
        """Direction (-1/1/0) of every row of the node, indexed by row number.

        rpart's ``surrogate`` + ``nodesplit``: rows whose primary split value is
        missing are sent by the first surrogate whose value is present (and, for
        a factor surrogate, whose level has a direction); with ``usesurrogate =
        2`` the rest follow the primary split's majority (``lastsurrogate``).
        """
        goes = np.zeros(self.y_.size, dtype=np.int64)
        rows = me.rows
        d = _directions(self.x_[rows, me.var], me)
        goes[rows] = d
        # majority direction among rows with a determined direction
        lcount = int(np.sum(d == LEFT))
        rcount = int(np.sum(d == RIGHT))
        me.majority = RIGHT if lcount < rcount else (LEFT if lcount > rcount else 0)
        me.surrogates = []
        if self.maxsurrogate > 0:
            me.surrogates = self._surrogates(me, sorts, goes, lcount, rcount)
        undecided = rows[d == 0]
        if undecided.size == 0 or self.usesurrogate == 0:
            return goes
        for sp in me.surrogates:
            if undecided.size == 0:
                break
            ds = _directions(self.x_[undecided, sp.var], sp)
            goes[undecided] = ds
            undecided = undecided[ds == 0]
        if self.usesurrogate == 2 and me.majority != 0 and undecided.size:
            goes[undecided] = me.majority
        return goes

    def _surrogates(self, me: TreeNode, sorts: list[np.ndarray], goes: np.ndarray,
                    lcount: int, rcount: int) -> list[Surrogate]:
        """rpart's ``surrogate`` / ``choose_surg`` (surrogatestyle = 0)."""
        total = float(lcount + rcount)
        majority = float(max(lcount, rcount)) / total
        found: list[Surrogate] = []
        for v, order in enumerate(sorts):
            if v == me.var:
                continue
            x = self.x_[order, v]
            ok = ~np.isnan(x)
            xs = x[ok]
            ys = goes[order[ok]]
            if int(self.ncat_[v]) == 0:
                res = _surrogate_numeric(xs, ys)
            else:
                res = _surrogate_factor(xs, ys, int(self.ncat_[v]))
            if res is None:
                continue
            agree, cut, direction, csplit = res
            agreement = agree / total
            adj = (agreement - majority) / (1.0 - majority)
            if adj <= 1e-10:
                continue
            sp = Surrogate(v, cut, direction, csplit, agreement, adj)
            # insert_split: after the entries with an agreement >= this one
            pos = 0
            while pos < len(found) and not agreement > found[pos].agreement:
                pos += 1
            if pos >= self.maxsurrogate:
                continue
            found.insert(pos, sp)
            del found[self.maxsurrogate:]
        return found

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
        if _use_kernels():
            node_of = np.empty(xm.shape[0], dtype=np.int64)
            _kernels.route(np.ascontiguousarray(xm), *self._flat_tree(), int(self.usesurrogate),
                           node_of)
            return node_of
        node_of = np.ones(xm.shape[0], dtype=np.int64)
        stack = [(self.nodes_[1], np.arange(xm.shape[0], dtype=np.int64))]
        while stack:
            nd, idx = stack.pop()
            if nd.is_leaf or idx.size == 0:
                node_of[idx] = nd.number
                continue
            d = _directions(xm[idx, nd.var], nd)
            if self.usesurrogate > 0:
                for sp in nd.surrogates:
                    und = np.flatnonzero(d == 0)
                    if und.size == 0:
                        break
                    d[und] = _directions(xm[idx[und], sp.var], sp)
            if self.usesurrogate == 2 and nd.left.n != nd.right.n:
                d[d == 0] = LEFT if nd.left.n > nd.right.n else RIGHT
            node_of[idx[d == 0]] = nd.number
            stack.append((nd.left, idx[d == LEFT]))
            stack.append((nd.right, idx[d == RIGHT]))
        return node_of

    def _flat_tree(self) -> tuple:
        """The fitted tree as arrays for the compiled routing (built once per fit)."""
        flat = getattr(self, "_flat", None)
        if flat is not None and flat[0] is self.nodes_:
            return flat[1]
        nodes = [self.nodes_[1]]
        slot = {id(nodes[0]): 0}
        for nd in nodes:  # breadth first; children get slots as they are met
            for child in (nd.left, nd.right):
                if child is not None and id(child) not in slot:
                    slot[id(child)] = len(nodes)
                    nodes.append(child)
        k = len(nodes)
        primary = np.full(k, -1, dtype=np.int64)
        sur_start = np.zeros(k, dtype=np.int64)
        sur_count = np.zeros(k, dtype=np.int64)
        child = np.zeros((k, 2), dtype=np.int64)
        left_n = np.zeros(k, dtype=np.int64)
        right_n = np.zeros(k, dtype=np.int64)
        number = np.array([nd.number for nd in nodes], dtype=np.int64)
        var, cut, direction, cat, dirs = [], [], [], [], []

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
        cnt = np.vstack([self.nodes_[k].counts for k in numbers])
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
            raise RuntimeError("RpartTree is not fitted yet; call fit(X, y) first")

    def to_frame(self) -> pd.DataFrame:
        """One row per node: n, risk (deviance), yval, split variable and cut."""
        self._check_fitted()
        rows = []
        for k in sorted(self.nodes_):
            nd = self.nodes_[k]
            var = None if nd.is_leaf else self.feature_names_[nd.var]
            rows.append({"node": k, "var": var or "<leaf>", "n": nd.n, "dev": nd.risk,
                         "yval": nd.yval, "complexity": nd.complexity,
                         "cut": np.nan if nd.is_leaf else nd.cut})
        return pd.DataFrame(rows).set_index("node")


# ---------------------------------------------------------------------------- helpers
def _factor_levels(col: pd.Series) -> list | None:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return list(col.cat.categories)
    if pd.api.types.is_bool_dtype(col):
        return [False, True]
    if pd.api.types.is_numeric_dtype(col):
        return None
    return sorted(col.dropna().unique().tolist(), key=str)


def _as_labels(col: pd.Series) -> np.ndarray:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.astype(object))
    return col.to_numpy(dtype=object)


def _directions(x: np.ndarray, nd: TreeNode) -> np.ndarray:
    d = np.zeros(x.size, dtype=np.int64)
    ok = ~np.isnan(x)
    if nd.csplit is None:
        lt = x < nd.cut
        d[ok & lt] = nd.direction
        d[ok & ~lt] = -nd.direction
    else:
        codes = np.where(ok, x, 1).astype(np.int64) - 1
        d[ok] = nd.csplit[codes[ok]]
    return d


def _surrogate_numeric(x: np.ndarray, y: np.ndarray):
    """choose_surg for a numeric variable: (agree, cut, direction, None) or None.

    ``x`` holds the node's non-missing values in rpart's sort order, ``y`` the
    primary direction of those rows (LEFT, RIGHT, or 0 for a missing primary).
    A boundary is considered between two different adjacent values with at
    least two directed rows on each side; ``x < cut`` going RIGHT is checked
    before going LEFT, and only strictly better agreements replace the best.
    """
    isl = y == LEFT
    isr = y == RIGHT
    ll0 = int(isl.sum())
    rl0 = int(isr.sum())
    if ll0 + rl0 < 4 or x.size < 2:
        return None
    lb = np.concatenate([[0], np.cumsum(isl)[:-1]])  # directed-left rows before k
    rb = np.concatenate([[0], np.cumsum(isr)[:-1]])
    k = np.arange(x.size)
    cand = (k >= 1) & (lb + rb >= 2) & ((ll0 - lb) + (rl0 - rb) >= 2)
    cand[1:] &= x[1:] != x[:-1]
    idx = np.flatnonzero(cand)
    if idx.size == 0:
        return None
    a_right = (ll0 - lb[idx]) + rb[idx]  # x < cut goes right: agree = ll + rr
    a_left = lb[idx] + (rl0 - rb[idx])
    agree = max(ll0, rl0)
    best = None
    if max(int(a_right.max()), int(a_left.max())) <= agree:
        return None
    for kk, ar, al in zip(idx.tolist(), a_right.tolist(), a_left.tolist()):
        if ar > agree:
            agree, best = ar, (kk, RIGHT)
        elif al > agree:
            agree, best = al, (kk, LEFT)
    kk, direction = best
    return float(agree), (x[kk] + x[kk - 1]) / 2, direction, None


def _surrogate_factor(x: np.ndarray, y: np.ndarray, nc: int):
    """choose_surg for a factor: each level goes to its better side."""
    codes = x.astype(np.int64) - 1
    left = np.bincount(codes[y == LEFT], minlength=nc)
    right = np.bincount(codes[y == RIGHT], minlength=nc)
    defdir = LEFT if left.sum() > right.sum() else RIGHT
    csplit = np.zeros(nc, dtype=np.int64)
    agree = 0
    lcount = rcount = 0
    for i in range(nc):
        if left[i] == 0 and right[i] == 0:
            continue
        if left[i] < right[i] or (left[i] == right[i] and defdir == RIGHT):
            agree += int(right[i])
            csplit[i] = RIGHT
            lcount += int(left[i])
            rcount += int(right[i])
        else:
            agree += int(left[i])
            csplit[i] = LEFT
            lcount += int(right[i])
            rcount += int(left[i])
    if not (lcount > 1 and rcount > 1):
        return None
    return float(agree), np.nan, 0, csplit


def _anova_split(y, x, nc, edge, myrisk):
    """rpart's ``anova`` choose function: (improve, cut, direction, csplit)."""
    n = y.size
    grandmean = _seqsum(y) / n
    if nc == 0:
        dev = y - grandmean
        left = np.cumsum(dev)
        i = np.arange(n)
        lw = (i + 1).astype(float)
        rw = float(n) - lw
        cand = (i >= edge - 1) & (i <= n - edge - 1)
        cand[:-1] &= x[1:] != x[:-1]
        cand[-1] = False
        if not cand.any():
            return 0.0, np.nan, 0, None
        sq = left * left
        with np.errstate(divide="ignore", invalid="ignore"):
            temp = sq / lw + sq / rw
        temp = np.where(cand, temp, 0.0)
        where = int(np.argmax(temp))
        best = float(temp[where])
        if best <= 0:
            return 0.0, np.nan, 0, None
        direction = LEFT if left[where] < -left[where] else RIGHT
        return best / myrisk, (x[where] + x[where + 1]) / 2, direction, None
    codes = x.astype(np.int64) - 1
    sums = np.zeros(nc)
    np.add.at(sums, codes, y - grandmean)
    countn = np.bincount(codes, minlength=nc)
    present = countn > 0
    means = np.zeros(nc)
    means[present] = sums[present] / countn[present]
    order = [j for j in np.argsort(means, kind="stable") if present[j]]
    tsplit = np.where(present, RIGHT, 0)
    csplit = None
    best = 0.0
    left_sum = 0.0
    left_n = 0
    for j in order:
        tsplit[j] = LEFT
        left_n += int(countn[j])
        right_n = n - left_n
        left_sum += sums[j]
        right_sum = -left_sum
        if left_n >= edge and right_n >= edge:
            temp = left_sum * left_sum / left_n + right_sum * right_sum / right_n
            if temp > best:
                best = temp
                csplit = -tsplit.copy() if left_sum > right_sum else tsplit.copy()
    return best / myrisk, np.nan, 0, csplit


def _gini_impurity(p):
    return p * (1 - p)


def _gini_split(y, x, nc, edge, numclass, aprior):
    """rpart's ``gini`` choose function: (improve, cut, direction, csplit)."""
    n = y.size
    aw = aprior[y]
    right = np.bincount(y, minlength=numclass).astype(float)
    rwt = _seqsum(aw)
    total_ss = 0.0
    for i in range(numclass):
        temp = aprior[i] * right[i] / rwt
        total_ss += rwt * _gini_impurity(temp)
    best = total_ss
    if nc == 0:
        # cumulative left counts per class after row i
        onehot = np.zeros((n, numclass))
        onehot[np.arange(n), y] = 1.0
        left = np.cumsum(onehot, axis=0)
        rightm = right[None, :] - left
        lwt = np.cumsum(aw)
        rwtv = np.subtract.accumulate(np.concatenate([[rwt], aw]))[1:]
        i = np.arange(n)
        cand = (i >= edge - 1) & (i <= n - edge - 1)
        cand[:-1] &= x[1:] != x[:-1]
        cand[-1] = False
        idx = np.flatnonzero(cand)
        if idx.size == 0:
            return 0.0, np.nan, 0, None
        temp = np.zeros(idx.size)
        lmean = np.zeros(idx.size)
        rmean = np.zeros(idx.size)
        lw = lwt[idx]
        rw = rwtv[idx]
        for j in range(numclass):
            p = aprior[j] * left[idx, j] / lw
            temp += lw * _gini_impurity(p)
            lmean += p * j
            p = aprior[j] * rightm[idx, j] / rw
            temp += rw * _gini_impurity(p)
            rmean += p * j
        better = np.flatnonzero(temp < best)
        if better.size == 0:
            return 0.0, np.nan, 0, None
        # first index where temp reaches its minimum among strict improvements
        k = better[np.argmin(temp[better])]
        best_t = temp[k]
        where = idx[k]
        direction = LEFT if lmean[k] < rmean[k] else RIGHT
        improve = total_ss - best_t
        if improve <= 0:
            return 0.0, np.nan, 0, None
        return improve, (x[where] + x[where + 1]) / 2, direction, None
    codes = x.astype(np.int64) - 1
    ccnt = np.zeros((numclass, nc))
    np.add.at(ccnt, (y, codes), 1.0)
    awt = np.zeros(nc)
    np.add.at(awt, codes, aw)
    countn = np.bincount(codes, minlength=nc)
    tsplit = np.where(awt == 0, 0, RIGHT)
    rate = np.zeros(nc)
    nz = awt != 0
    rate[nz] = ccnt[0, nz] / awt[nz]
    left = np.zeros(numclass)
    rightv = right.copy()
    lwt = 0.0
    rtot, ltot = n, 0
    csplit = None
    for i in _gray_sequence(nc, countn, rate if numclass == 2 else None):
        if tsplit[i] == LEFT:
            tsplit[i] = RIGHT
            rwt += awt[i]
            lwt -= awt[i]
            rtot += countn[i]
            ltot -= countn[i]
            rightv += ccnt[:, i]
            left -= ccnt[:, i]
        else:
            tsplit[i] = LEFT
            rwt -= awt[i]
            lwt += awt[i]
            rtot -= countn[i]
            ltot += countn[i]
            rightv -= ccnt[:, i]
            left += ccnt[:, i]
        if ltot >= edge and rtot >= edge:
            temp = 0.0
            lmean = rmean = 0.0
            for j in range(numclass):
                p = aprior[j] * left[j] / lwt
                temp += lwt * _gini_impurity(p)
                lmean += p * j
                p = aprior[j] * rightv[j] / rwt
                temp += rwt * _gini_impurity(p)
                rmean += p * j
            if temp < best:
                best = temp
                csplit = tsplit.copy() if lmean < rmean else -tsplit.copy()
    improve = total_ss - best
    if csplit is None:
        return 0.0, np.nan, 0, None
    return improve, np.nan, 0, csplit


def _gray_sequence(nc: int, countn: np.ndarray, rate: np.ndarray | None):
    """Items changing sides, in rpart's graycode order."""
    if rate is not None:  # ordered: empty levels first, then by rate (stable)
        present = [j for j in range(nc) if countn[j] > 0]
        order = sorted(present, key=lambda j: rate[j])  # sorted() is stable
        yield from order
        return
    gray = [1 if countn[i] != 0 else 0 for i in range(nc)]
    while True:
        i = 0
        while i < nc:
            if gray[i] == 1:
                gray[i] = 2
                break
            if gray[i] == 2:
                gray[i] = 1
            i += 1
        if i >= nc:
            return
        yield i
