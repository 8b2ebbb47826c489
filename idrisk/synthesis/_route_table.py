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

__all__ = ["RouteTable"]


class RouteTable:
    """The node reached by every cell combination of a fitted tree's predictors.

    Made by :meth:`build`; :meth:`apply` routes encoded rows, :meth:`codes` and :meth:`nodes`
    do it in two steps (the codes of rows that repeat can be kept).
    """

    def __init__(self, factor_levels: list[int], cuts: list[np.ndarray],
                 table: np.ndarray, strides: np.ndarray) -> None:
        self._levels = factor_levels  # per predictor: number of levels (0: numeric)
        self._cuts = cuts  # per numeric predictor: its sorted distinct cuts
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

    def codes(self, j: int, x: np.ndarray) -> np.ndarray:
        """The cell codes of the values ``x`` of predictor ``j`` (encoded as for
        :meth:`RpartTree.apply_encoded`)."""
        miss = np.isnan(x)
        nc = self._levels[j]
        if nc:
            return np.where(miss, nc, np.where(miss, 1.0, x) - 1).astype(np.int64)
        c = self._cuts[j]
        code = np.searchsorted(c, x, side="right")
        if miss.any():
            code[miss] = c.size + 1
        return code

    def nodes(self, codes: list[np.ndarray]) -> np.ndarray:
        """The node where rows with these cell codes (one array per predictor) stop."""
        idx = np.zeros(codes[0].size if codes else 1, dtype=np.int64)
        for j, code in enumerate(codes):
            idx += code * self._strides[j]
        return self._table[idx]

    def apply(self, xm: np.ndarray) -> np.ndarray:
        """The node number where each row of ``xm`` (encoded as for
        :meth:`RpartTree.apply_encoded`) stops: the same as the tree's own routing."""
        return self.nodes([self.codes(j, xm[:, j]) for j in range(xm.shape[1])])
