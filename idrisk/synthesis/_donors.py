"""syn.cart's donor draws: the training rows of a fitted tree grouped by node, and the random
walk from internal nodes down to leaves (:mod:`idrisk.synthesis.cart_synthesis`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import _kernels
from .rng import RStream
from .rpart_tree import RpartTree

__all__: list[str] = []


def _walk_to_leaves(nodes: np.ndarray, tree: RpartTree, stream) -> np.ndarray:
    """syn.cart's random walk from internal nodes down to leaves."""
    nodes = nodes.copy()
    while True:
        uniq = pd.unique(nodes)
        internal = [v for v in uniq if not tree.is_leaf(v)]
        if not internal:
            return nodes
        for v in internal:
            step = int(stream.unif_index(2, 1)[0])
            nodes[nodes == v] = 2 * v + step


class _LeafDonors:
    """The training rows of a fitted tree grouped by node, for syn.cart's donor draws.

    Built once per tree. ``values`` holds the response of the fitted rows (in
    ``tree.where_`` order).
    """

    def __init__(self, tree: RpartTree, values: np.ndarray) -> None:
        where = tree.where_.to_numpy()
        self.values = values
        self.order = np.argsort(where, kind="stable")
        self.nodes, self.starts, self.counts = np.unique(
            where[self.order], return_index=True, return_counts=True)
        self.leaves = np.asarray(tree.leaves_, dtype=np.int64)
        self._tables: tuple | None = None  # hash tables of leaves and nodes (compiled path)

    def _lookup(self, which: int, nodes: np.ndarray) -> tuple[np.ndarray, int]:
        """Positions of ``nodes`` among the leaves (0) or donor nodes (1), -1 if absent,
        and the number absent (compiled hash look-up)."""
        if self._tables is None:
            self._tables = (_kernels.hash_build(self.leaves), _kernels.hash_build(self.nodes))
        pos = np.empty(nodes.size, dtype=np.int64)
        keys, positions, bits = self._tables[which]
        missing = _kernels.hash_lookup(keys, positions, bits, nodes, pos)
        return pos, missing

    def all_leaves(self, nodes: np.ndarray) -> bool:
        """Whether every entry of ``nodes`` is a leaf of the tree."""
        return self._lookup(0, nodes)[1] == 0

    def draw(self, nodes: np.ndarray, stream) -> np.ndarray:
        """The donors' values drawn by :meth:`positions`."""
        return self.values[self.positions(nodes, stream)]

    def positions(self, nodes: np.ndarray, stream) -> np.ndarray:
        """For each node (first appearance order) draw donors uniformly with replacement.

        Node by node, in the order in which the nodes first appear in ``nodes``, one
        ``unif_index(donors, targets)`` call picks the donors of that node's targets
        (in row order); returns the donors' positions in ``values``.
        """
        if isinstance(stream, RStream):  # grouping and draws in one compiled call
            return stream._donor_draws(self._group(nodes), self.counts, self.starts, self.order)
        seq, sizes, targets = _kernels.first_appearance_groups(self._group(nodes),
                                                               self.nodes.size)
        ns = self.counts[seq]
        batch = getattr(stream, "unif_index_groups", None)
        if batch is None:  # one call per node, in the same order
            parts = [stream.unif_index(int(c), int(tc)) for c, tc in zip(ns, sizes)]
            drawn = np.concatenate(parts)
        else:  # the same draws, in one (compiled) call
            drawn = batch(ns, sizes)
        out_pos = np.empty(nodes.size, dtype=np.int64)
        out_pos[targets] = self.order[np.repeat(self.starts[seq], sizes) + drawn]
        return out_pos

    def _group(self, nodes: np.ndarray) -> np.ndarray:
        """The donor group (position among the donor nodes) of every target row."""
        k, missing = self._lookup(1, nodes)
        if missing:
            raise RuntimeError(f"no donors in node {nodes[k < 0][0]}")
        return k
