"""Routing through a fitted :class:`~idrisk.synthesis.rpart_tree.RpartTree` by table look-up.

Where a row goes in a tree depends only on how each of its predictor values compares with
the tree's splits (primary and surrogate): a factor value by its level (or missing), a
numeric value by the number of the variable's cuts at or below it (or missing): ``x < cut``
has the same answer for every value between two neighbouring cuts. :class:`RouteTable` routes
one representative of every combination of these cells once (the compiled routing of
:meth:`RpartTree.apply_encoded`) and then answers any row with an index computation and a
look-up, instead of a walk down the tree per row: the synthesizer routes m datasets through
the same tree.

Representatives: level k for a factor's cell k, NaN for the missing cell; for a numeric
variable with sorted distinct cuts ``c_1 < ... < c_K``, ``-inf`` for the cell below ``c_1``,
``c_k`` for the cell ``[c_k, c_{k+1})`` and NaN for missing values.
"""

from __future__ import annotations

import numpy as np

from . import _kernels

__all__ = ["RouteTable"]


class RouteTable:
    """The node reached by every cell combination of a fitted tree's predictors.

    Made by :meth:`build`; :meth:`apply` routes encoded rows.
    """

    def __init__(self, factor_levels: list[int], cuts: list[np.ndarray],
                 table: np.ndarray, strides: np.ndarray) -> None:
        self._levels = np.array(factor_levels, dtype=np.int64)  # per predictor (0: numeric)
        self._cuts = np.concatenate([np.empty(0), *cuts])  # a numeric's sorted distinct cuts
        self._cut_start = np.cumsum([0] + [c.size for c in cuts]).astype(np.int64)
        self._table = table
        self._strides = strides

    @classmethod
    def build(cls, tree, max_cells: int) -> RouteTable | None:
        """The table of ``tree`` (fitted), or None if it would have more than ``max_cells``
        cells (the product of the predictors' cell counts)."""
        flat = tree._flat_tree()
        split_var, split_cut, split_cat = flat[10], flat[11], flat[13]
        levels: list[int] = []
        cuts: list[np.ndarray] = []
        reps: list[np.ndarray] = []
        for j, name in enumerate(tree.feature_names_):
            lv = tree.levels_[name]
            if lv is not None:
                levels.append(len(lv))
                cuts.append(np.empty(0))
                reps.append(np.append(np.arange(1.0, len(lv) + 1.0), np.nan))
            else:
                c = np.unique(split_cut[(split_var == j) & (split_cat < 0)])
                levels.append(0)
                cuts.append(c)
                reps.append(np.concatenate([[-np.inf], c, [np.nan]]))
        dims = np.array([r.size for r in reps], dtype=np.int64)
        cells = 1
        for d in dims.tolist():
            cells *= d
            if cells > max_cells:
                return None
        strides = np.ones(dims.size, dtype=np.int64)  # C order: the last predictor fastest
        for j in range(dims.size - 2, -1, -1):
            strides[j] = strides[j + 1] * dims[j + 1]
        grid = np.empty((cells, dims.size))
        cell = np.arange(cells, dtype=np.int64)
        for j in range(dims.size):
            grid[:, j] = reps[j][(cell // strides[j]) % dims[j]]
        return cls(levels, cuts, tree.apply_encoded(grid), strides)

    def apply(self, xm: np.ndarray) -> np.ndarray:
        """The node number where each row of ``xm`` (encoded as for
        :meth:`RpartTree.apply_encoded`) stops: the same as the tree's own routing."""
        out = np.empty(xm.shape[0], dtype=np.int64)
        _kernels.route_cells(np.ascontiguousarray(xm, dtype=np.float64), self._levels,
                             self._cuts, self._cut_start, self._strides, self._table, out)
        return out
